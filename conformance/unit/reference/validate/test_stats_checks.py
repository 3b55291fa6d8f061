"""Whether recorded statistics are true of the values: hand-computed cases of each rule."""

from __future__ import annotations

import math

import pytest

from reference.errors import PaimonFormatError
from reference.spec import types as t
from reference.spec.binary_row import serialize_binary_row
from reference.spec.data import Timestamp
from reference.spec.stats import EMPTY_STATS, SimpleStats
from reference.validate.stats_checks import (
    compute_extremes,
    find_column_disagreements,
    find_stats_disagreements,
    is_truncated_max,
    is_truncated_min,
)

INT = t.IntType()
STRING = t.VarCharType(t.MAX_LENGTH)
DOUBLE = t.DoubleType()


def reasons(
    data_type: t.DataType, values: list[object], low: object, high: object, nulls: int | None
) -> list[str]:
    return find_column_disagreements(
        "c", data_type, values, recorded_min=low, recorded_max=high, recorded_nulls=nulls
    )


def test_exact_statistics_agree() -> None:
    assert reasons(INT, [3, 1, None, 2], 1, 3, 1) == []


@pytest.mark.parametrize(
    ("low", "high", "nulls", "word"),
    [(2, 3, 1, "min"), (1, 4, 1, "max"), (1, 3, 0, "null count"), (0, 3, 1, "min")],
)
def test_a_wrong_value_is_reported(low: int, high: int, nulls: int, word: str) -> None:
    found = reasons(INT, [3, 1, None, 2], low, high, nulls)
    assert len(found) == 1 and word in found[0]


def test_unknown_statistics_are_accepted() -> None:
    assert reasons(INT, [3, 1, None], None, None, None) == []


def test_min_or_max_over_a_column_without_values_is_wrong() -> None:
    assert len(reasons(INT, [None, None], 1, None, 2)) == 1


def test_truncated_strings() -> None:
    values = ["abcdefgh", "abd", "xyz12345"]
    # truncate(2): min "ab" would do; "abc" is truncate(3); max "xz" is "xy" + 1
    assert reasons(STRING, values, "abc", "xz", 0) == []
    assert reasons(STRING, values, "abd", "xz", 0) != []  # not a prefix of the minimum
    assert reasons(STRING, values, "abc", "xy", 0) != []  # below the maximum


def test_truncation_helpers() -> None:
    assert is_truncated_min(STRING, "ab", "abc")
    assert not is_truncated_min(STRING, "abc", "abc")
    assert not is_truncated_min(INT, 1, 12)
    assert is_truncated_max(STRING, "ac", "abc")  # "ab" cut to "a" + ("b" + 1)
    assert is_truncated_max(STRING, "b", "abc")  # truncate(1): "a" + 1
    assert not is_truncated_max(STRING, "abd", "abc")  # as long as the value: not truncated
    assert not is_truncated_max(STRING, "aa", "abc")  # below the value
    assert is_truncated_max(t.VarBinaryType(10), b"\x01\x03", b"\x01\x02\xff")


def test_floats_compare_numerically_and_skip_nan() -> None:
    assert reasons(DOUBLE, [0.0, 1.5], -0.0, 1.5, 0) == []
    assert reasons(DOUBLE, [math.nan, 1.5], 7.0, 9.0, 0) == []
    assert reasons(DOUBLE, [0.5, 1.5], 0.0, 1.5, 0) != []


def test_extremes_follow_java_order() -> None:
    # UTF-8 byte order: U+FFFD (EF BF BD) sorts below U+10000 (F0 90 80 80).
    assert compute_extremes(["\U00010000", "\ufffd"], STRING) == ("\ufffd", "\U00010000")
    assert compute_extremes([Timestamp(5, 1), Timestamp(5, 0)], t.TimestampType(9)) == (
        Timestamp(5, 0),
        Timestamp(5, 1),
    )
    assert compute_extremes([b"\xff", b"\x01\x00"], t.VarBinaryType(4)) == (b"\x01\x00", b"\xff")
    assert compute_extremes([None], INT) == (None, None)


def test_nested_columns_are_not_checked() -> None:
    assert reasons(t.ArrayType(INT), [[1], [2]], [9], [9], 7) == []


FIELDS = [t.DataField(0, "a", INT), t.DataField(1, "s", STRING)]


def stats(low: list[object], high: list[object], nulls: list[int | None]) -> SimpleStats:
    types = [f.type for f in FIELDS]
    return SimpleStats(
        serialize_binary_row(low, types), serialize_binary_row(high, types), tuple(nulls)
    )


def test_simple_stats_over_several_columns() -> None:
    columns = [[1, 5, None], ["b", "a", "c"]]
    assert find_stats_disagreements(FIELDS, columns, stats([1, "a"], [5, "c"], [1, 0])) == []
    found = find_stats_disagreements(FIELDS, columns, stats([1, "a"], [6, "c"], [1, 0]))
    assert found == ["a: max 6 recorded, 5 found"]


def test_empty_stats_mean_none_recorded() -> None:
    assert find_stats_disagreements(FIELDS, [[1], ["x"]], EMPTY_STATS) == []


def test_stats_of_another_arity_do_not_decode() -> None:
    one_column = SimpleStats(
        serialize_binary_row([1], [INT]), serialize_binary_row([1], [INT]), (0,)
    )
    with pytest.raises(PaimonFormatError):
        find_stats_disagreements(FIELDS, [[1], ["x"]], one_column)
