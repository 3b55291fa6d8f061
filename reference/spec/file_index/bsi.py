"""Bit-slice index (BSI): integer-like values of a column as bitmaps of their binary digits.

Spec: ``docs/concepts/spec/fileindex.mdx`` ("Index: Bit-Slice Index Bitmap"; deprecated in main
in favour of range-bitmap, still read and written). Added in Paimon 1.0: 0.9.0 has no BSI.
Java: ``org.apache.paimon.fileindex.bsi.BitSliceIndexBitmapFileIndex`` and
``org.apache.paimon.utils.BitSliceIndexRoaringBitmap``.

Body layout (integers big-endian, bitmaps portable 32-bit roaring)::

    version        uint8   1
    row count      int32
    has positive   uint8,  then a slice set for the values >= 0 if set
    has negative   uint8,  then a slice set for the absolute values of the values < 0 if set

    slice set:     version uint8 (1), min int64, max int64, existence bitmap,
                   slice count int32, slice bitmaps 0 .. count-1

A row is in the existence bitmap of a set when it holds a value of that sign; slice ``i`` holds
the rows whose ``magnitude - min`` has bit ``i`` set. Java's writer always stores ``min = 0``
(its running minimum starts at zero) and ``max`` = the largest magnitude, with
``bit_length(max - min)`` slices. Null rows are in neither set. ``Long.MIN_VALUE`` has no
magnitude in a long and cannot be written.

Values map to longs: integers, DATE and TIME as they are, DECIMAL as its unscaled long
(precision <= 18), TIMESTAMP as epoch millis (precision <= 3) or epoch micros.

Queries return exactly the non-null rows whose value satisfies the comparison (Java reaches the
same sets with O'Neil's slice algorithm plus min/max shortcuts; here the values are rebuilt and
compared directly, an independent route to the same answer). ``IS NULL`` is the complement of
both existence bitmaps over ``[0, row count)``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal

from reference.errors import PaimonFormatError, SpecViolation
from reference.spec import types as t
from reference.spec.data import Value, decimal_unscaled
from reference.spec.file_index.byte_reader import (
    ByteReader,
    pack_boolean,
    pack_int8,
    pack_int32,
    pack_int64,
)
from reference.spec.file_index.container import compute_timestamp_long
from reference.spec.file_index.result import IndexResult, rows_result
from reference.spec.file_index.roaring import (
    EMPTY_ROW_IDS,
    RowIds,
    compute_range,
    decode_roaring32_at,
    encode_roaring32,
    row_ids_of,
)
from reference.spec.java_numbers import LONG_MAX, LONG_MIN

BSI_VERSION_1 = 1
SLICE_SET_VERSION_1 = 1
MAX_SLICES = 64

SUPPORTED_ROOTS = frozenset(
    {
        t.TypeRoot.TINYINT,
        t.TypeRoot.SMALLINT,
        t.TypeRoot.INTEGER,
        t.TypeRoot.BIGINT,
        t.TypeRoot.DATE,
        t.TypeRoot.TIME_WITHOUT_TIME_ZONE,
        t.TypeRoot.DECIMAL,
    }
    | t.TIMESTAMP_ROOTS
)


@dataclass(frozen=True)
class SliceSet:
    """The rows of one sign: ``existence`` and bit slices of ``magnitude - min``."""

    min: int
    max: int
    existence: RowIds
    slices: tuple[RowIds, ...]


@dataclass(frozen=True)
class BsiIndex:
    """A decoded BSI body; a missing sign is None."""

    row_count: int
    positive: SliceSet | None
    negative: SliceSet | None


# --------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------


def check_bsi_type(data_type: t.DataType) -> None:
    if data_type.root not in SUPPORTED_ROOTS:
        raise SpecViolation(
            f"bsi index does not support {data_type.to_sql()}", code="FILE_INDEX_TYPE"
        )


def compute_bsi_long(value: Value, data_type: t.DataType) -> int | None:
    """The long a value is indexed as (None stays None)."""
    check_bsi_type(data_type)
    if value is None:
        return None
    if data_type.root in t.TIMESTAMP_ROOTS:
        return compute_timestamp_long(value, t.timestamp_precision(data_type))
    if isinstance(data_type, t.DecimalType):
        unscaled = decimal_unscaled(Decimal(value), data_type.scale)
        if not LONG_MIN <= unscaled <= LONG_MAX:
            raise SpecViolation(f"decimal {value} does not fit a long", code="BSI_RANGE")
        return unscaled
    return int(value)


def compute_slice_set_values(slice_set: SliceSet) -> dict[int, int]:
    """Row -> magnitude (``min`` plus the bits of the row's slices)."""
    magnitudes = dict.fromkeys(slice_set.existence, slice_set.min)
    for bit, rows in enumerate(slice_set.slices):
        for row in rows:
            magnitudes[row] += 1 << bit
    return magnitudes


def compute_bsi_values(index: BsiIndex) -> dict[int, int]:
    """Row -> signed long for every non-null row."""
    values: dict[int, int] = {}
    if index.negative is not None:
        values.update((row, -m) for row, m in compute_slice_set_values(index.negative).items())
    if index.positive is not None:
        values.update(compute_slice_set_values(index.positive))
    return values


# --------------------------------------------------------------------------------------------
# Build and validate
# --------------------------------------------------------------------------------------------


def build_slice_set(magnitudes: dict[int, int]) -> SliceSet | None:
    """Java's ``Appender`` with ``min = 0``; None when no row has this sign."""
    if not magnitudes:
        return None
    maximum = max(magnitudes.values())
    slices = tuple(
        row_ids_of(row for row, m in magnitudes.items() if m >> bit & 1)
        for bit in range(maximum.bit_length())
    )
    return SliceSet(0, maximum, row_ids_of(magnitudes), slices)


def build_bsi_index(values: Iterable[Value], data_type: t.DataType) -> BsiIndex:
    """The index Java writes for one column's values (row ``i`` is the i-th value)."""
    check_bsi_type(data_type)
    positive: dict[int, int] = {}
    negative: dict[int, int] = {}
    row_count = 0
    for row, value in enumerate(values):
        row_count = row + 1
        number = compute_bsi_long(value, data_type)
        if number is None:
            continue
        if number == LONG_MIN:
            raise SpecViolation("a BSI index cannot hold Long.MIN_VALUE", code="BSI_RANGE")
        if number < 0:
            negative[row] = -number
        else:
            positive[row] = number
    return BsiIndex(row_count, build_slice_set(positive), build_slice_set(negative))


def validate_bsi_index(index: BsiIndex) -> None:
    """Each set has 0 <= min <= max, fits its slices, and no row is in both sets."""
    for name, slice_set in (("positive", index.positive), ("negative", index.negative)):
        if slice_set is None:
            continue
        if not 0 <= slice_set.min <= slice_set.max:
            raise SpecViolation(f"{name} BSI min/max {slice_set.min}/{slice_set.max}", code="BSI")
        if len(slice_set.slices) > MAX_SLICES:
            raise SpecViolation(f"{name} BSI has {len(slice_set.slices)} slices", code="BSI")
        if any(rows - slice_set.existence for rows in slice_set.slices):
            raise SpecViolation(f"{name} BSI slice holds a row it does not have", code="BSI")
        rows = slice_set.existence
        if rows and rows.max() >= index.row_count:
            raise SpecViolation(f"{name} BSI row beyond row count {index.row_count}", code="BSI")
    positive, negative = index.positive, index.negative
    if positive is not None and negative is not None and positive.existence & negative.existence:
        raise SpecViolation("a row is both positive and negative in a BSI", code="BSI")


# --------------------------------------------------------------------------------------------
# Codec
# --------------------------------------------------------------------------------------------


def encode_slice_set(slice_set: SliceSet) -> bytes:
    encoded = bytearray(pack_int8(SLICE_SET_VERSION_1))
    encoded += pack_int64(slice_set.min) + pack_int64(slice_set.max)
    encoded += encode_roaring32(slice_set.existence)
    encoded += pack_int32(len(slice_set.slices))
    for rows in slice_set.slices:
        encoded += encode_roaring32(rows)
    return bytes(encoded)


def encode_bsi_index(index: BsiIndex) -> bytes:
    validate_bsi_index(index)
    encoded = bytearray(pack_int8(BSI_VERSION_1) + pack_int32(index.row_count))
    for slice_set in (index.positive, index.negative):
        encoded += pack_boolean(slice_set is not None)
        if slice_set is not None:
            encoded += encode_slice_set(slice_set)
    return bytes(encoded)


def _decode_bitmap(reader: ByteReader) -> RowIds:
    rows, end = decode_roaring32_at(reader.data, reader.position)
    reader.position = end
    return rows


def decode_slice_set(reader: ByteReader) -> SliceSet:
    version = reader.uint8("slice set version")
    if version != SLICE_SET_VERSION_1:
        raise PaimonFormatError(f"unsupported BSI slice set version {version}")
    minimum = reader.int64("min")
    maximum = reader.int64("max")
    existence = _decode_bitmap(reader)
    count = reader.int32("slice count")
    if not 0 <= count <= MAX_SLICES:
        raise PaimonFormatError(f"BSI slice count {count}")
    slices = tuple(_decode_bitmap(reader) for _ in range(count))
    return SliceSet(minimum, maximum, existence, slices)


def decode_bsi_index(data: bytes) -> BsiIndex:
    reader = ByteReader(data, what="bsi index")
    version = reader.uint8("version")
    if version != BSI_VERSION_1:
        raise PaimonFormatError(f"unsupported BSI index version {version}")
    row_count = reader.int32("row count")
    if row_count < 0:
        raise PaimonFormatError(f"BSI row count {row_count}")
    positive = decode_slice_set(reader) if reader.boolean("has positive") else None
    negative = decode_slice_set(reader) if reader.boolean("has negative") else None
    index = BsiIndex(row_count, positive, negative)
    validate_bsi_index(index)
    return index


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------


def _rows_where(
    index: BsiIndex, literal: Value, data_type: t.DataType, test: Callable[[int, int], bool]
) -> IndexResult:
    bound = compute_bsi_long(literal, data_type)
    if bound is None:
        return rows_result(EMPTY_ROW_IDS)
    values = compute_bsi_values(index)
    return rows_result(row_ids_of(row for row, value in values.items() if test(value, bound)))


def query_equal(index: BsiIndex, literal: Value, data_type: t.DataType) -> IndexResult:
    return _rows_where(index, literal, data_type, operator.eq)


def query_not_equal(index: BsiIndex, literal: Value, data_type: t.DataType) -> IndexResult:
    """Non-null rows with a different value (null rows are not included)."""
    return _rows_where(index, literal, data_type, operator.ne)


def query_less_than(index: BsiIndex, literal: Value, data_type: t.DataType) -> IndexResult:
    return _rows_where(index, literal, data_type, operator.lt)


def query_less_or_equal(index: BsiIndex, literal: Value, data_type: t.DataType) -> IndexResult:
    return _rows_where(index, literal, data_type, operator.le)


def query_greater_than(index: BsiIndex, literal: Value, data_type: t.DataType) -> IndexResult:
    return _rows_where(index, literal, data_type, operator.gt)


def query_greater_or_equal(index: BsiIndex, literal: Value, data_type: t.DataType) -> IndexResult:
    return _rows_where(index, literal, data_type, operator.ge)


def query_in(index: BsiIndex, literals: Iterable[Value], data_type: t.DataType) -> IndexResult:
    bounds = {compute_bsi_long(literal, data_type) for literal in literals} - {None}
    values = compute_bsi_values(index)
    return rows_result(row_ids_of(row for row, value in values.items() if value in bounds))


def query_not_in(index: BsiIndex, literals: Iterable[Value], data_type: t.DataType) -> IndexResult:
    """Non-null rows whose value is none of ``literals``."""
    matching = query_in(index, literals, data_type).rows
    return rows_result(_non_null_rows(index) - matching)


def query_between(index: BsiIndex, low: Value, high: Value, data_type: t.DataType) -> IndexResult:
    """``low <= value <= high`` (inclusive, as ``BETWEEN``)."""
    lower = query_greater_or_equal(index, low, data_type).rows
    return rows_result(lower & query_less_or_equal(index, high, data_type).rows)


def _non_null_rows(index: BsiIndex) -> RowIds:
    rows = EMPTY_ROW_IDS
    for slice_set in (index.positive, index.negative):
        if slice_set is not None:
            rows = rows | slice_set.existence
    return rows


def query_is_not_null(index: BsiIndex) -> IndexResult:
    return rows_result(_non_null_rows(index))


def query_is_null(index: BsiIndex) -> IndexResult:
    return rows_result(compute_range(0, index.row_count) - _non_null_rows(index))
