"""Data types: the SQL-string and JSON forms of schema files round-trip, and the grammar's
lenient spellings parse the way Java's ``DataTypeJsonParser`` does."""

from __future__ import annotations

import json

import pytest
from hypothesis import given

from conformance.strategies import data_types
from reference.errors import PaimonFormatError, UnsupportedFeature
from reference.spec import types as t


@given(data_types(max_depth=3))
def test_json_round_trip(data_type: t.DataType) -> None:
    encoded = json.loads(json.dumps(t.type_to_json(data_type)))
    assert t.parse_data_type(encoded) == data_type


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("INT", t.IntType()),
        ("integer not null", t.IntType(nullable=False)),
        ("STRING", t.VarCharType(t.MAX_LENGTH)),
        ("VARCHAR(2147483647)", t.VarCharType(t.MAX_LENGTH)),
        ("BYTES", t.VarBinaryType(t.MAX_LENGTH)),
        ("CHAR", t.CharType(1)),
        ("DECIMAL", t.DecimalType(10, 0)),
        ("NUMERIC(38)", t.DecimalType(38, 0)),
        ("DEC(5, 2) NOT NULL", t.DecimalType(5, 2, nullable=False)),
        ("DOUBLE PRECISION", t.DoubleType()),
        ("TIME", t.TimeType(0)),
        ("TIME(3) WITHOUT TIME ZONE", t.TimeType(3)),
        ("TIMESTAMP", t.TimestampType(6)),
        ("TIMESTAMP(9) WITHOUT TIME ZONE", t.TimestampType(9)),
        ("TIMESTAMP(3) WITH LOCAL TIME ZONE", t.LocalZonedTimestampType(3)),
        ("TIMESTAMP_LTZ", t.LocalZonedTimestampType(6)),
        ("INT NOT NULL ARRAY", t.ArrayType(t.IntType(nullable=False))),
        ("STRING MULTISET NOT NULL", t.MultisetType(t.VarCharType(t.MAX_LENGTH), nullable=False)),
    ],
)
def test_lenient_spellings(text: str, expected: t.DataType) -> None:
    assert t.parse_data_type(text) == expected


def test_canonical_sql_strings() -> None:
    assert t.VarCharType(t.MAX_LENGTH, nullable=False).to_sql() == "STRING NOT NULL"
    assert t.DecimalType(38, 20).to_sql() == "DECIMAL(38, 20)"
    assert t.LocalZonedTimestampType(9).to_sql() == "TIMESTAMP(9) WITH LOCAL TIME ZONE"
    row = t.RowType((t.DataField(3, "a`b", t.IntType(), description="it's"),))
    assert row.to_sql() == "ROW<`a``b` INT COMMENT 'it''s'>"


def test_nested_json_matches_java_shape() -> None:
    data_type = t.MapType(
        t.VarCharType(t.MAX_LENGTH, nullable=False),
        t.RowType((t.DataField(7, "x", t.IntType(), default_value="1"),)),
        nullable=False,
    )
    assert t.type_to_json(data_type) == {
        "type": "MAP NOT NULL",
        "key": "STRING NOT NULL",
        "value": {
            "type": "ROW",
            "fields": [{"id": 7, "name": "x", "type": "INT", "defaultValue": "1"}],
        },
    }


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "INTT",
        "DECIMAL(39, 2)",
        "DECIMAL(5, 6)",
        "VARCHAR(0)",
        "TIMESTAMP(10)",
        "INT(",
        "INT NOT",
        "DECIMAL(1,2,3)",
        "VARCHAR(x)",
        42,
        None,
        {"type": 3},
        {"type": "ARRAY"},
        {"type": "ROW", "fields": 1},
    ],
)
def test_malformed_types_raise_format_error(bad: object) -> None:
    with pytest.raises(PaimonFormatError):
        t.parse_data_type(bad)


def test_unsupported_type_is_named() -> None:
    with pytest.raises(UnsupportedFeature, match="GEOMETRY"):
        t.parse_data_type("GEOMETRY")
