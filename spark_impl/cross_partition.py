"""Writing cross-partition-update tables: a primary key without every partition field.

spark_impl's own implementation of ``reference.store.bucket_assign`` rule 5 (Java 0.9
``crosspartition/GlobalIndexAssigner``, ``crosspartition/BucketAssigner``,
``crosspartition/*ExistingProcessor``, ``crosspartition/IndexBootstrap``, Flink's
``GlobalDynamicBucketSink``):

1. *Assigners.* A key belongs to one assigner: ``|hash(primary key) % N|`` with N the larger of
   ``dynamic-bucket.initial-buckets`` and ``dynamic-bucket.assigner-parallelism`` (1 when
   neither is set; Java's Flink sink then uses its parallelism). :func:`prepare_input` adds the
   assigner column and shuffles by it, so every row of a key reaches one task, in arrival
   order (``_PAIMON_POS``). Assigner ``a`` owns the buckets ``b`` with ``|b % N| == a``.
2. *Bootstrap.* Each assigner loads the key index of its keys from the latest snapshot's rows
   (a batch read): trimmed primary key -> (partition, bucket), and counts the keys of each
   bucket it owns.
3. *Routing*, row by row in arrival order: a key stored in the row's partition keeps its
   bucket. A key stored in another partition is handled by the merge engine: ``deduplicate``
   writes a DELETE there (the new values with the old partition) and then routes the row as a
   new key of its own partition; ``first-row`` drops the row; ``partial-update`` and
   ``aggregation`` write it into the old partition and bucket. A new key takes the first owned
   bucket of its partition (ascending) with fewer than ``dynamic-bucket.target-row-num`` keys,
   else the smallest unused owned bucket id.
4. *Bulk load.* With an empty key index the assigner loads its rows at once (Java
   ``bulkLoadBootstrapRecords``): rows sorted by key (Java's order), then by arrival;
   ``deduplicate`` keeps the last row of a key, ``first-row`` the first, ``partial-update`` /
   ``aggregation`` send every row of a key to the partition and bucket of its first row.
5. Rows are routed before ``rowkind.field`` and ``ignore-delete`` apply (Java applies them in
   ``TableWriteImpl``, after the assigner): a DELETE made by rule 3 takes the row kind field's
   value when that option is set, and is dropped with ``ignore-delete``.
6. ``sequence.field`` is refused (``InvalidOptionError``), as Java does for these tables;
   ``cross-partition-upsert.index-ttl`` (a wall-clock dependent index) is not supported.

No HASH index is written: the key index lives only in the writer, as in Java.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any

import numpy as np
import pyarrow as pa

from reference.errors import UnsupportedFeature
from reference.io import FileIO
from reference.spec.bucket import validate_cross_partition_options
from reference.spec.commit_message import CommitMessage, IndexIncrement
from reference.spec.compare import compare_rows
from reference.spec.data import RowKind
from reference.spec.options import MergeEngine
from reference.spec.schema import TableSchema, decode_schema
from spark_impl.after_write import compact_after_write
from spark_impl.bucketing import compute_key_hashes
from spark_impl.plan import plan_read
from spark_impl.read import read_split
from spark_impl.write import (
    ASSIGNER_COLUMN,
    Input,
    TaskWriter,
    WritePlan,
    apply_row_rules,
    compute_dynamic_options,
    group_rows,
    read_input,
    select_input,
    write_group,
)

ASSIGNER_OPTIONS = ("dynamic-bucket.initial-buckets", "dynamic-bucket.assigner-parallelism")
DEFAULT_ASSIGNERS = 1
DELETE_BYTE = RowKind.DELETE.byte_value

Key = tuple[Any, ...]
Partition = tuple[Any, ...]


# --------------------------------------------------------------------------------------------
# Options and assigners (rules 1 and 6)
# --------------------------------------------------------------------------------------------


def compute_assigner_count(schema: TableSchema) -> int:
    """Rule 1's N."""
    counts = [int(schema.options[k]) for k in ASSIGNER_OPTIONS if k in schema.options]
    return max([DEFAULT_ASSIGNERS, *counts])


def compute_key_assigners(table: pa.Table, schema: TableSchema, assigners: int) -> np.ndarray:
    """Rule 1: every row's assigner, from its primary key's hash (Java ``BinaryRow``)."""
    by_name = {f.name: f.type for f in schema.fields}
    columns = [table.column(n).combine_chunks() for n in schema.primary_keys]
    hashes = compute_key_hashes(columns, [by_name[n] for n in schema.primary_keys])
    return np.abs(np.fmod(hashes.astype(np.int64), assigners))


def prepare_input(df: Any, schema_json: str, spark_parallelism: int) -> Any:
    """Rule 1 on a DataFrame that has ``_PAIMON_POS``: add the assigner column and shuffle by
    it (``spark_impl.jobs.write_table``)."""
    from pyspark.sql.types import IntegerType, StructField, StructType  # noqa: PLC0415

    schema = decode_schema(schema_json)
    assigners = compute_assigner_count(schema)

    def route(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from spark_impl.write import to_paimon_table  # noqa: PLC0415 (runs on executors)

        keys = [f for f in decode_schema(schema_json).fields if f.name in schema.primary_keys]
        for batch in batches:
            table = to_paimon_table(
                pa.Table.from_batches([batch]).select([f.name for f in keys]), keys
            )
            values = compute_key_assigners(table, schema, assigners).astype(np.int32)
            yield pa.RecordBatch.from_arrays(
                [*batch.columns, pa.array(values)], names=[*batch.schema.names, ASSIGNER_COLUMN]
            )

    fields = [*df.schema.fields, StructField(ASSIGNER_COLUMN, IntegerType(), False)]
    routed = df.mapInArrow(route, StructType(fields))
    return routed.repartition(min(assigners, spark_parallelism), ASSIGNER_COLUMN)


# --------------------------------------------------------------------------------------------
# The key index (rule 2)
# --------------------------------------------------------------------------------------------


@dataclass
class KeyIndex:
    """One assigner's keys with their (partition, bucket), and its buckets' key counts."""

    assigner: int
    assigners: int
    locations: dict[Key, tuple[Partition, int]] = field(default_factory=dict)
    counts: dict[Partition, dict[int, int]] = field(default_factory=dict)

    def is_owned(self, bucket: int) -> bool:
        return abs(bucket % self.assigners) == self.assigner

    def add(self, key: Key, partition: Partition, bucket: int) -> None:
        self.locations[key] = (partition, bucket)
        buckets = self.counts.setdefault(partition, {})
        buckets[bucket] = buckets.get(bucket, 0) + 1

    def assign_bucket(self, partition: Partition, target: int) -> int:
        """Java ``crosspartition.BucketAssigner.assignBucket`` (rule 3); counts the key."""
        buckets = self.counts.setdefault(partition, {})
        for bucket in sorted(buckets):
            if self.is_owned(bucket) and buckets[bucket] < target:
                buckets[bucket] += 1
                return bucket
        bucket = self.assigner
        while bucket in buckets:
            bucket += self.assigners
        buckets[bucket] = 1
        return bucket

    def decrement(self, partition: Partition, bucket: int) -> None:
        buckets = self.counts.setdefault(partition, {})
        buckets[bucket] = buckets.get(bucket, 0) - 1


def compute_keys(table: pa.Table, schema: TableSchema) -> list[Key]:
    """The trimmed primary key of every row, as Python values."""
    columns = [table.column(n).to_pylist() for n in schema.trimmed_primary_keys]
    return list(zip(*columns, strict=True)) if columns else []


def compute_partitions(table: pa.Table, schema: TableSchema) -> list[Partition]:
    columns = [table.column(n).to_pylist() for n in schema.partition_keys]
    return list(zip(*columns, strict=True))


def bootstrap_key_index(
    file_io: FileIO, table_root: str, schema: TableSchema, assigner: int, assigners: int
) -> KeyIndex:
    """Rule 2 (Java ``IndexBootstrap``): the assigner's keys in the latest snapshot."""
    index = KeyIndex(assigner, assigners)
    plan = plan_read(file_io, table_root)
    file_schemas = {i: decode_schema(j) for i, j in plan.file_schema_jsons.items()}
    for split in plan.splits:
        rows = read_split(file_io, split, plan.schema, file_schemas)
        mine = compute_key_assigners(rows, schema, assigners) == assigner
        for key in compute_keys(rows.filter(pa.array(mine)), schema):
            index.add(key, tuple(split.partition), split.bucket)
    return index


# --------------------------------------------------------------------------------------------
# Routing (rules 3 and 4)
# --------------------------------------------------------------------------------------------


@dataclass
class Routed:
    """Where each output row comes from: its input row, the partition it is moved to (``None``:
    its own), its bucket and its row kind byte; in the order the writer receives them."""

    sources: list[int] = field(default_factory=list)
    moved: list[Partition | None] = field(default_factory=list)
    buckets: list[int] = field(default_factory=list)
    kinds: list[int] = field(default_factory=list)

    def add(self, source: int, moved: Partition | None, bucket: int, kind: int) -> None:
        self.sources.append(source)
        self.moved.append(moved)
        self.buckets.append(bucket)
        self.kinds.append(kind)


@dataclass(frozen=True)
class Rows:
    """An assigner's input rows (indexes into the task's input, in arrival order)."""

    indexes: Sequence[int]
    keys: Sequence[Key]
    partitions: Sequence[Partition]
    kinds: np.ndarray


def route_row(
    index: KeyIndex, routed: Routed, rows: Rows, i: int, *, engine: MergeEngine, target: int
) -> None:
    """Rule 3 for input row ``rows.indexes[i]`` (Java ``GlobalIndexAssigner.processInput``)."""
    source, key, partition = rows.indexes[i], rows.keys[i], rows.partitions[i]
    kind = int(rows.kinds[source])
    previous = index.locations.get(key)
    if previous is not None and previous[0] == partition:
        routed.add(source, None, previous[1], kind)
        return
    if previous is not None:
        old_partition, old_bucket = previous
        if engine is MergeEngine.FIRST_ROW:
            return
        if engine is not MergeEngine.DEDUPLICATE:
            routed.add(source, old_partition, old_bucket, kind)
            return
        index.decrement(old_partition, old_bucket)
        routed.add(source, old_partition, old_bucket, DELETE_BYTE)
    bucket = index.assign_bucket(partition, target)
    index.locations[key] = (partition, bucket)
    routed.add(source, None, bucket, kind)


def compute_key_groups(rows: Rows, key_types: Sequence[Any], newest_first: bool) -> list[list[int]]:
    """Rule 4's order: positions into ``rows`` grouped by key, keys in Java's order, rows of
    a key by arrival (newest first for ``deduplicate``)."""

    def compare(left: int, right: int) -> int:
        order = compare_rows(key_types, rows.keys[left], rows.keys[right])
        if order:
            return order
        return right - left if newest_first else left - right

    groups: list[list[int]] = []
    for i in sorted(range(len(rows.indexes)), key=cmp_to_key(compare)):
        if not groups or compare_rows(key_types, rows.keys[groups[-1][0]], rows.keys[i]):
            groups.append([])
        groups[-1].append(i)
    return groups


def route_bulk_load(
    index: KeyIndex,
    routed: Routed,
    rows: Rows,
    key_types: Sequence[Any],
    *,
    engine: MergeEngine,
    target: int,
) -> None:
    """Rule 4 (Java ``ExistingProcessor.bulkLoadNewRecords``)."""
    newest_first = engine is MergeEngine.DEDUPLICATE
    for group in compute_key_groups(rows, key_types, newest_first):
        first = group[0]
        partition = rows.partitions[first]
        bucket = index.assign_bucket(partition, target)
        index.locations[rows.keys[first]] = (partition, bucket)
        source = rows.indexes[first]
        routed.add(source, None, bucket, int(rows.kinds[source]))
        if engine in (MergeEngine.PARTIAL_UPDATE, MergeEngine.AGGREGATE):
            for i in group[1:]:
                source = rows.indexes[i]
                routed.add(source, partition, bucket, int(rows.kinds[source]))


def route_assigner(
    index: KeyIndex, rows: Rows, schema: TableSchema, engine: MergeEngine, target: int
) -> Routed:
    """Rules 3 and 4 for one assigner's rows."""
    routed = Routed()
    if not index.locations:
        key_types = [f.type for f in schema.trimmed_primary_keys_type.fields]
        route_bulk_load(index, routed, rows, key_types, engine=engine, target=target)
        return routed
    for i in range(len(rows.indexes)):
        route_row(index, routed, rows, i, engine=engine, target=target)
    return routed


# --------------------------------------------------------------------------------------------
# Writing one task's rows
# --------------------------------------------------------------------------------------------


def apply_routing(data: Input, routed: Routed, schema: TableSchema) -> Input:
    """The routed rows as the writer's input: input rows taken in routed order, moved rows
    with their partition fields set to the old partition (Java ``ProjectToRowFunction``)."""
    table = data.table.take(pa.array(routed.sources, type=pa.int64()))
    for position, name in enumerate(schema.partition_keys):
        column = table.column(name)
        values = column.to_pylist()
        for i, moved in enumerate(routed.moved):
            if moved is not None:
                values[i] = moved[position]
        index = table.column_names.index(name)
        table = table.set_column(index, table.field(index), pa.array(values, type=column.type))
    n = table.num_rows
    kinds = np.asarray(routed.kinds, dtype=np.int8)
    return Input(table, kinds, np.arange(n, dtype=np.int64), None, None)


def route_task_rows(
    file_io: FileIO, plan: WritePlan, data: Input, assigners_column: np.ndarray
) -> tuple[Input, np.ndarray]:
    """Rules 2-4 for every assigner whose rows reached this task: the routed input and its
    buckets."""
    schema = plan.schema
    engine = schema.core_options.merge_engine
    target = compute_dynamic_options(schema).target_row_num
    assigners = compute_assigner_count(schema)
    keys, partitions = compute_keys(data.table, schema), compute_partitions(data.table, schema)
    order = np.argsort(data.positions, kind="stable")
    routed = Routed()
    for assigner in np.unique(assigners_column).tolist():
        mine = [int(i) for i in order if assigners_column[i] == assigner]
        index = bootstrap_key_index(file_io, plan.table_root, schema, assigner, assigners)
        rows = Rows(mine, [keys[i] for i in mine], [partitions[i] for i in mine], data.kinds)
        part = route_assigner(index, rows, schema, engine, target)
        for values in zip(part.sources, part.moved, part.buckets, part.kinds, strict=True):
            routed.add(*values)
    return apply_routing(data, routed, schema), np.asarray(routed.buckets, dtype=np.int64)


def write_cross_partition_task(
    file_io: FileIO, plan: WritePlan, batch: pa.Table, task_id: int = 0
) -> list[CommitMessage]:
    """Rules 1-5 for the rows one task received (the hook of ``spark_impl.write.write_task``):
    one commit message per (partition, bucket)."""
    schema = plan.schema
    validate_cross_partition_options(schema.options)
    if ASSIGNER_COLUMN not in batch.column_names:
        raise UnsupportedFeature(
            "cross-partition-update tables are written through spark_impl.write_table "
            "(every row of a key must reach one writer)"
        )
    data, _ = read_input(batch, schema)
    assigners_column = np.asarray(batch.column(ASSIGNER_COLUMN).to_numpy(), dtype=np.int64)
    routed, buckets = route_task_rows(file_io, plan, data, assigners_column)
    keep = apply_row_rules(routed.table, routed.kinds, schema)
    routed, buckets = select_input(routed, keep), buckets[keep]
    writer = TaskWriter(file_io, plan, schema, task_id)
    messages = []
    for group in group_rows(routed.table, buckets, routed.positions, schema):
        increment = write_group(writer, routed, group, False)
        message = CommitMessage(
            group.partition_bytes,
            group.bucket,
            plan.total_buckets,
            increment,
            index=IndexIncrement(),
        )
        if plan.base is not None:
            (message,) = compact_after_write(
                file_io, plan.table_root, [message], overwrite=plan.overwrite, base=plan.base
            )
        messages.append(message)
    return messages
