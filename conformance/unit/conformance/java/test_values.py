"""The harness's JSON value encoding (pure Python side): exact round trips and the fixed forms
``ValueCodec.java`` expects for the awkward values."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.java import values
from conformance.strategies import data_types
from conformance.strategies import values as values_of
from reference.errors import UnsupportedFeature
from reference.spec import types as t
from reference.spec.data import RowKind, Timestamp


@st.composite
def typed_values(draw: st.DrawFn) -> tuple[t.DataType, Any]:
    data_type = draw(data_types(max_depth=2))
    return data_type, draw(values_of(data_type))


@given(typed_values())
def test_round_trip_through_json_text(case: tuple[t.DataType, Any]) -> None:
    data_type, value = case
    text = json.dumps(values.encode_value(value, data_type), allow_nan=False)
    assert values.decode_value(json.loads(text), data_type) == value


@pytest.mark.parametrize(
    ("value", "encoded"),
    [(math.inf, "Infinity"), (-math.inf, "-Infinity"), (1.5, 1.5), (-0.0, -0.0)],
)
def test_floating_encoding(value: float, encoded: Any) -> None:
    assert values.encode_value(value, t.DoubleType()) == encoded
    decoded = values.decode_value(encoded, t.DoubleType())
    assert decoded == value and math.copysign(1, decoded) == math.copysign(1, value)


def test_nan_travels_as_a_string() -> None:
    assert values.encode_value(math.nan, t.FloatType()) == "NaN"
    assert math.isnan(values.decode_value("NaN", t.FloatType()))
    with pytest.raises(ValueError, match="not a floating-point"):
        values.decode_value("nan", t.DoubleType())


def test_decimal_is_plain_text() -> None:
    decimal_type = t.DecimalType(10, 2)
    assert values.encode_value(Decimal("1E+3"), decimal_type) == "1000"
    assert values.encode_value(Decimal("-0.05"), decimal_type) == "-0.05"
    decoded = values.decode_value("12.30", decimal_type)
    assert decoded == Decimal("12.30") and decoded.as_tuple().exponent == -2


def test_timestamp_bytes_and_nested_forms() -> None:
    assert values.encode_value(Timestamp(-1, 999_999), t.TimestampType(9)) == {
        "millisecond": -1,
        "nano": 999_999,
    }
    assert values.encode_value(b"\x00\xff", t.VarBinaryType(5)) == "AP8="
    map_type = t.MapType(t.IntType(), t.VarCharType(5))
    assert values.encode_value({1: "a", 2: None}, map_type) == [[1, "a"], [2, None]]
    row_type = t.RowType((t.DataField(0, "a", t.IntType()), t.DataField(1, "b", t.DateType())))
    assert values.encode_value((None, 19_000), row_type) == [None, 19_000]
    assert values.decode_value([[7, 2]], t.MultisetType(t.IntType())) == {7: 2}


def test_changes_carry_their_row_kind() -> None:
    row_type = t.RowType((t.DataField(0, "k", t.IntType()),))
    encoded = values.encode_change(RowKind.DELETE, (5,), row_type)
    assert encoded == {"kind": "-D", "values": [5]}
    assert values.decode_change(encoded, row_type) == (RowKind.DELETE, (5,))


def test_row_arity_is_checked() -> None:
    row_type = t.RowType((t.DataField(0, "k", t.IntType()),))
    with pytest.raises(ValueError, match="2 values"):
        values.encode_row((1, 2), row_type)
    with pytest.raises(ValueError, match="2 values"):
        values.decode_row([1, 2], row_type)


def test_types_java_09_lacks_are_refused() -> None:
    with pytest.raises(UnsupportedFeature, match="VARIANT"):
        values.encode_value(b"", t.VariantType())
