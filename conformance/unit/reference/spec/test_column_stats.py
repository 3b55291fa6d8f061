"""Statistics rules that are pure: format limits and the ORC folds, by hand (the modes,
truncation and stats rows are checked with the writer in
``conformance/unit/reference/store/test_file_writer.py``)."""

from __future__ import annotations

import math

import pytest

from reference.errors import InvalidOptionError
from reference.spec import types as t
from reference.spec.column_stats import (
    ORC_MAX_STRING_BYTES,
    StatsKind,
    StatsMode,
    compute_orc_float_extremes,
    compute_orc_string_extremes,
    compute_stats_modes,
    is_parquet_binary_stats_dropped,
    is_parquet_int96,
    parse_stats_mode,
)


def test_parquet_limits() -> None:
    assert is_parquet_binary_stats_dropped(2048, 2048)
    assert not is_parquet_binary_stats_dropped(2047, 2048)
    assert is_parquet_int96(t.TimestampType(9))
    assert is_parquet_int96(t.LocalZonedTimestampType(7))
    assert not is_parquet_int96(t.TimestampType(6))
    assert not is_parquet_int96(t.BigIntType())


def test_orc_doubles_fold_from_the_first_value() -> None:
    assert compute_orc_float_extremes([1.0, -1.0, 3.0]) == (-1.0, 3.0)
    low, high = compute_orc_float_extremes([math.nan, 1.0])
    assert math.isnan(low) and math.isnan(high)
    assert compute_orc_float_extremes([1.0, math.nan, -1.0]) == (-1.0, 1.0)


def test_orc_strings_become_unknown_bounds_when_long() -> None:
    long_value = b"z" * (ORC_MAX_STRING_BYTES + 1)
    assert compute_orc_string_extremes([b"b", b"a", b"c"]) == ("a", "c")
    assert compute_orc_string_extremes([b"m", long_value]) == ("m", None)
    assert compute_orc_string_extremes([long_value]) == (None, None)
    assert compute_orc_string_extremes([]) == (None, None)


def test_modes_by_column() -> None:
    options = {"metadata.stats-mode": "counts", "fields.b.stats-mode": "Truncate(4)"}
    assert compute_stats_modes(options, ["a", "b"]) == [
        StatsMode(StatsKind.COUNTS),
        StatsMode(StatsKind.TRUNCATE, 4),
    ]
    with pytest.raises(InvalidOptionError):
        parse_stats_mode("most", "metadata.stats-mode")
