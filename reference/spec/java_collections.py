"""Iteration orders of the Java collections whose order leaks into Paimon's files.

Two writer decisions depend on how Java walks a hash table, so an implementation that wants
Java's bytes must replay the table:

1. *Dynamic-bucket candidates* (``tableindex.md``, "Dynamic Bucket Index"): the assigner keeps
   the buckets with room in a ``java.util.HashMap<Integer, Long>`` and gives a new key to the
   first one it meets. For the small non-negative ints used as bucket ids the hash spreading
   (``h ^ h >>> 16``) changes nothing, so the map is walked by ``key mod capacity``, keys of
   the same slot in insertion order; the capacity starts at 16 and doubles whenever the size
   exceeds three quarters of it. Java: ``java.util.HashMap``, ``index/PartitionIndex``.
2. *HASH index files*: the hashes of a bucket are collected in fastutil's ``IntOpenHashSet``
   and written in its iteration order. That set is an open-addressing table whose size is a
   power of two holding the expected count below a 0.75 load factor; a key's home slot is its
   golden-ratio mix, collisions probe linearly upwards, the table doubles (re-placing the keys
   it held, walked from the last slot down) once the count reaches its fill limit, and the key
   0 lives outside the table. Iteration yields 0 first if present, then the table from its last
   slot down. Java: ``it.unimi.dsi.fastutil.ints.IntOpenHashSet``, ``utils/IntHashSet``,
   ``index/HashIndexMaintainer``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from reference.spec.java_numbers import INT32_MASK

JAVA_HASH_MAP_INITIAL_CAPACITY = 16
JAVA_HASH_MAP_LOAD_FACTOR = 0.75

FASTUTIL_DEFAULT_EXPECTED = 16
"""The expected size of an ``IntOpenHashSet`` built without one (a bucket with no old index)."""
FASTUTIL_LOAD_FACTOR = 0.75
FASTUTIL_PHI = 0x9E3779B9
"""``HashCommon.INT_PHI``: 2^32 divided by the golden ratio."""
INT32_SIGN = 1 << 31
INT32_RANGE = 1 << 32
MIX_FOLD_SHIFT = 16
MIN_TABLE_SIZE = 2


def compute_java_hash_map_capacity(capacity: int, size: int) -> int:
    """The table size of a ``java.util.HashMap`` of table size ``capacity`` once it holds
    ``size`` entries (it doubles while ``size`` exceeds the load factor)."""
    while size > capacity * JAVA_HASH_MAP_LOAD_FACTOR:
        capacity *= 2
    return capacity


def compute_java_hash_map_order(keys: Sequence[int], capacity: int) -> list[int]:
    """Rule 1: the iteration order of a ``HashMap<Integer, _>`` holding ``keys`` (given in
    insertion order, each in ``[0, 2^16)``): by slot ``key mod capacity``, then insertion."""
    return sorted(keys, key=lambda key: key & (capacity - 1))


def compute_fastutil_mix(value: int) -> int:
    """``HashCommon.mix`` of an unsigned 32-bit value: multiply by phi, fold the high half in."""
    mixed = (value * FASTUTIL_PHI) & INT32_MASK
    return mixed ^ (mixed >> MIX_FOLD_SHIFT)


def compute_fastutil_table_size(expected: int) -> int:
    """``HashCommon.arraySize``: the power of two that holds ``expected`` keys under the load."""
    needed = math.ceil(expected / FASTUTIL_LOAD_FACTOR)
    return max(MIN_TABLE_SIZE, 1 << max(needed - 1, 0).bit_length())


def compute_fastutil_max_fill(table_size: int) -> int:
    """``HashCommon.maxFill``: how many keys the table takes before it grows."""
    return min(math.ceil(table_size * FASTUTIL_LOAD_FACTOR), table_size - 1)


def _place(table: list[int], unsigned: int) -> None:
    mask = len(table) - 1
    slot = compute_fastutil_mix(unsigned) & mask
    while table[slot] != 0:
        slot = (slot + 1) & mask
    table[slot] = unsigned


def _to_int32(unsigned: int) -> int:
    return unsigned - INT32_RANGE if unsigned >= INT32_SIGN else unsigned


def compute_int_hash_set_order(values: Iterable[int], expected: int) -> list[int]:
    """Rule 2: the iteration order of ``IntOpenHashSet(expected)`` after adding the signed
    32-bit ``values`` in order (repeats ignored)."""
    table = [0] * compute_fastutil_table_size(expected)
    max_fill = compute_fastutil_max_fill(len(table))
    seen: set[int] = set()
    for value in values:
        if value in seen:
            continue
        seen.add(value)
        if value != 0:
            _place(table, value & INT32_MASK)
        if len(seen) - 1 >= max_fill:
            held = [key for key in reversed(table) if key != 0]
            table = [0] * compute_fastutil_table_size(len(seen) + 1)
            max_fill = compute_fastutil_max_fill(len(table))
            for key in held:
                _place(table, key)
    walked = [_to_int32(key) for key in reversed(table) if key != 0]
    return [0, *walked] if 0 in seen else walked
