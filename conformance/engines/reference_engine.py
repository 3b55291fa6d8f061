"""The ``reference`` engine: the conformance cases against :class:`reference.table.Table`.

Writes are ``Table.write_and_commit`` (which, like Java's batch writer, compacts the written
buckets of tables that need it before committing); changes are the raw incremental read of
``incremental-between = "<from>,<to>"`` (what a streaming reader sees); system tables use Paimon
0.9's column sets (the expectations are recorded from 0.9); expiration runs with the case's
retention in place of the table's options.

Format tables (``type = format-table``) have no Paimon metadata: the adapter keeps each one's
schema as a catalog would (``reference.format_table``) and writes and reads its plain files.

The maintenance API of ``Table`` is recent: a method that is missing disables the capabilities
it backs (:data:`OPTIONAL_METHODS`), so the cases needing it are skipped, not failed.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.engines import base as b
from conformance.engines.base import (
    AlterChange,
    Change,
    EngineError,
    Filter,
    FilterAnd,
    FilterLeaf,
    Rows,
    TimeTravel,
)
from reference import errors, format_table
from reference.catalog.base import Identifier
from reference.catalog.jdbc import URI_OPTION as JDBC_URI_OPTION
from reference.catalog.jdbc import JdbcCatalog
from reference.catalog.views import View, ViewAlreadyExistsError, ViewNotFoundError
from reference.io import LocalFileIO
from reference.spec import predicate as p
from reference.spec import schema as s
from reference.spec import types as t
from reference.spec.aggregate_kind import AggregateKind
from reference.spec.data import RowKind, Value
from reference.store import expire as store_expire
from reference.store import metadata, query
from reference.store.incremental import ChangeView
from reference.system_tables import SystemTableVersion
from reference.table import Table

NAME = "reference"
UNSUPPORTED_TYPES = (t.TypeRoot.VARIANT, t.TypeRoot.BLOB)
"""Types the case runner cannot encode (the Java value encoding has no form for them)."""

BASE_CAPABILITIES = frozenset(
    {
        b.CAP_WRITE,
        b.CAP_WRITE_ROW_KINDS,
        b.CAP_OVERWRITE,
        b.CAP_ALTER,
        *b.READ_CAPABILITIES,
        *b.LAYOUT_CAPABILITIES,
        b.CAP_BUCKET_CROSS_PARTITION,
        b.CAP_SEQUENCE_GROUP,
        *(b.file_index_capability(i) for i in b.FILE_INDEX_TYPES),
        b.merge_engine_capability("deduplicate"),
        b.merge_engine_capability("partial-update"),
        b.merge_engine_capability("aggregation"),
        b.changelog_capability("input"),
        *(b.format_capability(f) for f in b.FILE_FORMATS),
        b.CAP_FORMAT_TABLE,
        *(b.format_table_capability(f) for f in b.FORMAT_TABLE_FORMATS),
        *(b.aggregate_capability(kind.value) for kind in AggregateKind),
        b.aggregate_capability("first_not_null_value"),
        b.CAP_VIEW,
    }
) | b.all_type_capabilities(UNSUPPORTED_TYPES)

COMPACTION_CAPABILITIES = frozenset(
    {
        b.CAP_COMPACT,
        b.CAP_DELETION_VECTORS,
        b.merge_engine_capability("first-row"),
        b.changelog_capability("lookup"),
        b.changelog_capability("full-compaction"),
    }
)

OPTIONAL_METHODS: Mapping[str, frozenset[str]] = {
    "compact": COMPACTION_CAPABILITIES,
    "create_tag": frozenset({b.CAP_TAG}),
    "expire": frozenset({b.CAP_EXPIRE}),
    "read_changes": frozenset({b.CAP_READ_CHANGES}),
    "system_table": frozenset(b.system_table_capability(n) for n in b.SYSTEM_TABLES),
}
"""``Table`` methods of the maintenance API, and what each one enables."""
INCREMENTAL_BETWEEN = "incremental-between"
VIEW_CATALOG_FILE = "views-catalog.sqlite"
VIEW_WAREHOUSE = "views-warehouse"
VIEW_DATABASE = "default"


def compute_capabilities(table_class: type = Table) -> frozenset[str]:
    """The base set plus what the present optional ``Table`` methods enable."""
    capabilities = set(BASE_CAPABILITIES)
    for method, enabled in OPTIONAL_METHODS.items():
        if hasattr(table_class, method):
            capabilities |= enabled
    return frozenset(capabilities)


def create_format_table(
    path: str,
    fields: Sequence[t.DataField],
    partition_keys: Sequence[str],
    primary_keys: Sequence[str],
    options: Mapping[str, str],
) -> format_table.FormatTable:
    """The format table a catalog would record for these arguments (``path`` its
    directory)."""
    schema = s.compute_table_schema(
        0,
        fields,
        partition_keys=partition_keys,
        primary_keys=primary_keys,
        options={**options, format_table.PATH_OPTION: path},
        comment=None,
        time_millis=time.time_ns() // 1_000_000,
    )
    return format_table.compute_format_table(schema)


def classify(error: Exception) -> Exception:
    """The reference's typed errors as :class:`EngineError` codes; others unchanged."""
    if isinstance(error, (errors.SnapshotNotFoundError, errors.TableNotFoundError)):
        return EngineError(b.ERROR_NOT_FOUND, str(error))
    return error


# --------------------------------------------------------------------------------------------
# Conversions
# --------------------------------------------------------------------------------------------


def to_predicate(value: Filter) -> p.Predicate:
    if isinstance(value, FilterLeaf):
        return p.Leaf(p.PredicateOp(value.op), value.field, value.literals)
    children = tuple(to_predicate(child) for child in value.children)
    return p.And(children) if isinstance(value, FilterAnd) else p.Or(children)


def _move(change: Mapping[str, Any]) -> s.Move | None:
    if change.get("first"):
        return s.Move(change["name"], s.MoveKind.FIRST)
    if change.get("after"):
        return s.Move(change["name"], s.MoveKind.AFTER, change["after"])
    return None


def to_schema_change(change: AlterChange) -> s.SchemaChange:
    """A case's alter change as a reference :class:`~reference.spec.schema.SchemaChange`."""
    kind = change["kind"]
    path = (change["name"],) if "name" in change else ()
    if kind == "add_column":
        data_type = t.parse_data_type(change["type"])
        return s.AddColumn(path, data_type, change.get("comment"), _move(change))
    if kind == "drop_column":
        return s.DropColumn(path)
    if kind == "rename_column":
        return s.RenameColumn(path, change["new_name"])
    if kind == "update_column_type":
        return s.UpdateColumnType(path, t.parse_data_type(change["type"]))
    if kind == "update_column_nullability":
        return s.UpdateColumnNullability(path, bool(change["nullable"]))
    if kind == "update_column_position":
        move = _move(change) or s.Move(change["name"], s.MoveKind.LAST)
        return s.UpdateColumnPosition(move)
    if kind == "set_option":
        return s.SetOption(change["key"], str(change["value"]))
    if kind == "remove_option":
        return s.RemoveOption(change["key"])
    raise ValueError(f"unknown alter change {kind!r}")


def compute_expire_config(
    options: Any,
    retain_max: int | None,
    retain_min: int | None,
    time_retained_millis: int | None,
) -> store_expire.ExpireConfig:
    """The table's retention with the given limits in place (changelog retention follows the
    snapshot retention, as Java's ``ExpireConfig.Builder`` does when it is not set)."""
    config = store_expire.compute_expire_config(options)
    config = dataclasses.replace(
        config,
        retain_max=config.retain_max if retain_max is None else retain_max,
        retain_min=config.retain_min if retain_min is None else retain_min,
        time_retained_millis=(
            config.time_retained_millis if time_retained_millis is None else time_retained_millis
        ),
    )
    return dataclasses.replace(
        config,
        changelog_retain_max=config.retain_max,
        changelog_retain_min=config.retain_min,
        changelog_time_retained_millis=config.time_retained_millis,
    )


# --------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------


class ReferenceEngine:
    """:class:`reference.table.Table` on the local file system."""

    name = NAME
    timestamp_precision = 9

    def __init__(self) -> None:
        self.capabilities = compute_capabilities()
        self._file_io = LocalFileIO()
        self._format_tables: dict[str, format_table.FormatTable] = {}
        self._view_catalogs: dict[str, JdbcCatalog] = {}

    def _table(self, path: str) -> Table:
        return Table.open(self._file_io, path)

    def create_table(
        self,
        path: str,
        fields: Sequence[t.DataField],
        partition_keys: Sequence[str],
        primary_keys: Sequence[str],
        options: Mapping[str, str],
    ) -> None:
        try:
            if format_table.is_format_table(options):
                table = create_format_table(path, fields, partition_keys, primary_keys, options)
                self._file_io.mkdirs(path)
                self._format_tables[path] = table
                return
            Table.create(
                self._file_io,
                path,
                fields,
                partition_keys=partition_keys,
                primary_keys=primary_keys,
                options=options,
            )
        except (errors.SpecViolation, errors.InvalidOptionError, errors.UnsupportedFeature) as e:
            raise EngineError(b.ERROR_INVALID_TABLE, str(e)) from e

    def write(
        self, path: str, rows: Sequence[Change], overwrite: Mapping[str, Value] | None = None
    ) -> int | None:
        if path in self._format_tables:
            return self._write_format_table(path, rows, overwrite)
        table = self._table(path)
        try:
            table.write_and_commit(
                [row for _, row in rows], [kind for kind, _ in rows], overwrite=overwrite
            )
        except errors.SpecViolation as error:
            raise EngineError(b.ERROR_INVALID_WRITE, str(error)) from error
        latest = table.latest_snapshot()
        return None if latest is None else latest.id

    def _write_format_table(
        self, path: str, rows: Sequence[Change], overwrite: Mapping[str, Value] | None
    ) -> None:
        try:
            format_table.write_format_table(
                self._file_io,
                self._format_tables[path],
                [row for _, row in rows],
                overwrite=overwrite is not None,
                static_partition=overwrite or None,
            )
        except errors.SpecViolation as error:
            raise EngineError(b.ERROR_INVALID_WRITE, str(error)) from error

    def compact(self, path: str, full: bool) -> int | None:
        table = self._table(path)
        table.compact(full=full)
        latest = table.latest_snapshot()
        return None if latest is None else latest.id

    def alter(self, path: str, changes: Sequence[AlterChange]) -> None:
        try:
            self._table(path).alter([to_schema_change(c) for c in changes])
        except (errors.SpecViolation, errors.InvalidOptionError, errors.UnsupportedFeature) as e:
            raise EngineError(b.ERROR_INVALID_TABLE, str(e)) from e

    def create_tag(self, path: str, name: str, snapshot_id: int | None) -> None:
        try:
            self._table(path).create_tag(name, snapshot_id)
        except Exception as error:
            raise classify(error) from error

    def expire(
        self,
        path: str,
        retain_max: int | None,
        retain_min: int | None,
        time_retained_millis: int | None,
    ) -> None:
        options = self._table(path).schema().core_options
        config = compute_expire_config(options, retain_max, retain_min, time_retained_millis)
        store_expire.expire_snapshots(self._file_io, path, config)

    def read(
        self,
        path: str,
        travel: TimeTravel,
        projection: Sequence[str] | None,
        filter: Filter | None,
    ) -> Rows:
        if path in self._format_tables:
            return self._read_format_table(path, projection, filter)
        try:
            result = self._table(path).read(
                query.TimeTravel(travel.snapshot_id, travel.tag, travel.timestamp_millis),
                None if filter is None else to_predicate(filter),
                projection,
            )
        except Exception as error:
            raise classify(error) from error
        fields = result.schema.fields
        if projection is not None:
            fields = b.project_fields(fields, projection)
        return Rows(tuple(fields), list(result.rows))

    def _read_format_table(
        self, path: str, projection: Sequence[str] | None, filter: Filter | None
    ) -> Rows:
        table = self._format_tables[path]
        rows = format_table.read_format_table(
            self._file_io,
            table,
            predicate=None if filter is None else to_predicate(filter),
            projection=projection,
        )
        fields = table.fields if projection is None else b.project_fields(table.fields, projection)
        return Rows(tuple(fields), [(RowKind.INSERT, row) for row in rows])

    def read_changes(self, path: str, from_snapshot: int, to_snapshot: int | None) -> Rows:
        if to_snapshot is None:
            to_snapshot = metadata.find_latest_snapshot_id(self._file_io, path) or from_snapshot
        result = self._table(path).read_changes(
            {INCREMENTAL_BETWEEN: f"{from_snapshot},{to_snapshot}"},
            view=ChangeView.RAW,
            keep_retractions=True,
        )
        return Rows(tuple(result.schema.fields), list(result.changes))

    def system_table(self, path: str, name: str) -> Rows:
        result = self._table(path).system_table(name, version=SystemTableVersion.PAIMON_0_9)
        return Rows(tuple(result.fields), [(RowKind.INSERT, row) for row in result.rows])

    # -- views: a JDBC catalog (SQLite) beside the case's table, database ``default`` -------

    def _view_catalog(self, path: str) -> JdbcCatalog:
        """The catalog of the table's directory, opened (and its database made) once."""
        directory = os.path.dirname(path.rstrip("/"))
        if directory not in self._view_catalogs:
            catalog = JdbcCatalog(
                os.path.join(directory, VIEW_WAREHOUSE),
                {JDBC_URI_OPTION: f"jdbc:sqlite:{os.path.join(directory, VIEW_CATALOG_FILE)}"},
            )
            catalog.create_database(VIEW_DATABASE, ignore_if_exists=True)
            self._view_catalogs[directory] = catalog
        return self._view_catalogs[directory]

    def create_view(
        self, path: str, name: str, query: str, comment: str | None, fields: Sequence[t.DataField]
    ) -> None:
        view = View(tuple(fields), query, comment=comment)
        try:
            self._view_catalog(path).create_view(Identifier(VIEW_DATABASE, name), view)
        except ViewAlreadyExistsError as error:
            raise EngineError(b.ERROR_ALREADY_EXISTS, str(error)) from error

    def drop_view(self, path: str, name: str) -> None:
        try:
            self._view_catalog(path).drop_view(Identifier(VIEW_DATABASE, name))
        except ViewNotFoundError as error:
            raise EngineError(b.ERROR_NOT_FOUND, str(error)) from error

    def show_views(self, path: str) -> Rows:
        catalog = self._view_catalog(path)
        rows: list[b.Change] = []
        for name in catalog.list_views(VIEW_DATABASE):
            view = catalog.get_view(Identifier(VIEW_DATABASE, name))
            columns = ",".join(f.name for f in view.fields)
            rows.append((RowKind.INSERT, (name, view.query, view.comment, columns)))
        return Rows(b.VIEW_FIELDS, rows)

    def close(self) -> None:
        """Nothing to release."""
