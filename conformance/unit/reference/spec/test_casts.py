"""Value casts between Paimon types: Java's results, case by case.

Expected values come from Java: ``fixtures/vectors/casts/java-0.9.json`` holds what Paimon 0.9.0's
``CastExecutors.resolve(source, target).cast(input)`` returned, and ``java-main-delta.json`` where
main's cast classes (compiled from the apache/paimon checkout and run on the 0.9.0 jar) return
something else. The reference follows main, so an input's expectation is main's result when the
delta lists it and 0.9.0's otherwise; every 0.9.0 difference must be one this file documents.

How the vectors were made (the throwaway driver is not part of the project): every ordered pair of
36 atomic types (BOOLEAN, the four integers, FLOAT, DOUBLE, eight DECIMALs from (1, 0) to (38, 10),
CHAR(1), CHAR(5), VARCHAR(5), STRING, BINARY(4), VARBINARY(4), BYTES, DATE, TIME(0/3), TIMESTAMP
(0/1/3/4/6/7/9) and TIMESTAMP WITH LOCAL TIME ZONE (0/3/6/9)) gets the input list of its source
type: the bounds and neighbours of each integer type; special floats (signed zeros, NaN,
infinities, subnormals, halves, integers past 2**24 and 2**53, values whose JDK 8-18 text is not
the shortest) plus random bit patterns; decimals that fit the type from a list of edge values;
around 450 texts (numbers in every Java literal form, booleans, dates, times and timestamps in
valid, boundary and broken forms) plus random texts over digit/separator alphabets; binary with
malformed UTF-8; dates, times and timestamps around the epoch, year 0/1/9999 and the int/long
limits. Nested ARRAY/MAP/ROW to text cases cover each element kind.

Other expected values below are worked out by hand from the Java rules cited.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.strategies import decimals, timestamps
from reference.errors import SpecViolation
from reference.spec import casts as c
from reference.spec import types as t
from reference.spec.data import Timestamp
from reference.spec.units import MILLIS_PER_DAY

STRING = t.VarCharType(t.MAX_LENGTH)
BYTES = t.VarBinaryType(t.MAX_LENGTH)
R = t.TypeRoot
FLOAT_TENTH = struct.unpack("<f", struct.pack("<f", 0.1))[0]
"""``0.1f``: 0.100000001490116119384765625."""


# --------------------------------------------------------------------------------------------
# Vector decoding
# --------------------------------------------------------------------------------------------


def decode(data_type: t.DataType, encoded: Any) -> Any:
    """A vector value (see the file's ``encoding`` member) as an internal value."""
    if encoded is None:
        return None
    root = data_type.root
    if root in t.FLOATING_ROOTS:
        return float(encoded)
    if root is R.DECIMAL:
        return Decimal(encoded)
    if root in t.BINARY_ROOTS:
        return bytes.fromhex(encoded)
    if root in t.TIMESTAMP_ROOTS:
        return Timestamp(encoded[0], encoded[1])
    if isinstance(data_type, t.ArrayType):
        return [decode(data_type.element, e) for e in encoded]
    if isinstance(data_type, t.MapType):
        return {decode(data_type.key, k): decode(data_type.value, v) for k, v in encoded}
    if isinstance(data_type, t.RowType):
        return tuple(decode(f.type, v) for f, v in zip(data_type.fields, encoded, strict=True))
    return encoded


def same(expected: Any, actual: Any) -> bool:
    """Equal values of equal Python types; floats bit for bit (NaN equals NaN)."""
    if isinstance(expected, float) and isinstance(actual, float):
        if math.isnan(expected):
            return math.isnan(actual)
        return struct.pack("<d", expected) == struct.pack("<d", actual)
    if isinstance(expected, Decimal) and isinstance(actual, Decimal):
        return expected.as_tuple() == actual.as_tuple()
    return type(expected) is type(actual) and expected == actual


def outcome(value: Any, source: t.DataType, target: t.DataType) -> Any:
    """The reference's result, or ``{"error": code}`` when it raises."""
    try:
        return c.cast_with_rule(value, source, target)
    except SpecViolation as error:
        return {"error": error.code}


def load_cases(fixtures_dir: Path, name: str) -> list[dict[str, Any]]:
    document = json.loads((fixtures_dir / "vectors" / "casts" / name).read_text("utf-8"))
    cases: list[dict[str, Any]] = document["cases"]
    return cases


def key_of(case: dict[str, Any]) -> str:
    return json.dumps([case["source"], case["target"]])


@pytest.fixture(scope="module")
def main_delta(fixtures_dir: Path) -> dict[str, dict[str, Any]]:
    return {key_of(case): case for case in load_cases(fixtures_dir, "java-main-delta.json")}


@pytest.fixture(scope="module")
def cases_09(fixtures_dir: Path) -> list[dict[str, Any]]:
    return load_cases(fixtures_dir, "java-0.9.json")


def expected_pairs(case: dict[str, Any], delta: dict[str, Any] | None) -> Iterator[tuple[Any, Any]]:
    """(input, expected output) in main's terms."""
    if delta is not None and "pairs" in delta:
        yield from ((p[0], p[1]) for p in delta["pairs"])
        return
    overrides = {json.dumps(p[0]): p[1] for p in (delta or {}).get("pairs_main_then_0.9", [])}
    for encoded_input, encoded_output in case.get("pairs", []):
        yield encoded_input, overrides.get(json.dumps(encoded_input), encoded_output)


def check_case(case: dict[str, Any], delta: dict[str, Any] | None) -> list[str]:
    source, target = t.parse_data_type(case["source"]), t.parse_data_type(case["target"])
    resolved = delta["resolved"] if delta is not None else case["resolved"]
    failures = []
    if c.has_cast_rule(source, target) is not resolved:
        failures.append(f"{source} -> {target}: Java resolves {resolved}")
    for encoded_input, encoded_output in expected_pairs(case, delta):
        actual = outcome(decode(source, encoded_input), source, target)
        if isinstance(encoded_output, dict):
            ok = actual == {"error": c.CAST_INVALID_VALUE}
        else:
            ok = same(decode(target, encoded_output), actual)
        if not ok:
            failures.append(
                f"{source} -> {target}: {encoded_input!r} gives {actual!r}, Java {encoded_output!r}"
            )
    return failures


SOURCE_TYPES = [
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "CHAR",
    "VARCHAR", "STRING", "BINARY", "VARBINARY", "BYTES", "DATE", "TIME", "TIMESTAMP",
    "TIMESTAMP LTZ", "ARRAY", "MAP", "ROW",
]  # fmt: skip


def source_group(case: dict[str, Any]) -> str:
    source = t.parse_data_type(case["source"])
    if source.root is R.TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return "TIMESTAMP LTZ"
    sql = source.to_sql()
    for name in sorted(SOURCE_TYPES, key=len, reverse=True):
        if sql.startswith(name):
            return name
    return source.root.name


# --------------------------------------------------------------------------------------------
# Java vectors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("group", SOURCE_TYPES)
def test_java_vectors(
    group: str, cases_09: list[dict[str, Any]], main_delta: dict[str, dict[str, Any]]
) -> None:
    """Every (source, target, input) of the 0.9.0 vectors, expected in main's terms."""
    failures: list[str] = []
    selected = [case for case in cases_09 if source_group(case) == group]
    assert selected, f"no vectors for {group}"
    for case in selected:
        failures += check_case(case, main_delta.get(key_of(case)))
    assert not failures, "\n".join(failures[:20])


def documented_09_result(source: t.DataType, target: t.DataType, value: Any, main: Any) -> Any:
    """What 0.9.0 returns where main changed the rule (the list in ``casts``' docstring); an
    error is ``{"error": code}`` (the exception class Java throws may differ, e.g. text to
    TIMESTAMP(1))."""
    if source.root is R.BIGINT and target.root is R.BOOLEAN:
        return c.wrap_integer(value, 32) != 0
    if source.root is R.TIMESTAMP_WITHOUT_TIME_ZONE and target.root is R.DATE:
        return c.wrap_integer(c.java_divide(value.millisecond, MILLIS_PER_DAY), 32)
    if source.root is R.TIMESTAMP_WITHOUT_TIME_ZONE and target.root is R.TIME_WITHOUT_TIME_ZONE:
        return c.java_remainder(value.millisecond, MILLIS_PER_DAY)
    if source.root in t.TIMESTAMP_ROOTS and target.root in t.TIMESTAMP_ROOTS:
        nano_of_second = c.compute_local_date_time(value).nano
        return value if len(str(nano_of_second)) <= t.timestamp_precision(target) else main
    if source.root in t.CHARACTER_ROOTS and target.root in t.TIMESTAMP_ROOTS:
        numeric = c.is_java_numeric(value) and target.root is R.TIMESTAMP_WITHOUT_TIME_ZONE
        return {"error": c.CAST_INVALID_VALUE} if numeric or "T" in value else main
    if source.root in t.CHARACTER_ROOTS and target.root in (R.DATE, R.TIME_WITHOUT_TIME_ZONE):
        negative_number = value.startswith("-") and c.is_java_numeric(value)
        return {"error": c.CAST_INVALID_VALUE} if negative_number else main
    raise AssertionError(f"undocumented difference {source} -> {target}")


def test_09_differences_are_documented(main_delta: dict[str, dict[str, Any]]) -> None:
    """Each input where 0.9.0 and main disagree falls under a documented difference, and the
    documented 0.9.0 rule gives 0.9.0's result."""
    for delta in main_delta.values():
        source, target = t.parse_data_type(delta["source"]), t.parse_data_type(delta["target"])
        if "pairs" in delta:
            assert source.root in (R.ARRAY, R.MAP, R.ROW) and not delta["resolved_0.9"]
            continue
        for encoded_input, encoded_main, encoded_09 in delta["pairs_main_then_0.9"]:
            value = decode(source, encoded_input)
            main = outcome(value, source, target)
            expected = (
                {"error": c.CAST_INVALID_VALUE}
                if isinstance(encoded_09, dict)
                else decode(target, encoded_09)
            )
            actual = documented_09_result(source, target, value, main)
            assert actual == expected, (source, target, encoded_input, encoded_main)


# --------------------------------------------------------------------------------------------
# The rule table
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "target", "explicit", "expected"),
    [
        (t.IntType(), t.BigIntType(), False, True),
        (t.BigIntType(), t.IntType(), False, False),
        (t.BigIntType(), t.IntType(), True, True),
        (t.IntType(), t.DecimalType(10, 2), False, True),
        (t.FloatType(), t.DoubleType(), False, True),
        (t.DoubleType(), t.FloatType(), True, True),
        (STRING, BYTES, True, True),
        (BYTES, STRING, True, True),
        (t.BooleanType(), STRING, True, True),
        (t.DateType(), STRING, True, True),
        (t.DateType(), t.VarCharType(10), True, False),  # only the exact STRING type
        (t.TimestampType(3), t.DateType(), False, True),
        (t.IntType(), t.DateType(), True, False),
        (t.BooleanType(), t.BooleanType(nullable=False), True, False),  # no BOOLEAN->BOOLEAN rule
        (t.VarCharType(10), t.VarCharType(5), False, True),
        (t.ArrayType(t.IntType()), t.ArrayType(t.BigIntType()), True, False),
        (t.IntType(), t.IntType(nullable=False), False, False),
        (t.BigIntType(), t.TimestampType(3), True, True),
        (t.SmallIntType(), t.TimestampType(3), True, False),  # Java builds no executor
        (t.DecimalType(10, 0), t.TimestampType(3), True, False),
        (t.ArrayType(t.IntType()), STRING, True, True),  # main: ArrayToStringCastRule
        (STRING, t.ArrayType(t.IntType()), True, False),  # a rule, but no CAST to ARRAY
    ],
)
def test_cast_rules(source: t.DataType, target: t.DataType, explicit: bool, expected: bool) -> None:
    assert c.is_castable(source, target, explicit) is expected


def test_rule_table_mirrors_java_classes() -> None:
    names = [rule.java_class for rule in c.CAST_RULES]
    assert len(names) == len(set(names)) == 34
    assert c.resolve_cast_rule(t.DateType(), STRING) is not None
    date_to_string = c.resolve_cast_rule(t.DateType(), STRING)
    assert date_to_string is not None and date_to_string.java_class == "DateToStringCastRule"
    numeric_to_string = c.resolve_cast_rule(t.IntType(), t.CharType(3))
    assert numeric_to_string is not None
    assert numeric_to_string.java_class == "NumericToStringCastRule"
    assert c.resolve_cast_rule(t.DateType(), STRING.copy(False)) is None  # exact type only


def test_no_executor_is_a_violation() -> None:
    with pytest.raises(SpecViolation) as raised:
        c.cast_with_rule(5, t.SmallIntType(), t.TimestampType(3))
    assert raised.value.code == c.CAST_NOT_SUPPORTED
    assert c.cast_with_rule(None, t.SmallIntType(), t.TimestampType(3)) is None


# --------------------------------------------------------------------------------------------
# Hand-worked cases
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [
        # (int) of a long keeps the low 32 bits; (byte) of 383 is 127
        (2**32 + 7, t.BigIntType(), t.IntType(), 7),
        (383, t.IntType(), t.TinyIntType(), 127),
        (-129, t.SmallIntType(), t.TinyIntType(), 127),
        # (int) of a double truncates toward zero, saturates, and NaN is 0
        (-2.9, t.DoubleType(), t.IntType(), -2),
        (1e10, t.DoubleType(), t.IntType(), 2**31 - 1),
        (-1e300, t.DoubleType(), t.BigIntType(), -(2**63)),
        (math.nan, t.DoubleType(), t.BigIntType(), 0),
        # (byte) of a double is (byte) (int): 300.7 -> 300 -> 44; 1e10 -> MAX_INT -> -1
        (300.7, t.DoubleType(), t.TinyIntType(), 44),
        (1e10, t.FloatType(), t.TinyIntType(), -1),
        # (float) of a long rounds the exact integer once: 2**53 + 2**29 + 1 is nearer 2**53 + 2**30
        (2**53 + 2**29 + 1, t.BigIntType(), t.FloatType(), float(2**53 + 2**30)),
        (16_777_217, t.IntType(), t.FloatType(), 16_777_216.0),
        (1e39, t.DoubleType(), t.FloatType(), math.inf),
        # DECIMAL: HALF_UP, and null when the digits do not fit
        (Decimal("1.005"), t.DecimalType(4, 3), t.DecimalType(3, 2), Decimal("1.01")),
        (Decimal("-1.005"), t.DecimalType(4, 3), t.DecimalType(3, 2), Decimal("-1.01")),
        (Decimal("999.5"), t.DecimalType(4, 1), t.DecimalType(3, 0), None),
        (True, t.BooleanType(), t.DecimalType(1, 1), None),
        (FLOAT_TENTH, t.FloatType(), t.DecimalType(38, 18), Decimal("0.100000001490116120")),
        (2.675, t.DoubleType(), t.DecimalType(10, 2), Decimal("2.68")),  # via "2.675"
        (Decimal("-7.9"), t.DecimalType(2, 1), t.IntType(), -7),
        (Decimal(2**64 + 5), t.DecimalType(38, 0), t.BigIntType(), 5),
        # numbers as text
        (1e10, t.DoubleType(), STRING, "1.0E10"),
        (1e-5, t.DoubleType(), STRING, "1.0E-5"),
        (100.0, t.DoubleType(), STRING, "100.0"),
        (0.001, t.DoubleType(), STRING, "0.001"),
        (1e7, t.DoubleType(), STRING, "1.0E7"),
        (-0.0, t.FloatType(), STRING, "-0.0"),
        (math.nan, t.FloatType(), STRING, "NaN"),
        (-math.inf, t.DoubleType(), STRING, "-Infinity"),
        (219_360_192.0, t.FloatType(), STRING, "2.19360192E8"),  # JDK 8-18, not shortest
        (2.0**-149, t.FloatType(), STRING, "1.4E-45"),
        (5e-324, t.DoubleType(), STRING, "4.9E-324"),
        (Decimal("0.00"), t.DecimalType(5, 2), STRING, "0.00"),
        (Decimal("-0.05"), t.DecimalType(5, 2), STRING, "-0.05"),
        (True, t.BooleanType(), STRING, "true"),
        (12345, t.IntType(), t.VarCharType(3), "123"),
        (12, t.IntType(), t.CharType(4), "12  "),
        # text to numbers
        ("1.9", STRING, t.IntType(), 1),
        ("-.5", STRING, t.IntType(), 0),
        ("+42", STRING, t.SmallIntType(), 42),
        (" 1.5e2 ", STRING, t.DoubleType(), 150.0),
        ("0x1p-2", STRING, t.DoubleType(), 0.25),
        ("1d", STRING, t.FloatType(), 1.0),
        ("1e40", STRING, t.FloatType(), math.inf),
        ("12.345", STRING, t.DecimalType(4, 2), Decimal("12.35")),
        ("1e2", STRING, t.DecimalType(5, 1), Decimal("100.0")),
        ("123456", STRING, t.DecimalType(5, 0), None),
        ("YES", STRING, t.BooleanType(), True),
        ("0", STRING, t.BooleanType(), False),
        # text and bytes
        ("héllo", STRING, t.BinaryType(8), b"h\xc3\xa9llo\x00\x00"),
        ("héllo", STRING, t.VarBinaryType(2), b"h\xc3"),
        (b"\xed\xa0\x80A", BYTES, STRING, "\ufffdA"),
        (b"abc", BYTES, t.CharType(1), "abc"),  # no cut
        (b"ab", BYTES, t.BinaryType(3), b"ab\x00"),
        ("ab😀c", STRING, t.VarCharType(3), "ab😀"),
        # dates and times
        (-1, t.DateType(), STRING, "1969-12-31"),
        (-719_529, t.DateType(), STRING, "000/-12-31"),  # year -1: Java's int4 prints '0' - 1
        ("2020-02-30", STRING, t.DateType(), None),
        ("2020-1-2 junk", STRING, t.DateType(), 18263),
        ("-3", STRING, t.DateType(), -3),
        ("12:34:56.7895", STRING, t.TimeType(3), 45_296_790),
        ("12:00:00-01:30", STRING, t.TimeType(3), 37_800_000),  # a '-' zone is subtracted
        (45_296_789, t.TimeType(3), STRING, "12:34:56.789"),
        (45_296_000, t.TimeType(3), STRING, "12:34:56.0"),
        (45_296_500, t.TimeType(1), STRING, "12:34:56.5"),
        (-1, t.TimeType(0), STRING, "23:59:59"),
        # timestamps
        (Timestamp(-1, 0), t.TimestampType(3), t.DateType(), -1),
        (Timestamp(-1, 0), t.TimestampType(3), t.TimeType(3), MILLIS_PER_DAY - 1),
        (Timestamp(-1500, 0), t.TimestampType(3), t.BigIntType(), -1),  # toward zero
        (Timestamp(-1500, 0), t.TimestampType(3), t.TimestampType(0), Timestamp(-1000)),
        (Timestamp(1234, 567_891), t.TimestampType(9), t.TimestampType(4),
            Timestamp(1234, 500_000)),
        (Timestamp(1234, 567_891), t.TimestampType(9), t.TimestampType(1), Timestamp(1200)),
        (Timestamp(0, 500), t.TimestampType(9), t.TimestampType(3), Timestamp(0)),
        (Timestamp(1500, 0), t.TimestampType(0), STRING, "1970-01-01 00:00:01.5"),
        (Timestamp(1000, 0), t.TimestampType(3), STRING, "1970-01-01 00:00:01.000"),
        (Timestamp(0, 0), t.LocalZonedTimestampType(0), STRING, "1970-01-01 00:00:00"),
        (1_700_000_000, t.BigIntType(), t.LocalZonedTimestampType(3), Timestamp(1_700_000_000_000)),
        (18262, t.DateType(), t.TimestampType(3), Timestamp(18262 * MILLIS_PER_DAY)),
        ("2020-01-01 24:00:00", STRING, t.TimestampType(3), Timestamp(1_577_923_200_000)),
        ("2021-02-30 10:00:00", STRING, t.TimestampType(3), Timestamp(1_614_506_400_000)),
        ("2020-01-01T12:34", STRING, t.TimestampType(0), Timestamp(1_577_882_040_000)),
        ("2020-01-01 1:2:3.987654321", STRING, t.TimestampType(6),
            Timestamp(1_577_840_523_987, 654_000)),
        ("1700000000123456", STRING, t.TimestampType(6), Timestamp(1_700_000_000_123, 456_000)),
        ("-1", STRING, t.TimestampType(9), Timestamp(-1, 999_999)),
        # nested values to text
        ([1, None], t.ArrayType(t.IntType()), t.VarCharType(2), "[1, null]"),
        ({"a": 1.5}, t.MapType(STRING, t.DoubleType()), STRING, "{a -> 1.5}"),
        ((1, (None, b"x")), t.RowType((
            t.DataField(0, "a", t.IntType()),
            t.DataField(1, "b", t.RowType((
                t.DataField(2, "c", t.DateType()), t.DataField(3, "d", BYTES),
            ))),
        )), STRING, "{1, {null, x}}"),
    ],
)  # fmt: skip
def test_hand_worked(value: Any, source: t.DataType, target: t.DataType, expected: Any) -> None:
    if expected is None and not isinstance(target, t.DecimalType):
        with pytest.raises(SpecViolation) as raised:
            c.cast_with_rule(value, source, target)
        assert raised.value.code == c.CAST_INVALID_VALUE
        return
    assert same(expected, c.cast_with_rule(value, source, target))


@pytest.mark.parametrize(
    ("text", "target"),
    [
        (" 1", t.IntType()),  # integers take no spaces
        ("1e3", t.IntType()),
        ("2147483648", t.IntType()),
        ("128", t.TinyIntType()),
        ("", t.BigIntType()),
        ("-", t.BigIntType()),
        ("1_000", t.DoubleType()),
        ("nan", t.DoubleType()),
        ("1e", t.FloatType()),
        (" 1", t.DecimalType(5, 0)),  # BigDecimal takes no spaces
        ("1e2147483648", t.DecimalType(5, 0)),
        ("on", t.BooleanType()),
        ("2020-13-01", t.DateType()),
        ("12:3x", t.TimeType(0)),
        ("2020-01-01 12:34", t.TimestampType(3)),  # seconds are needed after a space
        ("12345-01-01", t.TimestampType(3)),  # five digits need a '+'
        ("0000-01-01", t.TimestampType(3)),  # year of era 0
        ("2020-01-01 24:00:01", t.TimestampType(3)),
        ("1700000000", t.TimestampType(2)),  # numbers only for precisions 0, 3, 6, 9
        ("1700000000", t.LocalZonedTimestampType(3)),  # and never for LTZ
    ],
)
def test_invalid_text(text: str, target: t.DataType) -> None:
    with pytest.raises(SpecViolation) as raised:
        c.cast_with_rule(text, STRING, target)
    assert raised.value.code == c.CAST_INVALID_VALUE


def test_nan_to_decimal_fails() -> None:
    with pytest.raises(SpecViolation) as raised:
        c.cast_with_rule(math.inf, t.DoubleType(), t.DecimalType(10, 2))
    assert raised.value.code == c.CAST_INVALID_VALUE


# --------------------------------------------------------------------------------------------
# Schema evolution on read
# --------------------------------------------------------------------------------------------

OLD_ROW = t.RowType(
    (
        t.DataField(1, "a", t.IntType()),
        t.DataField(2, "b", STRING),
        t.DataField(3, "c", t.ArrayType(t.IntType())),
    )
)
NEW_ROW = t.RowType(
    (
        t.DataField(3, "c", t.ArrayType(t.BigIntType())),
        t.DataField(9, "added", t.DoubleType()),
        t.DataField(1, "renamed", t.BigIntType()),
    )
)


def test_rows_map_by_field_id() -> None:
    """Reordered, renamed, dropped (b) and added (added) fields; the array element widens."""
    assert c.cast_value((7, "x", [1, None]), OLD_ROW, NEW_ROW) == ([1, None], None, 7)
    assert c.compute_index_mapping(NEW_ROW.fields, OLD_ROW.fields) == (2, None, 0)
    nested_old = t.RowType((t.DataField(0, "r", OLD_ROW),))
    nested_new = t.RowType((t.DataField(0, "r", NEW_ROW),))
    assert c.cast_row_by_field_id(((7, "x", []),), nested_old, nested_new) == (([], None, 7),)


def test_maps_cast_values_and_keep_keys() -> None:
    old = t.MapType(STRING, t.IntType())
    assert c.cast_value({"k": 3}, old, t.MapType(STRING, STRING)) == {"k": "3"}
    with pytest.raises(SpecViolation):
        c.cast_value({"k": 3}, old, t.MapType(t.CharType(3), t.IntType()))


def test_equal_types_keep_values() -> None:
    value = Timestamp(1, 999_999)
    assert c.cast_value(value, t.TimestampType(9), t.TimestampType(9, nullable=False)) is value
    assert c.cast_value(None, t.IntType(), STRING) is None
    assert c.cast_value([None], t.ArrayType(t.IntType()), t.ArrayType(STRING)) == [None]


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

INTEGER_TYPES = [t.TinyIntType(), t.SmallIntType(), t.IntType(), t.BigIntType()]


def integers_of(data_type: t.DataType) -> st.SearchStrategy[int]:
    bits = t.IntegerBits[data_type.root]
    return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


@given(st.data())
def test_integer_widening_round_trips(data: st.DataObject) -> None:
    narrow, wide = sorted(
        data.draw(st.lists(st.sampled_from(INTEGER_TYPES), min_size=2, max_size=2)),
        key=lambda x: t.IntegerBits[x.root],
    )
    value = data.draw(integers_of(narrow))
    for target in (wide, t.DecimalType(38, 0), t.DecimalType(25, 5), STRING):
        assert c.cast_value(c.cast_value(value, narrow, target), target, narrow) == value
    if narrow.root is not R.BIGINT:
        as_double = c.cast_value(value, narrow, t.DoubleType())
        assert c.cast_value(as_double, t.DoubleType(), narrow) == value


@given(st.floats(width=32))
def test_float_widening_and_text_round_trip(value: float) -> None:
    wide = c.cast_value(value, t.FloatType(), t.DoubleType())
    assert same(value, c.cast_value(wide, t.DoubleType(), t.FloatType()))
    text = c.cast_value(value, t.FloatType(), STRING)
    assert same(value, c.cast_value(text, STRING, t.FloatType()))
    assert c.cast_value(c.cast_value(text, STRING, t.FloatType()), t.FloatType(), STRING) == text


@given(st.floats())
def test_double_text_round_trip(value: float) -> None:
    text = c.cast_value(value, t.DoubleType(), STRING)
    assert same(value, c.cast_value(text, STRING, t.DoubleType()))
    assert float(text.replace("E", "e")) == value or math.isnan(value)


@given(st.data())
def test_decimal_widening_and_text_round_trip(data: st.DataObject) -> None:
    precision = data.draw(st.integers(1, 30))
    scale = data.draw(st.integers(0, precision))
    narrow = t.DecimalType(precision, scale)
    value = data.draw(decimals(precision, scale))
    wide = t.DecimalType(precision + 8, scale + 3)
    assert same(value, c.cast_value(c.cast_value(value, narrow, wide), wide, narrow))
    text = c.cast_value(value, narrow, STRING)
    assert Decimal(text) == value
    assert same(value, c.cast_value(text, STRING, narrow))


@given(st.integers(-719_528, 2_932_896))
def test_date_text_round_trip(days: int) -> None:
    """Years 0000-9999: the text is ``yyyy-MM-dd`` and parses back."""
    text = c.cast_value(days, t.DateType(), STRING)
    assert c.cast_value(text, STRING, t.DateType()) == days


@given(st.integers(0, MILLIS_PER_DAY - 1), st.sampled_from([0, 3]))
def test_time_text_round_trip(millis: int, precision: int) -> None:
    text = c.cast_value(millis, t.TimeType(3), STRING)
    assert c.cast_value(text, STRING, t.TimeType(precision)) == millis


@given(st.sampled_from([0, 3, 6, 9]).flatmap(lambda p: st.tuples(st.just(p), timestamps(p))))
def test_timestamp_text_round_trip(drawn: tuple[int, Timestamp]) -> None:
    precision, value = drawn
    local = c.compute_local_date_time(value)
    if not 1 <= local.year <= 9999:
        return
    for data_type in (t.TimestampType(precision), t.LocalZonedTimestampType(precision)):
        text = c.cast_value(value, data_type, STRING)
        assert c.cast_value(text, STRING, data_type) == value


@given(st.sampled_from(range(10)), timestamps(9))
def test_lower_precision_truncates(target: int, value: Timestamp) -> None:
    """Only digits past the target precision go: toward the past for instants after 1970."""
    result = c.cast_value(value, t.TimestampType(9), t.TimestampType(target))
    difference = value.to_epoch_nanos() - result.to_epoch_nanos()
    if value.millisecond >= 0:
        assert 0 <= difference < 10 ** (9 - target)
    assert result.to_epoch_nanos() % 10 ** (9 - target) == 0
