"""reference.spec.default_values: option texts cast as Java 0.9's DefaultValueAssigner does
(the STRING -> type cast), expected values computed by hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from reference.errors import InvalidOptionError, UnsupportedFeature
from reference.spec import default_values as dv
from reference.spec import types as t
from reference.spec.data import Timestamp, Value

STRING = t.VarCharType(t.MAX_LENGTH)
KEY = t.IntType(nullable=False)


def row_type(*fields: tuple[str, t.DataType]) -> t.RowType:
    return t.RowType(tuple(t.DataField(i, name, ty) for i, (name, ty) in enumerate(fields)))


@pytest.mark.parametrize(
    ("data_type", "text", "value"),
    [
        (t.BooleanType(), "Yes", True),
        (t.BooleanType(), "f", False),
        (t.TinyIntType(), "-5", -5),
        (t.DoubleType(), "1.5", 1.5),
        (t.DecimalType(4, 2), "1.005", Decimal("1.01")),  # HALF_UP
        (STRING, " x y ", " x y "),  # kept as written
        (t.DateType(), "1970-01-02", 1),
        # 2024-01-01T00:00:00Z is 19723 days = 1,704,067,200,000 ms after the epoch
        (t.TimestampType(3), "2024-01-01 00:00:01.5", Timestamp(1_704_067_201_500, 0)),
    ],
)
def test_default_text_casts_to_the_column_type(
    data_type: t.DataType, text: str, value: Value
) -> None:
    assert dv.cast_default_value(text, data_type) == value


def test_defaults_by_field_and_their_use_on_read_rows() -> None:
    schema = row_type(("k", KEY), ("a", t.IntType()), ("b", STRING))
    defaults = dv.compute_default_values({"fields.a.default-value": "7", "bucket": "1"}, schema)
    assert defaults == (None, 7, None)
    assert dv.apply_default_values((1, None, None), defaults) == (1, 7, None)
    assert dv.apply_default_values((1, 3, "x"), defaults) == (1, 3, "x")


@pytest.mark.parametrize(
    ("data_type", "text"),
    [
        (t.TinyIntType(), "300"),  # overflow
        (t.BooleanType(), " yes"),  # the cast does not trim
        (t.TimestampType(3), "x"),
    ],
)
def test_a_text_the_cast_refuses_is_an_invalid_option(data_type: t.DataType, text: str) -> None:
    schema = row_type(("k", KEY), ("a", data_type))
    with pytest.raises(InvalidOptionError) as error:
        dv.compute_default_values({"fields.a.default-value": text}, schema)
    assert error.value.option == "fields.a.default-value"


def test_a_type_without_a_cast_from_string_cannot_have_a_default() -> None:
    schema = row_type(("k", KEY), ("m", t.MultisetType(t.IntType())))
    with pytest.raises(UnsupportedFeature):
        dv.compute_default_values({"fields.m.default-value": "x"}, schema)
