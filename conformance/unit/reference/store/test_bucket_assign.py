"""Tests of ``reference.store.bucket_assign``: bucket modes and their option checks, fixed and
unaware routing, dynamic buckets (Java's candidate order, HASH index order), cross-partition
update. Expected values are computed by hand from the rules or were written by Java 0.9.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from reference.errors import InvalidOptionError, UnsupportedFeature
from reference.spec import types as t
from reference.spec.binary_row import compute_binary_row_hash, encode_binary_row
from reference.spec.bucket import BucketMode, compute_dynamic_bucket_key_hash, compute_fixed_bucket
from reference.spec.data import Row, RowKind
from reference.spec.schema import TableSchema, compute_table_schema
from reference.store.bucket_assign import (
    DynamicBucketOptions,
    ExistingData,
    HashIndexFile,
    KeyLocation,
    RoutedRow,
    compute_assigner,
    compute_bucket_mode,
    compute_hash_index_updates,
    compute_int_hash_set_order,
    compute_java_hash_map_order,
    compute_table_keys,
    load_partition_index,
    route_rows,
)

K = t.DataField(0, "k", t.IntType(nullable=False))
P = t.DataField(1, "p", t.IntType(nullable=False))
V = t.DataField(2, "v", t.VarCharType(t.MAX_LENGTH))
FIELDS = (K, P, V)


def _schema(
    primary_keys: Sequence[str] = ("k", "p"),
    partition_keys: Sequence[str] = ("p",),
    options: Mapping[str, str] | None = None,
) -> TableSchema:
    return compute_table_schema(
        0,
        FIELDS,
        partition_keys=partition_keys,
        primary_keys=primary_keys,
        options=dict(options or {}),
        comment=None,
        time_millis=0,
    )


def _inserts(rows: Sequence[Row]) -> list[tuple[RowKind, Row]]:
    return [(RowKind.INSERT, row) for row in rows]


def _key_hash(k: int) -> int:
    return compute_dynamic_bucket_key_hash((k,), [K.type])


# --------------------------------------------------------------------------------------------
# Modes
# --------------------------------------------------------------------------------------------


def test_modes() -> None:
    assert compute_bucket_mode(_schema(options={"bucket": "4"})) is BucketMode.FIXED
    assert compute_bucket_mode(_schema(options={"bucket": "-1"})) is BucketMode.DYNAMIC
    assert compute_bucket_mode(_schema(primary_keys=())) is BucketMode.UNAWARE
    cross = _schema(primary_keys=("k",), options={"bucket": "-1"})
    assert compute_bucket_mode(cross) is BucketMode.CROSS_PARTITION


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"bucket": "0"}, "bucket"),
        ({"bucket": "-3"}, "bucket"),
        ({"bucket": "x"}, "bucket"),
    ],
)
def test_bad_bucket_counts(options: dict[str, str], option: str) -> None:
    schema = TableSchema(3, 0, FIELDS, 2, ("p",), ("k", "p"), options)
    with pytest.raises(InvalidOptionError) as raised:
        compute_bucket_mode(schema)
    assert raised.value.option == option


def test_postponed_buckets_are_unsupported() -> None:
    schema = TableSchema(3, 0, FIELDS, 2, ("p",), ("k", "p"), {"bucket": "-2"})
    with pytest.raises(UnsupportedFeature):
        compute_bucket_mode(schema)


def test_bucket_key_needs_a_fixed_bucket_count() -> None:
    schema = TableSchema(3, 0, FIELDS, 2, ("p",), (), {"bucket": "-1", "bucket-key": "k"})
    with pytest.raises(InvalidOptionError) as raised:
        compute_bucket_mode(schema)
    assert raised.value.option == "bucket-key"


def test_cross_partition_needs_dynamic_buckets() -> None:
    schema = TableSchema(3, 0, FIELDS, 2, ("p",), ("k",), {"bucket": "2"})
    with pytest.raises(InvalidOptionError) as raised:
        compute_bucket_mode(schema)
    assert raised.value.option == "bucket"


def test_bucket_key_outside_the_primary_key() -> None:
    schema = TableSchema(3, 0, FIELDS, 2, ("p",), ("k", "p"), {"bucket": "2", "bucket-key": "v"})
    with pytest.raises(InvalidOptionError) as raised:
        compute_table_keys(schema)
    assert raised.value.option == "bucket-key"


# --------------------------------------------------------------------------------------------
# Fixed and unaware
# --------------------------------------------------------------------------------------------


def test_fixed_buckets_hash_the_bucket_key() -> None:
    schema = _schema(primary_keys=(), options={"bucket": "3", "bucket-key": "k"})
    rows = [(k, k % 2, "x") for k in range(20)]
    routed = route_rows(_inserts(rows), schema, BucketMode.FIXED, ExistingData())
    for routed_row, row in zip(routed, rows, strict=True):
        assert routed_row.partition == (row[1],)
        assert routed_row.bucket == compute_fixed_bucket((row[0],), [K.type], 3)
    assert {r.bucket for r in routed} == {0, 1, 2}


def test_fixed_append_table_needs_a_bucket_key() -> None:
    schema = TableSchema(3, 0, FIELDS, 2, ("p",), (), {"bucket": "3"})
    with pytest.raises(InvalidOptionError) as raised:
        route_rows(_inserts([(1, 1, "a")]), schema, BucketMode.FIXED, ExistingData())
    assert raised.value.option == "bucket-key"


def test_unaware_rows_go_to_bucket_zero() -> None:
    schema = _schema(primary_keys=())
    rows = [(1, 5, "a"), (2, 6, "b")]
    routed = route_rows(_inserts(rows), schema, BucketMode.UNAWARE, ExistingData())
    assert routed == [
        RoutedRow((5,), 0, RowKind.INSERT, rows[0]),
        RoutedRow((6,), 0, RowKind.INSERT, rows[1]),
    ]


# --------------------------------------------------------------------------------------------
# Java collection orders
# --------------------------------------------------------------------------------------------


def test_java_hash_map_order() -> None:
    assert compute_java_hash_map_order([3, 1, 2], 16) == [1, 2, 3]
    # 17 and 1 share slot 1 of a 16-slot table: insertion order decides between them
    assert compute_java_hash_map_order([17, 3, 1], 16) == [17, 1, 3]
    assert compute_java_hash_map_order([17, 3, 1], 32) == [1, 3, 17]


JAVA_HASH_INDEX_0_TO_29 = [
    1584975375, -1125230071, 1534819684, 1824611496, 633290756, -1382503100, 1447522506,
    -348168691, 959635076, -2030151596, 2023115889, 1465988341, 1465514398, 1985866184,
    -1585648237, 260196596, -1478255260, -1204840484, -771300025, 1334066110, 429468134,
    -237036245, 1417041215, -300363099, -1464466521, 124495984, 965062536, -1782675462,
    842153448, 1340390384,
]  # fmt: skip
"""The HASH index Java 0.9 wrote for INT keys 0..29 written in order into an empty table."""

JAVA_HASH_INDEX_THEN_25_TO_44 = [
    -414936843, -1125230071, 1584975375, 1534819684, 633290756, 1824611496, 1265997471,
    -1629135432, -1382503100, 959635076, -348168691, 1447522506, 907821237, -2030151596,
    2023115889, 1465988341, -232211261, 501366723, -346607732, 1634204076, -135570413,
    1985866184, 1465514398, -1585648237, 318067030, 260196596, -1478255260, 636688728,
    505088923, 1010298847, 1334066110, -771300025, -1204840484, 1417041215, -237036245,
    429468134, -300363099, 1599687874, -1464466521, -740671028, 124495984, 965062536,
    842153448, -1782675462, 1340390384,
]  # fmt: skip
"""The next index Java 0.9 wrote after keys 25..44 were written in a second batch."""


def test_hash_index_order_matches_java() -> None:
    first = compute_int_hash_set_order([_key_hash(k) for k in range(30)], 16)
    assert first == JAVA_HASH_INDEX_0_TO_29
    second = compute_int_hash_set_order(
        [*JAVA_HASH_INDEX_0_TO_29, *(_key_hash(k) for k in range(25, 45))], 30
    )
    assert second == JAVA_HASH_INDEX_THEN_25_TO_44


def test_hash_set_order_keeps_zero_first_and_drops_duplicates() -> None:
    assert compute_int_hash_set_order([5, 0, 5, -1], 16)[0] == 0
    assert sorted(compute_int_hash_set_order([5, 0, 5, -1], 16)) == [-1, 0, 5]


# --------------------------------------------------------------------------------------------
# Dynamic buckets
# --------------------------------------------------------------------------------------------


def _dynamic(
    keys: Sequence[int],
    options: Mapping[str, str],
    index: Sequence[HashIndexFile] = (),
) -> list[int]:
    schema = _schema(primary_keys=("k",), partition_keys=(), options={"bucket": "-1", **options})
    rows = [(k, 0, "x") for k in keys]
    existing = ExistingData(hash_index=tuple(index))
    return [r.bucket for r in route_rows(_inserts(rows), schema, BucketMode.DYNAMIC, existing)]


def test_new_keys_fill_buckets_in_order() -> None:
    target = {"dynamic-bucket.target-row-num": "2"}
    assert _dynamic([1, 2, 3, 1, 4, 5], target) == [0, 0, 1, 0, 1, 2]


def test_indexed_keys_keep_their_bucket_and_counts_come_from_the_index() -> None:
    index = [
        HashIndexFile((), 0, (_key_hash(1), _key_hash(2))),
        HashIndexFile((), 3, (_key_hash(3),)),
    ]
    target = {"dynamic-bucket.target-row-num": "2"}
    # 2 stays in bucket 0; 7 goes to bucket 3 (one free place); 8 opens the smallest free id 1
    assert _dynamic([2, 7, 8, 3], target, index) == [0, 3, 1, 3]


def test_candidate_buckets_follow_java_hash_map_order() -> None:
    """Buckets 16 and 0 share slot 0 of a 16-slot map: the first loaded (16) is tried first."""
    index = [HashIndexFile((), 16, (_key_hash(1),)), HashIndexFile((), 0, (_key_hash(2),))]
    assert _dynamic([9], {"dynamic-bucket.target-row-num": "5"}, index) == [16]
    reversed_index = list(reversed(index))
    assert _dynamic([9], {"dynamic-bucket.target-row-num": "5"}, reversed_index) == [0]


def test_initial_buckets_emulate_assigner_tasks() -> None:
    """With 2 tasks a key's task is (|partition hash % 2| + |key hash % 2|) % 2 and task i
    owns the buckets b with b % 2 == i; each task fills its own buckets."""
    partition_hash = compute_binary_row_hash(encode_binary_row((), ()))
    options = {"dynamic-bucket.initial-buckets": "2", "dynamic-bucket.target-row-num": "5"}
    buckets = _dynamic(list(range(40)), options)
    for k, bucket in zip(range(40), buckets, strict=True):
        assert bucket % 2 == compute_assigner(partition_hash, _key_hash(k), 2)
    for task in (0, 1):
        owned = [b for b in buckets if b % 2 == task]
        assert all(owned.count(b) <= 5 for b in owned)
        assert sorted(set(owned)) == list(range(task, 2 * len(set(owned)), 2))


def test_assigner_owns_hashes_and_buckets() -> None:
    options = DynamicBucketOptions(target_row_num=10, assigners=2)
    files = [HashIndexFile((), 0, (1, 2, 3)), HashIndexFile((), 1, (4, 5))]
    index = load_partition_index(files, 1, 0, options)
    assert index.counts == {1: 2}
    assert set(index.hash_to_bucket) == {h for h in (1, 2, 3, 4, 5) if abs(h % 2) == 1}


def test_max_buckets_reuses_an_existing_bucket() -> None:
    options = {"dynamic-bucket.target-row-num": "1", "dynamic-bucket.max-buckets": "2"}
    assert _dynamic([1, 2, 3, 4], options) == [0, 1, 0, 0]


def test_hash_index_updates_only_for_new_hashes() -> None:
    schema = _schema(primary_keys=("k",), partition_keys=(), options={"bucket": "-1"})
    keys = compute_table_keys(schema)
    old = HashIndexFile((), 0, (_key_hash(1),))
    written = [
        RoutedRow((), 0, RowKind.DELETE, (1, 0, "x")),
        RoutedRow((), 1, RowKind.INSERT, (2, 0, "x")),
        RoutedRow((), 0, RowKind.INSERT, (3, 0, "x")),
    ]
    updates = compute_hash_index_updates(written, keys, [old])
    assert [(u.bucket, sorted(u.hashes), u.previous) for u in updates] == [
        (0, sorted([_key_hash(1), _key_hash(3)]), old),
        (1, [_key_hash(2)], None),
    ]
    assert compute_hash_index_updates(written[:1], keys, [old]) == []


# --------------------------------------------------------------------------------------------
# Cross-partition update
# --------------------------------------------------------------------------------------------


def _cross(
    rows: Sequence[tuple[RowKind, Row]],
    engine: str,
    existing: Sequence[KeyLocation] = (),
    options: Mapping[str, str] | None = None,
) -> list[tuple[RowKind, Row, int]]:
    schema = _schema(
        primary_keys=("k",),
        options={"bucket": "-1", "merge-engine": engine, **(options or {})},
    )
    routed = route_rows(
        rows, schema, BucketMode.CROSS_PARTITION, ExistingData(key_locations=tuple(existing))
    )
    for r in routed:
        assert r.partition == (r.row[1],)
    return [(r.kind, r.row, r.bucket) for r in routed]


EXISTING = (KeyLocation((1,), (10,), 0), KeyLocation((2,), (10,), 0), KeyLocation((3,), (20,), 0))
INS, DEL = RowKind.INSERT, RowKind.DELETE


def test_deduplicate_moves_a_key_to_its_new_partition() -> None:
    routed = _cross([(INS, (1, 20, "new")), (INS, (2, 10, "same")), (INS, (4, 10, "fresh"))],
                    "deduplicate", EXISTING)  # fmt: skip
    assert routed == [
        (DEL, (1, 10, "new"), 0),  # retracted in its old partition, with the new values
        (INS, (1, 20, "new"), 0),  # inserted in the new partition's first bucket with room
        (INS, (2, 10, "same"), 0),
        (INS, (4, 10, "fresh"), 0),
    ]


def test_target_row_num_counts_keys_per_bucket() -> None:
    options = {"dynamic-bucket.target-row-num": "2"}
    rows = [(INS, (4, 10, "a")), (INS, (5, 20, "b")), (INS, (1, 20, "c")), (INS, (6, 10, "d"))]
    routed = _cross(rows, "deduplicate", EXISTING, options)
    # partition 10 holds 2 keys in bucket 0: key 4 opens bucket 1; partition 20 has room in 0
    # for key 5; moving key 1 away frees a place in partition 10's bucket 0 for key 6
    assert [(row[0], bucket) for _, row, bucket in routed] == [
        (4, 1),
        (5, 0),
        (1, 0),
        (1, 1),
        (6, 0),
    ]


def test_first_row_drops_a_key_of_another_partition() -> None:
    routed = _cross([(INS, (1, 20, "late")), (INS, (1, 10, "same"))], "first-row", EXISTING)
    assert routed == [(INS, (1, 10, "same"), 0)]


@pytest.mark.parametrize("engine", ["partial-update", "aggregation"])
def test_update_engines_write_into_the_old_partition(engine: str) -> None:
    routed = _cross([(INS, (3, 10, "upd"))], engine, EXISTING)
    assert routed == [(INS, (3, 20, "upd"), 0)]


def test_bulk_load_deduplicate_keeps_the_last_row_of_each_key() -> None:
    rows = [(INS, (2, 10, "a")), (INS, (1, 10, "b")), (INS, (2, 20, "c")), (DEL, (1, 10, "d"))]
    routed = _cross(rows, "deduplicate", options={"dynamic-bucket.target-row-num": "1"})
    # keys in key order; each key's newest row; partition 10 gets key 1, partition 20 key 2
    assert routed == [(DEL, (1, 10, "d"), 0), (INS, (2, 20, "c"), 0)]


def test_bulk_load_first_row_keeps_the_first_row_of_each_key() -> None:
    rows = [(INS, (2, 10, "a")), (INS, (1, 10, "b")), (INS, (2, 20, "c")), (INS, (3, 10, "d"))]
    routed = _cross(rows, "first-row", options={"dynamic-bucket.target-row-num": "1"})
    assert routed == [(INS, (1, 10, "b"), 0), (INS, (2, 10, "a"), 1), (INS, (3, 10, "d"), 2)]


def test_bulk_load_partial_update_sends_a_key_to_its_first_partition() -> None:
    rows = [(INS, (2, 10, "a")), (INS, (1, 30, "b")), (INS, (2, 20, "c"))]
    routed = _cross(rows, "partial-update")
    assert routed == [(INS, (1, 30, "b"), 0), (INS, (2, 10, "a"), 0), (INS, (2, 10, "c"), 0)]


def test_cross_partition_rejects_sequence_field() -> None:
    options = {"bucket": "-1", "sequence.field": "v"}
    schema = TableSchema(3, 0, FIELDS, 2, ("p",), ("k",), options)
    with pytest.raises(InvalidOptionError) as raised:
        route_rows([(INS, (1, 10, "a"))], schema, BucketMode.CROSS_PARTITION, ExistingData())
    assert raised.value.option == "sequence.field"
