"""Bloom-filter file index: may a data file contain a value of one column?

Spec: ``docs/concepts/spec/fileindex.mdx`` ("Index: BloomFilter").
Java: ``org.apache.paimon.fileindex.bloomfilter.BloomFilterFileIndex``, ``FastHash``,
``org.apache.paimon.utils.BloomFilter64``. Identical in 0.9.0 and main.

Body layout::

    hash function count  int32 big-endian
    bit set              the remaining bytes; bit i is bit (i mod 8) of byte i div 8

Each value is first hashed to 64 bits (:func:`compute_fast_hash`): strings and binaries with
XXH64 (seed 0) of their bytes, every other supported type with Thomas Wang's 64-bit integer
mix of its integer form. The 64-bit hash is split into a low and a high signed 32-bit half, and
probe ``i`` (1..k) sets bit ``h(i) mod m`` where ``h(i) = low + i * high`` in 32-bit arithmetic,
bit-inverted when negative. Sizing from the column options ``items`` (expected distinct values,
default 1,000,000) and ``fpp`` (false-positive probability, default 0.1)::

    n = trunc(-items * ln(fpp) / ln(2)^2)
    m = n + (8 - n mod 8)                  (bits; always rounded up past a byte boundary)
    k = max(1, round(m / items * ln 2))    (hash functions)

Nulls are not added; an equality with a null literal can never rule a file out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import xxhash

from reference.errors import InvalidOptionError, PaimonFormatError, SpecViolation
from reference.spec import types as t
from reference.spec.data import Value
from reference.spec.file_index.byte_reader import ByteReader, pack_int32
from reference.spec.file_index.container import compute_timestamp_long
from reference.spec.file_index.java_order import (
    compute_double_bits,
    compute_float_bits,
    to_int32,
)
from reference.spec.file_index.result import REMAIN, SKIP, IndexResult, or_results
from reference.spec.java_numbers import INT_MAX as JAVA_INT_MAX

DEFAULT_ITEMS = 1_000_000
DEFAULT_FPP = 0.1
ITEMS_OPTION = "items"
FPP_OPTION = "fpp"
XXHASH_SEED = 0
BITS_PER_BYTE = 8

_MASK64 = 0xFFFFFFFFFFFFFFFF

INTEGER_LIKE_ROOTS = frozenset(
    {
        t.TypeRoot.TINYINT,
        t.TypeRoot.SMALLINT,
        t.TypeRoot.INTEGER,
        t.TypeRoot.BIGINT,
        t.TypeRoot.DATE,
        t.TypeRoot.TIME_WITHOUT_TIME_ZONE,
    }
)
SUPPORTED_ROOTS = (
    INTEGER_LIKE_ROOTS | t.CHARACTER_ROOTS | t.BINARY_ROOTS | t.FLOATING_ROOTS | t.TIMESTAMP_ROOTS
)


@dataclass(frozen=True)
class BloomFilter:
    """A decoded bloom-filter body."""

    num_hash_functions: int
    bits: bytes

    @property
    def num_bits(self) -> int:
        return len(self.bits) * BITS_PER_BYTE


# --------------------------------------------------------------------------------------------
# Hashing
# --------------------------------------------------------------------------------------------


def to_int64(value: int) -> int:
    """Wrap to a signed 64-bit int, as Java long arithmetic does."""
    value &= _MASK64
    return value - (1 << 64) if value >> 63 else value


def compute_thomas_wang_hash64(key: int) -> int:
    """Thomas Wang's 64-bit integer mix (``FastHash.getLongHash``); shifts right are signed."""
    key = to_int64(~key + (key << 21))
    key = to_int64(key ^ (key >> 24))
    key = to_int64(key + (key << 3) + (key << 8))
    key = to_int64(key ^ (key >> 14))
    key = to_int64(key + (key << 2) + (key << 4))
    key = to_int64(key ^ (key >> 28))
    return to_int64(key + (key << 31))


def compute_xxhash64(data: bytes) -> int:
    """XXH64 of ``data`` with seed 0, as a signed long (``LongHashFunction.xx()``)."""
    return to_int64(xxhash.xxh64_intdigest(data, seed=XXHASH_SEED))


def check_bloom_filter_type(data_type: t.DataType) -> None:
    """Bloom filters exist for strings, binaries, integers, floats, dates, times, timestamps."""
    if data_type.root not in SUPPORTED_ROOTS:
        raise SpecViolation(
            f"bloom-filter index does not support {data_type.to_sql()}", code="FILE_INDEX_TYPE"
        )


def compute_fast_hash(value: Value, data_type: t.DataType) -> int:
    """The 64-bit hash of a non-null value (``FastHash.getHashFunction(type).hash``)."""
    check_bloom_filter_type(data_type)
    root = data_type.root
    if root in t.CHARACTER_ROOTS:
        return compute_xxhash64(str(value).encode("utf-8"))
    if root in t.BINARY_ROOTS:
        return compute_xxhash64(bytes(value))
    if root is t.TypeRoot.FLOAT:
        return compute_thomas_wang_hash64(compute_float_bits(value))
    if root is t.TypeRoot.DOUBLE:
        return compute_thomas_wang_hash64(compute_double_bits(value))
    if root in t.TIMESTAMP_ROOTS:
        return compute_thomas_wang_hash64(
            compute_timestamp_long(value, t.timestamp_precision(data_type))
        )
    return compute_thomas_wang_hash64(int(value))


# --------------------------------------------------------------------------------------------
# Sizing and probing
# --------------------------------------------------------------------------------------------


def _java_round(value: float) -> int:
    """``Math.round(double)``: nearest integer, halves rounded up."""
    floor = math.floor(value)
    return floor + 1 if value - floor >= 0.5 else floor


def compute_num_bits(items: int, fpp: float) -> int:
    """Bit-set size for ``items`` expected values at false-positive rate ``fpp``."""
    if items <= 0:
        raise InvalidOptionError(ITEMS_OPTION, items, "must be positive")
    if not 0.0 < fpp < 1.0:
        raise InvalidOptionError(FPP_OPTION, fpp, "must be strictly between 0 and 1")
    estimate = min(int(-items * math.log(fpp) / (math.log(2) * math.log(2))), JAVA_INT_MAX)
    num_bits = estimate + (BITS_PER_BYTE - estimate % BITS_PER_BYTE)
    if num_bits > JAVA_INT_MAX:
        raise InvalidOptionError(ITEMS_OPTION, items, "bloom filter would exceed 2^31 bits")
    return num_bits


def compute_num_hash_functions(num_bits: int, items: int) -> int:
    return max(1, _java_round(num_bits / items * math.log(2)))


def compute_bit_positions(hash64: int, num_hash_functions: int, num_bits: int) -> list[int]:
    """The bits probed for one 64-bit hash (``BloomFilter64.addHash`` / ``testHash``)."""
    low = to_int32(hash64)
    high = to_int32(hash64 >> 32)
    positions = []
    for probe in range(1, num_hash_functions + 1):
        combined = to_int32(low + probe * high)
        if combined < 0:
            combined = ~combined
        positions.append(combined % num_bits)
    return positions


def is_bit_set(bits: bytes, position: int) -> bool:
    return bool(bits[position >> 3] >> (position & 7) & 1)


# --------------------------------------------------------------------------------------------
# Build, codec, query
# --------------------------------------------------------------------------------------------


def build_bloom_filter(
    values: Iterable[Value],
    data_type: t.DataType,
    *,
    items: int = DEFAULT_ITEMS,
    fpp: float = DEFAULT_FPP,
) -> BloomFilter:
    """The filter Java's writer produces for a column's values (nulls are skipped)."""
    check_bloom_filter_type(data_type)
    num_bits = compute_num_bits(items, fpp)
    num_hash_functions = compute_num_hash_functions(num_bits, items)
    bits = bytearray(num_bits // BITS_PER_BYTE)
    for value in values:
        if value is None:
            continue
        for position in compute_bit_positions(
            compute_fast_hash(value, data_type), num_hash_functions, num_bits
        ):
            bits[position >> 3] |= 1 << (position & 7)
    return BloomFilter(num_hash_functions, bytes(bits))


def encode_bloom_filter(bloom: BloomFilter) -> bytes:
    return pack_int32(bloom.num_hash_functions) + bloom.bits


def decode_bloom_filter(data: bytes) -> BloomFilter:
    """A bloom-filter body; it needs a positive hash count and at least one byte of bits.

    Java's reader assembles the count from *signed* bytes, so a count whose low byte is 128 or
    more would come out wrong there; such counts need an ``fpp`` near 1e-38 and never occur.
    """
    reader = ByteReader(data, what="bloom filter")
    num_hash_functions = reader.int32("hash function count")
    if num_hash_functions <= 0:
        raise PaimonFormatError(f"bloom filter hash function count {num_hash_functions}")
    bits = reader.take(reader.remaining(), "bit set")
    if not bits:
        raise PaimonFormatError("bloom filter has an empty bit set")
    return BloomFilter(num_hash_functions, bits)


def might_contain(bloom: BloomFilter, value: Value, data_type: t.DataType) -> bool:
    """False only if no row of the file has ``value``; None always may be there."""
    if value is None:
        return True
    positions = compute_bit_positions(
        compute_fast_hash(value, data_type), bloom.num_hash_functions, bloom.num_bits
    )
    return all(is_bit_set(bloom.bits, position) for position in positions)


def query_equal(bloom: BloomFilter, value: Value, data_type: t.DataType) -> IndexResult:
    return REMAIN if might_contain(bloom, value, data_type) else SKIP


def query_in(bloom: BloomFilter, values: Iterable[Value], data_type: t.DataType) -> IndexResult:
    """OR of the equalities (``FileIndexReader.visitIn``); an empty list skips."""
    result = SKIP
    for value in values:
        result = or_results(result, query_equal(bloom, value, data_type))
    return result
