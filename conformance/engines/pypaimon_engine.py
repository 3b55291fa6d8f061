"""The ``pypaimon`` engine: the official pure-Python Paimon (``pypaimon`` 2.1 from PyPI).

Tables live in a filesystem catalog: a case table at ``<warehouse>/<db>.db/<name>`` (the
layout the case runner uses) is ``<db>.<name>`` of the catalog on ``<warehouse>``; a table at
any other path is opened with ``FileStoreTable.from_path``. Writes go through the batch write
builder as Arrow tables, so every row is written as +I: pypaimon has no API for -U/+U/-D rows
(only a ``rowkind.field`` column), hence no ``write-row-kinds``. It has no compaction, no
snapshot expiration in its table API and no ``audit_log``; reads come back without row kinds
(all +I). Values cross Arrow with pypaimon's own Arrow types; timestamps keep their
nanoseconds through integer casts.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conformance.engines import base as b
from conformance.engines.base import (
    AlterChange,
    Change,
    EngineError,
    EngineUnavailable,
    Filter,
    FilterAnd,
    FilterLeaf,
    Rows,
    TimeTravel,
)
from reference.spec import types as t
from reference.spec.data import RowKind, Timestamp, Value

try:
    import pyarrow as pa
    import pypaimon  # type: ignore[import-untyped]
    from pypaimon import CatalogFactory, Schema
    from pypaimon.schema import data_types as py_types  # type: ignore[import-untyped]
    from pypaimon.schema import schema_change as py_changes
    from pypaimon.table import file_store_table as py_tables  # type: ignore[import-untyped]
except ImportError as missing:  # pragma: no cover (pypaimon is a test dependency)
    raise EngineUnavailable(f"pypaimon is not installed ({missing})") from missing

NAME = "pypaimon"
DATABASE_SUFFIX = ".db"
UNSUPPORTED_TYPES = (
    t.TypeRoot.MULTISET,
    t.TypeRoot.VARIANT,
    t.TypeRoot.BLOB,
    t.TypeRoot.VECTOR,
)
"""MULTISET has no Arrow mapping in pypaimon; the others are outside the case format."""
NANOS_PER_UNIT = b.NANOS_PER_ARROW_UNIT
NANOS_PER_MILLI = b.NANOS_PER_MILLI
PYPAIMON_SYSTEM_TABLES = ("snapshots", "schemas", "options", "tags", "files", "manifests")
EPOCH_DATE = b.EPOCH_DATE
PYPAIMON_MISSING_AGGREGATES = frozenset({"first_not_null_value", "rbm64"})
"""Aggregate functions pypaimon 2.1 does not implement."""

CAPABILITIES = frozenset(
    {
        b.CAP_WRITE,
        b.CAP_OVERWRITE,
        b.CAP_ALTER,
        b.CAP_TAG,
        *b.READ_CAPABILITIES,
        *b.LAYOUT_CAPABILITIES,
        b.CAP_DELETION_VECTORS,
        *(b.file_index_capability(i) for i in b.FILE_INDEX_TYPES),
        *(b.merge_engine_capability(m) for m in b.MERGE_ENGINES),
        b.changelog_capability("input"),
        *(b.format_capability(f) for f in b.FILE_FORMATS),
        *(b.system_table_capability(n) for n in PYPAIMON_SYSTEM_TABLES),
        *(
            b.aggregate_capability(f)
            for f in b.AGGREGATE_FUNCTIONS
            if f not in PYPAIMON_MISSING_AGGREGATES
        ),
    }
) | b.all_type_capabilities(UNSUPPORTED_TYPES)


# --------------------------------------------------------------------------------------------
# Types and values
# --------------------------------------------------------------------------------------------


def to_pypaimon_field(field: t.DataField) -> Any:
    """Our field as pypaimon's (through the shared schema JSON form)."""
    return py_types.DataTypeParser.parse_data_field(t.field_to_json(field))


def to_pypaimon_type(data_type: t.DataType) -> Any:
    return py_types.DataTypeParser.parse_data_type(t.type_to_json(data_type))


def to_arrow_value(value: Value, data_type: t.DataType) -> Any:
    """An internal value as pyarrow accepts it for pypaimon's Arrow type of ``data_type``."""
    if value is None:
        return None
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        assert isinstance(value, Timestamp)
        unit = timestamp_unit(data_type.precision)
        nanos = value.millisecond * NANOS_PER_MILLI + value.nano_of_millisecond
        return nanos // NANOS_PER_UNIT[unit]
    if isinstance(data_type, t.ArrayType):
        return [to_arrow_value(v, data_type.element) for v in value]
    if isinstance(data_type, t.MapType):
        return [
            (to_arrow_value(k, data_type.key), to_arrow_value(v, data_type.value))
            for k, v in value.items()
        ]
    if isinstance(data_type, t.RowType):
        return {
            f.name: to_arrow_value(v, f.type) for f, v in zip(data_type.fields, value, strict=True)
        }
    return value


def timestamp_unit(precision: int) -> str:
    """pypaimon's Arrow unit for a timestamp precision."""
    if precision == 0:
        return "s"
    if precision <= 3:
        return "ms"
    if precision <= 6:
        return "us"
    return "ns"


def to_arrow_column(values: Sequence[Value], field: t.DataField) -> pa.Array:
    arrow_type = py_types.PyarrowFieldParser.from_paimon_type(to_pypaimon_type(field.type))
    converted = [to_arrow_value(v, field.type) for v in values]
    if pa.types.is_timestamp(arrow_type):
        return pa.array(converted, type=pa.int64()).cast(arrow_type)
    if pa.types.is_time(arrow_type):
        return pa.array(converted, type=pa.int32()).cast(arrow_type)
    if pa.types.is_date(arrow_type):
        return pa.array(converted, type=pa.int32()).cast(arrow_type)
    return pa.array(converted, type=arrow_type)


def rows_to_arrow(rows: Sequence[tuple[Value, ...]], fields: Sequence[t.DataField]) -> pa.Table:
    columns = [to_arrow_column([row[i] for row in rows], f) for i, f in enumerate(fields)]
    arrow_fields = [
        pa.field(f.name, column.type, nullable=f.type.nullable)
        for f, column in zip(fields, columns, strict=True)
    ]
    return pa.Table.from_arrays(columns, schema=pa.schema(arrow_fields))


def arrow_to_rows(table: pa.Table, fields: Sequence[t.DataField]) -> list[Change]:
    return b.arrow_to_changes(table.select([f.name for f in fields]), fields)


def from_pypaimon_fields(fields: Sequence[Any]) -> tuple[t.DataField, ...]:
    return tuple(t.parse_data_field(f.to_dict()) for f in fields)


# --------------------------------------------------------------------------------------------
# Filters and schema changes
# --------------------------------------------------------------------------------------------

LEAF_BUILDERS = {
    "EQUAL": "equal",
    "NOT_EQUAL": "not_equal",
    "LESS_THAN": "less_than",
    "LESS_OR_EQUAL": "less_or_equal",
    "GREATER_THAN": "greater_than",
    "GREATER_OR_EQUAL": "greater_or_equal",
    "STARTS_WITH": "startswith",
}


def to_literal(value: Value, data_type: t.DataType) -> Any:
    """A filter literal in pypaimon's value conventions (timestamps as datetimes)."""
    if isinstance(value, Timestamp):
        micros = value.millisecond * 1000 + value.nano_of_millisecond // 1000
        return datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=micros)
    if isinstance(data_type, t.DateType) and isinstance(value, int):
        return EPOCH_DATE + datetime.timedelta(days=value)
    return value


def to_pypaimon_predicate(value: Filter, builder: Any, fields: Sequence[t.DataField]) -> Any:
    if isinstance(value, FilterAnd):
        return builder.and_predicates(
            [to_pypaimon_predicate(c, builder, fields) for c in value.children]
        )
    if not isinstance(value, FilterLeaf):
        return builder.or_predicates(
            [to_pypaimon_predicate(c, builder, fields) for c in value.children]
        )
    data_type = b.field_type(fields, value.field)
    literals = [to_literal(v, data_type) for v in value.literals]
    if value.op == "IS_NULL":
        return builder.is_null(value.field)
    if value.op == "IS_NOT_NULL":
        return builder.is_not_null(value.field)
    if value.op == "IN":
        return builder.is_in(value.field, literals)
    if value.op == "NOT_IN":
        return builder.is_not_in(value.field, literals)
    return getattr(builder, LEAF_BUILDERS[value.op])(value.field, literals[0])


def to_pypaimon_change(change: AlterChange) -> Any:
    kind = change["kind"]
    name = change.get("name")
    move = None
    if change.get("first"):
        move = py_changes.Move.first(name)
    elif change.get("after"):
        move = py_changes.Move.after(name, change["after"])
    if kind == "add_column":
        data_type = to_pypaimon_type(t.parse_data_type(change["type"]))
        return py_changes.SchemaChange.add_column(name, data_type, change.get("comment"), move)
    if kind == "drop_column":
        return py_changes.SchemaChange.drop_column(name)
    if kind == "rename_column":
        return py_changes.SchemaChange.rename_column(name, change["new_name"])
    if kind == "update_column_type":
        return py_changes.SchemaChange.update_column_type(
            name, to_pypaimon_type(t.parse_data_type(change["type"]))
        )
    if kind == "update_column_nullability":
        return py_changes.SchemaChange.update_column_nullability(name, bool(change["nullable"]))
    if kind == "update_column_position":
        return py_changes.SchemaChange.update_column_position(move)
    if kind == "set_option":
        return py_changes.SchemaChange.set_option(change["key"], str(change["value"]))
    if kind == "remove_option":
        return py_changes.SchemaChange.remove_option(change["key"])
    raise ValueError(f"unknown alter change {kind!r}")


# --------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------


def catalog_location(path: str) -> tuple[str, str, str] | None:
    """``(warehouse, database, table)`` of a path laid out as a catalog table, else ``None``."""
    table = Path(path)
    database = table.parent
    if not database.name.endswith(DATABASE_SUFFIX):
        return None
    return str(database.parent), database.name[: -len(DATABASE_SUFFIX)], table.name


class PypaimonEngine:
    """pypaimon's filesystem catalog and table API."""

    name = NAME
    capabilities = CAPABILITIES
    timestamp_precision = 9

    def __init__(self) -> None:
        self.version = getattr(pypaimon, "__version__", "2.1")
        self._catalogs: dict[str, Any] = {}

    def _catalog(self, warehouse: str) -> Any:
        if warehouse not in self._catalogs:
            self._catalogs[warehouse] = CatalogFactory.create({"warehouse": warehouse})
        return self._catalogs[warehouse]

    def _table(self, path: str) -> Any:
        location = catalog_location(path)
        if location is None:
            return py_tables.FileStoreTable.from_path(path)
        warehouse, database, table = location
        return self._catalog(warehouse).get_table(f"{database}.{table}")

    def create_table(
        self,
        path: str,
        fields: Sequence[t.DataField],
        partition_keys: Sequence[str],
        primary_keys: Sequence[str],
        options: Mapping[str, str],
    ) -> None:
        location = catalog_location(path)
        if location is None:
            raise ValueError(f"pypaimon tables must live at <warehouse>/<db>.db/<name>: {path}")
        warehouse, database, table = location
        schema = Schema(
            fields=[to_pypaimon_field(f) for f in fields],
            partition_keys=list(partition_keys),
            primary_keys=list(primary_keys),
            options=dict(options),
        )
        catalog = self._catalog(warehouse)
        catalog.create_database(database, True)
        try:
            catalog.create_table(f"{database}.{table}", schema, False)
        except (ValueError, TypeError) as error:
            raise EngineError(b.ERROR_INVALID_TABLE, str(error)) from error

    def write(
        self, path: str, rows: Sequence[Change], overwrite: Mapping[str, Value] | None = None
    ) -> int | None:
        retractions = [kind for kind, _ in rows if kind != RowKind.INSERT]
        if retractions:
            raise ValueError("pypaimon writes +I rows only")
        table = self._table(path)
        fields = from_pypaimon_fields(table.fields)
        builder = table.new_batch_write_builder()
        if overwrite is not None:
            builder = builder.overwrite(dict(overwrite) or None)
        writer = builder.new_write()
        committer = builder.new_commit()
        try:
            writer.write_arrow(rows_to_arrow([row for _, row in rows], fields))
            committer.commit(writer.prepare_commit())
        except (ValueError, TypeError, pa.ArrowInvalid) as error:
            with contextlib.suppress(Exception):
                writer.abort()
            raise EngineError(b.ERROR_INVALID_WRITE, str(error)) from error
        writer.close()
        committer.close()
        latest = self._table(path).snapshot_manager().get_latest_snapshot()
        return None if latest is None else int(latest.id)

    def compact(self, path: str, full: bool) -> int | None:
        raise NotImplementedError("pypaimon has no compaction")

    def alter(self, path: str, changes: Sequence[AlterChange]) -> None:
        location = catalog_location(path)
        if location is None:
            raise ValueError(f"pypaimon alters catalog tables only: {path}")
        warehouse, database, table = location
        try:
            self._catalog(warehouse).alter_table(
                f"{database}.{table}", [to_pypaimon_change(c) for c in changes], False
            )
        except (ValueError, TypeError, RuntimeError) as error:
            raise EngineError(b.ERROR_INVALID_TABLE, str(error)) from error

    def create_tag(self, path: str, name: str, snapshot_id: int | None) -> None:
        self._table(path).create_tag(name, snapshot_id=snapshot_id)

    def expire(
        self,
        path: str,
        retain_max: int | None,
        retain_min: int | None,
        time_retained_millis: int | None,
    ) -> None:
        raise NotImplementedError("pypaimon's table API has no snapshot expiration")

    def _travel_table(self, path: str, travel: TimeTravel) -> Any:
        table = self._table(path)
        options = {}
        if travel.snapshot_id is not None:
            options["scan.snapshot-id"] = str(travel.snapshot_id)
        if travel.tag is not None:
            options["scan.tag-name"] = travel.tag
        if travel.timestamp_millis is not None:
            options["scan.timestamp-millis"] = str(travel.timestamp_millis)
        if not options:
            return table
        try:
            return table.copy(options)
        except (ValueError, KeyError, FileNotFoundError) as error:
            raise EngineError(b.ERROR_NOT_FOUND, str(error)) from error

    def read(
        self,
        path: str,
        travel: TimeTravel,
        projection: Sequence[str] | None,
        filter: Filter | None,
    ) -> Rows:
        table = self._travel_table(path, travel)
        fields = from_pypaimon_fields(table.fields)
        builder = table.new_read_builder()
        if filter is not None:
            builder = builder.with_filter(
                to_pypaimon_predicate(filter, builder.new_predicate_builder(), fields)
            )
        if projection is not None:
            builder = builder.with_projection(list(projection))
            fields = b.project_fields(fields, projection)
        splits = builder.new_scan().plan().splits()
        arrow = builder.new_read().to_arrow(splits)
        if arrow is None:
            return Rows(tuple(fields), [])
        return Rows(tuple(fields), arrow_to_rows(arrow, fields))

    def read_changes(self, path: str, from_snapshot: int, to_snapshot: int | None) -> Rows:
        raise NotImplementedError("changes are not read through pypaimon yet")

    def system_table(self, path: str, name: str) -> Rows:
        location = catalog_location(path)
        if location is None:
            raise ValueError(f"pypaimon reads system tables of catalog tables only: {path}")
        warehouse, database, table = location
        system = self._catalog(warehouse).get_table(f"{database}.{table}${name}")
        builder = system.new_read_builder()
        fields = from_pypaimon_fields(builder.read_type())
        arrow = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        return Rows(fields, [] if arrow is None else arrow_to_rows(arrow, fields))

    def close(self) -> None:
        self._catalogs.clear()
