"""Column statistics of a data file: modes, format rules and the SimpleStats encoding.

Spec: ``docs/concepts/spec/manifest.md`` (the data file meta and its statistics). Java (0.9.0):
``statistics/*SimpleColStatsCollector``, ``stats/SimpleStatsConverter``,
``utils/StatsCollectorFactories``, ``format/parquet/ParquetSimpleStatsExtractor``,
``format/orc/filter/OrcSimpleStatsExtractor``.

The pure part of the rules ``reference/store/file_writer.py`` lists (its rules 1-3), shared by
every writer that wants Java's metadata (how the raw min/max are found over stored values is
each writer's own business):

1. *Statistics mode.* Each physical column has a mode: ``fields.<column>.stats-mode`` if set
   (the column's physical name, so ``_KEY_k`` for a key column), else ``metadata.stats-mode``
   (default ``truncate(16)``). ``none`` keeps nothing, ``counts`` only the null count, ``full``
   min, max and null count, ``truncate(n)`` like ``full`` with strings cut to ``n`` code points
   (min: the prefix; max: the prefix with its last incrementable code point incremented; when
   none can be the column keeps only its null count).
2. *Format limits* on raw statistics: Parquet drops a binary column's statistics when min and
   max take 4096 bytes or more together (the null count then reads as -1) and keeps no min/max
   for INT96 timestamps (precision > 6); ORC folds doubles with IEEE comparisons from the first
   value, and a string min or max longer than 1024 UTF-8 bytes becomes a bound that readers
   treat as unknown; types whose Java values are not ``Comparable`` never get a min/max.
3. *Stats rows.* The min row and the max row are serialized BinaryRows over the columns made
   nullable, as 0.9's ``InternalRowSerializer`` writes them (``NullLayout.ZERO_SLOT``), next to
   the null counts (Java ``SimpleStatsConverter.toBinary``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from reference.errors import InvalidOptionError
from reference.spec import types as t
from reference.spec.binary_row import NullLayout, serialize_binary_row
from reference.spec.data import Row, Value
from reference.spec.options import FIELDS_PREFIX
from reference.spec.options import parse_stats_mode as parse_stats_mode_text
from reference.spec.stats import EMPTY_STATS, SimpleStats

# --------------------------------------------------------------------------------------------
# Statistics modes (rule 1)
# --------------------------------------------------------------------------------------------

STATS_MODE_OPTION = "metadata.stats-mode"
DEFAULT_STATS_MODE = "truncate(16)"
FIELD_STATS_MODE_SUFFIX = "stats-mode"


class StatsKind(Enum):
    """Java's ``SimpleColStatsCollector`` kinds."""

    NONE = "none"
    COUNTS = "counts"
    TRUNCATE = "truncate"
    FULL = "full"


TRUNCATE_PREFIX = "truncate("


@dataclass(frozen=True)
class StatsMode:
    """One column's statistics mode; ``length`` is the ``n`` of ``truncate(n)``."""

    kind: StatsKind
    length: int = 0


def parse_stats_mode(text: str, option: str) -> StatsMode:
    """Parse a mode (case-insensitive); :class:`InvalidOptionError` names ``option``."""
    try:
        mode = parse_stats_mode_text(text)
    except ValueError as error:
        raise InvalidOptionError(option, text, str(error)) from None
    if mode.startswith(TRUNCATE_PREFIX):
        return StatsMode(StatsKind.TRUNCATE, int(mode[len(TRUNCATE_PREFIX) : -1]))
    return StatsMode(StatsKind(mode))


def compute_stats_modes(options: Mapping[str, str], column_names: Sequence[str]) -> list[StatsMode]:
    """The mode of each physical column (Java ``StatsCollectorFactories.createStatsFactories``)."""
    default = options.get(STATS_MODE_OPTION, DEFAULT_STATS_MODE)
    modes = []
    for name in column_names:
        key = f"{FIELDS_PREFIX}{name}.{FIELD_STATS_MODE_SUFFIX}"
        if key in options:
            modes.append(parse_stats_mode(options[key], key))
        else:
            modes.append(parse_stats_mode(default, STATS_MODE_OPTION))
    return modes


MAX_CODE_POINT = 0x10FFFF
SURROGATES = range(0xD800, 0xE000)
JAVA_UNENCODABLE_REPLACEMENT = "?"
"""Java's UTF-8 encoder writes a lone surrogate as ``?``."""


def compute_truncated_min(value: Value, length: int) -> Value:
    """A string's first ``length`` code points (a value not above it); others unchanged."""
    return value[:length] if isinstance(value, str) else value


def compute_truncated_max(value: Value, length: int) -> Value:
    """A value not below ``value`` whose string form has at most ``length`` code points.

    A string longer than ``length`` is cut and then the last code point that can be
    incremented is incremented (and everything after it dropped); ``None`` when every code
    point is U+10FFFF. Java appends the incremented code point with ``appendCodePoint``; when it
    lands on a surrogate (from U+D7FF) Java's encoder writes ``?``, which is copied here.
    Java: ``TruncateSimpleColStatsCollector.truncateMax``.
    """
    if not isinstance(value, str) or len(value) <= length:
        return value
    prefix = value[:length]
    for position in range(length - 1, -1, -1):
        code_point = ord(prefix[position]) + 1
        if code_point <= MAX_CODE_POINT:
            char = JAVA_UNENCODABLE_REPLACEMENT if code_point in SURROGATES else chr(code_point)
            return prefix[:position] + char
    return None


@dataclass(frozen=True)
class ColumnStats:
    """Min, max and null count of one column (each may be unknown: ``None``)."""

    min: Value
    max: Value
    null_count: int | None


NO_STATS = ColumnStats(None, None, None)


def apply_stats_mode(stats: ColumnStats | None, mode: StatsMode) -> ColumnStats:
    """Rule 1 on a column's raw statistics (``None``: the format kept none); Java
    ``SimpleColStatsCollector.convert``."""
    if stats is None or mode.kind is StatsKind.NONE:
        return NO_STATS
    if mode.kind is StatsKind.COUNTS:
        return ColumnStats(None, None, stats.null_count)
    if mode.kind is StatsKind.FULL:
        return stats
    largest = compute_truncated_max(stats.max, mode.length)
    if largest is None:
        return ColumnStats(None, None, stats.null_count)
    return ColumnStats(compute_truncated_min(stats.min, mode.length), largest, stats.null_count)


# --------------------------------------------------------------------------------------------
# Format limits (rule 2)
# --------------------------------------------------------------------------------------------

NOT_COMPARABLE_ROOTS = t.NESTED_ROOTS | t.BINARY_ROOTS | {t.TypeRoot.VARIANT, t.TypeRoot.BLOB}
"""Types whose Java internal values are not ``Comparable`` (no min/max from the collector)."""
PARQUET_MAX_STATS_BYTES = 4096
"""parquet-mr writes a binary column's min/max only when their sizes sum to less than this."""
PARQUET_UNKNOWN_NULL_COUNT = -1
"""What Java reads as the null count of a Parquet column whose statistics were dropped."""
ORC_MAX_STRING_BYTES = 1024
"""ORC records a string min/max longer than this as a truncated bound only."""
INT96_MIN_PRECISION = 7
"""Timestamps of this precision or more are Parquet INT96 (no statistics)."""
UTF8_CONTINUATION_MASK = 0xC0
UTF8_CONTINUATION_TAG = 0x80


def is_parquet_binary_stats_dropped(min_size: int, max_size: int) -> bool:
    """Whether parquet-mr drops a binary column's statistics, given the byte sizes of its min
    and max (Java then reads no min/max and a null count of -1)."""
    return min_size + max_size >= PARQUET_MAX_STATS_BYTES


def is_parquet_int96(data_type: t.DataType) -> bool:
    """Whether the column is stored as INT96 in Parquet (no min/max)."""
    return (
        data_type.root in t.TIMESTAMP_ROOTS
        and t.timestamp_precision(data_type) >= INT96_MIN_PRECISION
    )


def compute_orc_float_extremes(values: Sequence[float]) -> tuple[float, float]:
    """ORC's double statistics over the non-null values: the first starts both, a later value
    replaces the min when smaller or else the max when larger (IEEE comparisons, so a NaN only
    sticks when it comes first). Java: ORC ``DoubleStatisticsImpl``."""
    smallest = largest = values[0]
    for value in values[1:]:
        if value < smallest:
            smallest = value
        elif value > largest:
            largest = value
    return smallest, largest


def _orc_lower_bound(data: bytes) -> bytes:
    """The longest prefix of at most 1024 bytes that ends on a character boundary."""
    cut = ORC_MAX_STRING_BYTES
    while cut > 0 and (data[cut] & UTF8_CONTINUATION_MASK) == UTF8_CONTINUATION_TAG:
        cut -= 1
    return data[:cut]


def _orc_upper_bound(data: bytes) -> bytes:
    """The lower bound with its last character incremented (a value above ``data``)."""
    text = _orc_lower_bound(data).decode("utf-8")
    return (text[:-1] + chr(min(ord(text[-1]) + 1, MAX_CODE_POINT))).encode("utf-8")


def compute_orc_string_extremes(values: Iterable[bytes]) -> tuple[str | None, str | None]:
    """ORC's string min and max over the non-null UTF-8 values (``None``: unknown). Values are
    compared with the current min and max, which become bounds (unknown to readers) once a
    value longer than 1024 bytes set them. Java: ORC ``StringStatisticsImpl``."""
    lowest: bytes | None = None
    highest = b""
    lowest_is_bound = highest_is_bound = False
    for data in values:
        is_long = len(data) > ORC_MAX_STRING_BYTES
        if lowest is None:
            lowest = _orc_lower_bound(data) if is_long else data
            highest = _orc_upper_bound(data) if is_long else data
            lowest_is_bound = highest_is_bound = is_long
        elif lowest > data:
            lowest, lowest_is_bound = (_orc_lower_bound(data) if is_long else data), is_long
        elif highest < data:
            highest, highest_is_bound = (_orc_upper_bound(data) if is_long else data), is_long
    smallest = None if lowest is None or lowest_is_bound else lowest.decode("utf-8")
    largest = None if lowest is None or highest_is_bound else highest.decode("utf-8")
    return smallest, largest


# --------------------------------------------------------------------------------------------
# Stats rows (rule 3)
# --------------------------------------------------------------------------------------------


def encode_simple_stats(stats: Sequence[ColumnStats], types: Sequence[t.DataType]) -> SimpleStats:
    """Rule 3 (Java ``SimpleStatsConverter.toBinary``)."""
    if not types:
        return EMPTY_STATS
    nullable = [data_type.copy(True) for data_type in types]
    layout_0_9 = NullLayout.ZERO_SLOT
    return SimpleStats(
        serialize_binary_row([s.min for s in stats], nullable, null_layout=layout_0_9),
        serialize_binary_row([s.max for s in stats], nullable, null_layout=layout_0_9),
        tuple(s.null_count for s in stats),
    )


def encode_key(key: Row, types: Sequence[t.DataType]) -> bytes:
    """A min/max key as 0.9 stores it (``InternalRowSerializer``, serialized form)."""
    return serialize_binary_row(key, types, null_layout=NullLayout.ZERO_SLOT)
