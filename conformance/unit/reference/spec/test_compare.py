"""Value order: the Java comparator's rules, stated by hand."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from reference.spec import types as t
from reference.spec.compare import compare_rows, compare_values
from reference.spec.data import Timestamp


@pytest.mark.parametrize(
    ("data_type", "smaller", "larger"),
    [
        (t.IntType(), None, -5),  # nulls first
        (t.IntType(), -5, 3),
        (t.DoubleType(), -0.0, 0.0),  # Double.compare
        (t.DoubleType(), math.inf, math.nan),
        (t.FloatType(), -math.inf, -1.0),
        (t.BooleanType(), False, True),
        (t.DecimalType(10, 2), Decimal("-1.50"), Decimal("1.05")),
        (t.VarCharType(10), "a", "ab"),
        (t.VarCharType(10), "\uffff", "\U0001f600"),  # UTF-8 byte order, not UTF-16
        (t.VarBinaryType(10), b"\x01", b"\x80"),  # unsigned
        (t.TimestampType(9), Timestamp(5, 999_999), Timestamp(6, 0)),
        (t.ArrayType(t.IntType()), [1, 2], [1, 2, 0]),
        (t.ArrayType(t.IntType()), [None, 9], [0]),
    ],
)
def test_order(data_type: t.DataType, smaller: object, larger: object) -> None:
    assert compare_values(data_type, smaller, larger) == -1
    assert compare_values(data_type, larger, smaller) == 1
    assert compare_values(data_type, larger, larger) == 0


def test_rows_compare_field_by_field() -> None:
    types = [t.VarCharType(5), t.IntType()]
    assert compare_rows(types, ("a", 9), ("b", 1)) == -1
    assert compare_rows(types, ("a", None), ("a", 1)) == -1
    assert compare_rows(types, ("a", 1), ("a", 1)) == 0
