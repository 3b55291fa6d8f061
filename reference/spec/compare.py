"""The total order of internal values, as Java compares keys, sort fields and stats.

Java: ``org.apache.paimon.codegen.GenerateUtils.generateCompare`` (the generated key comparator)
and ``org.apache.paimon.utils.InternalRowUtils.compare`` (stats and predicates).

Rules:

* ascending, and ``null`` sorts before every value (the key comparator's ``nullIsLast = false``);
* CHAR/VARCHAR compare their UTF-8 bytes as unsigned bytes (``BinaryString.compareTo``), which is
  not Python's code-point order for characters outside the BMP;
* BINARY/VARBINARY compare as unsigned bytes, a prefix first;
* FLOAT/DOUBLE follow ``Float.compare``/``Double.compare``: ``-0.0 < 0.0`` and NaN above +inf;
* BOOLEAN: ``false < true``; DECIMAL numerically; TIMESTAMP by (millis, nanos);
* ARRAY element-wise then by length; ROW field by field; MAP and MULTISET are compared by their
  entries in order (Java's generated code does the same; it is only used for sorting).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from reference.spec import types as t


def compare_floats(left: float, right: float) -> int:
    """``java.lang.Double.compare``: NaN is the largest value and ``-0.0 < 0.0``."""
    left_nan, right_nan = math.isnan(left), math.isnan(right)
    if left_nan or right_nan:
        return (left_nan > right_nan) - (left_nan < right_nan)
    if left == right:
        left_sign = math.copysign(1.0, left)
        right_sign = math.copysign(1.0, right)
        return (left_sign > right_sign) - (left_sign < right_sign)
    return -1 if left < right else 1


def compare_bytes(left: bytes, right: bytes) -> int:
    """Unsigned lexicographic order, a proper prefix first."""
    return (left > right) - (left < right)


def _sign(left: Any, right: Any) -> int:
    return int(left > right) - int(left < right)


def compare_values(data_type: t.DataType, left: Any, right: Any) -> int:
    """-1, 0 or 1 as Java orders ``left`` and ``right`` of ``data_type`` (nulls first)."""
    if left is None or right is None:
        return (left is not None) - (right is not None)
    if isinstance(data_type, (t.CharType, t.VarCharType)):
        return compare_bytes(left.encode("utf-8"), right.encode("utf-8"))
    if isinstance(data_type, (t.BinaryType, t.VarBinaryType)):
        return compare_bytes(left, right)
    if isinstance(data_type, (t.FloatType, t.DoubleType)):
        return compare_floats(left, right)
    if isinstance(data_type, (t.ArrayType, t.VectorType)):
        return _compare_sequences([data_type.element] * max(len(left), len(right)), left, right)
    if isinstance(data_type, t.RowType):
        return compare_rows([f.type for f in data_type.fields], left, right)
    if isinstance(data_type, t.MapType):
        return _compare_entries(data_type.key, data_type.value, left, right)
    if isinstance(data_type, t.MultisetType):
        return _compare_entries(data_type.element, t.IntType(), left, right)
    return _sign(left, right)


def _compare_sequences(
    types: Sequence[t.DataType], left: Sequence[Any], right: Sequence[Any]
) -> int:
    for data_type, a, b in zip(types, left, right, strict=False):
        result = compare_values(data_type, a, b)
        if result:
            return result
    return _sign(len(left), len(right))


def _compare_entries(
    key_type: t.DataType, value_type: t.DataType, left: dict[Any, Any], right: dict[Any, Any]
) -> int:
    for (left_key, left_value), (right_key, right_value) in zip(
        left.items(), right.items(), strict=False
    ):
        result = compare_values(key_type, left_key, right_key) or compare_values(
            value_type, left_value, right_value
        )
        if result:
            return result
    return _sign(len(left), len(right))


def compare_rows(types: Sequence[t.DataType], left: Sequence[Any], right: Sequence[Any]) -> int:
    """Field-by-field order of two rows of the same types (the key comparator)."""
    for data_type, a, b in zip(types, left, right, strict=True):
        result = compare_values(data_type, a, b)
        if result:
            return result
    return 0


class SortKey:
    """Wraps a row so Python's ``sorted`` uses :func:`compare_rows` (``key=`` helper)."""

    __slots__ = ("row", "types")

    def __init__(self, row: Sequence[Any], types: Sequence[t.DataType]) -> None:
        self.row = row
        self.types = types

    def __lt__(self, other: SortKey) -> bool:
        return compare_rows(self.types, self.row, other.row) < 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SortKey) and compare_rows(self.types, self.row, other.row) == 0

    def __hash__(self) -> int:
        raise TypeError("SortKey is for ordering only")
