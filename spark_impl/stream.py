"""Streaming reads by snapshot: the planning and reading behind the ``paimon`` stream source.

Offsets are snapshot ids: ``{"snapshot": n}`` means every snapshot up to ``n`` was read, and
:data:`NOTHING_READ` (-1) that the stream has not started. The rules follow
``reference/store/stream.py`` for the default start (``latest-full``):

1. The first micro-batch reads the latest snapshot in full (a merged read, as
   :mod:`spark_impl.plan`; tables that look up (deletion vectors, first-row, ``force-lookup``,
   the ``lookup`` producer) read only their levels above 0, the ``full-compaction`` producer
   only its top level ``num-levels - 1``: the changelog of the rest comes later), each row with
   the kind of its merged record (``+I`` or ``+U``, as Java's reader).
2. Each later micro-batch reads the changes of the snapshots after the previous offset, in id
   order, as the changelog producer says: ``none`` the data files APPEND snapshots add,
   ``input`` the changelog files of APPEND snapshots, ``lookup`` / ``full-compaction`` the
   changelog files of COMPACT snapshots. Changes are the records of those files, unmerged, with
   their kinds. OVERWRITE snapshots (and the other kinds) are skipped.
3. A snapshot that expired before it was read fails the read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from reference import layout
from reference.errors import SnapshotNotFoundError
from reference.io import FileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.data import RowKind
from reference.spec.manifest import FileKind, ManifestEntry
from reference.spec.options import ChangelogProducer, MergeEngine, option_value
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import CommitKind, Snapshot
from spark_impl.changelog import is_lookup_merge, select_lookup_candidates
from spark_impl.merge import KIND_COLUMN, compute_merge_config, is_add_kind
from spark_impl.metadata import (
    find_earliest_snapshot_id,
    find_latest_snapshot_id,
    latest_schema_id,
    read_manifest,
    read_manifest_list,
    read_schema_json,
    read_snapshot,
)
from spark_impl.plan import DataFileRef, Split, TimeTravel, compute_bucket_dir, plan_read
from spark_impl.read import empty_table, read_file_records, read_split
from spark_impl.reduce import reduce_records

NOTHING_READ = -1
SNAPSHOT_KEY = "snapshot"
ROW_KIND_COLUMN = "_ROW_KIND"
ROW_KIND_STRINGS = np.array([kind.short_string for kind in RowKind], dtype=object)
INSERT = RowKind.INSERT.short_string


class StreamSplit(NamedTuple):
    """One task of a micro-batch: a full split (merged) or changed files (raw records)."""

    split: Split
    full: bool
    schema_json: str
    file_schema_jsons: Mapping[int, str]


def latest_offset(file_io: FileIO, table_root: str, start: int) -> int:
    latest = find_latest_snapshot_id(file_io, table_root)
    return start if latest is None else max(latest, start)


def compute_full_read_levels(schema: TableSchema) -> Callable[[int], bool]:
    """Rule 1: the levels a stream's full read takes (Java ``DataTableStreamScan`` level
    filters: lookup tables above level 0, ``full-compaction`` the top level)."""
    core = schema.core_options
    producer = core.changelog_producer
    if producer is ChangelogProducer.FULL_COMPACTION:
        top = core.num_levels - 1
        return lambda level: level == top
    looks_up = (
        producer is ChangelogProducer.LOOKUP
        or core.deletion_vectors_enabled
        or core.merge_engine is MergeEngine.FIRST_ROW
        or bool(option_value(schema.options, "force-lookup"))
    )
    if looks_up and schema.primary_keys:
        return lambda level: level > 0
    return lambda level: True


def select_levels(split: Split, keep: Callable[[int], bool]) -> Split:
    return replace(split, files=tuple(f for f in split.files if keep(f.level)))


def full_splits(file_io: FileIO, table_root: str, snapshot_id: int) -> list[StreamSplit]:
    """Rule 1 (the read schema is the latest, as the stream's)."""
    plan = plan_read(file_io, table_root, TimeTravel(snapshot_id=snapshot_id))
    latest_json = read_schema_json(file_io, table_root, latest_schema_id(file_io, table_root))
    keep = compute_full_read_levels(decode_schema(latest_json))
    jsons = dict(plan.file_schema_jsons)
    splits = [select_levels(split, keep) for split in plan.splits]
    return [
        StreamSplit(
            split, True, latest_json, {f.schema_id: jsons[f.schema_id] for f in split.files}
        )
        for split in splits
        if split.files
    ]


def change_entries(
    file_io: FileIO, table_root: str, snapshot: Snapshot, producer: ChangelogProducer
) -> list[ManifestEntry]:
    """Rule 2: the files whose records are the changes of one snapshot."""
    if producer in (ChangelogProducer.NONE, ChangelogProducer.INPUT):
        if snapshot.commit_kind is not CommitKind.APPEND:
            return []
    elif snapshot.commit_kind is not CommitKind.COMPACT:
        return []
    if producer is ChangelogProducer.NONE:
        manifest_list = snapshot.delta_manifest_list
    else:
        if snapshot.changelog_manifest_list is None:
            return []
        manifest_list = snapshot.changelog_manifest_list
    entries = [
        entry
        for meta in read_manifest_list(file_io, table_root, manifest_list)
        for entry in read_manifest(file_io, table_root, meta.file_name)
    ]
    return [e for e in entries if e.kind is FileKind.ADD]


def change_splits(file_io: FileIO, table_root: str, start: int, end: int) -> list[StreamSplit]:
    """Rule 2 for the snapshots ``start + 1 .. end``: one split per snapshot and bucket."""
    schema_id = latest_schema_id(file_io, table_root)
    latest_json = read_schema_json(file_io, table_root, schema_id)
    schema = decode_schema(latest_json)
    producer = schema.core_options.changelog_producer
    earliest = find_earliest_snapshot_id(file_io, table_root)
    if earliest is not None and start + 1 < earliest:
        raise SnapshotNotFoundError(
            f"snapshot {start + 1} expired before the stream read it", path=table_root
        )
    partition_types = [f.type for f in schema.partition_type.fields]
    jsons: dict[int, str] = {schema_id: latest_json}
    splits = []
    for snapshot_id in range(start + 1, end + 1):
        snapshot = read_snapshot(file_io, table_root, snapshot_id)
        grouped: dict[tuple[bytes, int], list[DataFileRef]] = {}
        for entry in change_entries(file_io, table_root, snapshot, producer):
            meta = entry.file
            if meta.schema_id not in jsons:
                jsons[meta.schema_id] = read_schema_json(file_io, table_root, meta.schema_id)
            partition = tuple(deserialize_binary_row(entry.partition, partition_types))
            directory = compute_bucket_dir(table_root, schema, partition, entry.bucket)

            grouped.setdefault((entry.partition, entry.bucket), []).append(
                DataFileRef(
                    path=layout.data_file_path(directory, meta.file_name, meta.external_path),
                    schema_id=meta.schema_id,
                    level=meta.level,
                    row_count=meta.row_count,
                    min_sequence_number=meta.min_sequence_number,
                )
            )
        for (partition_bytes, bucket), files in grouped.items():
            partition = tuple(deserialize_binary_row(partition_bytes, partition_types))
            used = {f.schema_id: jsons[f.schema_id] for f in files}
            splits.append(
                StreamSplit(Split(partition, bucket, tuple(files)), False, latest_json, used)
            )
    return splits


def plan_micro_batch(file_io: FileIO, table_root: str, start: int, end: int) -> list[StreamSplit]:
    """The splits of the micro-batch ``(start, end]`` (rules 1-3). With deletion vectors (and
    a producer other than ``lookup``) the full read skips level 0, so the fully read
    snapshot's own changes follow it, as Java's scan re-reads that snapshot."""
    if end <= start:
        return []
    if start != NOTHING_READ:
        return change_splits(file_io, table_root, start, end)
    splits = full_splits(file_io, table_root, end)
    schema = decode_schema(
        read_schema_json(file_io, table_root, latest_schema_id(file_io, table_root))
    )
    core = schema.core_options
    if core.deletion_vectors_enabled and core.changelog_producer is not ChangelogProducer.LOOKUP:
        splits += change_splits(file_io, table_root, end - 1, end)
    return splits


def with_row_kinds(table: pa.Table, kinds: np.ndarray) -> pa.Table:
    return table.append_column(ROW_KIND_COLUMN, pa.array(ROW_KIND_STRINGS[kinds], type=pa.string()))


def read_stream_split(file_io: FileIO, split: StreamSplit) -> pa.Table:
    """The rows of one split in the stream's schema plus ``_ROW_KIND``."""
    schema: TableSchema = decode_schema(split.schema_json)
    schemas = {i: decode_schema(j) for i, j in split.file_schema_jsons.items()}
    names = [f.name for f in schema.fields]
    if split.full and not schema.primary_keys:
        table = read_split(file_io, split.split, schema, schemas)
        return with_row_kinds(table, np.zeros(table.num_rows, dtype=np.int64))
    if split.full:
        return read_merged_with_kinds(file_io, split.split, schema, schemas)
    tables = []
    for ref in split.split.files:
        records = read_file_records(file_io, ref, schema, schemas[ref.schema_id], {})
        if schema.primary_keys:
            kinds = np.asarray(records.column(KIND_COLUMN).to_numpy(), dtype=np.int64)
        else:
            kinds = np.zeros(records.num_rows, dtype=np.int64)
        tables.append(with_row_kinds(records.select(names), kinds))
    if not tables:
        return with_row_kinds(empty_table(schema), np.zeros(0, dtype=np.int64))
    return pa.concat_tables(tables)


def read_merged_with_kinds(
    file_io: FileIO,
    split: Split,
    schema: TableSchema,
    schemas: Mapping[int, TableSchema],
    *,
    keep_retractions: bool = False,
) -> pa.Table:
    """Rule 1 for a primary-key split: one row per key with the kind of its merged record
    (``+I`` or ``+U``, as Java's reader sets the row kind from the record), retractions
    dropped (kept with ``keep_retractions``, as Java ``MergeFileSplitRead`` with
    ``keepDelete`` for the ``audit_log`` system table)."""
    dv_cache: dict[str, bytes] = {}
    files = sorted(split.files, key=lambda f: f.min_sequence_number)
    tables = [read_file_records(file_io, f, schema, schemas[f.schema_id], dv_cache) for f in files]
    names = [f.name for f in schema.fields]
    if not tables:
        return with_row_kinds(empty_table(schema), np.zeros(0, dtype=np.int64))
    records = pa.concat_tables(tables)
    config = compute_merge_config(schema)
    if is_lookup_merge(schema):
        levels = np.repeat([f.level for f in files], [table.num_rows for table in tables])
        records = select_lookup_candidates(records, levels, config)
    merged = reduce_records(records, config).merged
    kinds = np.asarray(merged.column(KIND_COLUMN).to_numpy(), dtype=np.int64)
    adding = np.ones(len(kinds), dtype=bool) if keep_retractions else is_add_kind(kinds)
    merged = merged.filter(pa.array(adding))
    return with_row_kinds(merged.select(names), kinds[adding])


def offset_value(offset: Mapping[str, object] | None) -> int:
    if not offset or SNAPSHOT_KEY not in offset:
        return NOTHING_READ
    value = offset[SNAPSHOT_KEY]
    return int(value) if isinstance(value, (int, str)) else NOTHING_READ


def make_offset(snapshot_id: int) -> dict[str, int]:
    return {SNAPSHOT_KEY: snapshot_id}
