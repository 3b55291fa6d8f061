"""Helpers of the spark_impl write tests: tables made by the reference, batches as Spark's
writer tasks receive them, and the comparisons (rows, file metadata, table structure)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from reference.io import FileIO
from reference.spec import types as t
from reference.spec.commit_message import CommitMessage
from reference.spec.data import Row, RowKind
from reference.spec.file_format import rows_to_arrow
from reference.spec.schema import TableSchema
from reference.store import query
from spark_impl import commit as committer
from spark_impl.metadata import read_index_entries, read_latest_snapshot, read_live_entries
from spark_impl.write import (
    ASSIGNER_COLUMN,
    BUCKET_COLUMN,
    POSITION_COLUMN,
    ROW_KIND_COLUMN,
    BucketMode,
    compute_assigners,
    compute_fixed_buckets,
    compute_trimmed_key_hashes,
    distinct_partitions,
    plan_write,
    write_task,
)

INT_FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.IntType()),
    t.DataField(2, "dt", t.VarCharType(10, nullable=False)),
)
"""``k INT NOT NULL, v INT, dt VARCHAR(10) NOT NULL``: the small partitioned key-value table."""
STRING_FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(2, "dt", t.VarCharType(t.MAX_LENGTH, nullable=False)),
)
"""``k INT NOT NULL, v STRING, dt STRING NOT NULL`` (what Spark's ``string`` columns map to)."""


def reference_rows(file_io: FileIO, root: str, **travel: Any) -> Counter[Row]:
    result = query.read_table(file_io, root, query.TimeTravel(**travel))
    return Counter(row for _, row in result.rows)


def make_batch(
    rows: Sequence[Row], kinds: Sequence[RowKind] | None, fields: Sequence[t.DataField]
) -> pa.Table:
    """The Arrow batch a write task gets (canonical columns and ``_ROW_KIND``)."""
    table = rows_to_arrow(rows, fields)
    if kinds is None:
        return table
    return table.append_column(ROW_KIND_COLUMN, pa.array([k.short_string for k in kinds]))


def prepare(batch: pa.Table, schema: TableSchema, mode: BucketMode) -> pa.Table:
    """What ``write_table`` adds before the shuffle: positions and buckets or assigners."""
    from spark_impl.bucketing import compute_row_hash  # noqa: PLC0415

    batch = batch.append_column(POSITION_COLUMN, pa.array(np.arange(batch.num_rows)))
    if mode is BucketMode.FIXED:
        buckets = compute_fixed_buckets(batch, schema).astype(np.int32)
        return batch.append_column(BUCKET_COLUMN, pa.array(buckets))
    if mode is BucketMode.DYNAMIC:
        partitions, ids = distinct_partitions(batch, schema)
        types = [f.type for f in schema.partition_type.fields]
        hashes = np.array([compute_row_hash(p, types) for p in partitions], dtype=np.int64)
        keys = compute_trimmed_key_hashes(batch, schema).astype(np.int64)
        assigners = schema.options.get("dynamic-bucket.initial-buckets", "1")
        values = compute_assigners(hashes[ids], keys, int(assigners)).astype(np.int32)
        return batch.append_column(ASSIGNER_COLUMN, pa.array(values))
    return batch


def spark_impl_write(
    file_io: FileIO,
    root: str,
    rows: Sequence[Row],
    kinds: Sequence[RowKind] | None = None,
    *,
    overwrite: bool = False,
    prepared: bool = True,
) -> list[CommitMessage]:
    """One write task over all rows (as ``write_table`` with one partition), committed."""
    plan = plan_write(file_io, root, {}, overwrite=overwrite)
    batch = make_batch(rows, kinds, plan.schema.fields)
    if prepared:
        batch = prepare(batch, plan.schema, plan.mode)
    messages = write_task(file_io, plan, batch)
    committer.commit(file_io, root, messages, overwrite={} if overwrite else None)
    return messages


def comparable_meta(meta: Any) -> Any:
    """A data file meta without what differs between two writers of the same rows."""
    return dataclasses.replace(meta, file_name="", creation_time=None)


def table_structure(file_io: FileIO, root: str) -> tuple[Any, ...]:
    """The live files (bucket, level, counts, sizes, keys, sequences) and index files of the
    latest snapshot, and its id: two writers that made the same table agree on all of it."""
    snapshot = read_latest_snapshot(file_io, root)
    files = sorted(
        (
            e.partition,
            e.bucket,
            e.file.level,
            e.file.row_count,
            e.file.file_size,
            e.file.min_key,
            e.file.max_key,
            e.file.min_sequence_number,
            e.file.max_sequence_number,
            e.file.delete_row_count,
            repr(e.file.value_stats),
        )
        for e in read_live_entries(file_io, root, snapshot)
    )
    index = sorted(
        (
            e.partition,
            e.bucket,
            e.index_file.index_type,
            e.index_file.file_size,
            e.index_file.row_count,
            tuple((r.data_file_name[:0], r.offset, r.length) for r in e.index_file.dv_ranges or ()),
        )
        for e in read_index_entries(file_io, root, snapshot)
    )
    return tuple(files), tuple(index), snapshot.id if snapshot else None
