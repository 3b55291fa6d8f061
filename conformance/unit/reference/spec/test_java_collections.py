"""Java collection orders, against hand-computed tables (Java-written HASH index orders are
checked in ``conformance/unit/reference/store/test_bucket_assign.py``)."""

from __future__ import annotations

from reference.spec.java_collections import (
    compute_fastutil_max_fill,
    compute_fastutil_mix,
    compute_fastutil_table_size,
    compute_int_hash_set_order,
    compute_java_hash_map_capacity,
    compute_java_hash_map_order,
)


def test_hash_map_grows_past_three_quarters() -> None:
    assert compute_java_hash_map_capacity(16, 12) == 16
    assert compute_java_hash_map_capacity(16, 13) == 32
    assert compute_java_hash_map_capacity(16, 25) == 64


def test_hash_map_walks_slots_then_insertion_order() -> None:
    # Slots mod 16: 17 -> 1, 1 -> 1, 16 -> 0, 0 -> 0.
    assert compute_java_hash_map_order([17, 1, 16, 0], 16) == [16, 0, 17, 1]
    # Mod 32 every key has its own slot.
    assert compute_java_hash_map_order([17, 1, 16, 0], 32) == [0, 1, 16, 17]


def test_fastutil_sizes() -> None:
    assert compute_fastutil_table_size(16) == 32  # ceil(16 / 0.75) = 22 -> 32
    assert compute_fastutil_table_size(3) == 4
    assert compute_fastutil_table_size(1) == 2
    assert compute_fastutil_max_fill(32) == 24
    assert compute_fastutil_max_fill(2) == 1


def test_fastutil_mix_by_hand() -> None:
    # 1 * phi = 0x9E3779B9; folding the high half in: 0x79B9 ^ 0x9E37 = 0xE78E.
    assert compute_fastutil_mix(1) == 0x9E37E78E
    # 2 * phi = 0x13C6EF372, cut to 32 bits 0x3C6EF372; 0xF372 ^ 0x3C6E = 0xCF1C.
    assert compute_fastutil_mix(2) == 0x3C6ECF1C


def test_int_hash_set_walks_from_the_last_slot() -> None:
    # Table of 32: 1 sits in slot 0xE = 14, 2 in slot 0x1C = 28; the walk goes down.
    assert compute_int_hash_set_order([1, 2], 16) == [2, 1]
    assert compute_int_hash_set_order([1, 0, 2, 1], 16) == [0, 2, 1]
