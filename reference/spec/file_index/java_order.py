"""The order in which Java's ``HashMap`` iterates its keys, so encoders can reproduce Java's bytes.

Several Paimon writers collect entries in a ``java.util.HashMap`` and then write them in its
iteration order: the columns and index types of a file-index container, and the distinct values
(and their bitmaps) of a bitmap index. No reader depends on that order, but byte-identical output
does, so this module replays the map's insertions.

A ``HashMap`` iterates bucket by bucket. A key's bucket is ``(h ^ (h >>> 16)) & (n - 1)`` for its
``hashCode()`` ``h`` and the table size ``n`` (16 at first, doubled on each resize). Within a
bucket, ``put`` appends a new key at the tail, while ``computeIfAbsent`` pushes it at the head.
``put`` resizes right after an insertion that takes the size above three quarters of the table;
``computeIfAbsent`` resizes at the start of the next call instead (even one that finds its key).
A resize splits each bucket in two without reordering it. A bucket that reaches eight keys makes a
table smaller than 64 resize; in a larger table it becomes a red-black tree whose iteration order
is not modelled here (it needs adversarial hash codes).

Java: ``java.util.HashMap`` (``putVal``, ``computeIfAbsent``, ``resize``, ``treeifyBin``),
``String.hashCode``, the boxed types' ``hashCode`` and
``org.apache.paimon.data.BinaryString.hashCode`` (``MurmurHashUtils.hashBytes``).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Hashable, Iterable

from reference.spec.binary_row import MURMUR_SEED

HASH_MAP_INITIAL_CAPACITY = 16
HASH_MAP_LOAD_FACTOR_NUMERATOR = 3
HASH_MAP_LOAD_FACTOR_DENOMINATOR = 4
TREEIFY_THRESHOLD = 8
"""Bucket length at which ``computeIfAbsent`` treeifies (``put`` waits for one more key)."""
MIN_TREEIFY_CAPACITY = 64

CANONICAL_FLOAT_NAN_BITS = 0x7FC00000
CANONICAL_DOUBLE_NAN_BITS = 0x7FF8000000000000

BOOLEAN_TRUE_HASH = 1231
BOOLEAN_FALSE_HASH = 1237

_MURMUR_C1 = 0xCC9E2D51
_MURMUR_C2 = 0x1B873593
_MURMUR_H_ADD = 0xE6546B64
_FMIX_1 = 0x85EBCA6B
_FMIX_2 = 0xC2B2AE35

_MASK32 = 0xFFFFFFFF


def to_int32(value: int) -> int:
    """Wrap to a signed 32-bit int, as Java int arithmetic does."""
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def compute_java_string_hash(text: str) -> int:
    """``String.hashCode``: ``h = 31 * h + c`` over the UTF-16 code units."""
    units = text.encode("utf-16-be", "surrogatepass")
    result = 0
    for (unit,) in struct.iter_unpack(">H", units):
        result = (31 * result + unit) & _MASK32
    return to_int32(result)


def _rotate_left(value: int, distance: int) -> int:
    return ((value << distance) | (value >> (32 - distance))) & _MASK32


def _murmur_mix(h1: int, k1: int) -> int:
    k1 = (_rotate_left((k1 * _MURMUR_C1) & _MASK32, 15) * _MURMUR_C2) & _MASK32
    h1 = _rotate_left(h1 ^ k1, 13)
    return (h1 * 5 + _MURMUR_H_ADD) & _MASK32


def compute_binary_string_hash(utf8: bytes) -> int:
    """``BinaryString.hashCode``: Paimon's murmur3 of the UTF-8 bytes, seed 42.

    Whole 4-byte words are read little-endian (the memory order of x86 and ARM hosts), each
    trailing byte is mixed on its own as a signed value, and the length goes into the final mix.
    """
    h1 = MURMUR_SEED
    aligned = len(utf8) - len(utf8) % 4
    for (word,) in struct.iter_unpack("<I", utf8[:aligned]):
        h1 = _murmur_mix(h1, word)
    for byte in utf8[aligned:]:
        h1 = _murmur_mix(h1, (byte - 256 if byte > 127 else byte) & _MASK32)
    h1 ^= len(utf8)
    h1 ^= h1 >> 16
    h1 = (h1 * _FMIX_1) & _MASK32
    h1 ^= h1 >> 13
    h1 = (h1 * _FMIX_2) & _MASK32
    h1 ^= h1 >> 16
    return to_int32(h1)


def compute_long_hash(value: int) -> int:
    """``Long.hashCode``: the two halves of the 64-bit value xor-ed."""
    bits = value & 0xFFFFFFFFFFFFFFFF
    return to_int32(bits ^ (bits >> 32))


def compute_float_bits(value: float) -> int:
    """``Float.floatToIntBits`` as a signed int: IEEE single bits, every NaN the canonical one."""
    if math.isnan(value):
        return CANONICAL_FLOAT_NAN_BITS
    return int(struct.unpack(">i", struct.pack(">f", value))[0])


def compute_double_bits(value: float) -> int:
    """``Double.doubleToLongBits`` as a signed long, every NaN the canonical one."""
    if math.isnan(value):
        return CANONICAL_DOUBLE_NAN_BITS
    return int(struct.unpack(">q", struct.pack(">d", value))[0])


def compute_float_hash(value: float) -> int:
    """``Float.hashCode`` is ``floatToIntBits``."""
    return compute_float_bits(value)


def compute_double_hash(value: float) -> int:
    """``Double.hashCode``: ``doubleToLongBits`` folded like ``Long.hashCode``."""
    return compute_long_hash(compute_double_bits(value))


def compute_boolean_hash(value: bool) -> int:
    return BOOLEAN_TRUE_HASH if value else BOOLEAN_FALSE_HASH


def compute_hash_map_bucket(hash_code: int, capacity: int) -> int:
    """``HashMap.hash`` spreads the high half into the low half before masking."""
    bits = hash_code & _MASK32
    return (bits ^ (bits >> 16)) & (capacity - 1)


def _resize(buckets: list[list[tuple[Hashable, int]]]) -> list[list[tuple[Hashable, int]]]:
    """Double the table; each bucket splits into a low and a high bucket, order kept."""
    capacity = 2 * len(buckets)
    resized: list[list[tuple[Hashable, int]]] = [[] for _ in range(capacity)]
    for bucket in buckets:
        for key, hash_code in bucket:
            resized[compute_hash_map_bucket(hash_code, capacity)].append((key, hash_code))
    return resized


def _is_over_threshold(size: int, capacity: int) -> bool:
    return size * HASH_MAP_LOAD_FACTOR_DENOMINATOR > capacity * HASH_MAP_LOAD_FACTOR_NUMERATOR


def compute_hash_map_order(
    calls: Iterable[tuple[Hashable, int]], *, compute_if_absent: bool
) -> list[Hashable]:
    """The iteration order of a ``HashMap`` after inserting ``(key, hashCode)`` pairs in order.

    ``calls`` may repeat keys (a repeated key leaves the map unchanged, but a
    ``computeIfAbsent`` call on it may still resize the table). ``compute_if_absent`` selects
    ``computeIfAbsent`` semantics, otherwise ``put``.
    """
    buckets: list[list[tuple[Hashable, int]]] = [[] for _ in range(HASH_MAP_INITIAL_CAPACITY)]
    present: set[Hashable] = set()
    for key, hash_code in calls:
        if compute_if_absent and _is_over_threshold(len(present), len(buckets)):
            buckets = _resize(buckets)
        if key in present:
            continue
        bucket = buckets[compute_hash_map_bucket(hash_code, len(buckets))]
        crowded = len(bucket) >= TREEIFY_THRESHOLD - (1 if compute_if_absent else 0)
        bucket.insert(0 if compute_if_absent else len(bucket), (key, hash_code))
        present.add(key)
        if crowded and len(buckets) < MIN_TREEIFY_CAPACITY:
            buckets = _resize(buckets)
        if not compute_if_absent and _is_over_threshold(len(present), len(buckets)):
            buckets = _resize(buckets)
    return [key for bucket in buckets for key, _ in bucket]
