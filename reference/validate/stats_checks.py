"""Whether recorded statistics (SimpleStats) are true of the values they summarize.

Spec: ``docs/concepts/spec/manifest.md`` ("SimpleStats"). Java: ``stats/SimpleStats``,
``statistics/FullSimpleColStatsCollector``, ``TruncateSimpleColStatsCollector``,
``CountsSimpleColStatsCollector``, ``NoneSimpleColStatsCollector``, and the format extractors
(``format/parquet/ParquetSimpleStatsExtractor``) that read them from file footers.

Which columns get which stats mode differs between Java versions (``metadata.stats-mode``,
per-field modes, system fields at ``truncate(128)``, ``metadata.stats-keep-first-n-columns``,
dense stats), and footers may lack statistics (INT96 timestamps, NaN in float columns). So the
check does not recompute the exact bytes a writer would produce; it checks that what *is*
recorded is right, which is what readers rely on when they skip files:

* A null min, max or null count means "unknown" and is always acceptable.
* A recorded null count equals the number of nulls.
* A recorded min equals the smallest non-null value (Java order); a recorded max the largest.
  For strings and bytes a ``truncate(N)`` mode may shorten them: the min may be a prefix of
  the smallest value; the max may be a prefix with its last character incremented, so it is
  greater than the largest value and all but its last character are a prefix of it.
* Floats compare numerically (``-0.0`` equals ``0.0``: Parquet keeps either sign); a column
  holding NaN is not checked for min and max (writers disagree on NaN in statistics).
* Nested columns (array, map, row, multiset, vector), variants and blobs are not checked.
* Statistics over zero columns (``EMPTY_STATS``) mean "none recorded" and are accepted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cmp_to_key
from typing import Any

from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.compare import compare_values
from reference.spec.data import Value
from reference.spec.stats import SimpleStats, is_empty_stats

TRUNCATABLE_ROOTS = t.CHARACTER_ROOTS | t.BINARY_ROOTS
UNCHECKED_ROOTS = t.NESTED_ROOTS | {t.TypeRoot.VARIANT, t.TypeRoot.BLOB}
CHECKED_ROOTS = frozenset(root for root in t.TypeRoot if root not in UNCHECKED_ROOTS)


def is_checked_type(data_type: t.DataType) -> bool:
    return data_type.root in CHECKED_ROOTS


def is_nan(value: Value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def is_equal_value(data_type: t.DataType, left: Value, right: Value) -> bool:
    """Equality for statistics: floats numerically, everything else in Java order."""
    if data_type.root in t.FLOATING_ROOTS:
        return bool(left == right)
    return compare_values(data_type, left, right) == 0


def compute_extremes(values: Sequence[Value], data_type: t.DataType) -> tuple[Any, Any]:
    """``(min, max)`` of the non-null values in Java order, ``(None, None)`` if none.

    For the checked (atomic) types Python's own order is Java's, which is much faster: strings
    by code point equal their UTF-8 bytes in unsigned order, bytes compare unsigned, timestamps
    by (millisecond, nanos); floats differ only on NaN (never compared here) and on the sign of
    zero (compared numerically here)."""
    present = [v for v in values if v is not None]
    if not present:
        return None, None
    if is_checked_type(data_type):
        return min(present), max(present)
    key = cmp_to_key(lambda a, b: compare_values(data_type, a, b))
    return min(present, key=key), max(present, key=key)


def is_truncated_min(data_type: t.DataType, recorded: Value, actual: Value) -> bool:
    """A ``truncate(N)`` min: a proper prefix of the smallest string or byte value."""
    if data_type.root not in TRUNCATABLE_ROOTS:
        return False
    return bool(len(recorded) < len(actual) and actual[: len(recorded)] == recorded)


def is_truncated_max(data_type: t.DataType, recorded: Value, actual: Value) -> bool:
    """A ``truncate(N)`` max: shorter than the largest value and greater than it, which starts
    with all of it but its (incremented) last character or byte."""
    if data_type.root not in TRUNCATABLE_ROOTS or not recorded:
        return False
    stem = recorded[:-1]
    return bool(
        len(recorded) < len(actual)
        and actual[: len(stem)] == stem
        and compare_values(data_type, recorded, actual) > 0
    )


def is_true_bound(
    data_type: t.DataType,
    recorded: Value,
    actual: Value,
    is_truncated: Callable[[t.DataType, Value, Value], bool],
) -> bool:
    """A recorded min or max is the actual one, or its ``truncate(N)`` form."""
    return actual is not None and (
        is_equal_value(data_type, recorded, actual) or is_truncated(data_type, recorded, actual)
    )


def find_column_disagreements(
    name: str,
    data_type: t.DataType,
    values: Sequence[Value],
    *,
    recorded_min: Value,
    recorded_max: Value,
    recorded_nulls: int | None,
) -> list[str]:
    """Why the recorded stats of one column are not true of ``values`` (empty: they are)."""
    if not is_checked_type(data_type):
        return []
    reasons: list[str] = []
    nulls = sum(v is None for v in values)
    if recorded_nulls is not None and recorded_nulls != nulls:
        reasons.append(f"{name}: null count {recorded_nulls} recorded, {nulls} found")
    if any(is_nan(v) for v in values):
        return reasons
    actual_min, actual_max = compute_extremes(values, data_type)
    bounds = (
        ("min", recorded_min, actual_min, is_truncated_min),
        ("max", recorded_max, actual_max, is_truncated_max),
    )
    for bound, recorded, actual, is_truncated in bounds:
        if recorded is not None and not is_true_bound(data_type, recorded, actual, is_truncated):
            reasons.append(f"{name}: {bound} {recorded!r} recorded, {actual!r} found")
    return reasons


def find_stats_disagreements(
    fields: Sequence[t.DataField], columns: Sequence[Sequence[Value]], stats: SimpleStats
) -> list[str]:
    """Why ``stats`` over ``fields`` is not true of ``columns`` (one value list per field).

    Raises :class:`reference.errors.PaimonFormatError` when the stats rows do not decode with
    the fields' types (a wrong arity included).
    """
    if is_empty_stats(stats):
        return []
    types = [f.type for f in fields]
    minimums = deserialize_binary_row(stats.min_values, types)
    maximums = deserialize_binary_row(stats.max_values, types)
    if len(stats.null_counts) != len(fields):
        return [f"{len(stats.null_counts)} null counts for {len(fields)} columns"]
    reasons: list[str] = []
    for index, data_field in enumerate(fields):
        reasons.extend(
            find_column_disagreements(
                data_field.name,
                data_field.type,
                columns[index],
                recorded_min=minimums[index],
                recorded_max=maximums[index],
                recorded_nulls=stats.null_counts[index],
            )
        )
    return reasons


def check_stats_arity(fields: Sequence[t.DataField], stats: SimpleStats) -> list[str]:
    """Why ``stats`` cannot be stats over ``fields`` (arity of its rows and null counts)."""
    if is_empty_stats(stats):
        return []
    types = [f.type for f in fields]
    deserialize_binary_row(stats.min_values, types)
    deserialize_binary_row(stats.max_values, types)
    if len(stats.null_counts) != len(fields):
        return [f"{len(stats.null_counts)} null counts for {len(fields)} columns"]
    return []
