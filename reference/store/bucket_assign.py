"""Bucket assignment: which partition and bucket each written row goes to.

Spec: ``docs/concepts/spec/datafile.md`` ("Bucket"), ``tableindex.md`` ("Dynamic Bucket Index"),
``docs/primary-key-table/data-distribution.md``. Java (0.9.0): ``table/BucketMode``,
``table/sink/FixedBucketRowKeyExtractor``, ``table/sink/UnawareBucketRowKeyExtractor``,
``index/BucketAssigner``, ``index/HashBucketAssigner``, ``index/PartitionIndex``,
``index/HashIndexMaintainer``, ``crosspartition/GlobalIndexAssigner``,
``crosspartition/BucketAssigner``, ``crosspartition/*ExistingProcessor``,
``crosspartition/IndexBootstrap``.

Rules:

1. *Modes.* ``bucket`` > 0 is a fixed bucket count; ``bucket = -1`` makes an append table
   bucket-unaware (every row goes to bucket 0 of its partition), a primary-key table
   dynamic-bucket, or cross-partition when its primary key lacks a partition field. Any other
   value is invalid (``-2``, postponed buckets, exists only after 0.9).
2. *Fixed.* The bucket of a row is the Java hash of its bucket-key values modulo the bucket
   count (``reference.spec.bucket``).
3. *Dynamic.* The HASH index of a (partition, bucket) lists the hash of every trimmed primary
   key ever written there. A key whose hash is in the partition's index keeps its bucket; a new
   hash goes to the first bucket with fewer than ``dynamic-bucket.target-row-num`` hashes, in
   the iteration order of Java's ``HashMap`` (by ``bucket mod capacity``, then insertion
   order), full buckets being dropped from the candidates as they are met; with none left it
   opens the smallest bucket id not in use. ``dynamic-bucket.initial-buckets`` = N emulates N
   assigner tasks (as Flink's assigner with N channels): a key goes to task
   ``(|partition hash % N| + |key hash % N|) % N`` and task i only owns buckets ``b % N == i``.
   Main's ``dynamic-bucket.max-buckets`` caps the bucket ids; once reached Java picks an
   existing bucket at random and the reference the smallest.
4. *HASH index maintenance.* Every row written to a dynamic bucket (deletes included) adds its
   hash to that bucket's index; a bucket whose index gained a hash gets a new index file
   holding all its hashes, replacing the old one. The order of hashes is the iteration order of
   fastutil's ``IntOpenHashSet`` as Java builds it (the old file's hashes, then the new ones), so
   index files are byte-identical to Java's.
5. *Cross-partition update.* A key index maps each trimmed primary key visible in the base
   snapshot to its partition and bucket; buckets of a partition are counted in keys. A row whose
   key is in another partition is handled by the merge engine: ``deduplicate`` retracts it there
   (a DELETE carrying the new values with the old partition) and inserts the row in its own
   partition; ``first-row`` drops the row; ``partial-update`` and ``aggregation`` write the row
   into the old partition and bucket. A key seen for the first time (or again in the same
   partition) goes to the first bucket of its partition with room, in ascending bucket order.
   When the key index is empty, Java loads the batch in bulk instead: rows are sorted by key
   (then by input position), ``deduplicate`` keeps only the last row of each key,
   ``first-row`` the first, and ``partial-update``/``aggregation`` send every row of a key to
   the partition and bucket of its first row. Rows are routed before ``ignore-delete`` and
   ``rowkind.field`` apply, as in Java (a retraction's kind is DELETE unless ``rowkind.field``
   overrides it).

The Java collection orders of rules 3 and 4 are :mod:`reference.spec.java_collections`.

Cross-partition tables use one assigner task here (Java may run several); any assignment is
valid for readers, only file layouts differ.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key

from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature
from reference.merge.engine import parse_merge_options
from reference.spec import types as t
from reference.spec.binary_row import compute_binary_row_hash, encode_binary_row
from reference.spec.bucket import (
    BUCKET_FUNCTION_TYPE_OPTION,
    BUCKET_KEY_OPTION,
    BUCKET_OPTION,
    DYNAMIC_BUCKET,
    BucketMode,
    compute_bucket_key_fields,
    compute_dynamic_bucket_key_hash,
    compute_fixed_bucket,
    parse_bucket_function_type,
    validate_cross_partition_options,
)
from reference.spec.compare import compare_rows
from reference.spec.data import Row, RowKind
from reference.spec.java_collections import (
    FASTUTIL_DEFAULT_EXPECTED,
    JAVA_HASH_MAP_INITIAL_CAPACITY,
    compute_int_hash_set_order,
    compute_java_hash_map_capacity,
    compute_java_hash_map_order,
)
from reference.spec.java_numbers import SHORT_MAX as JAVA_SHORT_MAX
from reference.spec.options import (
    BucketFunctionType,
    MergeEngine,
    parse_int,
    parse_long,
)
from reference.spec.schema import TableSchema

TARGET_ROW_NUM_OPTION = "dynamic-bucket.target-row-num"
DEFAULT_TARGET_ROW_NUM = 2_000_000
INITIAL_BUCKETS_OPTION = "dynamic-bucket.initial-buckets"
MAX_BUCKETS_OPTION = "dynamic-bucket.max-buckets"
UNLIMITED_BUCKETS = -1

UNAWARE_BUCKET_ID = 0
"""The one bucket of a partition of a bucket-unaware append table."""


# --------------------------------------------------------------------------------------------
# The mode and its options (rule 1)
# --------------------------------------------------------------------------------------------


def _parse(option: str, text: str, parse: Callable[[str], int], low: int) -> int:
    """An integer option of at least ``low``; :class:`InvalidOptionError` otherwise."""
    try:
        value = parse(text)
    except ValueError as error:
        raise InvalidOptionError(option, text, str(error)) from None
    if value < low:
        raise InvalidOptionError(option, text, f"must be at least {low}")
    return value


def compute_bucket_count(schema: TableSchema) -> int:
    """The ``bucket`` option: ``-1`` or a positive count."""
    text = schema.options.get(BUCKET_OPTION, str(DYNAMIC_BUCKET))
    try:
        bucket = parse_int(text)
    except ValueError as error:
        raise InvalidOptionError(BUCKET_OPTION, text, str(error)) from None
    if bucket == -2:
        raise UnsupportedFeature("postponed buckets ('bucket' = -2) are not written by 0.9")
    if bucket == 0 or bucket < DYNAMIC_BUCKET:
        raise InvalidOptionError(BUCKET_OPTION, text, "must be -1 or a positive bucket count")
    return bucket


def compute_bucket_mode(schema: TableSchema) -> BucketMode:
    """Rule 1, with Java's checks of the options that go with each mode."""
    bucket = compute_bucket_count(schema)
    has_bucket_key = BUCKET_KEY_OPTION in schema.options
    if bucket == DYNAMIC_BUCKET and has_bucket_key:
        raise InvalidOptionError(
            BUCKET_KEY_OPTION, schema.options[BUCKET_KEY_OPTION], "needs a fixed bucket count"
        )
    if schema.cross_partition_update and bucket != DYNAMIC_BUCKET:
        raise InvalidOptionError(
            BUCKET_OPTION, bucket, "a primary key without every partition field needs bucket -1"
        )
    if bucket != DYNAMIC_BUCKET:
        return BucketMode.FIXED
    if not schema.is_primary_key_table:
        return BucketMode.UNAWARE
    if schema.cross_partition_update:
        return BucketMode.CROSS_PARTITION
    return BucketMode.DYNAMIC


def compute_total_buckets(schema: TableSchema) -> int:
    """What manifest entries record as the table's bucket count (``-1`` unless fixed)."""
    return compute_bucket_count(schema)


# --------------------------------------------------------------------------------------------
# Rows and their routes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoutedRow:
    """One row on its way to a writer: its partition values, bucket, kind and values."""

    partition: Row
    bucket: int
    kind: RowKind
    row: Row


@dataclass(frozen=True)
class TableKeys:
    """Positions and types of a table's partition, trimmed primary key and bucket key."""

    partition_indexes: tuple[int, ...]
    partition_types: tuple[t.DataType, ...]
    key_indexes: tuple[int, ...]
    key_types: tuple[t.DataType, ...]
    bucket_key_indexes: tuple[int, ...]
    bucket_key_types: tuple[t.DataType, ...]


def compute_table_keys(schema: TableSchema) -> TableKeys:
    """Resolve a schema's key fields to positions (validating ``bucket-key``)."""
    row_type = schema.logical_row_type
    names = schema.field_names
    bucket_keys = compute_bucket_key_fields(
        names, schema.partition_keys, schema.primary_keys, schema.options
    )
    trimmed = schema.trimmed_primary_keys

    def resolve(keys: Sequence[str]) -> tuple[tuple[int, ...], tuple[t.DataType, ...]]:
        indexes = tuple(row_type.field_index(name) for name in keys)
        return indexes, tuple(row_type.fields[i].type for i in indexes)

    return TableKeys(*resolve(schema.partition_keys), *resolve(trimmed), *resolve(bucket_keys))


def compute_projection(row: Row, indexes: Sequence[int]) -> Row:
    return tuple(row[i] for i in indexes)


def compute_key_bytes(values: Row, types: Sequence[t.DataType]) -> bytes:
    """The BinaryRow bytes Java compares partitions and keys by."""
    return encode_binary_row(values, types)


def compute_key_hash(row: Row, keys: TableKeys) -> int:
    """The hash of a row's trimmed primary key (the HASH index entry)."""
    return compute_dynamic_bucket_key_hash(
        compute_projection(row, keys.key_indexes), keys.key_types
    )


def compute_partition_bytes(partition: Row, keys: TableKeys) -> bytes:
    """The identity of a partition (Java compares partitions by their BinaryRow bytes)."""
    return compute_key_bytes(partition, keys.partition_types)


# --------------------------------------------------------------------------------------------
# Fixed and bucket-unaware (rule 2)
# --------------------------------------------------------------------------------------------


def parse_bucket_function(schema: TableSchema) -> BucketFunctionType:
    text = schema.options.get(BUCKET_FUNCTION_TYPE_OPTION, BucketFunctionType.DEFAULT.value)
    return parse_bucket_function_type(text)


def route_fixed(
    rows: Sequence[tuple[RowKind, Row]], schema: TableSchema, keys: TableKeys
) -> list[RoutedRow]:
    """Rule 2."""
    if not keys.bucket_key_indexes:
        raise InvalidOptionError(
            BUCKET_KEY_OPTION, None, "a fixed-bucket append table needs a bucket-key"
        )
    count = compute_bucket_count(schema)
    function = parse_bucket_function(schema)
    return [
        RoutedRow(
            compute_projection(row, keys.partition_indexes),
            compute_fixed_bucket(
                compute_projection(row, keys.bucket_key_indexes),
                keys.bucket_key_types,
                count,
                function,
            ),
            kind,
            row,
        )
        for kind, row in rows
    ]


def route_unaware(rows: Sequence[tuple[RowKind, Row]], keys: TableKeys) -> list[RoutedRow]:
    """Rule 1: bucket 0 of the row's partition."""
    return [
        RoutedRow(compute_projection(row, keys.partition_indexes), UNAWARE_BUCKET_ID, kind, row)
        for kind, row in rows
    ]


# --------------------------------------------------------------------------------------------
# Dynamic buckets (rule 3)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HashIndexFile:
    """The HASH index of one (partition, bucket) in the base snapshot, hashes in file order."""

    partition: Row
    bucket: int
    hashes: tuple[int, ...]


@dataclass(frozen=True)
class DynamicBucketOptions:
    target_row_num: int = DEFAULT_TARGET_ROW_NUM
    assigners: int = 1
    max_buckets: int = UNLIMITED_BUCKETS


def parse_dynamic_bucket_options(options: Mapping[str, str]) -> DynamicBucketOptions:
    """``dynamic-bucket.target-row-num`` (>= 1), ``initial-buckets`` (>= 1, assigner tasks),
    ``max-buckets`` (main only: -1 or >= 1)."""
    target = options.get(TARGET_ROW_NUM_OPTION, str(DEFAULT_TARGET_ROW_NUM))
    assigners = options.get(INITIAL_BUCKETS_OPTION, "1")
    maximum = options.get(MAX_BUCKETS_OPTION, str(UNLIMITED_BUCKETS))
    max_buckets = _parse(MAX_BUCKETS_OPTION, maximum, parse_int, UNLIMITED_BUCKETS)
    if max_buckets == 0:
        raise InvalidOptionError(MAX_BUCKETS_OPTION, maximum, "must be -1 or positive")
    return DynamicBucketOptions(
        target_row_num=_parse(TARGET_ROW_NUM_OPTION, target, parse_long, 1),
        assigners=_parse(INITIAL_BUCKETS_OPTION, assigners, parse_int, 1),
        max_buckets=max_buckets,
    )


def _java_remainder(dividend: int, divisor: int) -> int:
    remainder = abs(dividend) % divisor
    return -remainder if dividend < 0 else remainder


def compute_assigner(partition_hash: int, key_hash: int, assigners: int) -> int:
    """Java ``BucketAssigner.computeAssigner`` with as many channels as assigners."""
    start = abs(_java_remainder(partition_hash, assigners))
    offset = abs(_java_remainder(key_hash, assigners))
    return (start + offset) % assigners


def is_assigner_bucket(bucket: int, assigners: int, assigner: int) -> bool:
    """Java ``BucketAssigner.isMyBucket``."""
    return bucket % assigners == assigner % assigners


@dataclass
class PartitionIndex:
    """The state of one assigner task for one partition (Java ``PartitionIndex``).

    ``counts`` holds the non-full candidate buckets in insertion order; ``capacity`` is the
    table size of Java's ``HashMap`` behind it, which decides the candidates' order.
    """

    hash_to_bucket: dict[int, int]
    counts: dict[int, int]
    buckets: set[int]
    capacity: int
    size: int


def load_partition_index(
    files: Sequence[HashIndexFile],
    assigner: int,
    partition_hash: int,
    options: DynamicBucketOptions,
) -> PartitionIndex:
    """Java ``PartitionIndex.loadIndex``: the hashes this task owns and, for each bucket it
    owns, the number of hashes in the bucket's index."""
    hash_to_bucket: dict[int, int] = {}
    counts: dict[int, int] = {}
    for index_file in files:
        for hash_code in index_file.hashes:
            if compute_assigner(partition_hash, hash_code, options.assigners) == assigner:
                hash_to_bucket[hash_code] = index_file.bucket
            if is_assigner_bucket(index_file.bucket, options.assigners, assigner):
                counts[index_file.bucket] = counts.get(index_file.bucket, 0) + 1
    capacity = compute_java_hash_map_capacity(JAVA_HASH_MAP_INITIAL_CAPACITY, len(counts))
    return PartitionIndex(hash_to_bucket, counts, set(counts), capacity, len(counts))


def compute_new_bucket(
    index: PartitionIndex, assigner: int, options: DynamicBucketOptions
) -> int | None:
    """The smallest bucket id this task owns and has not used (``None``: none left)."""
    limit = JAVA_SHORT_MAX if options.max_buckets == UNLIMITED_BUCKETS else options.max_buckets
    for bucket in range(limit):
        if is_assigner_bucket(bucket, options.assigners, assigner) and bucket not in index.buckets:
            return bucket
    return None


def apply_dynamic_assignment(
    index: PartitionIndex, hash_code: int, assigner: int, options: DynamicBucketOptions
) -> int:
    """Rule 3 (Java ``PartitionIndex.assign``): the bucket of ``hash_code``, updating ``index``."""
    if hash_code in index.hash_to_bucket:
        return index.hash_to_bucket[hash_code]
    for bucket in compute_java_hash_map_order(list(index.counts), index.capacity):
        if index.counts[bucket] < options.target_row_num:
            index.counts[bucket] += 1
            index.hash_to_bucket[hash_code] = bucket
            return bucket
        del index.counts[bucket]
        index.size -= 1
    opened = compute_new_bucket(index, assigner, options)
    if opened is None:
        if options.max_buckets == UNLIMITED_BUCKETS:
            raise SpecViolation(
                f"more than {JAVA_SHORT_MAX} dynamic buckets; increase {TARGET_ROW_NUM_OPTION}",
                code="TOO_MANY_BUCKETS",
            )
        opened = min(index.buckets)
    else:
        index.counts[opened] = 1
        index.buckets.add(opened)
        index.size += 1
        index.capacity = compute_java_hash_map_capacity(index.capacity, index.size)
    index.hash_to_bucket[hash_code] = opened
    return opened


def route_dynamic(
    rows: Sequence[tuple[RowKind, Row]],
    keys: TableKeys,
    index_files: Sequence[HashIndexFile],
    options: DynamicBucketOptions,
) -> list[RoutedRow]:
    """Rule 3 for a batch, in input order."""
    files_by_partition: dict[bytes, list[HashIndexFile]] = {}
    for index_file in index_files:
        identity = compute_partition_bytes(index_file.partition, keys)
        files_by_partition.setdefault(identity, []).append(index_file)
    indexes: dict[tuple[bytes, int], PartitionIndex] = {}
    routed = []
    for kind, row in rows:
        partition = compute_projection(row, keys.partition_indexes)
        identity = compute_partition_bytes(partition, keys)
        partition_hash = compute_binary_row_hash(identity)
        hash_code = compute_key_hash(row, keys)
        assigner = compute_assigner(partition_hash, hash_code, options.assigners)
        if (identity, assigner) not in indexes:
            files = files_by_partition.get(identity, [])
            indexes[identity, assigner] = load_partition_index(
                files, assigner, partition_hash, options
            )
        index = indexes[identity, assigner]
        bucket = apply_dynamic_assignment(index, hash_code, assigner, options)
        routed.append(RoutedRow(partition, bucket, kind, row))
    return routed


# --------------------------------------------------------------------------------------------
# HASH index maintenance (rule 4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HashIndexUpdate:
    """The new HASH index content of one (partition, bucket), hashes in file order."""

    partition: Row
    bucket: int
    hashes: tuple[int, ...]
    previous: HashIndexFile | None


def compute_hash_index_updates(
    written: Sequence[RoutedRow], keys: TableKeys, index_files: Sequence[HashIndexFile]
) -> list[HashIndexUpdate]:
    """Rule 4 (Java ``HashIndexMaintainer``): for each bucket written to whose index gains a
    hash, all of its hashes in the order Java writes them. Buckets in first-written order."""
    previous = {(compute_partition_bytes(f.partition, keys), f.bucket): f for f in index_files}
    partitions: dict[bytes, Row] = {}
    new_hashes: dict[tuple[bytes, int], list[int]] = {}
    for routed in written:
        identity = compute_partition_bytes(routed.partition, keys)
        partitions[identity] = routed.partition
        new_hashes.setdefault((identity, routed.bucket), []).append(
            compute_key_hash(routed.row, keys)
        )
    updates = []
    for (identity, bucket), hashes in new_hashes.items():
        partition = partitions[identity]
        old = previous.get((identity, bucket))
        old_hashes = old.hashes if old is not None else ()
        if set(hashes) <= set(old_hashes):
            continue
        expected = len(old_hashes) if old is not None else FASTUTIL_DEFAULT_EXPECTED
        ordered = compute_int_hash_set_order([*old_hashes, *hashes], expected)
        updates.append(HashIndexUpdate(partition, bucket, tuple(ordered), old))
    return updates


# --------------------------------------------------------------------------------------------
# Cross-partition update (rule 5)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeyLocation:
    """Where a trimmed primary key lives in the base snapshot."""

    key: Row
    partition: Row
    bucket: int


@dataclass
class CrossPartitionState:
    """The key index (by key bytes) and the key count of each bucket of each partition."""

    keys: TableKeys
    locations: dict[bytes, tuple[Row, int]] = field(default_factory=dict)
    counts: dict[bytes, dict[int, int]] = field(default_factory=dict)


def load_cross_partition_state(
    existing: Iterable[KeyLocation], keys: TableKeys
) -> CrossPartitionState:
    """Java ``IndexBootstrap`` + ``bootstrapKey``: index every visible key, count buckets."""
    state = CrossPartitionState(keys)
    for location in existing:
        key_bytes = compute_key_bytes(location.key, keys.key_types)
        state.locations[key_bytes] = (location.partition, location.bucket)
        buckets = state.counts.setdefault(compute_partition_bytes(location.partition, keys), {})
        buckets[location.bucket] = buckets.get(location.bucket, 0) + 1
    return state


def apply_bucket_for_partition(state: CrossPartitionState, partition: Row, target: int) -> int:
    """Java ``crosspartition.BucketAssigner.assignBucket``: the first bucket (ascending) with
    fewer than ``target`` keys, else the smallest unused id; counts the key."""
    buckets = state.counts.setdefault(compute_partition_bytes(partition, state.keys), {})
    for bucket in sorted(buckets):
        if buckets[bucket] < target:
            buckets[bucket] += 1
            return bucket
    bucket = next(i for i in range(len(buckets) + 1) if i not in buckets)
    buckets[bucket] = 1
    return bucket


def compute_row_in_partition(row: Row, partition: Row, keys: TableKeys) -> Row:
    """``row`` with its partition fields set to ``partition`` (Java ``ProjectToRowFunction``)."""
    values = list(row)
    for index, value in zip(keys.partition_indexes, partition, strict=True):
        values[index] = value
    return tuple(values)


def route_existing_key(
    state: CrossPartitionState,
    routed: RoutedRow,
    previous: tuple[Row, int],
    keys: TableKeys,
    engine: MergeEngine,
) -> list[RoutedRow]:
    """Rule 5 for a key stored in another partition (Java ``*ExistingProcessor``); the new
    row itself is routed by the caller when the engine keeps it (deduplicate)."""
    old_partition, old_bucket = previous
    moved = compute_row_in_partition(routed.row, old_partition, keys)
    if engine is MergeEngine.DEDUPLICATE:
        buckets = state.counts.setdefault(compute_partition_bytes(old_partition, keys), {})
        buckets[old_bucket] = buckets.get(old_bucket, 0) - 1
        return [RoutedRow(old_partition, old_bucket, RowKind.DELETE, moved)]
    if engine is MergeEngine.FIRST_ROW:
        return []
    return [RoutedRow(old_partition, old_bucket, routed.kind, moved)]


def route_cross_partition_row(
    state: CrossPartitionState,
    kind: RowKind,
    row: Row,
    *,
    engine: MergeEngine,
    target: int,
) -> list[RoutedRow]:
    """Rule 5 for one row (Java ``GlobalIndexAssigner.processInput``)."""
    keys = state.keys
    partition = compute_projection(row, keys.partition_indexes)
    key_bytes = compute_key_bytes(compute_projection(row, keys.key_indexes), keys.key_types)
    previous = state.locations.get(key_bytes)
    identity = compute_partition_bytes(partition, keys)
    if previous is not None and compute_partition_bytes(previous[0], keys) == identity:
        return [RoutedRow(partition, previous[1], kind, row)]
    routed: list[RoutedRow] = []
    if previous is not None:
        routed = route_existing_key(
            state, RoutedRow(partition, -1, kind, row), previous, keys, engine
        )
        if engine is not MergeEngine.DEDUPLICATE:
            return routed
    bucket = apply_bucket_for_partition(state, partition, target)
    state.locations[key_bytes] = (partition, bucket)
    return [*routed, RoutedRow(partition, bucket, kind, row)]


def compute_bulk_load_order(
    rows: Sequence[tuple[RowKind, Row]], keys: TableKeys, newest_first: bool
) -> list[list[tuple[RowKind, Row]]]:
    """The rows grouped by key, keys in Java's key order, rows of a key by input position
    (newest first for ``deduplicate``)."""

    def compare(left: tuple[int, Row], right: tuple[int, Row]) -> int:
        key_order = compare_rows(keys.key_types, left[1], right[1])
        if key_order:
            return key_order
        return (left[0] < right[0]) - (left[0] > right[0]) if newest_first else left[0] - right[0]

    numbered = [
        (position, compute_projection(row, keys.key_indexes))
        for position, (_, row) in enumerate(rows)
    ]
    groups: list[list[tuple[RowKind, Row]]] = []
    previous_key: Row | None = None
    for position, key in sorted(numbered, key=cmp_to_key(compare)):
        if previous_key is None or compare_rows(keys.key_types, previous_key, key) != 0:
            groups.append([])
        groups[-1].append(rows[position])
        previous_key = key
    return groups


def route_bulk_load(
    rows: Sequence[tuple[RowKind, Row]],
    state: CrossPartitionState,
    keys: TableKeys,
    engine: MergeEngine,
    target: int,
) -> list[RoutedRow]:
    """Rule 5 with an empty key index (Java ``bulkLoadBootstrapRecords``)."""
    routed = []
    for group in compute_bulk_load_order(rows, keys, engine is MergeEngine.DEDUPLICATE):
        first_kind, first_row = group[0]
        partition = compute_projection(first_row, keys.partition_indexes)
        bucket = apply_bucket_for_partition(state, partition, target)
        routed.append(RoutedRow(partition, bucket, first_kind, first_row))
        if engine in (MergeEngine.PARTIAL_UPDATE, MergeEngine.AGGREGATE):
            routed.extend(
                RoutedRow(partition, bucket, kind, compute_row_in_partition(row, partition, keys))
                for kind, row in group[1:]
            )
    return routed


def route_cross_partition(
    rows: Sequence[tuple[RowKind, Row]],
    schema: TableSchema,
    keys: TableKeys,
    existing: Sequence[KeyLocation],
) -> list[RoutedRow]:
    """Rule 5 for a batch."""
    validate_cross_partition_options(schema.options)
    target = parse_dynamic_bucket_options(schema.options).target_row_num
    engine = parse_merge_options(schema.options).merge_engine
    state = load_cross_partition_state(existing, keys)
    if not state.locations:
        return route_bulk_load(rows, state, keys, engine, target)
    routed = []
    for kind, row in rows:
        routed.extend(route_cross_partition_row(state, kind, row, engine=engine, target=target))
    return routed


# --------------------------------------------------------------------------------------------
# All modes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExistingData:
    """What routing needs from the base snapshot: HASH index files (dynamic buckets) and the
    visible keys with their location (cross-partition update)."""

    hash_index: tuple[HashIndexFile, ...] = ()
    key_locations: tuple[KeyLocation, ...] = ()


def route_rows(
    rows: Sequence[tuple[RowKind, Row]],
    schema: TableSchema,
    mode: BucketMode,
    existing: ExistingData,
) -> list[RoutedRow]:
    """Rules 1-5: every row's partition and bucket, in the order Java's writers receive them."""
    keys = compute_table_keys(schema)
    if mode is BucketMode.FIXED:
        return route_fixed(rows, schema, keys)
    if mode is BucketMode.UNAWARE:
        return route_unaware(rows, keys)
    if mode is BucketMode.DYNAMIC:
        options = parse_dynamic_bucket_options(schema.options)
        return route_dynamic(rows, keys, existing.hash_index, options)
    return route_cross_partition(rows, schema, keys, existing.key_locations)
