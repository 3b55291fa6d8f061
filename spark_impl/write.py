"""The write path of spark_impl: a driver-side :class:`WritePlan` and the task-side writer that
turns Arrow batches into data, changelog and HASH index files and commit messages.

The rules are those of ``reference/store/write.py`` (it documents them with the Java classes);
here they run vectorized over Arrow inside Spark tasks:

1. *Input.* Spark's Arrow columns are brought to Paimon's canonical Arrow types (timestamps
   floored to the column's precision). An optional ``_ROW_KIND`` column holds ``+I``, ``-U``,
   ``+U`` or ``-D`` (default ``+I``); ``rowkind.field`` overrides it; ``ignore-delete`` drops
   -U/-D, ``ignore-update-before`` drops -U; an append table accepts only +I/+U; a NOT NULL
   column must not hold null.
2. *Routing.* Fixed buckets: Java's hash of the bucket key (:mod:`spark_impl.bucketing`).
   Bucket-unaware append tables: bucket 0. Dynamic buckets: rows reach the task grouped by
   (partition, assigner) (``write_table`` shuffles them so), and the task assigns buckets from the
   partition's HASH index exactly as ``reference.store.bucket_assign`` rule 3 (Java
   ``HashBucketAssigner``), then rewrites the changed index files (rule 4, fastutil order).
   Cross-partition-update tables are routed by :mod:`spark_impl.cross_partition` instead.
3. *Sequence numbers.* Rows of a (partition, bucket) are numbered in arrival order (the
   ``_PAIMON_POS`` column ``write_table`` adds, else input order) after the bucket's largest
   ``max_sequence_number`` in the base snapshot (shipped by the driver); an overwrite and a
   bucket-unaware table start at 0. Input that was not shuffled by bucket may reach several
   tasks per bucket: each task then numbers from ``base + 1 + task * SEQUENCE_STRIDE``.
4. *Primary-key files*: the write buffer's records sorted and reduced per key
   (:mod:`spark_impl.reduce`), level 0, file source APPEND; ``changelog-producer = input``
   also writes every sorted record to changelog files. Append files: rows in order, each with
   the file index the table's ``file-index.*`` options ask for (:mod:`spark_impl.file_index`,
   options checked when the write is planned). Files roll at
   ``target-file-size``; names are ``<prefix><uuid>-<n><ext>``, one uuid per task, numbered in
   the order Java opens them.
5. *Messages.* One :class:`CommitMessage` per (partition, bucket).
6. *Compaction after the write.* Java's writer picks a compaction after its flush (universal
   compaction, or level-0 files forced up for tables that look up) and its batch commit waits
   for it. A task whose input was shuffled by bucket does the same for its buckets, from the
   base snapshot's files the driver shipped (:mod:`spark_impl.compact`; fixed-bucket append
   tables: :mod:`spark_impl.append_compact`); otherwise (several
   tasks may have written one bucket) the driver compacts the written buckets before it
   commits. The ``lookup`` changelog producer makes that compaction force level-0 files up
   and write their changelog (Java's ``lookup-wait``); the ``full-compaction`` producer writes
   changelog only in compactions into the top level (``jobs.compact(full=True)``): Java 0.9's
   batch writer ignores ``full-compaction.delta-commits``.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reference import layout
from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature, naming_file
from reference.io import FileIO
from reference.spec import data_file
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row, serialize_binary_row
from reference.spec.bucket import DYNAMIC_BUCKET, BucketMode
from reference.spec.commit_message import CommitMessage, DataIncrement, IndexIncrement
from reference.spec.data import RowKind, Timestamp
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.file_format import (
    arrow_to_rows,
    compute_arrow_type,
    conform_arrow_table,
)
from reference.spec.hash_index import HASH_INDEX_TYPE, decode_hash_index, encode_hash_index
from reference.spec.java_collections import (
    FASTUTIL_DEFAULT_EXPECTED,
    JAVA_HASH_MAP_INITIAL_CAPACITY,
    compute_int_hash_set_order,
    compute_java_hash_map_capacity,
    compute_java_hash_map_order,
)
from reference.spec.java_numbers import SHORT_MAX as JAVA_SHORT_MAX
from reference.spec.key_value import WRITE_LEVEL
from reference.spec.manifest import IndexFileMeta
from reference.spec.options import ChangelogProducer, option_value, validate_engine_combinations
from reference.spec.row_tracking import find_unwritten_option
from reference.spec.schema import TableSchema, decode_schema
from spark_impl import commit
from spark_impl.after_write import (
    BaseFiles,
    compact_after_write,
    compute_base_files,
    is_compacted_after_write,
)
from spark_impl.bucketing import compute_buckets, compute_key_hashes, compute_row_hash
from spark_impl.file_writer import (
    KeyValueLayout,
    MetaContext,
    compute_creation_time,
    compute_key_value_meta,
    compute_rolled_files,
    write_append_files,
    write_file,
)
from spark_impl.kv_layout import (
    FileKindPlan,
    compute_first_sequence,
    compute_key_value_table,
    compute_kv_layout,
    compute_level_plans,
)
from spark_impl.merge import KIND_COLUMN, ORDER_COLUMN, SEQUENCE_COLUMN, compute_merge_config
from spark_impl.metadata import (
    read_index_entries,
    read_latest_schema,
    read_latest_snapshot,
    read_live_entries,
    read_schema_json,
)
from spark_impl.plan import compute_bucket_dir
from spark_impl.reduce import reduce_records
from spark_impl.stream import ROW_KIND_COLUMN

POSITION_COLUMN = "_PAIMON_POS"
BUCKET_COLUMN = "_PAIMON_BUCKET"
ASSIGNER_COLUMN = "_PAIMON_ASSIGNER"
HELPER_COLUMNS = frozenset({POSITION_COLUMN, BUCKET_COLUMN, ASSIGNER_COLUMN})
ROW_KIND_STRINGS = tuple(kind.short_string for kind in RowKind)
ROW_KIND_BYTES = np.array([kind.byte_value for kind in RowKind], dtype=np.int8)
RETRACT_BYTES = (RowKind.UPDATE_BEFORE.byte_value, RowKind.DELETE.byte_value)


# --------------------------------------------------------------------------------------------
# The plan (driver side, shipped to tasks)
# --------------------------------------------------------------------------------------------


class DynamicOptions(NamedTuple):
    """``dynamic-bucket.target-row-num``, ``initial-buckets`` (assigner tasks), ``max-buckets``."""

    target_row_num: int
    assigners: int
    max_buckets: int


@dataclass(frozen=True)
class WritePlan:
    """What every task of one write needs: the table, its resolved options and the base
    snapshot's state (max sequence numbers, HASH index files by partition and bucket)."""

    table_root: str
    schema_json: str
    fs_options: Mapping[str, str]
    mode: BucketMode
    total_buckets: int
    data: FileKindPlan
    changelog: FileKindPlan | None
    kv_layout: KeyValueLayout | None
    overwrite: bool = False
    max_sequences: Mapping[tuple[bytes, int], int] = field(default_factory=dict)
    hash_index: Mapping[tuple[bytes, int], IndexFileMeta] = field(default_factory=dict)
    dynamic: DynamicOptions | None = None
    base: BaseFiles | None = None
    """The base snapshot's files, for the compaction a writer runs after its flush (primary-key
    tables that are not ``write-only``); ``None``: no compaction in the tasks."""

    @property
    def schema(self) -> TableSchema:
        return decode_schema(self.schema_json)


def compute_bucket_mode(schema: TableSchema) -> BucketMode:
    bucket = schema.core_options.bucket
    if bucket == -2:
        raise UnsupportedFeature("postponed buckets ('bucket' = -2) are not written by 0.9")
    if bucket == 0 or bucket < DYNAMIC_BUCKET:
        raise InvalidOptionError("bucket", bucket, "must be -1 or a positive bucket count")
    if schema.cross_partition_update:
        if bucket != DYNAMIC_BUCKET:
            raise InvalidOptionError(
                "bucket", bucket, "a primary key without every partition field needs bucket -1"
            )
        return BucketMode.CROSS_PARTITION
    if bucket != DYNAMIC_BUCKET:
        if not schema.bucket_keys:
            raise InvalidOptionError("bucket-key", None, "a fixed-bucket append table needs one")
        return BucketMode.FIXED
    return BucketMode.DYNAMIC if schema.is_primary_key_table else BucketMode.UNAWARE


def compute_dynamic_options(schema: TableSchema) -> DynamicOptions:
    options = schema.options

    def number(key: str, default: str, low: int) -> int:
        text = options.get(key, default)
        try:
            value = int(text)
        except ValueError:
            raise InvalidOptionError(key, text, "expected an integer") from None
        if value < low:
            raise InvalidOptionError(key, text, f"must be at least {low}")
        return value

    maximum = number("dynamic-bucket.max-buckets", "-1", -1)
    if maximum == 0:
        raise InvalidOptionError("dynamic-bucket.max-buckets", maximum, "must be -1 or positive")
    return DynamicOptions(
        target_row_num=number("dynamic-bucket.target-row-num", "2000000", 1),
        assigners=number("dynamic-bucket.initial-buckets", "1", 1),
        max_buckets=maximum,
    )


def validate_write_options(schema: TableSchema) -> None:
    validate_engine_combinations(schema.options)
    producer = schema.core_options.changelog_producer
    if not schema.is_primary_key_table and producer is not ChangelogProducer.NONE:
        raise InvalidOptionError(
            "changelog-producer", producer.value, "an append table writes no changelog"
        )
    if producer is ChangelogProducer.FULL_COMPACTION and option_value(
        schema.options, "force-lookup"
    ):
        raise UnsupportedFeature("'force-lookup' with changelog-producer 'full-compaction'")
    if "data-file.external-paths" in schema.options:
        raise UnsupportedFeature("writing to 'data-file.external-paths' (main only)")
    unwritten = find_unwritten_option(schema.options)
    if unwritten is not None:
        raise UnsupportedFeature(f"writing to a table with '{unwritten}' (Paimon 1.x, read only)")
    if schema.options.get("sequence.snapshot-ordering", "false").lower() == "true":
        raise UnsupportedFeature("'sequence.snapshot-ordering'")


def create_write_plan(
    table_root: str,
    schema_json: str,
    fs_options: Mapping[str, str],
    *,
    overwrite: bool,
    max_sequences: Mapping[tuple[bytes, int], int],
    hash_index: Mapping[tuple[bytes, int], IndexFileMeta],
    base: BaseFiles | None = None,
) -> WritePlan:
    """Resolve and check every option the writer uses (driver side)."""
    schema = decode_schema(schema_json)
    validate_write_options(schema)
    mode = compute_bucket_mode(schema)
    data, changelog = compute_level_plans(schema, WRITE_LEVEL)
    producer = schema.core_options.changelog_producer
    return WritePlan(
        table_root=table_root,
        schema_json=schema_json,
        fs_options=dict(fs_options),
        mode=mode,
        total_buckets=schema.core_options.bucket,
        data=data,
        changelog=changelog if producer is ChangelogProducer.INPUT else None,
        kv_layout=compute_kv_layout(schema) if schema.is_primary_key_table else None,
        overwrite=overwrite,
        max_sequences={} if overwrite else dict(max_sequences),
        hash_index={} if overwrite else dict(hash_index),
        dynamic=compute_dynamic_options(schema) if mode is BucketMode.DYNAMIC else None,
        base=base if is_compacted_after_write(schema) else None,
    )


# --------------------------------------------------------------------------------------------
# Input conversion (rule 1)
# --------------------------------------------------------------------------------------------


def _floor_timestamp(column: pa.Array, target: pa.DataType) -> pa.Array:
    """A timestamp column in ``target``'s unit, floored (Java keeps the instant at or before)."""
    factors = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
    source_unit, target_unit = column.type.unit, target.unit
    values = column.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    nanos_per_source, nanos_per_target = factors[source_unit], factors[target_unit]
    if nanos_per_source >= nanos_per_target:
        converted = values * (nanos_per_source // nanos_per_target)
    else:
        converted = np.floor_divide(values, nanos_per_target // nanos_per_source)
    mask = column.is_null().to_numpy(zero_copy_only=False)
    return pa.array(converted, mask=mask).cast(pa.int64()).cast(target)


def _floor_time(column: pa.Array, target: pa.DataType) -> pa.Array:
    factors = {"s": 1_000, "ms": 1, "us": 1_000, "ns": 1_000_000}
    unit = column.type.unit
    raw = column.cast(pa.int64() if pa.types.is_time64(column.type) else pa.int32())
    values = raw.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
    millis = values * factors[unit] if unit == "s" else values // factors[unit]
    mask = column.is_null().to_numpy(zero_copy_only=False)
    return pa.array(millis.astype(np.int32), mask=mask).cast(target)


def to_paimon_column(column: pa.Array, data_type: t.DataType) -> pa.Array:
    """A Spark Arrow column as the canonical Paimon Arrow column of ``data_type``."""
    target = compute_arrow_type(data_type)
    if column.type.equals(target):
        return column
    if pa.types.is_timestamp(column.type) and pa.types.is_timestamp(target):
        return _floor_timestamp(column, target)
    if (pa.types.is_time32(column.type) or pa.types.is_time64(column.type)) and pa.types.is_time32(
        target
    ):
        return _floor_time(column, target)
    return column.cast(target)


def to_paimon_table(batch: pa.Table, fields: Sequence[t.DataField]) -> pa.Table:
    """The table's columns (by name) in canonical Arrow form, checked against the schema."""
    missing = [f.name for f in fields if f.name not in batch.column_names]
    if missing:
        raise SpecViolation(f"the data lacks the columns {missing}", code="WRITE_COLUMN_MISSING")
    unknown = set(batch.column_names) - {f.name for f in fields} - HELPER_COLUMNS
    unknown.discard(ROW_KIND_COLUMN)
    if unknown:
        raise SpecViolation(
            f"the data has columns {sorted(unknown)} that the table lacks",
            code="WRITE_COLUMN_UNKNOWN",
        )
    columns = [to_paimon_column(batch.column(f.name).combine_chunks(), f.type) for f in fields]
    table = pa.Table.from_arrays(columns, names=[f.name for f in fields])
    try:
        return conform_arrow_table(table, fields)
    except SpecViolation as error:
        if "null" in str(error).lower():
            raise SpecViolation(str(error), code="NULL_IN_NOT_NULL_COLUMN") from None
        raise


def parse_row_kinds(column: pa.Array | None, n: int) -> np.ndarray:
    """Row kind bytes from ``+I``/``-U``/``+U``/``-D`` strings (null or absent: ``+I``)."""
    if column is None:
        return np.zeros(n, dtype=np.int8)
    index = pc.index_in(column, value_set=pa.array(ROW_KIND_STRINGS))
    unknown = pc.and_(pc.is_null(index), pc.is_valid(column))
    if pc.any(unknown).as_py():
        bad = column.filter(unknown)[0].as_py()
        raise SpecViolation(
            f"row kind {bad!r} is not one of {', '.join(ROW_KIND_STRINGS)}", code="ROW_KIND"
        )
    codes = index.fill_null(0).to_numpy(zero_copy_only=False)
    return np.asarray(ROW_KIND_BYTES[codes], dtype=np.int8)


@dataclass(frozen=True)
class Input:
    """A task's rows after rule 1: canonical columns, kinds, arrival positions and, when the
    input was prepared by ``write_table``, buckets or assigners."""

    table: pa.Table
    kinds: np.ndarray
    positions: np.ndarray
    buckets: np.ndarray | None
    assigners: np.ndarray | None


def apply_row_rules(table: pa.Table, kinds: np.ndarray, schema: TableSchema) -> np.ndarray:
    """Rule 1: the final kinds; returns a mask of the rows that stay."""
    options = schema.core_options
    rowkind_field = options.rowkind_field
    if rowkind_field is not None:
        column = table.column(rowkind_field).combine_chunks()
        if column.null_count:
            raise SpecViolation("the rowkind.field value is null", code="ROWKIND_FIELD")
        kinds[:] = parse_row_kinds(column, table.num_rows)
    ignore_update_before = schema.options.get("ignore-update-before", "false").lower() == "true"
    retracts = np.isin(kinds, RETRACT_BYTES)
    keep = np.ones(len(kinds), dtype=bool)
    if options.ignore_delete:
        keep &= ~retracts
    elif ignore_update_before:
        keep &= kinds != RowKind.UPDATE_BEFORE.byte_value
    if not schema.is_primary_key_table:
        retract = keep & retracts
        if retract.any():
            raise SpecViolation(
                "an append table accepts only +I and +U rows; configure 'ignore-delete' to "
                "drop retractions",
                code="APPEND_RETRACT",
            )
    return keep


def read_input(batch: pa.Table, schema: TableSchema) -> tuple[Input, np.ndarray]:
    """Rule 1 for the rows of one task (``batch`` holds Spark's Arrow columns): all the rows,
    and the mask of those the row rules keep (dynamic buckets are assigned before the rules
    drop any row, so the caller filters with :func:`select_input`)."""
    table = to_paimon_table(batch, schema.fields)
    n = table.num_rows
    kind_column = (
        batch.column(ROW_KIND_COLUMN).combine_chunks()
        if ROW_KIND_COLUMN in batch.column_names
        else None
    )
    kinds = parse_row_kinds(kind_column, n)
    keep = apply_row_rules(table, kinds, schema)

    def helper(name: str) -> np.ndarray | None:
        if name not in batch.column_names:
            return None
        return np.asarray(batch.column(name).to_numpy(), dtype=np.int64)

    positions = helper(POSITION_COLUMN)
    if positions is None:
        positions = np.arange(n, dtype=np.int64)
    buckets, assigners = helper(BUCKET_COLUMN), helper(ASSIGNER_COLUMN)
    return Input(table, kinds, positions, buckets, assigners), keep


def select_input(data: Input, keep: np.ndarray) -> Input:
    """The rows of ``data`` where ``keep`` holds."""
    if keep.all():
        return data
    return Input(
        data.table.filter(pa.array(keep)),
        data.kinds[keep],
        data.positions[keep],
        None if data.buckets is None else data.buckets[keep],
        None if data.assigners is None else data.assigners[keep],
    )


# --------------------------------------------------------------------------------------------
# Routing (rule 2)
# --------------------------------------------------------------------------------------------


def compute_fixed_buckets(table: pa.Table, schema: TableSchema) -> np.ndarray:
    names = schema.bucket_keys
    by_name = {f.name: f for f in schema.fields}
    columns = [table.column(n).combine_chunks() for n in names]
    hashes = compute_key_hashes(columns, [by_name[n].type for n in names])
    function = schema.options.get("bucket-function.type", "default").lower()
    if function == "mod":
        if len(names) != 1 or by_name[names[0]].type.root not in (
            t.TypeRoot.INTEGER,
            t.TypeRoot.BIGINT,
        ):
            raise InvalidOptionError("bucket-function.type", function, "needs one INT/BIGINT key")
        values = columns[0].fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        return np.asarray(np.mod(values, schema.core_options.bucket), dtype=np.int64)
    if function != "default":
        raise UnsupportedFeature(f"bucket function '{function}' is not implemented")
    return compute_buckets(hashes, schema.core_options.bucket).astype(np.int64)


def compute_trimmed_key_hashes(table: pa.Table, schema: TableSchema) -> np.ndarray:
    by_name = {f.name: f for f in schema.fields}
    names = schema.trimmed_primary_keys
    columns = [table.column(n).combine_chunks() for n in names]
    return compute_key_hashes(columns, [by_name[n].type for n in names])


def _java_remainder(dividend: np.ndarray, divisor: int) -> np.ndarray:
    return np.asarray(np.fmod(dividend.astype(np.int64), divisor))


def compute_assigners(
    partition_hashes: np.ndarray, key_hashes: np.ndarray, assigners: int
) -> np.ndarray:
    """Java ``BucketAssigner.computeAssigner`` for every row."""
    start = np.abs(_java_remainder(partition_hashes, assigners))
    offset = np.abs(_java_remainder(key_hashes, assigners))
    return np.asarray((start + offset) % assigners)


# --------------------------------------------------------------------------------------------
# Dynamic buckets (``reference.store.bucket_assign`` rules 3 and 4)
# --------------------------------------------------------------------------------------------


def owned_hashes(
    index_files: Mapping[int, np.ndarray], assigner: int, partition_hash: int, assigners: int
) -> tuple[np.ndarray, np.ndarray]:
    """The (hash, bucket) pairs of the partition's HASH index that ``assigner`` owns, as two
    arrays sorted by hash."""
    if not index_files:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    hashes = np.concatenate([np.asarray(h, dtype=np.int64) for h in index_files.values()])
    buckets = np.repeat(
        np.fromiter(index_files, dtype=np.int64), [len(h) for h in index_files.values()]
    )
    partition = np.full(len(hashes), partition_hash, dtype=np.int64)
    mine = compute_assigners(partition, hashes, assigners) == assigner
    order = np.argsort(hashes[mine], kind="stable")
    return hashes[mine][order], buckets[mine][order]


@dataclass
class Candidates:
    """The buckets an assigner may still fill, with their hash counts, as Java's ``HashMap``
    holds them: insertion order, its table size and its entry count (which only full buckets
    leaving the map lower)."""

    loads: dict[int, int]
    used: set[int]
    table_size: int
    entries: int

    def first_with_room(self, target: int) -> int | None:
        """Walk the map in Java order, dropping full buckets met on the way."""
        for bucket in compute_java_hash_map_order(list(self.loads), self.table_size):
            if self.loads[bucket] < target:
                return bucket
            del self.loads[bucket]
            self.entries -= 1
        return None

    def add(self, bucket: int) -> None:
        self.loads[bucket] = 0
        self.used.add(bucket)
        self.entries += 1
        self.table_size = compute_java_hash_map_capacity(self.table_size, self.entries)


def owned_candidates(
    index_files: Mapping[int, np.ndarray], assigner: int, assigners: int
) -> Candidates:
    loads = {b: len(h) for b, h in index_files.items() if b % assigners == assigner % assigners}
    size = compute_java_hash_map_capacity(JAVA_HASH_MAP_INITIAL_CAPACITY, len(loads))
    return Candidates(loads, set(loads), size, len(loads))


def unused_owned_bucket(
    candidates: Candidates, assigner: int, options: DynamicOptions
) -> int | None:
    """The smallest bucket id the assigner owns that no index file uses yet."""
    limit = JAVA_SHORT_MAX if options.max_buckets == -1 else options.max_buckets
    owned = range(assigner % options.assigners, limit, options.assigners)
    return next((b for b in owned if b not in candidates.used), None)


def place_new_hashes(
    count: int, candidates: Candidates, assigner: int, options: DynamicOptions
) -> np.ndarray:
    """Buckets for ``count`` new hashes taken in first-seen order: each step fills a run of
    them into the first candidate with room, or opens a bucket for one."""
    placed = np.empty(count, dtype=np.int64)
    done = 0
    while done < count:
        bucket = candidates.first_with_room(options.target_row_num)
        if bucket is None:
            bucket = unused_owned_bucket(candidates, assigner, options)
            if bucket is None and options.max_buckets == -1:
                raise SpecViolation(
                    f"more than {JAVA_SHORT_MAX} dynamic buckets", code="TOO_MANY_BUCKETS"
                )
            if bucket is None:
                placed[done:] = min(candidates.used)
                break
            candidates.add(bucket)
        run = min(options.target_row_num - candidates.loads[bucket], count - done)
        placed[done : done + run] = bucket
        candidates.loads[bucket] += run
        done += run
    return placed


def assign_dynamic(
    hashes: np.ndarray,
    index_files: Mapping[int, np.ndarray],
    assigner: int,
    partition_hash: int,
    options: DynamicOptions,
) -> np.ndarray:
    """The buckets of one (partition, assigner)'s rows, in arrival order."""
    known, known_buckets = owned_hashes(index_files, assigner, partition_hash, options.assigners)
    distinct, first_seen = np.unique(hashes, return_index=True)
    arrival = distinct[np.argsort(first_seen, kind="stable")]
    fresh = arrival[~np.isin(arrival, known)]
    candidates = owned_candidates(index_files, assigner, options.assigners)
    fresh_buckets = place_new_hashes(len(fresh), candidates, assigner, options)
    all_hashes = np.concatenate([known, fresh])
    all_buckets = np.concatenate([known_buckets, fresh_buckets])
    order = np.argsort(all_hashes, kind="stable")
    found = np.searchsorted(all_hashes[order], hashes)
    return np.asarray(all_buckets[order][found])


# --------------------------------------------------------------------------------------------
# Writing one task's rows
# --------------------------------------------------------------------------------------------


@dataclass
class TaskWriter:
    """The state of one task's write: storage, plan, names (one uuid, shared counters)."""

    file_io: FileIO
    plan: WritePlan
    schema: TableSchema
    task_id: int
    writer_uuid: str = field(default_factory=lambda: str(uuid.uuid4()))
    counter: itertools.count[int] = field(default_factory=itertools.count)
    index_counter: itertools.count[int] = field(default_factory=itertools.count)
    creation_time: Timestamp = field(default_factory=compute_creation_time)

    def name(self, kind: FileKindPlan) -> str:
        return data_file.compute_data_file_name(
            kind.prefix, self.writer_uuid, next(self.counter), kind.extension
        )

    def index_name(self) -> str:
        return data_file.compute_meta_file_name(
            data_file.MetaFileKind.INDEX, self.writer_uuid, next(self.index_counter)
        )

    @property
    def context(self) -> MetaContext:
        return MetaContext(self.schema.id, WRITE_LEVEL, FileSource.APPEND, self.creation_time)


@dataclass(frozen=True)
class BucketGroup:
    """The rows of one (partition, bucket), in arrival order."""

    partition: tuple[Any, ...]
    partition_bytes: bytes
    bucket: int
    rows: np.ndarray


def group_rows(
    table: pa.Table, buckets: np.ndarray, positions: np.ndarray, schema: TableSchema
) -> list[BucketGroup]:
    """Rows grouped by (partition, bucket), each group in arrival order."""
    n = table.num_rows
    keys = {name: table.column(name) for name in schema.partition_keys}
    keys["__bucket"] = pa.array(buckets)
    keys["__row"] = pa.array(np.arange(n))
    grouped = (
        pa.table(keys)
        .group_by([*schema.partition_keys, "__bucket"], use_threads=False)
        .aggregate([("__row", "list")])
    )
    partition_fields = list(schema.partition_type.fields)
    partition_types = [f.type for f in partition_fields]

    partitions = arrow_to_rows(grouped.select(list(schema.partition_keys)), partition_fields)
    lists = grouped.column("__row_list").combine_chunks()
    bounds = lists.offsets.to_numpy()
    members = lists.values.to_numpy()
    groups = []
    for index in range(grouped.num_rows):
        rows_array = members[bounds[index] : bounds[index + 1]]
        rows_array = rows_array[np.argsort(positions[rows_array], kind="stable")]
        partition = tuple(partitions[index])
        groups.append(
            BucketGroup(
                partition,
                serialize_binary_row(partition, partition_types),
                int(grouped.column("__bucket")[index].as_py()),
                rows_array,
            )
        )
    return groups


def first_sequence(writer: TaskWriter, group: BucketGroup, stride_tasks: bool) -> int:
    """Rule 3: where the group's sequence numbers start (bucket-unaware tables: at 0)."""
    plan = writer.plan
    if plan.mode is BucketMode.UNAWARE:
        return 0
    found = plan.max_sequences.get((group.partition_bytes, group.bucket))
    return compute_first_sequence(found, writer.task_id, stride_tasks=stride_tasks)


def write_key_value_files(
    writer: TaskWriter,
    directory: str,
    merged: pa.Table,
    ends: np.ndarray,
    raw: pa.Table | None,
) -> tuple[list[DataFileMeta], list[DataFileMeta]]:
    """Data files of ``merged`` and changelog files of ``raw``, named in Java's opening order:
    raw record ``i`` is read at ``(i, 0)``, merged record ``j`` written at
    ``(min(ends[j] + 1, last raw), 1)``."""
    plan, schema = writer.plan, writer.schema
    assert plan.kv_layout is not None
    kv = plan.kv_layout
    total_raw = len(ends) and int(ends[-1]) + 1
    planned: list[tuple[tuple[int, int], bool, int, int, bytes, pa.Table]] = []
    data_table = compute_key_value_table(merged, schema, kv)
    for start, end, data in compute_rolled_files(data_table, plan.data.settings):
        opened = (min(int(ends[start]) + 1, total_raw - 1), 1)
        planned.append((opened, False, start, end, data, data_table))
    if raw is not None and plan.changelog is not None:
        raw_table = compute_key_value_table(raw, schema, kv)
        for start, end, data in compute_rolled_files(raw_table, plan.changelog.settings):
            planned.append(((start, 0), True, start, end, data, raw_table))
    written: dict[bool, list[DataFileMeta]] = {False: [], True: []}
    for _, is_changelog, start, end, data, table in sorted(planned, key=lambda p: p[0]):
        kind = plan.changelog if is_changelog else plan.data
        assert kind is not None
        name = writer.name(kind)
        write_file(writer.file_io, directory, name, data)
        written[is_changelog].append(
            compute_key_value_meta(
                table.slice(start, end - start),
                name,
                len(data),
                settings=kind.settings,
                kv_layout=kv,
                context=writer.context,
            )
        )
    return written[False], written[True]


def write_group(
    writer: TaskWriter, data: Input, group: BucketGroup, stride_tasks: bool
) -> DataIncrement:
    """The files of one (partition, bucket)."""
    plan, schema = writer.plan, writer.schema
    directory = compute_bucket_dir(plan.table_root, schema, group.partition, group.bucket)
    rows = pa.array(group.rows)
    values = data.table.take(rows)
    first = first_sequence(writer, group, stride_tasks)
    if not schema.is_primary_key_table:
        metas = write_append_files(
            writer.file_io,
            directory,
            values,
            settings=plan.data.settings,
            first_sequence=first,
            context=writer.context,
            names=lambda: writer.name(plan.data),
        )
        return DataIncrement(new_files=tuple(metas))
    n = len(group.rows)
    records = values.append_column(
        SEQUENCE_COLUMN, pa.array(np.arange(first, first + n, dtype=np.int64))
    )
    records = records.append_column(KIND_COLUMN, pa.array(data.kinds[group.rows]))
    records = records.append_column(ORDER_COLUMN, pa.array(np.arange(n)))
    reduced = reduce_records(records, compute_merge_config(schema))
    raw = reduced.raw if plan.changelog is not None else None
    new_files, changelog = write_key_value_files(
        writer, directory, reduced.merged, reduced.ends, raw
    )
    return DataIncrement(new_files=tuple(new_files), changelog_files=tuple(changelog))


def read_hash_index_file(file_io: FileIO, table_root: str, meta: IndexFileMeta) -> np.ndarray:
    path = meta.external_path or layout.index_file_path(table_root, meta.file_name)
    with naming_file(path):
        return np.asarray(decode_hash_index(file_io.read_bytes(path)), dtype=np.int64)


def route_dynamic(
    writer: TaskWriter, data: Input, keep: np.ndarray
) -> tuple[np.ndarray, dict[tuple[bytes, int], tuple[list[int], list[int]]]]:
    """Rule 2 for dynamic buckets: every row's bucket (rows rule 1 drops take a place too, as
    Java assigns before its writer drops them) and, per (partition, bucket) written, the old
    hashes of its index and the new hashes of the rows in ``keep``."""
    plan, schema = writer.plan, writer.schema
    assert plan.dynamic is not None
    options = plan.dynamic
    key_hashes = compute_trimmed_key_hashes(data.table, schema).astype(np.int64)
    partition_rows, partition_ids = distinct_partitions(data.table, schema)
    partition_types = [f.type for f in schema.partition_type.fields]
    partition_bytes = [serialize_binary_row(p, partition_types) for p in partition_rows]
    partition_hashes = np.array(
        [compute_row_hash(p, partition_types) for p in partition_rows], dtype=np.int64
    )
    row_partition_hashes = partition_hashes[partition_ids]
    assigners = compute_assigners(row_partition_hashes, key_hashes, options.assigners)
    buckets = np.zeros(data.table.num_rows, dtype=np.int64)
    order = np.argsort(data.positions, kind="stable")
    stored: dict[tuple[bytes, int], np.ndarray] = {}
    for (identity, bucket), meta in plan.hash_index.items():
        if identity in partition_bytes:
            stored[identity, bucket] = read_hash_index_file(writer.file_io, plan.table_root, meta)
    for pid, identity in enumerate(partition_bytes):
        files = {b: h for (i, b), h in stored.items() if i == identity}
        for assigner in np.unique(assigners[partition_ids == pid]).tolist():
            rows = order[(partition_ids[order] == pid) & (assigners[order] == assigner)]
            buckets[rows] = assign_dynamic(
                key_hashes[rows], files, assigner, int(partition_hashes[pid]), options
            )
    changes: dict[tuple[bytes, int], tuple[list[int], list[int]]] = {}
    for pid, identity in enumerate(partition_bytes):
        rows = order[(partition_ids[order] == pid) & keep[order]]
        for bucket in np.unique(buckets[rows]).tolist():
            new = key_hashes[rows[buckets[rows] == bucket]].tolist()
            old = stored.get((identity, bucket))
            changes[identity, bucket] = ([] if old is None else old.tolist(), new)
    return buckets, changes


def distinct_partitions(
    table: pa.Table, schema: TableSchema
) -> tuple[list[tuple[Any, ...]], np.ndarray]:
    """The distinct partition rows of ``table`` and each row's partition number."""
    if not schema.partition_keys:
        return [()], np.zeros(table.num_rows, dtype=np.int64)

    keys = {name: table.column(name) for name in schema.partition_keys}
    keys["__row"] = pa.array(np.arange(table.num_rows))
    grouped = (
        pa.table(keys)
        .group_by(list(schema.partition_keys), use_threads=False)
        .aggregate([("__row", "list")])
    )
    fields = list(schema.partition_type.fields)
    rows = [tuple(r) for r in arrow_to_rows(grouped.select(list(schema.partition_keys)), fields)]
    ids = np.zeros(table.num_rows, dtype=np.int64)
    for number, members in enumerate(grouped.column("__row_list").to_pylist()):
        ids[np.asarray(members, dtype=np.int64)] = number
    return rows, ids


def write_index_increment(
    writer: TaskWriter, identity: bytes, bucket: int, hashes: tuple[list[int], list[int]]
) -> IndexIncrement:
    """Rule 4: a bucket whose index gains a hash gets a new index file replacing the old."""
    old, new = hashes
    if set(new) <= set(old):
        return IndexIncrement()
    previous = writer.plan.hash_index.get((identity, bucket))
    expected = len(old) if previous is not None else FASTUTIL_DEFAULT_EXPECTED
    ordered = compute_int_hash_set_order([*old, *new], expected)
    data = encode_hash_index(ordered)
    name = writer.index_name()
    writer.file_io.write_bytes(layout.index_file_path(writer.plan.table_root, name), data)
    meta = IndexFileMeta(HASH_INDEX_TYPE, name, len(data), len(ordered))
    deleted = (previous,) if previous is not None else ()
    return IndexIncrement(new_index_files=(meta,), deleted_index_files=deleted)


def write_task(
    file_io: FileIO, plan: WritePlan, batch: pa.Table, task_id: int = 0
) -> list[CommitMessage]:
    """Rules 1-5 for the rows one task received: one commit message per (partition, bucket)."""
    if plan.mode is BucketMode.CROSS_PARTITION:
        raise UnsupportedFeature(
            "cross-partition-update tables are written by spark_impl.cross_partition "
            "(through spark_impl.write_table)"
        )
    schema = plan.schema
    data, keep = read_input(batch, schema)
    writer = TaskWriter(file_io, plan, schema, task_id)
    if not keep.any():
        return []
    index_changes: dict[tuple[bytes, int], tuple[list[int], list[int]]] = {}
    stride_tasks = False
    if plan.mode is not BucketMode.DYNAMIC:
        data = select_input(data, keep)
    if plan.mode is BucketMode.UNAWARE:
        buckets = np.zeros(data.table.num_rows, dtype=np.int64)
    elif plan.mode is BucketMode.FIXED:
        buckets = (
            data.buckets if data.buckets is not None else compute_fixed_buckets(data.table, schema)
        )
        stride_tasks = data.buckets is None
    else:
        if data.assigners is None:
            raise UnsupportedFeature(
                "dynamic-bucket tables are written through spark_impl.write_table "
                "(rows must reach the writers grouped by partition and assigner)"
            )
        buckets, index_changes = route_dynamic(writer, data, keep)
        data, buckets = select_input(data, keep), buckets[keep]
    messages = []
    for group in group_rows(data.table, buckets, data.positions, schema):
        increment = write_group(writer, data, group, stride_tasks)
        index = (
            write_index_increment(
                writer,
                group.partition_bytes,
                group.bucket,
                index_changes[group.partition_bytes, group.bucket],
            )
            if plan.mode is BucketMode.DYNAMIC
            else IndexIncrement()
        )
        message = CommitMessage(
            group.partition_bytes, group.bucket, plan.total_buckets, increment, index=index
        )
        if plan.base is not None and not stride_tasks:
            (message,) = compact_after_write(
                file_io, plan.table_root, [message], overwrite=plan.overwrite, base=plan.base
            )
        messages.append(message)
    return messages


def decode_partition(partition_bytes: bytes, schema: TableSchema) -> tuple[Any, ...]:
    return tuple(
        deserialize_binary_row(partition_bytes, [f.type for f in schema.partition_type.fields])
    )


def plan_write(
    file_io: FileIO, table_root: str, fs_options: Mapping[str, str], *, overwrite: bool
) -> WritePlan:
    """Driver side: the latest schema and the base snapshot's sequence numbers, HASH index and
    files (an overwrite starts from an empty table, as Java's writer does)."""

    table_root = table_root.rstrip("/")
    schema = read_latest_schema(file_io, table_root)
    schema_json = read_schema_json(file_io, table_root, schema.id)
    latest = None if overwrite else read_latest_snapshot(file_io, table_root)
    live = read_live_entries(file_io, table_root, latest)
    index_entries = read_index_entries(file_io, table_root, latest)
    hash_index = {
        (entry.partition, entry.bucket): entry.index_file
        for entry in index_entries
        if entry.index_file.index_type == HASH_INDEX_TYPE
    }
    return create_write_plan(
        table_root,
        schema_json,
        fs_options,
        overwrite=overwrite,
        max_sequences=commit.max_sequence_numbers(live),
        hash_index=hash_index,
        base=compute_base_files(file_io, table_root, schema, live, index_entries),
    )
