"""BinaryRow: the byte layout Paimon gives one row, its nested arrays, maps and rows, and its hash.

Spec: ``docs/concepts/spec/manifest.md`` (Appendix "BinaryRow"): partitions, ``_MIN_KEY`` /
``_MAX_KEY`` and SimpleStats min/max are BinaryRows stored as bytes.
Java: ``org.apache.paimon.data.BinaryRow``, ``BinaryRowWriter``, ``AbstractBinaryWriter``,
``BinarySection``, ``BinaryArray``, ``BinaryArrayWriter``, ``BinaryMap``, ``BinaryVector``,
``BinaryString``, ``Decimal``, ``Timestamp``, ``org.apache.paimon.memory.MemorySegmentUtils``,
``org.apache.paimon.utils.MurmurHashUtils`` and ``org.apache.paimon.utils.SerializationUtils``
(``serializeBinaryRow``). The layout is the same in Paimon 0.9.0 and main; VARIANT, BLOB and
VECTOR fields exist only in releases after 0.9.

Every integer below is little-endian (Java writes in native order; every supported platform is
little-endian). A *word* is 8 bytes.

Row of ``n`` fields::

    | null bit set: ceil((n + 8) / 64) words | n slots, one word each | variable part |

* The first byte of the null bit set is the row kind (``RowKind.byte_value``); field ``i`` is
  null when bit ``8 + i`` is set (bit ``b`` is bit ``b % 8`` of byte ``b // 8``). Unused bits
  are zero.
* A slot holds a fixed-length value in its low bytes (BOOLEAN and TINYINT 1 byte, SMALLINT 2,
  INT/DATE/TIME/FLOAT 4, BIGINT/DOUBLE 8, a compact DECIMAL as its unscaled long, a compact
  TIMESTAMP as epoch millis); the rest of the word is zero.
* A string or binary of at most 7 bytes is *inlined*: its bytes fill the slot from byte 0 and the
  last byte of the slot is ``0x80 | length``.
* Anything else is a *reference* ``offset << 32 | tag``: the bytes live at ``offset`` (counted from
  the start of the enclosing row, array or map) in the variable part, and ``tag`` is their length
  -- except for a non-compact TIMESTAMP, whose 8-byte epoch millis live in the variable part and
  whose tag is the nano-of-millisecond.
* The variable part is the chunks of the referenced values in field order, each zero padded to
  whole words. A non-compact DECIMAL always takes 16 bytes (its big-endian two's complement
  unscaled value, then zeros).
* A null field's slot is zero, except that a null non-compact DECIMAL or TIMESTAMP may keep a
  zeroed chunk in the variable part with its offset in the slot (see :class:`NullLayout`).

Array (``BinaryArray``) of ``n`` elements::

    | n: int32 | null bits: ceil(n / 32) int32s | n element slots | pad to word | variable part |

Element slots are 1 byte (BOOLEAN, TINYINT), 2 (SMALLINT), 4 (INT, DATE, TIME, FLOAT) or 8 bytes
(everything else, with the same inline and reference rules as a row slot); element ``i`` is null
when bit ``i`` of the null bits is set.

Map and multiset (``BinaryMap``): ``| key array size: int32 | key array | value array |``; a
multiset is a map from element to its count (INT NOT NULL).
Nested row: a full BinaryRow (with its own header byte) in the variable part.
Vector: ``| n: int32 | n packed elements, padded to a word |``. Variant: ``| value size: int32 |
value | metadata |``.

A BinaryRow carries no arity; ``SerializationUtils.serializeBinaryRow`` (the form stored in
manifests) prefixes the row bytes with its arity as a **big-endian** int32.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

from reference.errors import PaimonFormatError, SpecViolation, UnsupportedFeature
from reference.spec import types as t
from reference.spec.data import (
    PairMap,
    Row,
    RowKind,
    Timestamp,
    Value,
    Variant,
    build_map,
    decimal_from_unscaled,
    decimal_unscaled,
)
from reference.spec.java_numbers import INT32_MASK
from reference.spec.units import NANOS_PER_MILLI

# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------

WORD_SIZE = 8
"""Every row, array and variable-part chunk is padded to a whole number of 8-byte words."""

ROW_SLOT_SIZE = 8
"""Each field of a row has one word in the fixed part."""

HEADER_SIZE_IN_BITS = 8
"""The row kind byte comes first in the null bit set; field ``i`` uses bit ``8 + i``."""

NULL_BITS_WORD_BITS = 64
"""The null bit set of a row grows by whole words of 64 bits."""

MAX_INLINE_SIZE = 7
"""A string or binary of at most 7 bytes is stored inside its slot (Java
``BinarySection.MAX_FIX_PART_DATA_SIZE``)."""

INLINE_MARK = 0x80
"""High bit of a slot's last byte: set when the slot holds inline data."""

INLINE_LENGTH_MASK = 0x7F
"""Low 7 bits of a slot's last byte: the length of the inline data."""

INLINE_LENGTH_SHIFT = 56
"""The last byte of a slot is bits 56..63 of the slot read as a little-endian integer."""

INLINE_MARK_BIT = INLINE_MARK << INLINE_LENGTH_SHIFT
"""``INLINE_MARK`` seen in the slot read as an unsigned 64-bit integer."""

REFERENCE_OFFSET_SHIFT = 32
"""A reference slot is ``offset << 32 | tag``."""

REFERENCE_TAG_MASK = 0xFFFF_FFFF

DECIMAL_VARIABLE_SIZE = 16
"""A non-compact DECIMAL reserves 16 bytes: its unscaled value as big-endian two's complement
(``BigInteger.toByteArray``, at most 16 bytes for 38 digits), then zeros."""

TIMESTAMP_VARIABLE_SIZE = 8
"""A non-compact TIMESTAMP keeps its epoch millis as an int64 in the variable part."""

ARRAY_SIZE_WIDTH = 4
"""An array starts with its element count as an int32."""

ARRAY_NULL_WORD_BITS = 32
"""The null bits of an array grow by whole 4-byte words of 32 bits."""

ARRAY_NULL_WORD_SIZE = 4

MAP_KEY_ARRAY_SIZE_WIDTH = 4
"""A map starts with the byte size of its key array as an int32."""

VECTOR_SIZE_WIDTH = 4
"""A vector in a row starts with its element count as an int32."""

VARIANT_VALUE_SIZE_WIDTH = 4
"""A variant starts with the byte size of its value as an int32; the metadata follows the value."""

SERIALIZED_ARITY_FORMAT = ">i"
"""``serializeBinaryRow`` writes the arity with ``java.nio.ByteBuffer``: big-endian int32."""

SERIALIZED_ARITY_SIZE = 4

MURMUR_SEED = 42
"""Seed of Java ``MurmurHashUtils`` (``DEFAULT_SEED``)."""

# Murmur3 x86 32-bit constants: block mixing (C1, R1, C2), hash update (R2, M, N), finalizer.
MURMUR_C1 = 0xCC9E2D51
MURMUR_C2 = 0x1B873593
MURMUR_R1 = 15
MURMUR_R2 = 13
MURMUR_M = 5
MURMUR_N = 0xE6546B64
MURMUR_FMIX_1 = 0x85EBCA6B
MURMUR_FMIX_2 = 0xC2B2AE35
MURMUR_FMIX_SHIFTS = (16, 13, 16)
MURMUR_WORD_SIZE = 4


ARRAY_ELEMENT_SIZES: dict[t.TypeRoot, int] = {
    t.TypeRoot.BOOLEAN: 1,
    t.TypeRoot.TINYINT: 1,
    t.TypeRoot.SMALLINT: 2,
    t.TypeRoot.INTEGER: 4,
    t.TypeRoot.FLOAT: 4,
    t.TypeRoot.DATE: 4,
    t.TypeRoot.TIME_WITHOUT_TIME_ZONE: 4,
}
"""Element slot width of the types packed narrower than a word in an array (others: 8 bytes).
Java: ``BinaryArray.calculateFixLengthPartSize``."""

VECTOR_ELEMENT_SIZES: dict[t.TypeRoot, int] = {
    t.TypeRoot.BOOLEAN: 1,
    t.TypeRoot.TINYINT: 1,
    t.TypeRoot.SMALLINT: 2,
    t.TypeRoot.INTEGER: 4,
    t.TypeRoot.FLOAT: 4,
    t.TypeRoot.BIGINT: 8,
    t.TypeRoot.DOUBLE: 8,
}
"""The element types a VECTOR may have, and their packed width (``BinaryVector``)."""

PRIMITIVE_FORMATS: dict[t.TypeRoot, str] = {
    t.TypeRoot.TINYINT: "<b",
    t.TypeRoot.SMALLINT: "<h",
    t.TypeRoot.INTEGER: "<i",
    t.TypeRoot.DATE: "<i",
    t.TypeRoot.TIME_WITHOUT_TIME_ZONE: "<i",
    t.TypeRoot.BIGINT: "<q",
    t.TypeRoot.FLOAT: "<f",
    t.TypeRoot.DOUBLE: "<d",
}
"""``struct`` format of each fixed-length type other than BOOLEAN."""

MULTISET_COUNT_TYPE = t.IntType(nullable=False)
"""A multiset is stored as a map from element to its count, an INT NOT NULL."""


class NullLayout(Enum):
    """How a row writer lays out a *null* non-compact DECIMAL or TIMESTAMP field of a row.

    Both layouts decode the same; they differ in bytes, hence in hash.

    * ``KEEP_VARIABLE_CHUNK``: the field keeps its zeroed 16-byte (DECIMAL) or 8-byte (TIMESTAMP)
      chunk in the variable part, and its slot holds ``offset << 32``. Java's generated
      projections write this (``GenerateUtils.binaryWriterWriteNull``): partitions, primary keys,
      trimmed primary keys and bucket keys, in every version. ``InternalRowSerializer`` writes
      it too since Paimon 1.2 (``RowHelper``), so SimpleStats rows of 1.2+ use it.
    * ``ZERO_SLOT``: the slot is zero and nothing is reserved, as for any other null field.
      ``InternalRowSerializer`` before 1.2 (so SimpleStats min/max rows written by 0.9 .. 1.1).

    Array elements never reserve a chunk for a null. Nested rows are written by Java's
    ``InternalRowSerializer``; this codec applies the same layout at every depth.
    """

    KEEP_VARIABLE_CHUNK = "keep-variable-chunk"
    ZERO_SLOT = "zero-slot"


# --------------------------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------------------------


def compute_round_to_word(num_bytes: int) -> int:
    """``num_bytes`` rounded up to a whole number of words."""
    return -(-num_bytes // WORD_SIZE) * WORD_SIZE


def compute_null_bits_size(arity: int) -> int:
    """Bytes of a row's null bit set, header byte included (Java
    ``BinaryRow.calculateBitSetWidthInBytes``)."""
    return (
        (arity + HEADER_SIZE_IN_BITS + NULL_BITS_WORD_BITS - 1) // NULL_BITS_WORD_BITS * WORD_SIZE
    )


def compute_fixed_part_size(arity: int) -> int:
    """Bytes of a row's fixed part: the null bit set and one slot per field."""
    return compute_null_bits_size(arity) + ROW_SLOT_SIZE * arity


def compute_field_offset(arity: int, position: int) -> int:
    """Where the slot of field ``position`` starts, from the start of the row."""
    return compute_null_bits_size(arity) + ROW_SLOT_SIZE * position


def compute_array_header_size(num_elements: int) -> int:
    """Bytes of an array's element count and null bits (``BinaryArray.calculateHeaderInBytes``)."""
    null_words = (num_elements + ARRAY_NULL_WORD_BITS - 1) // ARRAY_NULL_WORD_BITS
    return ARRAY_SIZE_WIDTH + null_words * ARRAY_NULL_WORD_SIZE


def compute_array_element_size(element_type: t.DataType) -> int:
    """Width of one element slot of an array of ``element_type``."""
    if isinstance(element_type, t.VectorType):
        raise UnsupportedFeature("a VECTOR cannot be an element of an array or a map")
    return ARRAY_ELEMENT_SIZES.get(element_type.root, WORD_SIZE)


def compute_array_fixed_part_size(num_elements: int, element_size: int) -> int:
    """Bytes of an array before its variable part: header and slots, padded to a word."""
    return compute_round_to_word(
        compute_array_header_size(num_elements) + element_size * num_elements
    )


def is_compact_decimal(data_type: t.DecimalType) -> bool:
    """A DECIMAL of precision <= 18 is stored as its unscaled long in the slot."""
    return data_type.precision <= t.DECIMAL_MAX_COMPACT_PRECISION


def is_compact_timestamp(precision: int) -> bool:
    """A TIMESTAMP of precision <= 3 is stored as its epoch millis in the slot."""
    return precision <= t.TIMESTAMP_MAX_COMPACT_PRECISION


def is_in_fixed_part(data_type: t.DataType) -> bool:
    """Whether a field's value lives wholly in its slot whatever the value (Java
    ``BinaryRow.isInFixedLengthPart``)."""
    if isinstance(data_type, t.DecimalType):
        return is_compact_decimal(data_type)
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return is_compact_timestamp(data_type.precision)
    return data_type.root in PRIMITIVE_FORMATS or data_type.root is t.TypeRoot.BOOLEAN


# --------------------------------------------------------------------------------------------
# Hash
# --------------------------------------------------------------------------------------------


def _to_int32(value: int) -> int:
    value &= INT32_MASK
    return value - (1 << 32) if value >= 1 << 31 else value


def _rotate_left_32(value: int, distance: int) -> int:
    return ((value << distance) | (value >> (32 - distance))) & INT32_MASK


def _compute_murmur_fmix(h: int) -> int:
    """Murmur3's finalizer: xor-shift, multiply, xor-shift, multiply, xor-shift."""
    first, second, third = MURMUR_FMIX_SHIFTS
    h ^= h >> first
    h = (h * MURMUR_FMIX_1) & INT32_MASK
    h ^= h >> second
    h = (h * MURMUR_FMIX_2) & INT32_MASK
    h ^= h >> third
    return h


def compute_murmur_hash_by_words(data: bytes, seed: int = MURMUR_SEED) -> int:
    """Murmur3 (32-bit) over ``data`` read as little-endian int32 words, as a signed int.

    ``len(data)`` must be a multiple of 4. Java: ``MurmurHashUtils.hashBytesByWords``.
    """
    if len(data) % MURMUR_WORD_SIZE:
        raise PaimonFormatError(f"hash by words needs a multiple of 4 bytes, got {len(data)}")
    h1 = seed & INT32_MASK
    for (word,) in struct.iter_unpack("<I", data):
        k1 = (word * MURMUR_C1) & INT32_MASK
        k1 = _rotate_left_32(k1, MURMUR_R1)
        k1 = (k1 * MURMUR_C2) & INT32_MASK
        h1 ^= k1
        h1 = _rotate_left_32(h1, MURMUR_R2)
        h1 = (h1 * MURMUR_M + MURMUR_N) & INT32_MASK
    return _to_int32(_compute_murmur_fmix(h1 ^ len(data)))


def compute_binary_row_hash(data: bytes) -> int:
    """Java ``BinaryRow.hashCode()``: the word-wise Murmur3 hash of the row's bytes (signed int).

    ``data`` is the row itself (as from :func:`encode_binary_row`), not the serialized form with
    its arity prefix. Java: ``MemorySegmentUtils.hashByWords``.
    """
    if len(data) % WORD_SIZE:
        raise PaimonFormatError(f"a BinaryRow is whole words, got {len(data)} bytes")
    return compute_murmur_hash_by_words(data)


# --------------------------------------------------------------------------------------------
# Encode
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Inline:
    """A value that lives wholly in its slot; ``data`` fills the slot from its first byte."""

    data: bytes


@dataclass(frozen=True)
class _Reference:
    """A value in the variable part: the slot gets ``offset << 32 | tag``; ``chunk`` goes at the
    offset, zero padded to whole words and to at least ``reserved`` bytes."""

    chunk: bytes
    tag: int
    reserved: int = 0


_Slot = _Inline | _Reference

_NESTED_VALUE_CLASSES: dict[t.TypeRoot, tuple[type, ...]] = {
    t.TypeRoot.ARRAY: (list, tuple),
    t.TypeRoot.VECTOR: (list, tuple),
    t.TypeRoot.MAP: (Mapping,),
    t.TypeRoot.MULTISET: (Mapping,),
    t.TypeRoot.ROW: (tuple, list),
}

_ZERO_SLOT = _Inline(b"")


def _invalid(value: Value, data_type: t.DataType, reason: str = "") -> SpecViolation:
    detail = f": {reason}" if reason else ""
    return SpecViolation(
        f"value {value!r} cannot be written as {data_type}{detail}", code="BINARY_ROW_VALUE"
    )


def _pack(fmt: str, value: Value, data_type: t.DataType) -> bytes:
    try:
        return struct.pack(fmt, value)
    except (struct.error, TypeError) as error:
        raise _invalid(value, data_type, str(error)) from None


def encode_string_bytes(text: str) -> bytes:
    """A CHAR/VARCHAR value as Java stores it: UTF-8 (``BinaryString.fromString``)."""
    return text.encode("utf-8")


def _encode_bytes_slot(data: bytes) -> _Slot:
    """At most 7 bytes inline with the mark and length in the last byte; otherwise referenced."""
    if len(data) <= MAX_INLINE_SIZE:
        return _Inline(data.ljust(MAX_INLINE_SIZE, b"\0") + bytes([INLINE_MARK | len(data)]))
    return _Reference(data, len(data))


def encode_big_integer(value: int) -> bytes:
    """Minimal big-endian two's complement, as Java ``BigInteger.toByteArray`` (0 is one byte)."""
    magnitude_bits = (value if value >= 0 else ~value).bit_length()
    return value.to_bytes(magnitude_bits // 8 + 1, "big", signed=True)


def _encode_decimal_slot(value: Decimal, data_type: t.DecimalType) -> _Slot:
    try:
        unscaled = decimal_unscaled(value, data_type.scale)
    except (ValueError, TypeError, AttributeError) as error:
        raise _invalid(value, data_type, str(error)) from None
    if len(str(abs(unscaled))) > data_type.precision:
        raise _invalid(value, data_type, "more digits than the precision")
    if is_compact_decimal(data_type):
        return _Inline(struct.pack("<q", unscaled))
    unscaled_bytes = encode_big_integer(unscaled)
    return _Reference(unscaled_bytes, len(unscaled_bytes), DECIMAL_VARIABLE_SIZE)


def _encode_timestamp_slot(value: Timestamp, precision: int, data_type: t.DataType) -> _Slot:
    """Compact: epoch millis in the slot (Java drops any nanos). Otherwise millis in the variable
    part and nano-of-millisecond as the slot's tag."""
    if not isinstance(value, Timestamp):
        raise _invalid(value, data_type, "expected a Timestamp")
    millis = _pack("<q", value.millisecond, data_type)
    if is_compact_timestamp(precision):
        return _Inline(millis)
    return _Reference(millis, value.nano_of_millisecond)


def _encode_fixed_value(value: Value, data_type: t.DataType, *, canonical_nan: bool) -> bytes:
    """A BOOLEAN or numeric/date/time value in its natural width."""
    if data_type.root is t.TypeRoot.BOOLEAN:
        if not isinstance(value, bool):
            raise _invalid(value, data_type, "expected a bool")
        return b"\x01" if value else b"\x00"
    if canonical_nan and isinstance(value, float) and math.isnan(value):
        value = math.nan
    return _pack(PRIMITIVE_FORMATS[data_type.root], value, data_type)


def _encode_variant_chunk(value: Variant, data_type: t.DataType) -> bytes:
    if not isinstance(value, Variant):
        raise _invalid(value, data_type, "expected a Variant")
    return struct.pack("<i", len(value.value)) + value.value + value.metadata


def _encode_vector_chunk(value: Sequence[Value], data_type: t.VectorType) -> bytes:
    """Element count, then the elements packed, padded to a word (``BinaryVector``)."""
    element = data_type.element
    if element.root not in VECTOR_ELEMENT_SIZES:
        raise UnsupportedFeature(f"VECTOR element type {element} is not allowed")
    if len(value) != data_type.length:
        raise _invalid(value, data_type, f"expected {data_type.length} elements")
    if any(item is None for item in value):
        raise _invalid(value, data_type, "a vector has no null elements")
    packed = b"".join(_encode_fixed_value(item, element, canonical_nan=False) for item in value)
    return struct.pack("<i", len(value)) + packed.ljust(compute_round_to_word(len(packed)), b"\0")


def _encode_slot(
    value: Value, data_type: t.DataType, null_layout: NullLayout, *, in_array: bool
) -> _Slot:
    """The slot (and variable-part chunk) of one non-null value.

    Java writes FLOAT/DOUBLE array elements with NaN made canonical; row fields keep their bits.
    """
    if data_type.root is t.TypeRoot.BOOLEAN or data_type.root in PRIMITIVE_FORMATS:
        return _Inline(_encode_fixed_value(value, data_type, canonical_nan=in_array))
    if isinstance(data_type, t.DecimalType):
        return _encode_decimal_slot(value, data_type)
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return _encode_timestamp_slot(value, data_type.precision, data_type)
    if isinstance(data_type, (t.CharType, t.VarCharType)):
        if not isinstance(value, str):
            raise _invalid(value, data_type, "expected a str")
        return _encode_bytes_slot(encode_string_bytes(value))
    if isinstance(data_type, (t.BinaryType, t.VarBinaryType, t.BlobType)):
        if not isinstance(value, (bytes, bytearray)):
            raise _invalid(value, data_type, "expected bytes")
        return _encode_bytes_slot(bytes(value))
    return _encode_nested_slot(value, data_type, null_layout)


def _encode_nested_slot(value: Value, data_type: t.DataType, null_layout: NullLayout) -> _Slot:
    """Arrays, maps, multisets, rows, vectors and variants: always referenced."""
    expected = _NESTED_VALUE_CLASSES.get(data_type.root)
    if expected is not None and not isinstance(value, expected):
        raise _invalid(value, data_type, f"expected {' or '.join(c.__name__ for c in expected)}")
    chunk: bytes
    if isinstance(data_type, t.ArrayType):
        chunk = encode_binary_array(value, data_type.element, null_layout)
    elif isinstance(data_type, t.MapType):
        chunk = encode_binary_map(value, data_type.key, data_type.value, null_layout)
    elif isinstance(data_type, t.MultisetType):
        chunk = encode_binary_map(value, data_type.element, MULTISET_COUNT_TYPE, null_layout)
    elif isinstance(data_type, t.RowType):
        field_types = [f.type for f in data_type.fields]
        chunk = encode_binary_row(value, field_types, RowKind.INSERT, null_layout=null_layout)
    elif isinstance(data_type, t.VectorType):
        chunk = _encode_vector_chunk(value, data_type)
    elif isinstance(data_type, t.VariantType):
        chunk = _encode_variant_chunk(value, data_type)
    else:
        raise UnsupportedFeature(f"no BinaryRow layout for type {data_type}")
    return _Reference(chunk, len(chunk))


def _encode_row_null_slot(data_type: t.DataType, null_layout: NullLayout) -> _Slot:
    """The slot of a null row field; see :class:`NullLayout`."""
    if null_layout is NullLayout.KEEP_VARIABLE_CHUNK:
        if isinstance(data_type, t.DecimalType) and not is_compact_decimal(data_type):
            return _Reference(b"", 0, DECIMAL_VARIABLE_SIZE)
        if isinstance(
            data_type, (t.TimestampType, t.LocalZonedTimestampType)
        ) and not is_compact_timestamp(data_type.precision):
            return _Reference(b"", 0, TIMESTAMP_VARIABLE_SIZE)
    return _ZERO_SLOT


def _set_bit(buffer: bytearray, index: int) -> None:
    buffer[index // 8] |= 1 << (index % 8)


def _assemble(header: bytes, first_slot: int, slot_size: int, slots: Sequence[_Slot]) -> bytes:
    """Fixed part (``header``, then the slots, padded to a word) followed by the variable part.

    Reference offsets count from the start of the returned bytes.
    """
    fixed_size = compute_round_to_word(first_slot + slot_size * len(slots))
    fixed = bytearray(fixed_size)
    fixed[: len(header)] = header
    variable = bytearray()
    for index, slot in enumerate(slots):
        position = first_slot + slot_size * index
        if isinstance(slot, _Inline):
            fixed[position : position + len(slot.data)] = slot.data
            continue
        offset = fixed_size + len(variable)
        struct.pack_into("<Q", fixed, position, offset << REFERENCE_OFFSET_SHIFT | slot.tag)
        chunk_size = compute_round_to_word(max(len(slot.chunk), slot.reserved))
        variable += slot.chunk.ljust(chunk_size, b"\0")
    return bytes(fixed + variable)


def encode_binary_row(
    values: Sequence[Value],
    types: Sequence[t.DataType],
    kind: RowKind = RowKind.INSERT,
    *,
    null_layout: NullLayout = NullLayout.KEEP_VARIABLE_CHUNK,
) -> bytes:
    """The BinaryRow bytes of ``values`` (internal values of ``types``) with row kind ``kind``.

    The default ``null_layout`` is the one of partitions and keys (see :class:`NullLayout`).
    Map and multiset entries are written in the dict's iteration order (Java writes its map's
    iteration order, so maps only match Java byte for byte when the orders agree).
    """
    if len(values) != len(types):
        raise SpecViolation(
            f"a row of {len(types)} types got {len(values)} values", code="BINARY_ROW_ARITY"
        )
    arity = len(types)
    header = bytearray(compute_null_bits_size(arity))
    header[0] = kind.byte_value
    slots: list[_Slot] = []
    for position, (value, data_type) in enumerate(zip(values, types, strict=True)):
        if value is None:
            _set_bit(header, HEADER_SIZE_IN_BITS + position)
            slots.append(_encode_row_null_slot(data_type, null_layout))
        else:
            slots.append(_encode_slot(value, data_type, null_layout, in_array=False))
    return _assemble(bytes(header), len(header), ROW_SLOT_SIZE, slots)


def encode_binary_array(
    values: Sequence[Value],
    element_type: t.DataType,
    null_layout: NullLayout = NullLayout.KEEP_VARIABLE_CHUNK,
) -> bytes:
    """The BinaryArray bytes of ``values``; a null element has a zero slot.

    ``null_layout`` only matters for rows nested inside the elements.
    """
    element_size = compute_array_element_size(element_type)
    header = bytearray(compute_array_header_size(len(values)))
    struct.pack_into("<i", header, 0, len(values))
    slots: list[_Slot] = []
    for index, value in enumerate(values):
        if value is None:
            _set_bit(header, ARRAY_SIZE_WIDTH * 8 + index)
            slots.append(_ZERO_SLOT)
        else:
            slots.append(_encode_slot(value, element_type, null_layout, in_array=True))
    return _assemble(bytes(header), len(header), element_size, slots)


def encode_binary_map(
    entries: Mapping[Value, Value],
    key_type: t.DataType,
    value_type: t.DataType,
    null_layout: NullLayout = NullLayout.KEEP_VARIABLE_CHUNK,
) -> bytes:
    """The BinaryMap bytes: key array size, key array, value array (entries in dict order)."""
    keys = encode_binary_array(list(entries.keys()), key_type, null_layout)
    values = encode_binary_array(list(entries.values()), value_type, null_layout)
    return struct.pack("<i", len(keys)) + keys + values


# --------------------------------------------------------------------------------------------
# Decode
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Section:
    """A row, array or map inside ``data``: ``size`` bytes from ``start``.

    References inside it count from ``start`` and must land in ``[fixed_size, size)``.
    """

    data: bytes
    start: int
    size: int
    fixed_size: int
    name: str


def _fail(section: _Section, reason: str) -> PaimonFormatError:
    return PaimonFormatError(f"bad {section.name} at byte {section.start}: {reason}")


def _read_word(section: _Section, position: int) -> int:
    """The slot at ``position`` (from the section start) as an unsigned 64-bit integer."""
    return int(struct.unpack_from("<Q", section.data, section.start + position)[0])


def _is_bit_set(data: bytes, base: int, index: int) -> bool:
    """Bit ``index`` of the bit set at ``base``: bit ``index % 8`` of byte ``index // 8``."""
    return bool(data[base + index // 8] & (1 << (index % 8)))


def _split_reference(section: _Section, word: int, what: str) -> tuple[int, int]:
    """``(offset, tag)`` of a reference slot; an inline mark there is an error."""
    if word & INLINE_MARK_BIT:
        raise _fail(section, f"{what} slot {word:#018x} is marked inline")
    return word >> REFERENCE_OFFSET_SHIFT, word & REFERENCE_TAG_MASK


def _check_chunk(section: _Section, offset: int, size: int, what: str) -> None:
    """A referenced chunk must lie inside the variable part of its section."""
    if offset < section.fixed_size or offset + size > section.size:
        raise _fail(
            section,
            f"{what} of {size} bytes at offset {offset} is outside the variable part "
            f"[{section.fixed_size}, {section.size})",
        )


def _read_reference(section: _Section, word: int, what: str) -> tuple[int, int]:
    """``(offset, size)`` of a reference slot whose tag is the chunk size, bounds checked."""
    offset, size = _split_reference(section, word, what)
    _check_chunk(section, offset, size, what)
    return offset, size


def _sub_section(section: _Section, offset: int, size: int, fixed_size: int, name: str) -> _Section:
    """A nested structure, after checking its fixed part fits in its declared size."""
    nested = _Section(section.data, section.start + offset, size, fixed_size, name)
    if fixed_size > size:
        raise _fail(nested, f"declared size {size} is smaller than its fixed part {fixed_size}")
    return nested


def _decode_bytes_slot(section: _Section, position: int, what: str) -> bytes:
    """Inline (mark set: length in the last byte, data from the first) or referenced bytes."""
    word = _read_word(section, position)
    if word & INLINE_MARK_BIT:
        length = (word >> INLINE_LENGTH_SHIFT) & INLINE_LENGTH_MASK
        if length > MAX_INLINE_SIZE:
            raise _fail(section, f"inline {what} claims {length} bytes (at most 7 fit)")
        begin = section.start + position
        return section.data[begin : begin + length]
    offset, size = _read_reference(section, word, what)
    begin = section.start + offset
    return section.data[begin : begin + size]


def decode_string_bytes(data: bytes) -> str:
    """A CHAR/VARCHAR value from its UTF-8 bytes; malformed UTF-8 is a format error."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PaimonFormatError(f"string is not valid UTF-8: {error}") from None


def decode_big_integer(data: bytes) -> int:
    """The integer of big-endian two's complement bytes (Java ``new BigInteger(bytes)``)."""
    return int.from_bytes(data, "big", signed=True)


def _decode_decimal(section: _Section, position: int, data_type: t.DecimalType) -> Decimal:
    if is_compact_decimal(data_type):
        unscaled = int(struct.unpack_from("<q", section.data, section.start + position)[0])
        return decimal_from_unscaled(unscaled, data_type.scale)
    offset, size = _read_reference(section, _read_word(section, position), "decimal")
    if not 1 <= size <= DECIMAL_VARIABLE_SIZE:
        raise _fail(section, f"decimal of {size} bytes (must be 1 to {DECIMAL_VARIABLE_SIZE})")
    begin = section.start + offset
    unscaled = decode_big_integer(section.data[begin : begin + size])
    return decimal_from_unscaled(unscaled, data_type.scale)


def _decode_timestamp(section: _Section, position: int, precision: int) -> Timestamp:
    if is_compact_timestamp(precision):
        millis = int(struct.unpack_from("<q", section.data, section.start + position)[0])
        return Timestamp(millis)
    offset, nanos = _split_reference(section, _read_word(section, position), "timestamp")
    _check_chunk(section, offset, TIMESTAMP_VARIABLE_SIZE, "timestamp")
    if nanos >= NANOS_PER_MILLI:
        raise _fail(section, f"timestamp nano-of-millisecond {nanos} is not below 1000000")
    millis = int(struct.unpack_from("<q", section.data, section.start + offset)[0])
    return Timestamp(millis, nanos)


def _decode_value(section: _Section, position: int, data_type: t.DataType) -> Value:
    """The non-null value whose slot starts at ``position`` in ``section``."""
    begin = section.start + position
    if data_type.root is t.TypeRoot.BOOLEAN:
        return section.data[begin] != 0
    if data_type.root in PRIMITIVE_FORMATS:
        return struct.unpack_from(PRIMITIVE_FORMATS[data_type.root], section.data, begin)[0]
    if isinstance(data_type, t.DecimalType):
        return _decode_decimal(section, position, data_type)
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        return _decode_timestamp(section, position, data_type.precision)
    if isinstance(data_type, (t.CharType, t.VarCharType)):
        return decode_string_bytes(_decode_bytes_slot(section, position, "string"))
    if isinstance(data_type, (t.BinaryType, t.VarBinaryType, t.BlobType)):
        return _decode_bytes_slot(section, position, "binary")
    offset, size = _read_reference(section, _read_word(section, position), str(data_type.root))
    return _decode_nested(section, offset, size, data_type)


def _decode_nested(section: _Section, offset: int, size: int, data_type: t.DataType) -> Value:
    if isinstance(data_type, t.ArrayType):
        return _decode_array(section, offset, size, data_type.element)
    if isinstance(data_type, t.MapType):
        return _decode_map(section, offset, size, data_type.key, data_type.value)
    if isinstance(data_type, t.MultisetType):
        counts = _decode_map(section, offset, size, data_type.element, MULTISET_COUNT_TYPE)
        if any(count is None for count in counts.values()):
            raise _fail(section, "a multiset element has a null count")
        return counts
    if isinstance(data_type, t.RowType):
        field_types = [f.type for f in data_type.fields]
        nested = _sub_section(
            section, offset, size, compute_fixed_part_size(len(field_types)), "row"
        )
        _decode_row_kind(nested)
        return _decode_row_fields(nested, field_types)
    if isinstance(data_type, t.VectorType):
        return _decode_vector(section, offset, size, data_type)
    if isinstance(data_type, t.VariantType):
        return _decode_variant(section, offset, size)
    raise UnsupportedFeature(f"no BinaryRow layout for type {data_type}")


def _decode_array(
    section: _Section, offset: int, size: int, element_type: t.DataType
) -> list[Value]:
    """The elements of the array of ``size`` bytes at ``offset`` in ``section``.

    Its element count, null bits and element slots, padded to a word, must fit in ``size``.
    """
    if size < ARRAY_SIZE_WIDTH:
        raise _fail(section, f"array of {size} bytes has no room for its element count")
    count = int(struct.unpack_from("<i", section.data, section.start + offset)[0])
    if count < 0:
        raise _fail(section, f"array has a negative element count {count}")
    element_size = compute_array_element_size(element_type)
    fixed_size = compute_array_fixed_part_size(count, element_size)
    array = _sub_section(section, offset, size, fixed_size, "array")
    first_slot = compute_array_header_size(count)
    null_bits = array.start + ARRAY_SIZE_WIDTH
    return [
        None
        if _is_bit_set(array.data, null_bits, index)
        else _decode_value(array, first_slot + element_size * index, element_type)
        for index in range(count)
    ]


def _decode_map(
    section: _Section, offset: int, size: int, key_type: t.DataType, value_type: t.DataType
) -> dict[Value, Value] | PairMap:
    """A map: key array size, key array, value array; both arrays must have as many elements."""
    if size < MAP_KEY_ARRAY_SIZE_WIDTH:
        raise _fail(section, f"map of {size} bytes has no room for its key array size")
    key_size = int(struct.unpack_from("<i", section.data, section.start + offset)[0])
    keys_offset = offset + MAP_KEY_ARRAY_SIZE_WIDTH
    if not 0 <= key_size <= size - MAP_KEY_ARRAY_SIZE_WIDTH:
        raise _fail(section, f"map key array size {key_size} does not fit in {size} bytes")
    keys = _decode_array(section, keys_offset, key_size, key_type)
    values_size = size - MAP_KEY_ARRAY_SIZE_WIDTH - key_size
    values = _decode_array(section, keys_offset + key_size, values_size, value_type)
    if len(keys) != len(values):
        raise _fail(section, f"map has {len(keys)} keys but {len(values)} values")
    entries = build_map(zip(keys, values, strict=True))  # PairMap when keys are unhashable
    if len(entries) != len(keys):
        raise SpecViolation("a map holds the same key twice", code="BINARY_MAP_DUPLICATE_KEY")
    return entries


def _decode_vector(
    section: _Section, offset: int, size: int, data_type: t.VectorType
) -> list[Value]:
    """A vector: element count, then the elements packed."""
    element = data_type.element
    if element.root not in VECTOR_ELEMENT_SIZES:
        raise UnsupportedFeature(f"VECTOR element type {element} is not allowed")
    if size < VECTOR_SIZE_WIDTH:
        raise _fail(section, f"vector of {size} bytes has no room for its element count")
    begin = section.start + offset
    count = int(struct.unpack_from("<i", section.data, begin)[0])
    element_size = VECTOR_ELEMENT_SIZES[element.root]
    if count != data_type.length or VECTOR_SIZE_WIDTH + count * element_size > size:
        raise _fail(
            section, f"vector of {count} elements does not match {data_type} in {size} bytes"
        )
    first = offset + VECTOR_SIZE_WIDTH
    return [_decode_value(section, first + element_size * index, element) for index in range(count)]


def _decode_variant(section: _Section, offset: int, size: int) -> Variant:
    """A variant: value size, value bytes, then the metadata bytes up to the chunk size."""
    begin = section.start + offset
    if size < VARIANT_VALUE_SIZE_WIDTH:
        raise _fail(section, f"variant of {size} bytes has no room for its value size")
    value_size = int(struct.unpack_from("<i", section.data, begin)[0])
    if not 0 <= value_size <= size - VARIANT_VALUE_SIZE_WIDTH:
        raise _fail(section, f"variant value size {value_size} does not fit in {size} bytes")
    value_begin = begin + VARIANT_VALUE_SIZE_WIDTH
    value_end = value_begin + value_size
    return Variant(section.data[value_begin:value_end], section.data[value_end : begin + size])


def _decode_row_kind(row: _Section) -> RowKind:
    try:
        return RowKind.from_byte(row.data[row.start])
    except ValueError:
        raise _fail(row, f"unknown row kind byte {row.data[row.start]}") from None


def _decode_row_fields(row: _Section, types: Sequence[t.DataType]) -> Row:
    return tuple(
        None
        if _is_bit_set(row.data, row.start, HEADER_SIZE_IN_BITS + position)
        else _decode_value(row, compute_field_offset(len(types), position), data_type)
        for position, data_type in enumerate(types)
    )


def _row_section(data: bytes, arity: int) -> _Section:
    """The whole of ``data`` as a row of ``arity`` fields, after checking its fixed part fits."""
    row = _Section(bytes(data), 0, len(data), compute_fixed_part_size(arity), "row")
    if row.size < row.fixed_size:
        raise _fail(row, f"{row.size} bytes cannot hold the fixed part of {arity} fields")
    return row


def decode_row_kind(data: bytes) -> RowKind:
    """The row kind in a BinaryRow's header byte."""
    return _decode_row_kind(_row_section(data, 0))


def decode_binary_row(data: bytes, types: Sequence[t.DataType]) -> Row:
    """The values of the BinaryRow ``data`` whose fields have ``types``.

    A BinaryRow does not record its arity: ``types`` must be exactly the fields it was written
    with. Fewer or more types shift the slots (and, past 56 fields, the null bit set), so the
    result would be wrong; the checks only catch it when an offset or size then falls outside.
    Prefer :func:`deserialize_binary_row`, whose arity prefix is checked.
    """
    row = _row_section(data, len(types))
    _decode_row_kind(row)
    return _decode_row_fields(row, types)


# --------------------------------------------------------------------------------------------
# Serialized form (manifests, stats, commit messages)
# --------------------------------------------------------------------------------------------


def encode_serialized_binary_row(row: bytes, arity: int) -> bytes:
    """The form ``SerializationUtils.serializeBinaryRow`` writes: big-endian arity, then the row."""
    return struct.pack(SERIALIZED_ARITY_FORMAT, arity) + row


def decode_serialized_binary_row(data: bytes) -> tuple[int, bytes]:
    """``(arity, row bytes)`` of the serialized form."""
    if len(data) < SERIALIZED_ARITY_SIZE:
        raise PaimonFormatError(f"serialized BinaryRow of {len(data)} bytes has no arity")
    arity = int(struct.unpack_from(SERIALIZED_ARITY_FORMAT, data)[0])
    if arity < 0:
        raise PaimonFormatError(f"serialized BinaryRow has a negative arity {arity}")
    return arity, bytes(data[SERIALIZED_ARITY_SIZE:])


def serialize_binary_row(
    values: Sequence[Value],
    types: Sequence[t.DataType],
    kind: RowKind = RowKind.INSERT,
    *,
    null_layout: NullLayout = NullLayout.KEEP_VARIABLE_CHUNK,
) -> bytes:
    """The manifest form of a row: arity prefix and :func:`encode_binary_row` bytes."""
    row = encode_binary_row(values, types, kind, null_layout=null_layout)
    return encode_serialized_binary_row(row, len(types))


def deserialize_binary_row(data: bytes, types: Sequence[t.DataType]) -> Row:
    """The values of a serialized row; its arity must equal ``len(types)``."""
    arity, row = decode_serialized_binary_row(data)
    if arity != len(types):
        raise PaimonFormatError(f"serialized BinaryRow has {arity} fields, expected {len(types)}")
    return decode_binary_row(row, types)


EMPTY_ROW = encode_binary_row((), ())
"""The row of no fields (Java ``BinaryRow.EMPTY_ROW``): one zero word."""

SERIALIZED_EMPTY_ROW = encode_serialized_binary_row(EMPTY_ROW, 0)
"""The partition of an unpartitioned table in a manifest: zero arity and one zero word."""
