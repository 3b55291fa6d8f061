"""The canonical comparison of rows with expected files (``conformance/cases/compare.py``).

Expected values here are written by hand from the comparison rules in the module docstring.
"""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.cases.compare import (
    Expected,
    canonical_timestamp,
    canonical_value,
    compare_rows,
    decode_expected,
    encode_expected,
)
from conformance.engines.base import Rows
from reference.spec import types as t
from reference.spec.data import RowKind, Timestamp

INS, UB, UA, D = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE
INT = t.IntType(nullable=False)
STRING = t.VarCharType(t.MAX_LENGTH)


def expected(rows, *, order="multiset", row_kinds="add-only", types=(INT, STRING)) -> Expected:
    columns = tuple(f"c{i}" for i in range(len(types)))
    return Expected(columns, tuple(types), order, row_kinds, tuple(rows))


def actual(rows, types=(INT, STRING)) -> Rows:
    fields = tuple(t.DataField(i, f"c{i}", ty) for i, ty in enumerate(types))
    return Rows(fields, list(rows))


# --------------------------------------------------------------------------------------------
# canonical values
# --------------------------------------------------------------------------------------------


def test_decimals_compare_by_exact_value() -> None:
    decimal = t.DecimalType(10, 2)
    assert canonical_value(Decimal("1.50"), decimal) == canonical_value(Decimal("1.5"), decimal)
    assert canonical_value(Decimal("1.50"), decimal) != canonical_value(Decimal("1.51"), decimal)
    assert canonical_value(Decimal("0.00"), decimal) == canonical_value(Decimal("0"), decimal)
    assert canonical_value(Decimal("100"), decimal) == canonical_value(Decimal("1E+2"), decimal)


def test_a_float_where_a_decimal_is_expected_never_matches() -> None:
    decimal = t.DecimalType(10, 2)
    assert canonical_value(1.5, decimal) != canonical_value(Decimal("1.5"), decimal)


def test_nan_equals_nan_and_negative_zero_equals_zero() -> None:
    double = t.DoubleType()
    assert canonical_value(math.nan, double) == canonical_value(float("nan"), double)
    assert canonical_value(-0.0, double) == canonical_value(0.0, double)
    assert canonical_value(math.inf, double) != canonical_value(-math.inf, double)


def test_timestamps_truncate_to_the_type_and_engine_precision() -> None:
    # 1 ms + 123456 ns = 1_123_456 ns since the epoch.
    value = Timestamp(1, 123_456)
    assert canonical_timestamp(value, 9, 9) == 1_123_456
    assert canonical_timestamp(value, 9, 6) == 1_123_000
    assert canonical_timestamp(value, 3, 9) == 1_000_000
    # Before the epoch truncation goes toward minus infinity: -1 ms + 500 ns = -999_500 ns.
    assert canonical_timestamp(Timestamp(-1, 500), 9, 6) == -1_000_000


def test_microsecond_engines_are_judged_at_microseconds() -> None:
    ts9 = t.TimestampType(precision=9)
    written = expected([(INS, (1, Timestamp(5, 999_999)))], types=(INT, ts9))
    read_back = actual([(INS, (1, Timestamp(5, 999_000)))], types=(INT, ts9))
    assert compare_rows(written, read_back, engine_precision=6) is None
    assert compare_rows(written, read_back, engine_precision=9) is not None


def test_maps_and_multisets_compare_as_sets_of_entries() -> None:
    map_type = t.MapType(STRING, INT)
    assert canonical_value({"a": 1, "b": 2}, map_type) == canonical_value(
        {"b": 2, "a": 1}, map_type
    )
    assert canonical_value({"a": 1}, map_type) != canonical_value({"a": 2}, map_type)
    multiset = t.MultisetType(STRING)
    assert canonical_value({"x": 2}, multiset) != canonical_value({"x": 1}, multiset)


def test_wrong_python_kinds_never_match() -> None:
    assert canonical_value(1, STRING) != canonical_value("1", STRING)
    assert canonical_value(True, INT) != canonical_value(1, INT)
    assert canonical_value("x", t.TimestampType(precision=3)) != canonical_value(
        Timestamp(0, 0), t.TimestampType(precision=3)
    )


@given(st.integers(-(10**15), 10**15), st.integers(0, 999_999))
def test_timestamp_canonical_form_orders_like_nanoseconds(millis: int, nanos: int) -> None:
    assert canonical_timestamp(Timestamp(millis, nanos), 9, 9) == millis * 1_000_000 + nanos


# --------------------------------------------------------------------------------------------
# row kinds and order
# --------------------------------------------------------------------------------------------


def test_add_only_treats_insert_and_update_after_as_equal() -> None:
    assert compare_rows(expected([(INS, (1, "a"))]), actual([(UA, (1, "a"))])) is None


def test_add_only_refuses_retractions_in_a_batch_read() -> None:
    mismatch = compare_rows(expected([(INS, (1, "a"))]), actual([(INS, (1, "a")), (D, (2, "b"))]))
    assert mismatch is not None
    assert "retractions" in mismatch.reason
    assert mismatch.unexpected == ('-D [2, "b"]',)


def test_exact_kinds_distinguish_insert_from_update() -> None:
    want = expected([(INS, (1, "a"))], row_kinds="exact")
    assert compare_rows(want, actual([(UA, (1, "a"))])) is not None
    assert compare_rows(want, actual([(INS, (1, "a"))])) is None


def test_ignored_kinds_are_dropped() -> None:
    want = expected([(INS, (1, "a"))], row_kinds="ignore")
    assert compare_rows(want, actual([(UB, (1, "a"))])) is None


def test_multiset_order_is_free_but_counts_matter() -> None:
    want = expected([(INS, (1, "a")), (INS, (1, "a")), (INS, (2, "b"))])
    assert compare_rows(want, actual([(INS, (2, "b")), (INS, (1, "a")), (INS, (1, "a"))])) is None
    mismatch = compare_rows(want, actual([(INS, (2, "b")), (INS, (1, "a"))]))
    assert mismatch is not None
    assert mismatch.missing == ('+I [1, "a"]',)
    assert mismatch.unexpected == ()


def test_ordered_compares_positions() -> None:
    want = expected([(INS, (1, "a")), (INS, (2, "b"))], order="ordered")
    assert compare_rows(want, actual([(INS, (1, "a")), (INS, (2, "b"))])) is None
    mismatch = compare_rows(want, actual([(INS, (2, "b")), (INS, (1, "a"))]))
    assert mismatch is not None
    assert "position 0" in mismatch.reason


def test_column_names_must_match() -> None:
    want = expected([])
    got = Rows((t.DataField(0, "x", INT), t.DataField(1, "c1", STRING)), [])
    mismatch = compare_rows(want, got)
    assert mismatch is not None
    assert "columns differ" in mismatch.reason


def test_describe_lists_missing_and_unexpected_rows() -> None:
    mismatch = compare_rows(expected([(INS, (1, "a"))]), actual([(INS, (1, "z"))]))
    assert mismatch is not None
    text = mismatch.describe()
    assert 'missing:    +I [1, "a"]' in text
    assert 'unexpected: +I [1, "z"]' in text


# --------------------------------------------------------------------------------------------
# expected files
# --------------------------------------------------------------------------------------------


def test_expected_files_round_trip() -> None:
    document = {
        "columns": ["k", "d", "ts", "tags"],
        "types": [
            "INT NOT NULL",
            "DECIMAL(5, 2)",
            "TIMESTAMP(9)",
            {"type": "MAP", "key": "STRING", "value": "INT"},
        ],
        "order": "key",
        "row_kinds": "exact",
        "rows": [
            ["+I", 1, "1.50", {"millisecond": 7, "nano": 5}, [["a", 1]]],
            ["-D", 2, None, None, []],
        ],
    }
    decoded = decode_expected(document)
    assert decoded.rows[0] == (INS, (1, Decimal("1.50"), Timestamp(7, 5), {"a": 1}))
    assert decoded.rows[1][0] is D
    assert encode_expected(decoded) == document


def test_an_expected_row_of_the_wrong_width_is_refused() -> None:
    with pytest.raises(ValueError, match="does not have a kind and 2 values"):
        decode_expected(
            {
                "columns": ["a", "b"],
                "types": ["INT", "INT"],
                "order": "key",
                "row_kinds": "exact",
                "rows": [["+I", 1]],
            }
        )


def test_unknown_policies_are_refused() -> None:
    with pytest.raises(ValueError, match="order"):
        Expected(("a",), (INT,), "sorted", "exact", ())
    with pytest.raises(ValueError, match="row_kinds"):
        Expected(("a",), (INT,), "key", "some", ())
