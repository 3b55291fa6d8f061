"""The ``java`` engine: Apache Paimon 0.9.0 through the oracle harness
(:class:`conformance.java.harness.JavaHarness`, one JVM shared by the process).

Reads go through ``ReadBuilder`` without a filter (the harness has none): the adapter filters
the rows with the kit's own rule (:mod:`conformance.cases.predicates`), then projects. Changes
come from a streaming read (``scan.mode`` ``from-snapshot``): each plan holds the changes of the
snapshots up to the one it reports next, so the plans up to ``to_snapshot`` are kept. Every
write is one batch writer and one commit; compaction is the harness's ``compact`` (every
bucket) followed by a commit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

from conformance.cases.predicates import is_row_kept
from conformance.engines import base as b
from conformance.engines.base import (
    AlterChange,
    Change,
    EngineError,
    EngineUnavailable,
    Filter,
    Rows,
    TimeTravel,
)
from conformance.java import build as java_build
from conformance.java.harness import Change as JavaChange
from conformance.java.harness import JavaHarness, JavaHarnessError, java_unavailable_reason
from reference.merge.aggregate_functions import MAIN_ONLY_KINDS
from reference.spec import types as t
from reference.spec.aggregate_kind import AggregateKind
from reference.spec.data import Value

NAME = "java"
CROSS_PARTITION_NOTE = (
    "cross-partition updates need Paimon's global index assigner (a Flink operator), which the "
    "harness does not run"
)
PRODUCER = "paimon-java 0.9.0"
UNSUPPORTED_TYPES = (t.TypeRoot.VARIANT, t.TypeRoot.BLOB, t.TypeRoot.VECTOR)
"""Types Paimon 0.9 does not have."""
JAVA_SYSTEM_TABLES = ("snapshots", "schemas", "options", "tags", "files", "manifests", "audit_log")
NOT_FOUND_MARKERS = ("doesn't exist", "does not exist", "not found", "NotExist")
TABLE_ERROR_CLASSES = (
    "IllegalArgumentException",
    "IllegalStateException",
    "UnsupportedOperationException",
    "ColumnAlreadyExistException",
    "ColumnNotExistException",
)

CAPABILITIES = frozenset(
    {
        b.CAP_WRITE,
        b.CAP_WRITE_ROW_KINDS,
        b.CAP_OVERWRITE,
        b.CAP_COMPACT,
        b.CAP_ALTER,
        b.CAP_TAG,
        b.CAP_EXPIRE,
        *b.READ_CAPABILITIES,
        *b.LAYOUT_CAPABILITIES,
        b.CAP_READ_CHANGES,
        b.CAP_SEQUENCE_GROUP,
        b.CAP_DELETION_VECTORS,
        b.file_index_capability("bloom-filter"),
        b.file_index_capability("bitmap"),
        *(b.merge_engine_capability(m) for m in b.MERGE_ENGINES),
        *(b.changelog_capability(c) for c in b.CHANGELOG_PRODUCERS),
        *(b.format_capability(f) for f in b.FILE_FORMATS),
        *(b.system_table_capability(n) for n in JAVA_SYSTEM_TABLES),
        *(
            b.aggregate_capability(kind.value)
            for kind in AggregateKind
            if kind not in MAIN_ONLY_KINDS
        ),
        b.aggregate_capability("first_not_null_value"),
    }
) | b.all_type_capabilities(UNSUPPORTED_TYPES)


def classify(error: JavaHarnessError, default_code: str | None) -> Exception:
    """A Java exception as an :class:`EngineError` when its kind is recognisable."""
    text = " ".join([error.error, *error.causes])
    if any(marker in text for marker in NOT_FOUND_MARKERS):
        return EngineError(b.ERROR_NOT_FOUND, error.error)
    if (
        default_code is not None
        and error.error
        and error.error.split(":")[0].endswith(TABLE_ERROR_CLASSES)
    ):
        return EngineError(default_code, error.error)
    return error


def partition_spec_text(value: Value) -> str:
    """A partition value as Java's partition spec strings spell it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def to_java_change(change: AlterChange) -> dict[str, Any]:
    kind = change["kind"]
    if kind == "add_column":
        return JavaChange.add_column(
            change["name"],
            t.parse_data_type(change["type"]),
            comment=change.get("comment"),
            first=bool(change.get("first", False)),
            after=change.get("after"),
        )
    if kind == "drop_column":
        return JavaChange.drop_column(change["name"])
    if kind == "rename_column":
        return JavaChange.rename_column(change["name"], change["new_name"])
    if kind == "update_column_type":
        return JavaChange.update_column_type(change["name"], t.parse_data_type(change["type"]))
    if kind == "update_column_nullability":
        return JavaChange.update_column_nullability(change["name"], bool(change["nullable"]))
    if kind == "update_column_position":
        return JavaChange.update_column_position(
            change["name"], first=bool(change.get("first", False)), after=change.get("after")
        )
    if kind == "set_option":
        return JavaChange.set_option(change["key"], str(change["value"]))
    if kind == "remove_option":
        return JavaChange.remove_option(change["key"])
    raise ValueError(f"unknown alter change {kind!r}")


def _shared_harness() -> JavaHarness:
    from conformance.java.oracle import shared_harness  # noqa: PLC0415 (starts a JVM)

    return shared_harness()


class JavaEngine:
    """Paimon 0.9.0 in one long-lived JVM (``harness``, or the process-wide one)."""

    name = NAME
    capabilities = CAPABILITIES
    timestamp_precision = 9

    def __init__(self, harness: JavaHarness | None = None) -> None:
        if harness is None:
            reason = java_unavailable_reason()
            if reason is not None:
                raise EngineUnavailable(reason)
            try:
                java_build.ensure_built()
            except (java_build.ToolMissing, java_build.DownloadFailed) as error:
                raise EngineUnavailable(str(error)) from error
        self._harness = harness
        self._row_types: dict[str, t.RowType] = {}
        """Columns of the tables this engine created (saves a ``describe`` per write)."""

    @property
    def harness(self) -> JavaHarness:
        if self._harness is None:
            self._harness = _shared_harness()
        return self._harness

    def create_table(
        self,
        path: str,
        fields: Sequence[t.DataField],
        partition_keys: Sequence[str],
        primary_keys: Sequence[str],
        options: Mapping[str, str],
    ) -> None:
        try:
            self.harness.create_table(
                path,
                fields,
                partition_keys=partition_keys,
                primary_keys=primary_keys,
                options=options,
            )
        except JavaHarnessError as error:
            raise classify(error, b.ERROR_INVALID_TABLE) from error
        self._row_types[path] = t.RowType(tuple(fields))

    def write(
        self, path: str, rows: Sequence[Change], overwrite: Mapping[str, Value] | None = None
    ) -> int | None:
        spec: bool | dict[str, str] | None = None
        if overwrite is not None:
            spec = {k: partition_spec_text(v) for k, v in overwrite.items()} if overwrite else True
        try:
            response = self.harness.write(
                path,
                list(rows),
                row_type=self._row_types.get(path),
                overwrite=spec,
                commit=True,
            )
        except JavaHarnessError as error:
            self._abandon_writer(path)
            raise classify(error, b.ERROR_INVALID_WRITE) from error
        snapshot_id = response.get("snapshot_id")
        return None if snapshot_id is None else int(snapshot_id)

    def _abandon_writer(self, path: str) -> None:
        with contextlib.suppress(JavaHarnessError):
            self.harness.close_writer(path)

    def compact(self, path: str, full: bool) -> int | None:
        try:
            response = self.harness.compact(path, full=full, commit=True)
        except JavaHarnessError as error:
            self._abandon_writer(path)
            raise classify(error, None) from error
        snapshot_id = response.get("snapshot_id")
        return None if snapshot_id is None else int(snapshot_id)

    def alter(self, path: str, changes: Sequence[AlterChange]) -> None:
        self._row_types.pop(path, None)
        try:
            self.harness.alter_table(path, [to_java_change(c) for c in changes])
        except JavaHarnessError as error:
            raise classify(error, b.ERROR_INVALID_TABLE) from error

    def create_tag(self, path: str, name: str, snapshot_id: int | None) -> None:
        try:
            self.harness.create_tag(path, name, snapshot_id=snapshot_id)
        except JavaHarnessError as error:
            raise classify(error, None) from error

    def expire(
        self,
        path: str,
        retain_max: int | None,
        retain_min: int | None,
        time_retained_millis: int | None,
    ) -> None:
        self.harness.expire_snapshots(
            path,
            retain_max=retain_max,
            retain_min=retain_min,
            time_retained=time_retained_millis,
        )

    def read(
        self,
        path: str,
        travel: TimeTravel,
        projection: Sequence[str] | None,
        filter: Filter | None,
    ) -> Rows:
        try:
            result = self.harness.read(
                path,
                snapshot_id=travel.snapshot_id,
                tag=travel.tag,
                timestamp_millis=travel.timestamp_millis,
                projection=None if filter is not None else projection,
            )
        except JavaHarnessError as error:
            raise classify(error, None) from error
        rows = Rows(result.fields, result.rows)
        if filter is not None:
            names = rows.column_names
            rows = Rows(rows.fields, [c for c in rows.rows if is_row_kept(filter, c[1], names)])
            if projection is not None:
                rows = b.project_rows(rows, projection)
        return rows

    def read_changes(self, path: str, from_snapshot: int, to_snapshot: int | None) -> Rows:
        stream = self.harness.read_stream(path, snapshot_id=from_snapshot + 1)
        kept = [
            change
            for batch in stream.batches
            if to_snapshot is None
            or batch.next_snapshot_id is None
            or batch.next_snapshot_id <= to_snapshot + 1
            for change in batch.rows
        ]
        return Rows(stream.fields, kept)

    def system_table(self, path: str, name: str) -> Rows:
        result = self.harness.system_table(path, name)
        return Rows(result.fields, result.rows)

    def close(self) -> None:
        """The shared JVM is closed at interpreter exit (or by the fixture that owns it)."""
