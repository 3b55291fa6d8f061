"""Vectorized Java-identical key hashing: bucket keys, HASH-index keys and buckets over Arrow.

Java computes the bucket of a row as ``abs(hash % buckets)`` where ``hash`` is
``BinaryRow.hashCode()`` of the bucket key written as a BinaryRow (row kind INSERT, the layout
of generated projections), i.e. Murmur3 (seed 42) over the row's bytes read as little-endian
32-bit words. ``reference.spec.bucket`` does this one row at a time; this module builds the
same bytes for whole Arrow columns with numpy and hashes every row at once:

* the fixed part (header byte, null bits, one 8-byte slot per field) is the same width for
  every row and is hashed word by word across all rows;
* strings and binaries of at most 7 bytes live in their slot (``0x80 | length`` in the last
  byte); longer ones are referenced (``offset << 32 | length``) and their bytes, padded to
  whole words, follow the fixed part. Those variable parts differ in length per row: rows are
  ordered by word count, so each word position is hashed over a prefix of the rows.

Types hashed vectorized: BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DATE, TIME,
DECIMAL(p <= 18), TIMESTAMP(p <= 3) (both kinds), CHAR, VARCHAR, BINARY, VARBINARY. Any other
key type falls back to ``reference.spec.bucket.compute_key_hash`` per row (the same bytes).
Columns must be in the canonical Arrow form of ``reference.spec.file_format``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from reference.spec import types as t
from reference.spec.binary_row import HEADER_SIZE_IN_BITS as HEADER_BITS
from reference.spec.binary_row import (
    INLINE_MARK,
    compute_binary_row_hash,
    compute_null_bits_size,
    encode_binary_row,
)
from reference.spec.binary_row import (
    MURMUR_SEED as MURMUR_SEED,  # noqa: PLC0414 (placement reads it here)
)
from reference.spec.bucket import compute_key_hash
from reference.spec.file_format import arrow_to_rows

C1 = np.uint32(0xCC9E2D51)
C2 = np.uint32(0x1B873593)
M = np.uint32(5)
N = np.uint32(0xE6546B64)
FMIX_1 = np.uint32(0x85EBCA6B)
FMIX_2 = np.uint32(0xC2B2AE35)
WORD = 8
"""BinaryRow slots and variable-part chunks are 8-byte words."""
MAX_INLINE = 7
OFFSET_SHIFT = 32

_FIXED_WIDTH: dict[t.TypeRoot, tuple[int, str]] = {
    t.TypeRoot.BOOLEAN: (1, "u1"),
    t.TypeRoot.TINYINT: (1, "i1"),
    t.TypeRoot.SMALLINT: (2, "<i2"),
    t.TypeRoot.INTEGER: (4, "<i4"),
    t.TypeRoot.DATE: (4, "<i4"),
    t.TypeRoot.TIME_WITHOUT_TIME_ZONE: (4, "<i4"),
    t.TypeRoot.BIGINT: (8, "<i8"),
    t.TypeRoot.FLOAT: (4, "<f4"),
    t.TypeRoot.DOUBLE: (8, "<f8"),
}
_VARIABLE_ROOTS = t.CHARACTER_ROOTS | t.BINARY_ROOTS


def is_vectorized_type(data_type: t.DataType) -> bool:
    """Whether a key field of this type is hashed without the per-row fallback."""
    if data_type.root in _FIXED_WIDTH or data_type.root in _VARIABLE_ROOTS:
        return True
    if isinstance(data_type, t.DecimalType):
        return data_type.precision <= t.DECIMAL_MAX_COMPACT_PRECISION
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return data_type.precision <= t.TIMESTAMP_MAX_COMPACT_PRECISION
    return False


# --------------------------------------------------------------------------------------------
# Murmur3 over words, vectorized
# --------------------------------------------------------------------------------------------


def _rotl(value: np.ndarray, distance: int) -> np.ndarray:
    return np.asarray((value << np.uint32(distance)) | (value >> np.uint32(32 - distance)))


def mix_word(h: np.ndarray, word: np.ndarray) -> np.ndarray:
    """One Murmur3 block step for every row (uint32 arithmetic wraps as Java's int does)."""
    k = _rotl(word * C1, 15) * C2
    return np.asarray(_rotl(h ^ k, 13) * M + N)


def finish(h: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Murmur3's finalizer over ``h ^ length``, as signed 32-bit ints."""
    h = h ^ length.astype(np.uint32)
    h = h ^ (h >> np.uint32(16))
    h = h * FMIX_1
    h = h ^ (h >> np.uint32(13))
    h = h * FMIX_2
    h = h ^ (h >> np.uint32(16))
    return np.asarray(h.view(np.int32))


def hash_fixed_words(h: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """Fold the words of an ``(n, width)`` byte matrix (width a multiple of 4) into ``h``."""
    words = np.ascontiguousarray(fixed).view("<u4")
    for column in range(words.shape[1]):
        h = mix_word(h, words[:, column].astype(np.uint32))
    return h


def hash_variable_words(
    h: np.ndarray, flat: np.ndarray, starts: np.ndarray, counts: np.ndarray
) -> np.ndarray:
    """Fold row ``i``'s ``counts[i]`` words starting at word ``starts[i]`` of ``flat``."""
    if not counts.any():
        return h
    order = np.argsort(-counts, kind="stable")
    sorted_counts = counts[order]
    sorted_starts = starts[order]
    state = h[order]
    for position in range(int(sorted_counts[0])):
        active = int(np.count_nonzero(sorted_counts > position))
        state[:active] = mix_word(state[:active], flat[sorted_starts[:active] + position])
    result = np.empty_like(h)
    result[order] = state
    return result


# --------------------------------------------------------------------------------------------
# BinaryRow slots of Arrow columns
# --------------------------------------------------------------------------------------------


def _valid(column: pa.Array) -> np.ndarray:
    return np.asarray(column.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def _integer_values(column: pa.Array, data_type: t.DataType) -> np.ndarray:
    """The value a fixed-width slot holds, as a numpy array (nulls as 0)."""
    if isinstance(data_type, t.DecimalType):
        return _decimal_unscaled(column)
    if data_type.root in t.TIMESTAMP_ROOTS:
        column = column.cast(pa.int64())
    elif data_type.root in (t.TypeRoot.DATE, t.TypeRoot.TIME_WITHOUT_TIME_ZONE):
        column = column.cast(pa.int32())
    filler: object = False if data_type.root is t.TypeRoot.BOOLEAN else 0
    return np.asarray(column.fill_null(filler).to_numpy(zero_copy_only=False))


def _decimal_unscaled(column: pa.Array) -> np.ndarray:
    """The unscaled longs of a decimal128 column of precision <= 18 (low halves of the
    little-endian 128-bit values)."""
    data = column.buffers()[1]
    raw = np.frombuffer(data, dtype="<i8")[2 * column.offset : 2 * (column.offset + len(column))]
    values: np.ndarray = raw[0::2].copy()
    values[~_valid(column)] = 0
    return values


def fixed_slots(column: pa.Array, data_type: t.DataType) -> np.ndarray:
    """The ``(n, 8)`` slot bytes of a fixed-width field (nulls zero)."""
    n = len(column)
    slots = np.zeros((n, WORD), dtype=np.uint8)
    width, dtype = _FIXED_WIDTH.get(data_type.root, (WORD, "<i8"))
    values = _integer_values(column, data_type).astype(dtype)
    slots[:, :width] = values.view(np.uint8).reshape(n, width)
    slots[~_valid(column)] = 0
    return slots


def _binary_parts(column: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Offsets (n + 1), lengths (0 for nulls) and the data bytes of a string/binary column."""
    if not pa.types.is_binary(column.type):
        column = column.cast(pa.binary())
    n = len(column)
    buffers = column.buffers()
    offsets = np.frombuffer(buffers[1], dtype="<i4")[column.offset : column.offset + n + 1]
    offsets = offsets.astype(np.int64)
    data = (
        np.frombuffer(buffers[2], dtype=np.uint8)
        if buffers[2] is not None
        else np.zeros(0, np.uint8)
    )
    lengths = np.diff(offsets)
    lengths[~_valid(column)] = 0
    return offsets, lengths, data


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenation of ``range(starts[i], starts[i] + lengths[i])``."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    before = np.cumsum(lengths) - lengths
    return np.asarray(np.repeat(starts - before, lengths) + np.arange(total))


def _round_to_word(lengths: np.ndarray) -> np.ndarray:
    return np.asarray((lengths + WORD - 1) // WORD * WORD)


# --------------------------------------------------------------------------------------------
# Hashes
# --------------------------------------------------------------------------------------------


def _fallback_hashes(columns: Sequence[pa.Array], types: Sequence[t.DataType]) -> np.ndarray:
    fields = [t.DataField(i, f"k{i}", dt.copy(True)) for i, dt in enumerate(types)]
    table = pa.Table.from_arrays(list(columns), names=[f.name for f in fields])
    rows = arrow_to_rows(table, fields)
    return np.array([compute_key_hash(row, types) for row in rows], dtype=np.int32)


def compute_key_hashes(columns: Sequence[pa.Array], types: Sequence[t.DataType]) -> np.ndarray:
    """Java ``BinaryRow.hashCode`` of the key row of every position (int32 array)."""
    n = len(columns[0]) if columns else 0
    if not all(is_vectorized_type(dt) for dt in types):
        return _fallback_hashes(columns, types)
    arity = len(types)
    header = compute_null_bits_size(arity)
    fixed_width = header + WORD * arity
    fixed = np.zeros((n, fixed_width), dtype=np.uint8)
    variable: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for index, (given, data_type) in enumerate(zip(columns, types, strict=True)):
        column = given.combine_chunks() if isinstance(given, pa.ChunkedArray) else given
        bit = HEADER_BITS + index
        nulls = ~_valid(column)
        fixed[nulls, bit // 8] |= np.uint8(1 << (bit % 8))
        slot = header + WORD * index
        if data_type.root in _VARIABLE_ROOTS:
            offsets, lengths, data = _binary_parts(column)
            variable.append((slot, offsets, lengths, data, ~nulls))
        else:
            fixed[:, slot : slot + WORD] = fixed_slots(column, data_type)
    var_sizes = np.zeros((n, len(variable)), dtype=np.int64)
    for position, (_, _, lengths, _, _) in enumerate(variable):
        var_sizes[:, position] = np.where(lengths > MAX_INLINE, _round_to_word(lengths), 0)
    in_row = np.cumsum(var_sizes, axis=1) - var_sizes
    row_var = var_sizes.sum(axis=1)
    row_starts = np.cumsum(row_var) - row_var
    flat = np.zeros(int(row_var.sum()), dtype=np.uint8)
    for position, (slot, offsets, lengths, data, valid) in enumerate(variable):
        inline = lengths <= MAX_INLINE
        _fill_inline_slots(fixed, slot, (offsets, lengths, data), inline & valid)
        long = ~inline
        if long.any():
            relative = fixed_width + in_row[long, position]
            words = (relative.astype(np.uint64) << np.uint64(OFFSET_SHIFT)) | lengths[long].astype(
                np.uint64
            )
            fixed[long, slot : slot + WORD] = words.astype("<u8").view(np.uint8).reshape(-1, WORD)
            source = _ranges(offsets[:-1][long], lengths[long])
            target = _ranges(row_starts[long] + in_row[long, position], lengths[long])
            flat[target] = data[source]
    h = np.full(n, MURMUR_SEED, dtype=np.uint32)
    h = hash_fixed_words(h, fixed)
    words = flat.view("<u4").astype(np.uint32) if flat.size else np.zeros(0, np.uint32)
    h = hash_variable_words(h, words, row_starts // 4, row_var // 4)
    return finish(h, fixed_width + row_var)


def _fill_inline_slots(
    fixed: np.ndarray,
    slot: int,
    parts: tuple[np.ndarray, np.ndarray, np.ndarray],
    inline: np.ndarray,
) -> None:
    """Write the non-null values of at most 7 bytes (``parts``: offsets, lengths, data) into
    their slots, with the inline mark."""
    offsets, lengths, data = parts
    rows = np.flatnonzero(inline)
    if rows.size == 0:
        return
    counts = lengths[rows]
    source = _ranges(offsets[:-1][rows], counts)
    row_of = np.repeat(rows, counts)
    column_of = _ranges(np.zeros(len(rows), dtype=np.int64), counts)
    fixed[row_of, slot + column_of] = data[source]
    fixed[rows, slot + MAX_INLINE] = np.uint8(INLINE_MARK) | counts.astype(np.uint8)


def compute_buckets(hashes: np.ndarray, num_buckets: int) -> np.ndarray:
    """``abs(hash % num_buckets)`` with Java's truncating remainder (int32 array)."""
    return np.asarray(np.abs(np.fmod(hashes.astype(np.int64), num_buckets)).astype(np.int32))


def compute_row_hash(values: Sequence[object], types: Sequence[t.DataType]) -> int:
    """One row's hash through the reference codec (for partitions: a handful per batch)."""
    return compute_binary_row_hash(encode_binary_row(values, types))
