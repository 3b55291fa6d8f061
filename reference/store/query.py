"""A batch read of a table: which snapshot, which schema, which splits, which rows.

Spec: the seeds' "Time travel" (read at a snapshot id, a tag, or a timestamp).
Java: ``table/source/snapshot/StartingScanner`` implementations
(``StaticFromSnapshotStartingScanner``, ``StaticFromTagStartingScanner``,
``StaticFromTimestampStartingScanner``), ``table/source/DataTableBatchScan``.

Rules:

1. Without a time-travel option a read sees the latest snapshot; with none at all the table
   reads as empty.
2. A read at a snapshot id or a tag sees that snapshot; at a timestamp, the latest snapshot
   committed at or before it.
3. A latest read returns rows in the table's latest schema; a time-travel read returns them in
   the schema the selected snapshot was committed with (Java ``tryTimeTravel``). Older files
   are evolved to that schema on read.
4. With ``scan.fallback-branch`` set, partitions the branch lacks are read from the fallback
   branch (``reference.store.fallback``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reference import layout
from reference.errors import SnapshotNotFoundError
from reference.io import FileIO
from reference.spec.predicate import Predicate
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot
from reference.store import fallback, metadata
from reference.store.read import (
    ChangeRow,
    apply_filter_and_projection,
    compute_pruning_predicate,
    read_split,
)
from reference.store.scan import ScanPlan, plan_scan


@dataclass(frozen=True)
class TimeTravel:
    """At most one of these selects the snapshot to read (rule 2)."""

    snapshot_id: int | None = None
    tag: str | None = None
    timestamp_millis: int | None = None

    def __post_init__(self) -> None:
        chosen = [x for x in (self.snapshot_id, self.tag, self.timestamp_millis) if x is not None]
        if len(chosen) > 1:
            raise ValueError("choose at most one of snapshot_id, tag and timestamp_millis")


LATEST = TimeTravel()


def resolve_snapshot(
    file_io: FileIO, table_root: str, travel: TimeTravel, branch: str = layout.MAIN_BRANCH
) -> Snapshot | None:
    """Rules 1 and 2; :class:`SnapshotNotFoundError` when the requested one does not exist."""
    if travel.snapshot_id is not None:
        return metadata.read_snapshot(file_io, table_root, travel.snapshot_id, branch)
    if travel.tag is not None:
        return metadata.read_tag(file_io, table_root, travel.tag, branch).snapshot
    if travel.timestamp_millis is not None:
        found = metadata.find_snapshot_at_time(file_io, table_root, travel.timestamp_millis, branch)
        if found is None:
            raise SnapshotNotFoundError(
                f"no snapshot at or before {travel.timestamp_millis}", path=table_root
            )
        return found
    return metadata.read_latest_snapshot(file_io, table_root, branch)


def load_schemas(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> dict[int, TableSchema]:
    """Every schema of the table by id (data files name the schema they were written with)."""
    return {
        schema_id: metadata.read_schema(file_io, table_root, schema_id, branch)
        for schema_id in metadata.list_schema_ids(file_io, table_root, branch)
    }


@dataclass(frozen=True)
class ReadResult:
    """The rows of a batch read and what produced them."""

    schema: TableSchema
    snapshot: Snapshot | None
    plan: ScanPlan | None
    rows: list[ChangeRow]

    @property
    def field_names(self) -> list[str]:
        return self.schema.field_names


def read_table(
    file_io: FileIO,
    table_root: str,
    travel: TimeTravel = LATEST,
    *,
    predicate: Predicate | None = None,
    projection: Sequence[str] | None = None,
    branch: str = layout.MAIN_BRANCH,
) -> ReadResult:
    """Rules 1-3: the rows of the selected snapshot of ``branch``, filtered, then projected."""
    schemas = load_schemas(file_io, table_root, branch)
    schema = metadata.read_latest_schema(file_io, table_root, branch)
    snapshot = resolve_snapshot(file_io, table_root, travel, branch)
    if snapshot is None:
        added = fallback.read_fallback_rows(
            file_io, table_root, travel, schema, None, predicate=predicate, branch=branch
        )
        return ReadResult(
            schema, None, None, apply_filter_and_projection(added, schema, predicate, projection)
        )
    if travel != LATEST:
        schema = schemas[snapshot.schema_id]
    pruning = compute_pruning_predicate(predicate, schema)
    plan = plan_scan(file_io, table_root, snapshot, schema, schemas, predicate=pruning)
    rows: list[ChangeRow] = []
    for split in plan.splits:
        rows.extend(read_split(file_io, split, schema, schemas, predicate=predicate))
    rows.extend(
        fallback.read_fallback_rows(
            file_io, table_root, travel, schema, snapshot, predicate=predicate, branch=branch
        )
    )
    return ReadResult(
        schema, snapshot, plan, apply_filter_and_projection(rows, schema, predicate, projection)
    )
