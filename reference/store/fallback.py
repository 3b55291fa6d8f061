"""Batch reads through a fallback branch: partitions a branch lacks come from another branch.

Spec: the table option ``scan.fallback-branch`` (``reference.spec.options``); the branch layout
of ``reference.layout`` and ``reference.store.branches``.
Java: ``table/FallbackReadFileStoreTable`` and ``table/FileStoreTableFactory.create`` (0.9.0).

Rules (B is the branch read, ``main`` by default; F the branch its option names):

1. When the latest schema of B sets ``scan.fallback-branch`` to a name that is not blank, a
   batch read of B returns B's rows plus, from F, the rows of every partition of F that B's
   read snapshot does not have. F's own ``scan.fallback-branch`` is not followed.
2. B has a partition when its read snapshot holds a live data file in it, at any level.
   (Java 0.9 counted the partitions of B's planned splits, after data filters and level-0
   skipping, so a filter that pruned all of B's files of a partition let F's rows of it in;
   later releases list B's partitions with the partition filter only, as here.)
3. F is read as a table of its own: with F's schema and options (bucket, merge engine,
   deletion vectors, ...), F's snapshot and F's schema files. Its rows are then filtered and
   projected like B's, by position in B's read schema.
4. F must exist (it has a schema file), and its read schema must have B's field types in
   order, nullability of the top-level types ignored (names are not compared); when B has
   primary keys, F has the same ones. Otherwise the read fails with ``InvalidOptionError``
   naming the option. The check is made on every read, whether F adds rows or not.
5. Time travel: a read of B's snapshot id reads F's latest snapshot committed at or before
   that snapshot's time, or F's snapshot 1 when there is none (Java's
   ``rewriteFallbackOptions``); a tag name or a timestamp is applied to F as it is (F must
   have the tag too; at a timestamp before F's first snapshot F adds nothing). A branch
   without snapshots adds nothing. (Java 0.9 then reads main's tag file of that name through
   F, an oversight of its ``StaticFromTagStartingScanner``; the reference reads F's tag.)
6. Only batch reads of the table fall back: streaming, incremental and system-table reads,
   writes and compaction see B alone (Java wraps only ``newScan`` / ``newRead``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from reference import layout
from reference.errors import InvalidOptionError
from reference.io import FileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.data import Row
from reference.spec.fallback_branch import check_fallback_schema
from reference.spec.options import FALLBACK_BRANCH_OPTION
from reference.spec.predicate import Predicate
from reference.spec.schema import TableSchema
from reference.spec.snapshot import FIRST_SNAPSHOT_ID, Snapshot
from reference.store import metadata
from reference.store.read import ChangeRow, compute_pruning_predicate, read_split
from reference.store.scan import (
    compute_live_entries,
    list_snapshot_manifests,
    plan_scan,
    read_manifest,
)


class TravelSpec(Protocol):
    """What selects B's snapshot (``reference.store.query.TimeTravel``)."""

    @property
    def snapshot_id(self) -> int | None: ...

    @property
    def tag(self) -> str | None: ...

    @property
    def timestamp_millis(self) -> int | None: ...


def read_fallback_branch(
    file_io: FileIO, table_root: str, branch: str = layout.MAIN_BRANCH
) -> str | None:
    """Rule 1: the fallback branch B's latest schema names, or ``None``."""
    options = metadata.read_latest_schema(file_io, table_root, branch).core_options
    name: str | None = options.get(FALLBACK_BRANCH_OPTION)
    return None if name is None or layout.is_blank(name) else name


def resolve_fallback_snapshot(
    file_io: FileIO,
    table_root: str,
    travel: TravelSpec,
    snapshot: Snapshot | None,
    fallback: str,
) -> Snapshot | None:
    """Rule 5: F's snapshot for a read of B's ``snapshot`` selected by ``travel``."""
    if metadata.find_latest_snapshot_id(file_io, table_root, fallback) is None:
        return None
    if travel.snapshot_id is not None and snapshot is not None:
        found = metadata.find_snapshot_at_time(file_io, table_root, snapshot.time_millis, fallback)
        if found is not None:
            return found
        return metadata.read_snapshot(file_io, table_root, FIRST_SNAPSHOT_ID, fallback)
    if travel.tag is not None:
        return metadata.read_tag(file_io, table_root, travel.tag, fallback).snapshot
    if travel.timestamp_millis is not None:
        return metadata.find_snapshot_at_time(
            file_io, table_root, travel.timestamp_millis, fallback
        )
    return metadata.read_latest_snapshot(file_io, table_root, fallback)


def list_partitions(
    file_io: FileIO, table_root: str, snapshot: Snapshot | None, schema: TableSchema
) -> set[Row]:
    """Rule 2: the partitions in which ``snapshot`` holds a live data file."""
    if snapshot is None:
        return set()
    types = [f.type for f in schema.partition_type.fields]
    entries = [
        entry
        for manifest in list_snapshot_manifests(file_io, table_root, snapshot)
        for entry in read_manifest(file_io, table_root, manifest.file_name)
    ]
    encoded = {entry.partition for entry in compute_live_entries(entries).live}
    return {deserialize_binary_row(partition, types) for partition in encoded}


def load_branch_schemas(file_io: FileIO, table_root: str, branch: str) -> dict[int, TableSchema]:
    """Every schema of ``branch`` by id (F's data files name F's schema ids)."""
    return {
        schema_id: metadata.read_schema(file_io, table_root, schema_id, branch)
        for schema_id in metadata.list_schema_ids(file_io, table_root, branch)
    }


def compute_fallback_read_schema(
    schemas: Mapping[int, TableSchema], snapshot: Snapshot | None, travel: TravelSpec
) -> TableSchema:
    """F's read schema: its latest, or for a time-travel read its snapshot's (Java
    ``AbstractFileStoreTable.tryTimeTravel`` on F)."""
    is_latest = (
        travel.snapshot_id is None and travel.tag is None and travel.timestamp_millis is None
    )
    if snapshot is None or is_latest:
        return schemas[max(schemas)]
    return schemas[snapshot.schema_id]


def read_fallback_rows(
    file_io: FileIO,
    table_root: str,
    travel: TravelSpec,
    schema: TableSchema,
    snapshot: Snapshot | None,
    *,
    predicate: Predicate | None = None,
    branch: str = layout.MAIN_BRANCH,
) -> list[ChangeRow]:
    """Rules 1-5: the rows F adds to a read of B's ``snapshot`` under B's read ``schema``
    (none without the option). They are not yet filtered by ``predicate`` nor projected: the
    caller does both, as for B's rows. The predicate names B's fields; it prunes F's files
    only when F's fields have the same names."""
    names = read_fallback_branch(file_io, table_root, branch)
    if names is None:
        return []
    schemas = load_branch_schemas(file_io, table_root, names)
    if not schemas:
        raise InvalidOptionError(
            FALLBACK_BRANCH_OPTION, names, f"branch '{names}' does not exist (no schema file)"
        )
    fallback_snapshot = resolve_fallback_snapshot(file_io, table_root, travel, snapshot, names)
    fallback_schema = compute_fallback_read_schema(schemas, fallback_snapshot, travel)
    check_fallback_schema(schema, fallback_schema, names)
    if fallback_snapshot is None:
        return []
    present = list_partitions(file_io, table_root, snapshot, schema)
    narrowing = predicate if fallback_schema.field_names == schema.field_names else None
    plan = plan_scan(
        file_io,
        table_root,
        fallback_snapshot,
        fallback_schema,
        schemas,
        predicate=compute_pruning_predicate(narrowing, fallback_schema),
    )
    rows: list[ChangeRow] = []
    for split in plan.splits:
        if split.partition not in present:
            rows.extend(read_split(file_io, split, fallback_schema, schemas, predicate=narrowing))
    return rows
