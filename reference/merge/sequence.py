"""The order in which records of one key reach the merge engine, and where a row kind comes from.

Spec: ``docs/primary-key-table/sequence-rowkind`` (``sequence.field``, ``rowkind.field``) and the
seeds' "Sequence Field" / "Sequence Auto Padding" / "Row Kind Field" sections.
Java: ``org.apache.paimon.utils.UserDefinedSeqComparator``, the generated ``RecordComparator``
(``paimon-codegen`` ``GenerateUtils.generateRowCompare``), ``mergetree.compact.SortMergeReader*``
(tie-breaks), ``table.sink.RowKindGenerator``, and, for the legacy padding,
``table.sink.SequenceGenerator`` of Paimon 0.5 - 0.7.

Rules stated here:

* Records of one key are merged oldest first. A record is older than another when its
  ``sequence.field`` values compare smaller (fields compared in the order the option lists them),
  else when its sequence number is smaller, else when it retracts (-U/-D) and the other adds.
* ``sequence.field`` values compare with Java's generated row comparator: a null is smaller than
  any value, whatever the sort order; ``sequence.field.sort-order = descending`` (main only)
  reverses the comparison of non-null values only.
* ``rowkind.field`` names a string field holding ``+I``, ``-U``, ``+U`` or ``-D``; that value, not
  the input row's kind, is the record's kind. A null or any other string is an error.
* ``sequence.auto-padding`` existed in Paimon 0.5 - 0.7 only: the writer turned the single
  sequence field into the record's sequence number and padded it. Paimon 0.8 replaced the
  mechanism by comparing the field values themselves, and 0.9.0 and main ignore the option. The
  padding rules are kept here (:func:`compute_padded_sequence`) for reading tables written by
  those releases and for writers that emulate them; no merge path applies them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from enum import Enum
from functools import cmp_to_key

from reference.errors import SpecViolation, UnsupportedFeature
from reference.spec import types as t
from reference.spec.data import Row, RowKind, Timestamp, Value
from reference.spec.java_numbers import LONG_BITS
from reference.spec.key_value import KeyValue
from reference.spec.options import SortOrder
from reference.spec.units import MICROS_PER_MILLI, MICROS_PER_SECOND, MILLIS_PER_SECOND

ROWKIND_FIELD_ERROR = "MERGE_ROWKIND_FIELD"
"""``SpecViolation.code`` of a ``rowkind.field`` value that is null or not a row kind."""

SEQUENCE_VALUE_ERROR = "MERGE_SEQUENCE_VALUE"
"""``SpecViolation.code`` of a legacy sequence field value that gives no sequence number."""


# --------------------------------------------------------------------------------------------
# Comparing values the way Java's generated comparator does
# --------------------------------------------------------------------------------------------


def _sign(difference: int) -> int:
    return (difference > 0) - (difference < 0)


def _compare_ordered(left: object, right: object) -> int:
    return int(left > right) - int(left < right)  # type: ignore[operator]


def compare_floats(left: float, right: float) -> int:
    """``Float.compare`` / ``Double.compare``: -0.0 < 0.0, and NaN equals NaN and is largest."""
    if math.isnan(left) or math.isnan(right):
        return int(math.isnan(left)) - int(math.isnan(right))
    if left == right == 0.0:
        return int(math.copysign(1.0, left) > 0) - int(math.copysign(1.0, right) > 0)
    return _compare_ordered(left, right)


def compare_strings(left: str, right: str) -> int:
    """``BinaryString.compareTo``: unsigned comparison of the UTF-8 bytes."""
    return _compare_ordered(
        left.encode("utf-8", "surrogatepass"), right.encode("utf-8", "surrogatepass")
    )


def compare_nullable(left: Value, right: Value, data_type: t.DataType) -> int:
    """Compare two values of one type where either may be null; a null is the smallest."""
    if left is None or right is None:
        return int(left is not None) - int(right is not None)
    return compare_values(left, right, data_type)


def _compare_sequences(left: Sequence[Value], right: Sequence[Value], element: t.DataType) -> int:
    for left_item, right_item in zip(left, right, strict=False):
        result = compare_nullable(left_item, right_item, element)
        if result:
            return result
    return _sign(len(left) - len(right))


def compare_values(left: Value, right: Value, data_type: t.DataType) -> int:
    """Compare two non-null values of ``data_type`` as Java's generated comparator does.

    Numbers, dates and times by value; FLOAT/DOUBLE by ``Float.compare``; strings by their UTF-8
    bytes; binaries as unsigned bytes; timestamps by (millisecond, nanos); arrays element by
    element (nulls first) then by length; maps by their key list then their value list (in the
    map's order); rows field by field. Returns -1, 0 or 1.
    """
    root = data_type.root
    if root in t.FLOATING_ROOTS:
        return compare_floats(left, right)
    if root in t.CHARACTER_ROOTS:
        return compare_strings(left, right)
    if isinstance(data_type, (t.ArrayType, t.VectorType)):
        return _compare_sequences(left, right, data_type.element)
    if isinstance(data_type, t.MultisetType):
        return _compare_maps(left, right, data_type.element, t.IntType(nullable=False))
    if isinstance(data_type, t.MapType):
        return _compare_maps(left, right, data_type.key, data_type.value)
    if isinstance(data_type, t.RowType):
        for index, field in enumerate(data_type.fields):
            result = compare_nullable(left[index], right[index], field.type)
            if result:
                return result
        return 0
    if root in (t.TypeRoot.VARIANT, t.TypeRoot.BLOB):
        raise UnsupportedFeature(f"values of type {data_type} have no order")
    return _compare_ordered(left, right)


def _compare_maps(
    left: dict[Value, Value], right: dict[Value, Value], key: t.DataType, value: t.DataType
) -> int:
    result = _compare_sequences(list(left), list(right), key)
    return result or _compare_sequences(list(left.values()), list(right.values()), value)


# --------------------------------------------------------------------------------------------
# User-defined sequence fields
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SequenceFields:
    """The fields (positions in the value row, with their types) that order records of a key."""

    indexes: tuple[int, ...]
    types: tuple[t.DataType, ...]
    ascending: bool = True


NO_SEQUENCE_FIELDS = SequenceFields((), ())


def compute_sequence_fields(
    row_type: t.RowType, names: Sequence[str], order: SortOrder = SortOrder.ASCENDING
) -> SequenceFields:
    """Resolve field names (already validated to exist) to positions and types."""
    indexes = tuple(row_type.field_index(name) for name in names)
    types = tuple(row_type.fields[index].type for index in indexes)
    return SequenceFields(indexes, types, order is SortOrder.ASCENDING)


def compare_sequence(left: Row, right: Row, sequence: SequenceFields) -> int:
    """Compare two value rows by the sequence fields, as ``UserDefinedSeqComparator``.

    Fields are compared in order; a null is smaller than any value in either sort order, and a
    descending order negates the comparison of two non-null values.
    """
    for index, data_type in zip(sequence.indexes, sequence.types, strict=True):
        left_value, right_value = left[index], right[index]
        if left_value is None or right_value is None:
            result = int(left_value is not None) - int(right_value is not None)
        else:
            result = compare_values(left_value, right_value, data_type)
            result = result if sequence.ascending else -result
        if result:
            return result
    return 0


def compare_records(left: KeyValue, right: KeyValue, sequence: SequenceFields) -> int:
    """Merge order of two records of one key: sequence fields, sequence number, retract first.

    Java: the comparator of ``SortMergeReaderWithMinHeap`` (the loser tree orders the same way).
    """
    result = compare_sequence(left.value, right.value, sequence)
    if result:
        return result
    if left.sequence_number != right.sequence_number:
        return _sign(left.sequence_number - right.sequence_number)
    return int(left.kind.is_add) - int(right.kind.is_add)


def order_records(
    records: Sequence[KeyValue], sequence: SequenceFields = NO_SEQUENCE_FIELDS
) -> list[KeyValue]:
    """The records of one key in merge order (oldest first); equal records keep input order."""

    def compare(left: KeyValue, right: KeyValue) -> int:
        return compare_records(left, right, sequence)

    return sorted(records, key=cmp_to_key(compare))


# --------------------------------------------------------------------------------------------
# rowkind.field
# --------------------------------------------------------------------------------------------


def is_rowkind_field_type(data_type: t.DataType) -> bool:
    """``rowkind.field`` must be a CHAR or VARCHAR field (Java ``CHARACTER_STRING`` family)."""
    return data_type.root in t.CHARACTER_ROOTS


def compute_row_kind(value: Row, rowkind_index: int | None, input_kind: RowKind) -> RowKind:
    """The kind of an input row: the ``rowkind.field`` value when configured, else its own kind.

    Java: ``RowKindGenerator.generate`` (``RowKind.fromShortString``).
    """
    if rowkind_index is None:
        return input_kind
    text = value[rowkind_index]
    if text is None:
        raise SpecViolation("the rowkind.field value is null", code=ROWKIND_FIELD_ERROR)
    try:
        return RowKind.from_short_string(text)
    except ValueError:
        raise SpecViolation(
            f"the rowkind.field value {text!r} is not one of +I, -U, +U, -D",
            code=ROWKIND_FIELD_ERROR,
        ) from None


# --------------------------------------------------------------------------------------------
# sequence.auto-padding (Paimon 0.5 - 0.7 only)
# --------------------------------------------------------------------------------------------


class SequenceAutoPadding(Enum):
    """One step of the legacy ``sequence.auto-padding`` option (steps apply in listed order)."""

    ROW_KIND_FLAG = "row-kind-flag"
    SECOND_TO_MICRO = "second-to-micro"
    MILLIS_TO_MICRO = "millis-to-micro"


_LEGACY_SEQUENCE_ROOTS = frozenset(
    t.INTEGER_ROOTS
    | t.FLOATING_ROOTS
    | t.CHARACTER_ROOTS
    | t.TIMESTAMP_ROOTS
    | {t.TypeRoot.DECIMAL, t.TypeRoot.DATE}
)


def _wrap_long(value: int) -> int:
    value &= (1 << LONG_BITS) - 1
    return value - (1 << LONG_BITS) if value >> (LONG_BITS - 1) else value


def _java_float_to_long(value: float) -> int:
    """Java's ``(long) f``: truncation, NaN to 0, saturation at the long range."""
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return (1 << (LONG_BITS - 1)) - 1 if value > 0 else -(1 << (LONG_BITS - 1))
    return max(-(1 << (LONG_BITS - 1)), min((1 << (LONG_BITS - 1)) - 1, int(value)))


def compute_legacy_sequence_value(value: Value, data_type: t.DataType) -> int:
    """The long a 0.5 - 0.7 writer derived from a non-null sequence field value.

    Integers, DATE (days) as is; FLOAT/DOUBLE truncated; DECIMAL rounded down to an integer;
    strings parsed as a long; timestamps as epoch milliseconds. Java: ``SequenceGenerator``.
    """
    root = data_type.root
    if root not in _LEGACY_SEQUENCE_ROOTS:
        raise UnsupportedFeature(f"a legacy sequence field of type {data_type} is not supported")
    if isinstance(value, Timestamp):
        return value.millisecond
    if isinstance(value, Decimal):
        return _wrap_long(int(value.to_integral_value(rounding=ROUND_DOWN)))
    if isinstance(value, float):
        return _java_float_to_long(value)
    if isinstance(value, str):
        try:
            return _parse_java_long(value)
        except ValueError:
            raise SpecViolation(
                f"sequence field value {value!r} is not a long", code=SEQUENCE_VALUE_ERROR
            ) from None
    return int(value)


def _parse_java_long(text: str) -> int:
    """``Long.parseLong``: optional sign and ASCII digits only, within the long range."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not all("0" <= c <= "9" for c in digits):
        raise ValueError(text)
    number = int(text)
    if not -(1 << (LONG_BITS - 1)) <= number < (1 << (LONG_BITS - 1)):
        raise ValueError(text)
    return number


def compute_padded_sequence(
    sequence: int,
    paddings: Sequence[SequenceAutoPadding],
    kind: RowKind,
    data_type: t.DataType,
    micros_now: int,
) -> int:
    """Apply the legacy padding steps in order to a sequence value (Java long arithmetic).

    * ``row-kind-flag``: shift left one bit and set it for +I/+U, so an add of the same time
      sorts after its retraction.
    * ``millis-to-micro``: ``millis * 1000`` plus the micros within the current milli.
    * ``second-to-micro``: seconds (a timestamp field's millis divided by 1000) times 10^6 plus
      the micros within the current second.

    ``micros_now`` stands for the writer's clock (Java read ``System.nanoTime``), so the result
    is deterministic here.
    """
    for padding in paddings:
        if padding is SequenceAutoPadding.ROW_KIND_FLAG:
            sequence = _wrap_long((sequence << 1) | int(kind.is_add))
        elif padding is SequenceAutoPadding.MILLIS_TO_MICRO:
            sequence = _wrap_long(sequence * MICROS_PER_MILLI + micros_now % MICROS_PER_MILLI)
        else:
            seconds = sequence
            if data_type.root in t.TIMESTAMP_ROOTS:
                seconds = abs(sequence) // MILLIS_PER_SECOND * (1 if sequence >= 0 else -1)
            sequence = _wrap_long(seconds * MICROS_PER_SECOND + micros_now % MICROS_PER_SECOND)
    return sequence


def parse_auto_padding(text: str) -> tuple[SequenceAutoPadding, ...]:
    """Parse ``sequence.auto-padding`` (comma separated, case-insensitive, trimmed)."""
    steps = []
    for part in text.split(","):
        name = part.strip().lower()
        matches = [padding for padding in SequenceAutoPadding if padding.value == name]
        if not matches:
            raise ValueError(f"unknown sequence.auto-padding {part.strip()!r}")
        steps.append(matches[0])
    return tuple(steps)
