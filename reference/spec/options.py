"""Table options: every key of Java's ``CoreOptions``, its value grammar, default and checks.

Spec: the option tables of the Paimon docs (``docs/docs/maintenance/configurations.mdx``, built
from ``docs/generated/core_configuration.html``, which is generated from the Java class) and the pages that use them (merge engines, changelog
producers, compaction, expiration, scan modes).
Java: ``org.apache.paimon.CoreOptions`` (``paimon-api`` on main, ``paimon-common`` in 0.9.0),
``org.apache.paimon.options.OptionsUtils`` (how text becomes a typed value),
``org.apache.paimon.options.MemorySize``, ``org.apache.paimon.utils.TimeUtils`` and
``org.apache.paimon.schema.SchemaValidation`` (the checks that look at options only).

Table options are a string-to-string map stored in the schema file. A reader turns the text of an
option into a typed value with these rules (all from ``OptionsUtils.convertValue``):

* boolean: ``true`` or ``false``, case-insensitive, nothing else (no trimming);
* int / long: an optional sign and ASCII digits, within the Java type's range (no trimming);
* float / double: a decimal or exponent literal, ``NaN`` or ``Infinity``, optionally ending in
  ``f``/``d``, with surrounding whitespace allowed;
* memory size: a non-negative integer and an optional unit -- ``b``/``bytes``, ``k``/``kb``/
  ``kibibytes``, ``m``/``mb``/``mebibytes``, ``g``/``gb``/``gibibytes``, ``t``/``tb``/
  ``tebibytes`` (case-insensitive, powers of 1024, blanks allowed around it); no unit means bytes;
  the product must fit in a signed 64-bit integer;
* duration: a non-negative integer and an optional unit -- ``d``/``day``/``days``, ``h``/
  ``hour``/``hours``, ``min``/``m``/``minute``/``minutes``, ``s``/``sec``/``secs``/``second``/
  ``seconds``, ``ms``/``milli``/``millis``/``millisecond``/``milliseconds``, ``µs``/``micro``/
  ``micros``/``microsecond``/``microseconds``, ``ns``/``nano``/``nanos``/``nanosecond``/
  ``nanoseconds``; no unit means milliseconds;
* enum: the value's text, compared case-insensitively (``PARTIAL-UPDATE`` selects
  ``partial-update``, but ``partial_update`` selects nothing);
* map: ``k1:v1,k2:v2`` where an item may be quoted with ``'`` or ``"`` (a doubled quote escapes
  itself) to hold ``,`` or ``:``;
* list: comma-separated names, split the way Java's ``String.split(",")`` does.

An option may also be read under *fallback keys* (older spellings), tried in order after the key.
Keys nobody knows are allowed: engines keep their own options in the same map.

Versions: the registry lists every option of main (2026) and every option of 0.9.0 (the Java
oracle jar). :attr:`OptionSpec.availability` says where a key exists; :data:`DEFAULTS_0_9` lists
the defaults 0.9.0 used where they differ from main; :data:`IMMUTABLE_0_9` the keys 0.9.0 would
not let ``ALTER TABLE`` change. :func:`validate_options` rejects only what *both* versions reject,
so a table valid for either Java version passes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from reference.errors import InvalidOptionError
from reference.spec.aggregate_kind import AGGREGATE_FUNCTION_NAMES
from reference.spec.java_numbers import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN
from reference.spec.units import (
    NANOS_PER_MICRO,
    NANOS_PER_MILLI,
    NANOS_PER_SECOND,
    SECONDS_PER_DAY,
    SECONDS_PER_HOUR,
    SECONDS_PER_MINUTE,
)

# ruff: noqa: E501 -- the option registry below is a table, one option per line.

# --------------------------------------------------------------------------------------------
# Value grammar: booleans, integers, floats
# --------------------------------------------------------------------------------------------


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?"
)
JAVA_WHITESPACE = "".join(chr(c) for c in range(0x21))
"""Characters Java's ``String.trim`` removes: every code point up to and including space."""


def parse_boolean(text: str) -> bool:
    """``true``/``false`` in any case (Java ``OptionsUtils.convertToBoolean``)."""
    lowered = text.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    raise ValueError("expected true or false (case-insensitive)")


def parse_integer(text: str, low: int, high: int) -> int:
    """An optionally signed run of ASCII digits within ``[low, high]`` (Java ``parseInt``)."""
    if _INTEGER_TEXT.fullmatch(text) is None:
        raise ValueError("expected an integer")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"out of range [{low}, {high}]")
    return value


def parse_int(text: str) -> int:
    return parse_integer(text, INT_MIN, INT_MAX)


def parse_long(text: str) -> int:
    return parse_integer(text, LONG_MIN, LONG_MAX)


def parse_double(text: str) -> float:
    """A Java floating literal (``Double.parseDouble``); hexadecimal literals are not accepted."""
    stripped = text.strip(JAVA_WHITESPACE)
    if _FLOAT_TEXT.fullmatch(stripped) is None:
        raise ValueError("expected a number")
    body = stripped.rstrip("fFdD") if stripped[-1] in "fFdD" else stripped
    return float(body.replace("Infinity", "inf"))


# --------------------------------------------------------------------------------------------
# Value grammar: memory sizes and durations
# --------------------------------------------------------------------------------------------

KIBI = 1024
MEMORY_UNITS: Mapping[str, int] = {
    "b": 1,
    "bytes": 1,
    "k": KIBI,
    "kb": KIBI,
    "kibibytes": KIBI,
    "m": KIBI**2,
    "mb": KIBI**2,
    "mebibytes": KIBI**2,
    "g": KIBI**3,
    "gb": KIBI**3,
    "gibibytes": KIBI**3,
    "t": KIBI**4,
    "tb": KIBI**4,
    "tebibytes": KIBI**4,
}
"""Unit labels of ``MemorySize.MemoryUnit`` and their multipliers."""


DURATION_UNITS_IN_SECONDS: Mapping[str, int] = {
    "d": SECONDS_PER_DAY,
    "day": SECONDS_PER_DAY,
    "days": SECONDS_PER_DAY,
    "h": SECONDS_PER_HOUR,
    "hour": SECONDS_PER_HOUR,
    "hours": SECONDS_PER_HOUR,
    "min": SECONDS_PER_MINUTE,
    "m": SECONDS_PER_MINUTE,
    "minute": SECONDS_PER_MINUTE,
    "minutes": SECONDS_PER_MINUTE,
    "s": 1,
    "sec": 1,
    "secs": 1,
    "second": 1,
    "seconds": 1,
}
"""Whole-second units of ``TimeUtils``; Java multiplies with overflow checks, so the seconds
must fit in a signed 64-bit integer."""

DURATION_UNITS_BELOW_SECOND: Mapping[str, int] = {
    "ms": NANOS_PER_MILLI,
    "milli": NANOS_PER_MILLI,
    "millis": NANOS_PER_MILLI,
    "millisecond": NANOS_PER_MILLI,
    "milliseconds": NANOS_PER_MILLI,
    "µs": NANOS_PER_MICRO,
    "micro": NANOS_PER_MICRO,
    "micros": NANOS_PER_MICRO,
    "microsecond": NANOS_PER_MICRO,
    "microseconds": NANOS_PER_MICRO,
    "ns": 1,
    "nano": 1,
    "nanos": 1,
    "nanosecond": 1,
    "nanoseconds": 1,
}
"""Sub-second units of ``TimeUtils``, in nanoseconds."""


def _split_number_and_unit(text: str) -> tuple[int, str]:
    """Leading ASCII digits and the rest, trimmed and lower-cased (``MemorySize`` and
    ``TimeUtils`` share this scan)."""
    stripped = text.strip(JAVA_WHITESPACE)
    if not stripped:
        raise ValueError("empty value")
    position = 0
    while position < len(stripped) and "0" <= stripped[position] <= "9":
        position += 1
    digits = stripped[:position]
    if not digits:
        raise ValueError("does not start with a number")
    value = int(digits)
    if value > LONG_MAX:
        raise ValueError("number does not fit in 64 bits")
    return value, stripped[position:].strip(JAVA_WHITESPACE).lower()


def parse_memory_size(text: str) -> int:
    """A memory size such as ``128 mb`` in bytes (Java ``MemorySize.parse``)."""
    value, unit = _split_number_and_unit(text)
    if unit and unit not in MEMORY_UNITS:
        raise ValueError(f"unknown memory unit {unit!r}")
    size = value * MEMORY_UNITS.get(unit, 1)
    if size > LONG_MAX:
        raise ValueError("size does not fit in 64 bits")
    return size


def parse_duration(text: str) -> int:
    """A duration such as ``1 h`` in **nanoseconds** (Java ``TimeUtils.parseDuration``)."""
    value, unit = _split_number_and_unit(text)
    if not unit:
        return value * NANOS_PER_MILLI
    if unit in DURATION_UNITS_BELOW_SECOND:
        return value * DURATION_UNITS_BELOW_SECOND[unit]
    if unit not in DURATION_UNITS_IN_SECONDS:
        raise ValueError(f"unknown time unit {unit!r}")
    seconds = value * DURATION_UNITS_IN_SECONDS[unit]
    if seconds > LONG_MAX:
        raise ValueError("duration does not fit in 64-bit seconds")
    return seconds * NANOS_PER_SECOND


def format_memory_size(size: int) -> str:
    """The shortest exact text of a byte count, as Java's ``MemorySize.toString`` prints it."""
    for unit, multiplier in (("tb", KIBI**4), ("gb", KIBI**3), ("mb", KIBI**2), ("kb", KIBI)):
        if size and size % multiplier == 0:
            return f"{size // multiplier} {unit}"
    return f"{size} bytes"


# --------------------------------------------------------------------------------------------
# Value grammar: lists and maps
# --------------------------------------------------------------------------------------------


def split_java(text: str, separator: str = ",") -> list[str]:
    """Java's ``String.split`` with a literal separator: trailing empty pieces are dropped."""
    pieces = text.split(separator)
    while len(pieces) > 1 and pieces[-1] == "":
        pieces.pop()
    if pieces == [""] and text:
        return []
    return pieces


def parse_name_list(text: str) -> list[str]:
    """Comma-separated names with blanks around each removed (``sequence.field`` style)."""
    return [piece.strip(JAVA_WHITESPACE) for piece in split_java(text)]


def _tokenize_escaped(text: str, delimiter: str) -> list[tuple[str, str]]:
    """Tokens ``(kind, text)`` with kind ``quoted``, ``plain`` or ``delimiter``."""
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char in "'\"":
            value, position = _consume_quoted(text, position)
            tokens.append(("quoted", value))
        elif char == delimiter:
            tokens.append(("delimiter", char))
            position += 1
        elif char.isspace():
            position += 1
        else:
            end = text.find(delimiter, position)
            end = len(text) if end < 0 else end
            tokens.append(("plain", text[position:end].strip()))
            position = end
    return tokens


def _consume_quoted(text: str, start: int) -> tuple[str, int]:
    quote = text[start]
    chars: list[str] = []
    position = start + 1
    while position < len(text):
        if text[position] == quote:
            if position + 1 < len(text) and text[position + 1] == quote:
                chars.append(quote)
                position += 2
                continue
            return "".join(chars), position + 1
        chars.append(text[position])
        position += 1
    raise ValueError("quote is not closed")


def split_escaped(text: str, delimiter: str) -> list[str]:
    """Split on ``delimiter`` outside ``'…'``/``"…"`` quotes (Java ``StructuredOptionsSplitter``).

    Unquoted pieces are trimmed; a doubled quote inside quotes stands for itself; two adjacent
    delimiters make an empty piece; a quoted piece followed by anything but the delimiter, or an
    unclosed quote, is an error.
    """
    tokens = _tokenize_escaped(text, delimiter)
    pieces: list[str] = []
    for index, (kind, value) in enumerate(tokens):
        following = tokens[index + 1][0] if index + 1 < len(tokens) else None
        if kind == "quoted" and following not in (None, "delimiter"):
            raise ValueError("a quoted item must be followed by the delimiter")
        if kind != "delimiter":
            pieces.append(value)
        elif following == "delimiter":
            pieces.append("")
    return pieces


def parse_map(text: str) -> dict[str, str]:
    """A ``k1:v1,k2:v2`` map (Java ``OptionsUtils.convertToProperties``)."""
    result: dict[str, str] = {}
    for item in split_escaped(text, ","):
        pair = split_escaped(item, ":")
        if len(pair) != 2:
            raise ValueError(f"map item {item!r} is not a key:value pair")
        result.setdefault(pair[0], pair[1])
    return result


# --------------------------------------------------------------------------------------------
# Enumerated values (each member's value is the text Java prints and accepts)
# --------------------------------------------------------------------------------------------


class TableType(Enum):
    TABLE = "table"
    FORMAT_TABLE = "format-table"
    MATERIALIZED_TABLE = "materialized-table"
    OBJECT_TABLE = "object-table"
    LANCE_TABLE = "lance-table"
    ICEBERG_TABLE = "iceberg-table"


class BucketFunctionType(Enum):
    """How a bucket key row becomes a bucket number (main only; 0.9 always hashes)."""

    DEFAULT = "default"
    MOD = "mod"
    HIVE = "hive"


class ExternalPathStrategy(Enum):
    NONE = "none"
    SPECIFIC_FS = "specific-fs"
    ROUND_ROBIN = "round-robin"
    ENTROPY_INJECT = "entropy-inject"
    WEIGHTED = "weight-robin"


class MergeEngine(Enum):
    """How rows with the same primary key combine (Java ``CoreOptions.MergeEngine``)."""

    DEDUPLICATE = "deduplicate"
    PARTIAL_UPDATE = "partial-update"
    AGGREGATE = "aggregation"
    FIRST_ROW = "first-row"


class ChangelogProducer(Enum):
    """Where a primary-key table's changelog files come from."""

    NONE = "none"
    INPUT = "input"
    FULL_COMPACTION = "full-compaction"
    LOOKUP = "lookup"


class SortEngine(Enum):
    MIN_HEAP = "min-heap"
    LOSER_TREE = "loser-tree"


class SortOrder(Enum):
    """``sequence.field.sort-order`` (main only; 0.9.0 always ascends)."""

    ASCENDING = "ascending"
    DESCENDING = "descending"


class SequenceNumberInitMode(Enum):
    SCAN = "scan"
    SNAPSHOT = "snapshot"


class StartupMode(Enum):
    """``scan.mode``: where a read starts. ``DEFAULT`` is resolved from the other scan options;
    ``LATEST_DELTA`` and ``FROM_CREATION_TIMESTAMP`` exist on main only."""

    DEFAULT = "default"
    LATEST_FULL = "latest-full"
    FULL = "full"
    LATEST = "latest"
    LATEST_DELTA = "latest-delta"
    COMPACTED_FULL = "compacted-full"
    FROM_TIMESTAMP = "from-timestamp"
    FROM_CREATION_TIMESTAMP = "from-creation-timestamp"
    FROM_FILE_CREATION_TIME = "from-file-creation-time"
    FROM_SNAPSHOT = "from-snapshot"
    FROM_SNAPSHOT_FULL = "from-snapshot-full"
    INCREMENTAL = "incremental"


class StreamScanMode(Enum):
    NONE = "none"
    COMPACT_BUCKET_TABLE = "compact-bucket-table"
    FILE_MONITOR = "file-monitor"


class BatchScanMode(Enum):
    NONE = "none"
    COMPACT = "compact"


class IncrementalBetweenScanMode(Enum):
    """``DIFF`` exists on main only."""

    AUTO = "auto"
    DELTA = "delta"
    CHANGELOG = "changelog"
    DIFF = "diff"


class ExpireExecutionMode(Enum):
    SYNC = "sync"
    ASYNC = "async"


class ConsumerMode(Enum):
    EXACTLY_ONCE = "exactly-once"
    AT_LEAST_ONCE = "at-least-once"


class PartitionExpireStrategy(Enum):
    """0.9.0 accepts only these; main takes any string (custom strategies by name)."""

    VALUES_TIME = "values-time"
    UPDATE_TIME = "update-time"


class PartitionSinkStrategy(Enum):
    NONE = "NONE"
    HASH = "HASH"
    PARTITION_DYNAMIC = "PARTITION_DYNAMIC"


class TagCreationMode(Enum):
    NONE = "none"
    PROCESS_TIME = "process-time"
    WATERMARK = "watermark"
    BATCH = "batch"


class TagCreationPeriod(Enum):
    DAILY = "daily"
    HOURLY = "hourly"
    TWO_HOURS = "two-hours"


class TagPeriodFormatter(Enum):
    """``WITHOUT_DASHES_AND_SPACES`` exists on main only."""

    WITH_DASHES = "with_dashes"
    WITHOUT_DASHES = "without_dashes"
    WITHOUT_DASHES_AND_SPACES = "without_dashes_and_spaces"


class RangeStrategy(Enum):
    SIZE = "SIZE"
    QUANTITY = "QUANTITY"


class LookupCompactMode(Enum):
    RADICAL = "RADICAL"
    GENTLE = "GENTLE"


class LookupLocalFileType(Enum):
    """0.9.0 only."""

    SORT = "sort"
    HASH = "hash"


class LogConsistency(Enum):
    """0.9.0 only (log systems were removed later)."""

    TRANSACTIONAL = "transactional"
    EVENTUAL = "eventual"


class LogChangelogMode(Enum):
    """0.9.0 only."""

    AUTO = "auto"
    ALL = "all"
    UPSERT = "upsert"


class StreamingReadMode(Enum):
    """0.9.0 only."""

    LOG = "log"
    FILE = "file"


class TimeFieldType(Enum):
    """0.9.0 only: how ``record-level.time-field`` is interpreted."""

    SECONDS_INT = "seconds-int"
    MILLIS_LONG = "millis-long"


class VariantShreddingInferenceMode(Enum):
    PER_FILE = "per-file"
    ADAPTIVE = "adaptive"


class ClusteringIncrementalMode(Enum):
    GLOBAL_SORT = "global-sort"
    LOCAL_SORT = "local-sort"


class GlobalIndexColumnUpdateAction(Enum):
    THROW_ERROR = "THROW_ERROR"
    DROP_PARTITION_INDEX = "DROP_PARTITION_INDEX"
    IGNORE = "IGNORE"


class GlobalIndexSearchMode(Enum):
    FAST = "fast"
    FULL = "full"
    DETAIL = "detail"


class FormatTableImplementation(Enum):
    PAIMON = "paimon"
    ENGINE = "engine"


class MaterializedTableIntervalFreshnessTimeUnit(Enum):
    SECOND = "SECOND"
    MINUTE = "MINUTE"
    HOUR = "HOUR"
    DAY = "DAY"


class MaterializedTableRefreshMode(Enum):
    CONTINUOUS = "CONTINUOUS"
    FULL = "FULL"
    AUTOMATIC = "AUTOMATIC"


class MaterializedTableRefreshStatus(Enum):
    INITIALIZING = "INITIALIZING"
    ACTIVATED = "ACTIVATED"
    SUSPENDED = "SUSPENDED"


class NestedKeyNullStrategy(Enum):
    """``fields.<f>.nested-key-null-strategy`` (main only): a nested key with a null field."""

    MERGE = "merge"
    IGNORE = "ignore"
    ERROR = "error"


class MapStorageLayout(Enum):
    DEFAULT = "default"
    SHARED_SHREDDING = "shared-shredding"


class MapSharedShreddingColumnPlacementPolicy(Enum):
    PLAIN = "plain"
    SEQUENTIAL = "sequential"
    LRU = "lru"


class PartitionMarkDoneAction(Enum):
    """Items of the comma-separated ``partition.mark-done-action`` list."""

    SUCCESS_FILE = "success-file"
    DONE_PARTITION = "done-partition"
    MARK_EVENT = "mark-event"
    HTTP_REPORT = "http-report"
    CUSTOM = "custom"


E = TypeVar("E", bound=Enum)
T = TypeVar("T")


def parse_enum(enum_type: type[E], text: str) -> E:
    """The member whose text equals ``text`` ignoring case (Java ``convertToEnum``)."""
    wanted = text.upper()
    for member in enum_type:
        if str(member.value).upper() == wanted:
            return member
    allowed = ", ".join(str(m.value) for m in enum_type)
    raise ValueError(f"expected one of [{allowed}]")


# --------------------------------------------------------------------------------------------
# Other closed vocabularies
# --------------------------------------------------------------------------------------------

DATA_FILE_FORMATS = frozenset({"orc", "parquet", "avro", "csv", "json", "text", "lance"})
"""``file.format`` values a Java release can open (orc/parquet/avro for tables; the rest for
format tables or main-only formats). Compared in lower case, as ``normalizeFileFormat`` does."""

MANIFEST_FORMATS = frozenset({"avro", "orc", "parquet"})
"""``manifest.format`` values 0.9.0 can use (main always writes Avro manifests)."""

STATS_MODE_NONE = "none"
STATS_MODE_COUNTS = "counts"
STATS_MODE_FULL = "full"
_STATS_MODE_TRUNCATE = re.compile(r"TRUNCATE\(([0-9]+)\)")

AGGREGATE_FUNCTIONS = AGGREGATE_FUNCTION_NAMES
"""Names ``fields.<f>.aggregate-function`` accepts in 0.9.0 or main (case-sensitive);
``first_not_null_value`` is the legacy spelling of ``first_non_null_value``;
``merge_map_with_keytime`` and ``nested_partial_update`` are main only."""


def parse_stats_mode(text: str) -> str:
    """A metadata stats mode: ``none``, ``counts``, ``full`` or ``truncate(N)`` with ``N > 0``,
    case-insensitive; returned in lower case (Java ``SimpleColStatsCollector.from``)."""
    upper = text.upper()
    if upper in ("NONE", "COUNTS", "FULL"):
        return upper.lower()
    match = _STATS_MODE_TRUNCATE.fullmatch(upper)
    if match is None:
        raise ValueError("expected none, counts, full or truncate(N)")
    length = parse_int(match.group(1))
    if length <= 0:
        raise ValueError("the truncate length must be positive")
    return f"truncate({length})"


def stats_truncate_length(mode: str) -> int | None:
    """The ``N`` of a ``truncate(N)`` stats mode, ``None`` for the other modes."""
    match = _STATS_MODE_TRUNCATE.fullmatch(mode.upper())
    return None if match is None else int(match.group(1))


def parse_file_format(text: str) -> str:
    lowered = text.lower()
    if lowered not in DATA_FILE_FORMATS:
        raise ValueError(f"expected one of {sorted(DATA_FILE_FORMATS)}")
    return lowered


def parse_manifest_format(text: str) -> str:
    lowered = text.lower()
    if lowered not in MANIFEST_FORMATS:
        raise ValueError(f"expected one of {sorted(MANIFEST_FORMATS)}")
    return lowered


# --------------------------------------------------------------------------------------------
# The option record
# --------------------------------------------------------------------------------------------


class OptionType(Enum):
    """The grammar of an option's text (see the module docstring)."""

    BOOLEAN = "boolean"
    INT = "int"
    LONG = "long"
    FLOAT = "float"
    DOUBLE = "double"
    STRING = "string"
    LIST = "list"
    MEMORY_SIZE = "memory size"
    DURATION = "duration"
    ENUM = "enum"
    MAP = "map"


class Availability(Enum):
    """Which of the two Java versions we track know the key."""

    BOTH = "0.9.0 and main"
    MAIN_ONLY = "main only"
    REMOVED_AFTER_0_9 = "0.9.0 only (removed on main)"


@dataclass(frozen=True)
class OptionSpec:
    """One table option. ``default`` is the text Java would use when the key is absent (``None``:
    no default, or one derived from other options as the description says)."""

    key: str
    kind: OptionType
    default: str | None
    description: str
    enum: type[Enum] | None = None
    fallback_keys: tuple[str, ...] = ()
    immutable: bool = False
    availability: Availability = Availability.BOTH
    minimum: int | None = None


@dataclass(frozen=True)
class OptionPattern:
    """A family of keys with a variable part, e.g. ``fields.<field>.aggregate-function``."""

    template: str
    kind: OptionType
    default: str | None
    description: str
    enum: type[Enum] | None = None
    availability: Availability = Availability.BOTH

    @property
    def regex(self) -> re.Pattern[str]:
        parts = re.split(r"(<[a-z-]+>)", self.template)
        body = "".join("([^.]+)" if p.startswith("<") else re.escape(p) for p in parts)
        return re.compile(body)


# Short names for the registry table below.
BOOL = OptionType.BOOLEAN
INT = OptionType.INT
LONG = OptionType.LONG
FLOAT = OptionType.FLOAT
DOUBLE = OptionType.DOUBLE
STR = OptionType.STRING
LIST = OptionType.LIST
MEM = OptionType.MEMORY_SIZE
DUR = OptionType.DURATION
ENUM = OptionType.ENUM
MAP = OptionType.MAP
MAIN = Availability.MAIN_ONLY
OLD = Availability.REMOVED_AFTER_0_9


def _opt(
    key: str,
    kind: OptionType,
    default: str | None,
    description: str,
    enum: type[Enum] | None = None,
    *,
    fallback: tuple[str, ...] = (),
    immutable: bool = False,
    availability: Availability = Availability.BOTH,
    minimum: int | None = None,
) -> OptionSpec:
    return OptionSpec(
        key=key,
        kind=kind,
        default=default,
        description=description,
        enum=enum,
        fallback_keys=fallback,
        immutable=immutable,
        availability=availability,
        minimum=minimum,
    )


# --------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------

# fmt: off
TABLE_OPTIONS: tuple[OptionSpec, ...] = (
    # --- table kind, keys and buckets --------------------------------------------------------
    _opt("type", ENUM, "table", "Kind of table: a normal Paimon table or a format/materialized/object/lance/iceberg table.", TableType, immutable=True, availability=MAIN),
    _opt("primary-key", LIST, None, "Primary key columns given as an option instead of in DDL; moved into the schema's primaryKeys on creation.", immutable=True),
    _opt("primary-key.nullable", BOOL, "false", "Allow NULL in primary key columns (merged with null-safe equality).", immutable=True, availability=MAIN),
    _opt("partition", LIST, None, "Partition columns given as an option instead of in DDL; moved into the schema's partitionKeys on creation.", immutable=True),
    _opt("bucket", INT, "-1", "Number of buckets: N > 0 fixed, -1 dynamic (or unaware for append tables), -2 postponed (main, primary-key tables)."),
    _opt("bucket-key", LIST, None, "Columns hashed to pick a bucket; defaults to the primary key without partition columns.", immutable=True),
    _opt("bucket-function.type", ENUM, "default", "How the bucket key becomes a bucket: hash (default), floor-mod of an integer key, or Hive's hash.", BucketFunctionType, immutable=True, availability=MAIN),
    _opt("bucket-append-ordered", BOOL, "true", "Keep per-bucket write order when reading an append table with fixed buckets.", availability=MAIN),
    _opt("dynamic-bucket.target-row-num", LONG, "2000000", "Rows one bucket should hold before dynamic bucket mode opens another.", minimum=1),
    _opt("dynamic-bucket.initial-buckets", INT, None, "Buckets a partition starts with in the dynamic bucket assigner.", immutable=True),
    _opt("dynamic-bucket.max-buckets", INT, "-1", "Upper bound of buckets per partition in dynamic bucket mode; -1 means unbounded.", availability=MAIN),
    _opt("dynamic-bucket.assigner-parallelism", INT, None, "Parallelism of the dynamic bucket assigner operator."),
    _opt("path", STR, None, "File system location of the table (set by the catalog, not by users)."),
    _opt("branch", STR, "main", "Branch the table object reads and writes."),
    # --- data files -----------------------------------------------------------------------------
    _opt("file.format", STR, "parquet", "Format of data files: parquet, orc or avro (case-insensitive)."),
    _opt("file.format.per.level", MAP, "", "Per-LSM-level data file format, e.g. '0:avro,3:parquet'; unlisted levels use file.format."),
    _opt("file.compression", STR, "zstd", "Compression codec of data files."),
    _opt("file.compression.per.level", MAP, "", "Per-LSM-level compression codec, e.g. '0:lz4,1:zstd'."),
    _opt("file.compression.zstd-level", INT, "1", "zstd level used for data files."),
    _opt("file.block-size", MEM, None, "Block size handed to the format (ORC stripe / Parquet row group); the format's own default when absent."),
    _opt("file.suffix.include.compression", BOOL, "false", "Put the compression codec into data and changelog file names.", availability=MAIN),
    _opt("data-file.prefix", STR, "data-", "Name prefix of data files.", availability=MAIN),
    _opt("data-file.path-directory", STR, None, "Sub-directory (under the table) that holds data files.", immutable=True, availability=MAIN),
    _opt("data-file.external-paths", STR, None, "Comma-separated external locations to write data files to.", availability=MAIN),
    _opt("data-file.external-paths.strategy", ENUM, "none", "How one of the external paths is chosen per file.", ExternalPathStrategy, availability=MAIN),
    _opt("data-file.external-paths.specific-fs", STR, None, "File system scheme (s3, oss) used with the specific-fs strategy.", availability=MAIN),
    _opt("data-file.external-paths.weights", STR, None, "Positive integer weights, one per external path, for the weight-robin strategy.", availability=MAIN),
    _opt("data-file.thin-mode", BOOL, "false", "Primary-key data files omit the _KEY_ columns that duplicate value columns.", availability=MAIN),
    _opt("changelog-file.prefix", STR, "changelog-", "Name prefix of changelog files.", availability=MAIN),
    _opt("changelog-file.format", STR, None, "Format of changelog files; file.format when absent.", availability=MAIN),
    _opt("changelog-file.compression", STR, None, "Compression of changelog files; file.compression when absent.", availability=MAIN),
    _opt("changelog-file.stats-mode", STR, None, "Stats mode of changelog files; metadata.stats-mode when absent.", availability=MAIN),
    _opt("target-file-size", MEM, None, "Size at which a data file is rolled; 128 mb for primary-key tables and 256 mb for append tables when absent."),
    _opt("target-file-row-num", LONG, "9223372036854775807", "Row count at which a new data file is rolled (whichever of size and rows comes first).", availability=MAIN, minimum=1),
    _opt("blob.target-file-size", MEM, None, "Roll size of BLOB files; target-file-size when absent.", availability=MAIN),
    _opt("blob.split-by-file-size", BOOL, None, "Count BLOB file sizes when splitting a scan.", availability=MAIN),
    _opt("blob.copy-buffer-size", MEM, "4 kb", "Buffer for copying BLOB payloads into BLOB files.", availability=MAIN),
    _opt("vector.file.format", STR, None, "Format of the files that store VECTOR columns separately.", availability=MAIN),
    _opt("vector-field", LIST, None, "ARRAY columns to store as VECTOR columns.", availability=MAIN),
    _opt("vector.target-file-size", MEM, None, "Roll size of vector-store files; target-file-size when absent.", availability=MAIN),
    _opt("blob-field", LIST, None, "BYTES columns stored as BLOBs in separate files.", immutable=True, availability=MAIN),
    _opt("blob-descriptor-field", LIST, None, "BLOB columns kept inline as serialized blob descriptors.", fallback=("blob.stored-descriptor-fields",), immutable=True, availability=MAIN),
    _opt("blob-view-field", LIST, None, "BLOB columns kept inline as references resolved from upstream tables.", immutable=True, availability=MAIN),
    _opt("blob-view.resolve.enabled", BOOL, "true", "Resolve blob-view columns from their upstream tables when reading.", availability=MAIN),
    _opt("blob-as-descriptor", BOOL, "false", "Write BLOB values as descriptors instead of bytes.", availability=MAIN),
    _opt("blob-descriptor.source-table", STR, None, "Table whose file system serves descriptor-backed BLOB content being copied in.", availability=MAIN),
    _opt("blob-write-null-on-missing-file", BOOL, "false", "Write NULL instead of failing when a descriptor points to a missing file.", availability=MAIN),
    _opt("blob-write-null-on-fetch-failure", BOOL, "false", "Write NULL instead of failing when a descriptor cannot be fetched.", availability=MAIN),
    _opt("blob-compaction.enabled", BOOL, "false", "Also compact BLOB files when compacting a data-evolution table.", availability=MAIN),
    _opt("parquet.enable.dictionary", INT, None, "Set to disable Parquet dictionary encoding for every column."),
    _opt("variant.shreddingSchema", STR, None, "Shredding schema (JSON) used when writing VARIANT columns.", fallback=("parquet.variant.shreddingSchema",), availability=MAIN),
    _opt("variant.inferShreddingSchema", BOOL, "false", "Infer a VARIANT shredding schema while writing.", availability=MAIN),
    _opt("variant.shredding.inferenceMode", ENUM, "per-file", "Infer the shredding schema per file, or adaptively across a writer's files.", VariantShreddingInferenceMode, availability=MAIN),
    _opt("variant.shredding.maxSchemaWidth", INT, "300", "Most shredded fields an inferred schema may have.", availability=MAIN),
    _opt("variant.shredding.maxSchemaDepth", INT, "50", "Deepest VARIANT nesting examined during inference.", availability=MAIN),
    _opt("variant.shredding.minFieldCardinalityRatio", DOUBLE, "0.1", "Share of rows that must carry a field for it to be shredded.", availability=MAIN),
    _opt("variant.shredding.maxInferBufferRow", INT, "4096", "Rows buffered to infer a shredding schema.", availability=MAIN),
    _opt("variant.shredding.adaptive.maxInferBufferRow", INT, "256", "Rows sampled per later file in adaptive inference.", availability=MAIN),
    _opt("variant.shredding.adaptive.retentionRatio", DOUBLE, "0.05", "Presence ratio that keeps a previously shredded path in adaptive inference.", availability=MAIN),
    # --- metadata files and statistics ---------------------------------------------------------
    _opt("manifest.format", STR, "avro", "Format of manifest and manifest-list files (main always uses avro).", availability=OLD),
    _opt("manifest.compression", STR, "zstd", "Compression codec of manifest files."),
    _opt("manifest.target-file-size", MEM, "8 mb", "Size at which a manifest file is rolled."),
    _opt("manifest.full-compaction-threshold-size", MEM, "16 mb", "Delta manifest size that triggers a full manifest compaction."),
    _opt("manifest.merge-min-count", INT, "30", "Fewest small manifests worth merging in one commit."),
    _opt("manifest.merge-optimize.enabled", BOOL, "true", "Use the block-aware manifest merger.", availability=MAIN),
    _opt("manifest.delete-file-drop-stats", BOOL, "false", "Drop column stats from DELETE manifest entries.", availability=MAIN),
    _opt("manifest-sort.enabled", BOOL, "false", "Rewrite manifests sorted by a partition field during commit.", availability=MAIN),
    _opt("manifest-sort.partition-field", STR, None, "Partition field manifests are sorted by; the first partition field when absent.", availability=MAIN),
    _opt("manifest-sort.max-rewrite-size", MEM, "256 mb", "Most manifest bytes one sorted rewrite may touch.", availability=MAIN),
    _opt("write-manifest-cache", MEM, "0 mb", "Cache for manifests read during writing.", availability=OLD),
    _opt("metadata.stats-mode", STR, "truncate(16)", "Column stats kept in manifests: none, counts (null counts), full, or truncate(N) (min/max strings cut to N characters)."),
    _opt("metadata.stats-mode.per.level", MAP, "", "Per-LSM-level stats mode, e.g. '0:none'.", availability=MAIN),
    _opt("metadata.stats-dense-store", BOOL, "true", "Store stats only for the columns that have them (dense layout) in manifests.", availability=MAIN),
    _opt("metadata.stats-keep-first-n-columns", INT, "-1", "Keep stats only for the first N columns; -1 keeps all.", availability=MAIN),
    _opt("metadata.iceberg-compatible", BOOL, "false", "Also write Iceberg-compatible metadata.", availability=OLD),
    _opt("file-index.in-manifest-threshold", MEM, "500 B", "File index bodies up to this size are embedded in the manifest instead of a separate file."),
    _opt("file-index.read.enabled", BOOL, "true", "Use file indexes to skip data files when reading."),
    _opt("index-file-in-data-file-dir", BOOL, "false", "Write index files into the bucket's data directory.", immutable=True, availability=MAIN),
    _opt("partition.default-name", STR, "__DEFAULT_PARTITION__", "Directory value used for a NULL or empty partition value."),
    _opt("partition.legacy-name", BOOL, "true", "Render partition values with toString (legacy) rather than a cast to string.", availability=MAIN),
    # --- primary-key tables: merging ----------------------------------------------------------
    _opt("merge-engine", ENUM, "deduplicate", "How rows with the same primary key are merged.", MergeEngine, immutable=True),
    _opt("ignore-delete", BOOL, "false", "Drop DELETE (and UPDATE_BEFORE) input rows instead of applying them.", fallback=("first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete")),
    _opt("ignore-update-before", BOOL, "false", "Drop UPDATE_BEFORE input rows.", availability=MAIN),
    _opt("sequence.field", LIST, None, "Columns whose values order updates of one key; the largest wins instead of the latest written."),
    _opt("sequence.field.sort-order", ENUM, "ascending", "Whether the largest (ascending) or smallest (descending) sequence.field value wins.", SortOrder, availability=MAIN),
    _opt("sequence.snapshot-ordering", BOOL, "false", "Order updates of one key by commit snapshot id across writers.", immutable=True, availability=MAIN),
    _opt("rowkind.field", STR, None, "Column whose value ('+I', '-U', '+U', '-D') gives each input row's kind.", immutable=True),
    _opt("partial-update.remove-record-on-delete", BOOL, "false", "In partial-update, a DELETE removes the whole row.", immutable=True),
    _opt("partial-update.remove-record-on-sequence-group", STR, None, "In partial-update, a DELETE for these sequence groups removes the whole row.", immutable=True, availability=MAIN),
    _opt("aggregation.remove-record-on-delete", BOOL, "false", "In aggregation, a DELETE removes the whole row.", immutable=True, availability=MAIN),
    _opt("fields.default-aggregate-function", STR, None, "Aggregate function for every column without its own (aggregation and partial-update engines)."),
    _opt("force-lookup", BOOL, "false", "Always compact through lookup, even without a lookup changelog producer.", immutable=True),
    _opt("lookup-wait", BOOL, "true", "When compaction looks up, make commits wait for it.", fallback=("changelog-producer.lookup-wait",)),
    _opt("lookup-compact", ENUM, "RADICAL", "Lookup compaction mode: RADICAL compacts new files at once, GENTLE batches them.", LookupCompactMode, availability=MAIN),
    _opt("lookup-compact.max-interval", INT, None, "For gentle lookup compaction, the most checks between forced compactions.", availability=MAIN),
    _opt("record-level.expire-time", DUR, None, "Primary-key rows older than this (by record-level.time-field) are dropped during compaction."),
    _opt("record-level.time-field", STR, None, "Column holding the time used by record-level expiration."),
    _opt("record-level.time-field-type", ENUM, "seconds-int", "Unit and type of record-level.time-field.", TimeFieldType, availability=OLD),
    _opt("cross-partition-upsert.index-ttl", DUR, None, "Time-to-live of the local key index used when the primary key lacks partition columns."),
    _opt("cross-partition-upsert.bootstrap-parallelism", INT, "10", "Parallelism of bootstrapping the cross-partition key index."),
    _opt("local-merge-buffer-size", MEM, None, "Buffer for merging rows by key before the shuffle (off when absent)."),
    # --- changelog ------------------------------------------------------------------------------
    _opt("changelog-producer", ENUM, "none", "Whether and how a primary-key table writes changelog files.", ChangelogProducer),
    _opt("changelog-producer.row-deduplicate", BOOL, "false", "Skip -U/+U pairs whose before and after rows are equal (lookup and full-compaction producers)."),
    _opt("changelog-producer.row-deduplicate-ignore-fields", LIST, None, "Columns ignored when comparing rows for row-deduplicate.", availability=MAIN),
    _opt("table-read.sequence-number.enabled", BOOL, "false", "Expose _SEQUENCE_NUMBER in the audit_log and binlog system tables.", availability=MAIN),
    _opt("key-value.sequence_number.enabled", BOOL, "false", "Internal: read _SEQUENCE_NUMBER along with key-value data.", availability=MAIN),
    _opt("delete.force-produce-changelog", BOOL, "false", "DELETE statements produce changelog."),
    # --- LSM tree and compaction --------------------------------------------------------------
    _opt("num-sorted-run.compaction-trigger", INT, "5", "Sorted runs (each level-0 file counts as one) that trigger a compaction."),
    _opt("num-sorted-run.stop-trigger", INT, None, "Sorted runs at which writes stall; compaction-trigger + 3 when absent."),
    _opt("num-levels", INT, None, "Number of LSM levels; compaction-trigger + 1 when absent."),
    _opt("compaction.max-size-amplification-percent", INT, "200", "Extra storage (percent) tolerated before a full compaction of a primary-key bucket."),
    _opt("compaction.size-ratio", INT, "1", "Percent slack when deciding whether the next sorted run joins a compaction."),
    _opt("compaction.force-up-level-0", BOOL, "false", "Every compaction includes all level-0 files.", availability=MAIN),
    _opt("compaction.offpeak.start.hour", INT, "-1", "First off-peak hour (0-23); -1 disables off-peak.", availability=MAIN),
    _opt("compaction.offpeak.end.hour", INT, "-1", "Hour off-peak ends, exclusive (0-23); -1 disables off-peak.", availability=MAIN),
    _opt("compaction.offpeak-ratio", INT, "0", "compaction.size-ratio used during off-peak hours.", availability=MAIN),
    _opt("compaction.optimization-interval", DUR, None, "How often a full compaction runs so that the read-optimized system table stays fresh."),
    _opt("compaction.total-size-threshold", MEM, None, "A bucket smaller than this is always fully compacted.", availability=MAIN),
    _opt("compaction.incremental-size-threshold", MEM, None, "New data larger than this forces a full compaction.", availability=MAIN),
    _opt("compaction.min.file-num", INT, "5", "Fewest files an append-table compaction picks."),
    _opt("compaction.max.file-num", INT, None, "Most files an append-table compaction may wait for.", fallback=("compaction.early-max.file-num",), availability=OLD),
    _opt("compaction.file-num-limit", INT, "100000", "Most files scanned for one unaware-bucket append compaction.", availability=MAIN),
    _opt("compaction.delete-ratio-threshold", DOUBLE, "0.2", "Share of deleted rows that forces an append data file to be compacted.", availability=MAIN),
    _opt("compaction.small-file-ratio", DOUBLE, "0.7", "Files under target-file-size times this ratio count as small for compaction.", availability=MAIN),
    _opt("compaction.force-rewrite-all-files", BOOL, "false", "A full compaction rewrites every file.", availability=MAIN),
    _opt("compaction.skip-expired-partitions", BOOL, "false", "Skip compacting partitions already past partition.expiration-time.", availability=MAIN),
    _opt("full-compaction.delta-commits", INT, None, "Run a full compaction after this many commits (every commit in batch writes)."),
    _opt("commit.force-compact", BOOL, "false", "Compact before every commit."),
    _opt("write-only", BOOL, "false", "Writers skip compaction and snapshot expiration (left to dedicated jobs).", fallback=("write.compaction-skip",)),
    _opt("sort-engine", ENUM, "loser-tree", "Algorithm of the k-way merge of sorted runs.", SortEngine),
    _opt("sort-spill-threshold", INT, None, "Sorted-run readers above which a merge spills; stop-trigger + 1 when absent.", minimum=2),
    _opt("sort-spill-buffer-size", MEM, "64 mb", "Data spilled to disk at a time by a spilling sort."),
    _opt("sort-compaction.range-strategy", ENUM, "SIZE", "Sort compaction splits ranges by data size (SIZE) or row count (QUANTITY).", RangeStrategy),
    _opt("sort-compaction.local-sample.magnification", INT, "1000", "Local sample size of sort compaction, as a multiple of the sink parallelism."),
    _opt("zorder.var-length-contribution", INT, "8", "Bytes of a string or binary value used in a z-order key."),
    _opt("clustering.columns", LIST, None, "Columns append tables are range-clustered by.", fallback=("sink.clustering.by-columns",), availability=MAIN),
    _opt("clustering.strategy", STR, "auto", "Clustering curve: zorder, hilbert, order, or auto (by column count).", fallback=("sink.clustering.strategy",), availability=MAIN),
    _opt("clustering.incremental", BOOL, "false", "Cluster append tables incrementally.", availability=MAIN),
    _opt("clustering.history-partition.limit", INT, "5", "Most historical partitions fully clustered automatically.", availability=MAIN),
    _opt("clustering.history-partition.idle-to-full-sort", DUR, None, "Idle time after which a partition counts as historical for clustering.", availability=MAIN),
    _opt("clustering.incremental.optimize-write", BOOL, "false", "Cluster data before writing it in incremental clustering.", availability=MAIN),
    _opt("clustering.incremental.mode", ENUM, "global-sort", "Incremental clustering sorts globally or within each task.", ClusteringIncrementalMode, availability=MAIN),
    _opt("pk-clustering-override", BOOL, "false", "Sort primary-key data files by clustering.columns instead of the key.", immutable=True, availability=MAIN),
    # --- deletion vectors -----------------------------------------------------------------------
    _opt("deletion-vectors.enabled", BOOL, "false", "Mark deleted rows in deletion-vector index files so readers need not merge."),
    _opt("deletion-vectors.modifiable", BOOL, "false", "Allow ALTER TABLE to switch deletion vectors on or off.", availability=MAIN),
    _opt("deletion-vector.index-file.target-size", MEM, "2 mb", "Size at which a deletion-vector index file is rolled."),
    _opt("deletion-vectors.merge-on-read", BOOL, "false", "Batch reads also see uncompacted level-0 files by merging them.", availability=MAIN),
    _opt("deletion-vectors.bitmap64", BOOL, "false", "Write 64-bit roaring deletion vectors (Iceberg compatible).", availability=MAIN),
    # --- writing --------------------------------------------------------------------------------
    _opt("write-buffer-size", MEM, "256 mb", "Memory filled with rows before they are sorted and flushed to a file."),
    _opt("write-buffer-spillable", BOOL, "true", "The write buffer may spill to local disk."),
    _opt("write-buffer-spill.max-disk-size", MEM, "9223372036854775807 bytes", "Most local disk the write buffer may spill to."),
    _opt("write-buffer-for-append", BOOL, "false", "Append writers buffer rows in memory to avoid running out of memory."),
    _opt("write-max-writers-to-spill", INT, "10", "Batch append writers above which buffers spill."),
    _opt("write.batch-size", INT, "1024", "Rows per batch handed to the file writer.", fallback=("orc.write.batch-size",), availability=MAIN),
    _opt("write.batch-memory", MEM, "128 mb", "Memory per batch handed to the file writer.", availability=MAIN),
    _opt("write.sequence-number-init-mode", ENUM, "scan", "Where a writer takes its first sequence number: a scan of the bucket or the snapshot.", SequenceNumberInitMode, availability=MAIN),
    _opt("page-size", MEM, "64 kb", "Memory page size of writer buffers."),
    _opt("cache-page-size", MEM, "64 kb", "Memory page size of caches."),
    _opt("local-sort.max-num-file-handles", INT, "128", "Fan-in of the external merge sort."),
    _opt("spill-compression", STR, "zstd", "Compression of spill files."),
    _opt("spill-compression.zstd-level", INT, "1", "zstd level of spill files."),
    _opt("async-file-write", BOOL, "true", "Write files asynchronously."),
    _opt("file-reader-async-threshold", MEM, "10 mb", "Files larger than this are read asynchronously."),
    _opt("read.batch-size", INT, "1024", "Rows per batch when reading a file."),
    _opt("local-kv-db.block-size", MEM, "4 kb", "Block size of the local key-value store used by lookups.", availability=MAIN),
    _opt("file-operation.thread-num", INT, None, "Threads for file operations such as deletes; the processor count when absent.", fallback=("delete-file.thread-num",), availability=MAIN),
    _opt("delete-file.thread-num", INT, None, "Threads that delete files.", availability=OLD),
    _opt("sink.watermark-time-zone", STR, "UTC", "Time zone that turns a long watermark into a TIMESTAMP."),
    _opt("sink.process-time-zone", STR, None, "Time zone that turns process time into a TIMESTAMP; the JVM zone when absent.", availability=MAIN),
    # --- commit ---------------------------------------------------------------------------------
    _opt("commit.user-prefix", STR, None, "Prefix of generated commit users."),
    _opt("commit.timeout", DUR, None, "How long a failing commit is retried.", availability=MAIN),
    _opt("commit.max-retries", INT, "10", "Most retries of a failing commit.", availability=MAIN),
    _opt("commit.min-retry-wait", DUR, "10 ms", "Shortest wait between commit retries.", availability=MAIN),
    _opt("commit.max-retry-wait", DUR, "10 s", "Longest wait between commit retries.", availability=MAIN),
    _opt("commit.force-create-snapshot", BOOL, "false", "Streaming commits create a snapshot even with no changes."),
    _opt("commit.callbacks", STR, "", "Comma-separated classes called after each commit."),
    _opt("commit.discard-duplicate-files", BOOL, "false", "Drop files a commit adds twice.", availability=MAIN),
    _opt("commit.strict-mode.last-safe-snapshot", LONG, None, "Abort a commit if other users compacted, overwrote or wrote fixed buckets after this snapshot.", availability=MAIN),
    _opt("snapshot.ignore-empty-commit", BOOL, None, "Skip commits that change nothing.", availability=MAIN),
    _opt("overwrite-upgrade", BOOL, "true", "After an overwrite of a primary-key table, try upgrading files to higher levels.", availability=MAIN),
    _opt("visibility-callback.enabled", BOOL, "false", "After a commit, wait until compaction or index builds make it visible.", availability=MAIN),
    _opt("visibility-callback.timeout", DUR, "30 min", "Longest wait of the visibility callback.", availability=MAIN),
    _opt("visibility-callback.check-interval", DUR, "10 s", "Polling interval of the visibility callback.", availability=MAIN),
    # --- snapshot, changelog, partition and tag expiration --------------------------------------
    _opt("snapshot.num-retained.min", INT, "10", "Fewest snapshots kept by expiration.", minimum=1),
    _opt("snapshot.num-retained.max", INT, "2147483647", "Most snapshots kept by expiration.", minimum=1),
    _opt("snapshot.time-retained", DUR, "1 h", "Snapshots older than this may be expired."),
    _opt("snapshot.expire.execution-mode", ENUM, "sync", "Expire snapshots in the committer or asynchronously.", ExpireExecutionMode),
    _opt("snapshot.expire.limit", INT, "50", "Most snapshots expired at once (10 in 0.9.0)."),
    _opt("snapshot.clean-empty-directories", BOOL, "false", "Delete directories left empty by expiration.", fallback=("snapshot.expire.clean-empty-directories",)),
    _opt("snapshot.watermark-idle-timeout", DUR, None, "An idle source advances snapshots (for tag creation) after this long."),
    _opt("changelog.num-retained.min", INT, None, "Fewest changelogs kept; snapshot.num-retained.min when absent.", minimum=1),
    _opt("changelog.num-retained.max", INT, None, "Most changelogs kept; snapshot.num-retained.max when absent.", minimum=1),
    _opt("changelog.time-retained", DUR, None, "Changelogs older than this may be expired; snapshot.time-retained when absent."),
    _opt("partition.expiration-strategy", STR, "values-time", "How a partition's age is found: from its values (values-time) or its last update (update-time)."),
    _opt("partition.expiration-time", DUR, None, "Partitions older than this are dropped."),
    _opt("partition.expiration-check-interval", DUR, "1 h", "How often partition expiration runs."),
    _opt("partition.expiration-max-num", INT, "100", "Most partitions dropped by one expiration.", availability=MAIN),
    _opt("partition.expiration-batch-size", INT, None, "Partitions dropped per batch within one expiration.", availability=MAIN),
    _opt("partition.timestamp-formatter", STR, None, "Date-time pattern that parses partition values into a time."),
    _opt("partition.timestamp-pattern", STR, None, "How partition columns form the time text, e.g. '$dt $hour:00:00'."),
    _opt("partition.timestamp-format.strict", BOOL, "false", "Reject writes to partitions whose values do not match the timestamp format.", availability=MAIN),
    _opt("partition.mark-done-action", STR, "success-file", "Comma-separated actions that mark a finished partition (success-file, done-partition, mark-event, http-report, custom)."),
    _opt("partition.mark-done-action.custom.class", STR, None, "Class implementing the custom mark-done action.", availability=MAIN),
    _opt("partition.mark-done-action.http.url", STR, None, "Server the http-report mark-done action reports to.", availability=MAIN),
    _opt("partition.mark-done-action.http.params", STR, None, "Extra body parameters of the http-report action.", availability=MAIN),
    _opt("partition.end-input-to-done", BOOL, "false", "Mark partitions done when a bounded input ends.", availability=MAIN),
    _opt("partition.idle-time-to-report-statistic", DUR, "0 ms", "Idle time after which partition statistics are reported to the metastore.", availability=MAIN),
    _opt("partition.sink-strategy", ENUM, "NONE", "Shuffle by partition before writing to reduce small files.", PartitionSinkStrategy, availability=MAIN),
    _opt("end-input.check-partition-expire", BOOL, "false", "Check partition expiration when a bounded input ends."),
    _opt("tag.automatic-creation", ENUM, "none", "Create tags automatically by process time, watermark or batch end.", TagCreationMode),
    _opt("tag.creation-period", ENUM, "daily", "Period covered by each automatic tag.", TagCreationPeriod),
    _opt("tag.creation-period-duration", DUR, None, "Custom tag period; overrides tag.creation-period.", availability=MAIN),
    _opt("tag.creation-delay", DUR, "0 ms", "Wait after a period ends before tagging it."),
    _opt("tag.period-formatter", ENUM, "with_dashes", "Date format of automatic tag names.", TagPeriodFormatter),
    _opt("tag.num-retained-max", INT, None, "Most automatic tags kept."),
    _opt("tag.default-time-retained", DUR, None, "Lifetime given to new tags."),
    _opt("tag.time-expire-enabled", BOOL, "true", "Expire tags whose lifetime has passed.", availability=MAIN),
    _opt("tag.automatic-completion", BOOL, "false", "Create missing automatic tags retroactively."),
    _opt("tag.create-success-file", BOOL, "false", "Write a success file for each new tag.", availability=MAIN),
    _opt("tag.batch.customized-name", STR, None, "Name of the tag created at the end of a batch write.", availability=MAIN),
    _opt("tag.callbacks", STR, "", "Comma-separated classes called after a tag is created."),
    _opt("consumer-id", STR, None, "Id under which a streaming reader records its progress."),
    _opt("consumer.expiration-time", DUR, None, "Consumers unchanged for this long are removed."),
    _opt("consumer.mode", ENUM, "exactly-once", "Progress recorded at checkpoints (exactly-once) or as read (at-least-once).", ConsumerMode),
    _opt("consumer.ignore-progress", BOOL, "false", "A new job ignores recorded consumer progress."),
    _opt("consumer.changelog-only", BOOL, "false", "Consumers protect changelogs only, not snapshots, from expiration.", availability=MAIN),
    # --- reading --------------------------------------------------------------------------------
    _opt("scan.mode", ENUM, "default", "Where a read starts; default infers it from the other scan options.", StartupMode, fallback=("log.scan",)),
    _opt("scan.snapshot-id", LONG, None, "Snapshot read by from-snapshot and from-snapshot-full."),
    _opt("scan.tag-name", STR, None, "Tag read by from-snapshot."),
    _opt("scan.watermark", LONG, None, "Read from the first snapshot whose watermark reaches this."),
    _opt("scan.timestamp-millis", LONG, None, "Read the snapshot current at this epoch-millis time.", fallback=("log.scan.timestamp-millis",)),
    _opt("scan.timestamp", STR, None, "Like scan.timestamp-millis, as local date-time text."),
    _opt("scan.file-creation-time-millis", LONG, None, "Read only data files created after this epoch-millis time."),
    _opt("scan.creation-time-millis", LONG, None, "Time used by the from-creation-timestamp scan mode.", availability=MAIN),
    _opt("scan.version", STR, None, "Time-travel version (tag name or snapshot id) from VERSION AS OF."),
    _opt("scan.bounded.watermark", LONG, None, "A streaming read ends at the first snapshot whose watermark passes this."),
    _opt("scan.bucket", INT, None, "Read only this bucket (fixed-bucket primary-key tables).", availability=MAIN),
    _opt("scan.manifest.parallelism", INT, None, "Threads reading manifests; the processor count when absent."),
    _opt("scan.max-splits-per-task", INT, "10", "Splits buffered per reader task before planning pauses."),
    _opt("scan.plan-sort-partition", BOOL, "false", "Order planned splits by partition."),
    _opt("scan.ignore-corrupt-files", BOOL, "false", "Skip unreadable files.", availability=MAIN),
    _opt("scan.ignore-lost-files", BOOL, "false", "Skip missing files.", availability=MAIN),
    _opt("scan.fallback-branch", STR, None, "Branch read for partitions missing from the current branch."),
    _opt("scan.fallback-branch.read-fail-fast", BOOL, "false", "Fail instead of skipping when the fallback branch cannot be read.", availability=MAIN),
    _opt("scan.primary-branch", STR, None, "Branch preferred for partitions it contains.", availability=MAIN),
    _opt("scan.plan-auto-tag-for-read.time-retained", DUR, None, "Protect a batch read's snapshot with a temporary tag of this lifetime.", availability=MAIN),
    _opt("scan.fallback-snapshot-branch", STR, None, "Chain tables: branch holding snapshot partitions.", availability=MAIN),
    _opt("scan.fallback-delta-branch", STR, None, "Chain tables: branch holding delta partitions.", availability=MAIN),
    _opt("incremental-between", STR, None, "Read the changes between two snapshots or tags, e.g. '5,10' (start exclusive)."),
    _opt("incremental-between-timestamp", STR, None, "Read the changes between two epoch-millis times, e.g. 't1,t2'."),
    _opt("incremental-between-scan-mode", ENUM, "auto", "Which files an incremental read returns: delta, changelog, diff or auto.", IncrementalBetweenScanMode),
    _opt("incremental-between-tag-to-snapshot", BOOL, "false", "Incremental reads between tags use the tags' snapshots.", availability=MAIN),
    _opt("incremental-to-auto-tag", STR, None, "Read the changes up to this automatic tag from the tag before it.", availability=MAIN),
    _opt("continuous.discovery-interval", DUR, "10 s", "How often a streaming read looks for new snapshots."),
    _opt("streaming.read.snapshot.delay", DUR, None, "Streaming reads lag behind new snapshots by this much."),
    _opt("streaming-read-overwrite", BOOL, "false", "Streaming reads of a primary-key table also emit changes of overwrite commits."),
    _opt("streaming-read-append-overwrite", BOOL, "false", "Streaming reads of an append table also emit overwrite commits.", availability=MAIN),
    _opt("streaming-read-mode", ENUM, None, "Read a stream from the log system or from files.", StreamingReadMode, availability=OLD),
    _opt("stream-scan-mode", ENUM, "none", "Internal: special streaming scanners for compaction jobs.", StreamScanMode),
    _opt("batch-scan-mode", ENUM, "none", "Internal: special batch scanners for compaction jobs.", BatchScanMode, availability=MAIN),
    _opt("source.split.target-size", MEM, "128 mb", "Target size of a read split within a bucket."),
    _opt("source.split.open-file-cost", MEM, "4 mb", "Size each file counts as when packing splits."),
    _opt("auto-create", BOOL, "false", "Create the table's storage when it is first read or written."),
    _opt("dynamic-partition-overwrite", BOOL, "true", "An overwrite replaces only the partitions it writes to."),
    # --- lookup ---------------------------------------------------------------------------------
    _opt("lookup.hash-load-factor", FLOAT, "0.75", "Load factor of lookup hash files."),
    _opt("lookup.cache-rows", LONG, "10000", "Rows kept by the lookup cache.", availability=MAIN),
    _opt("lookup.continuous.discovery-interval", DUR, None, "Refresh interval of lookup joins; continuous.discovery-interval when absent.", availability=MAIN),
    _opt("lookup.cache-file-retention", DUR, "1 h", "Local lookup files unused for this long are dropped."),
    _opt("lookup.cache-max-disk-size", MEM, "9223372036854775807 bytes", "Most local disk used by the lookup cache."),
    _opt("lookup.cache-max-memory-size", MEM, "256 mb", "Most memory used by the lookup cache."),
    _opt("lookup.cache-spill-compression", STR, "zstd", "Compression of lookup cache files."),
    _opt("lookup.cache.high-priority-pool-ratio", DOUBLE, "0.25", "Share of the lookup cache reserved for index and filter blocks.", availability=MAIN),
    _opt("lookup.cache.bloom.filter.enabled", BOOL, "true", "Build bloom filters for lookup cache files."),
    _opt("lookup.cache.bloom.filter.fpp", DOUBLE, "0.05", "False-positive rate of lookup bloom filters."),
    _opt("lookup.local-file-type", ENUM, "hash", "Local lookup file layout: hash or sort.", LookupLocalFileType, availability=OLD),
    _opt("lookup.remote-file.enabled", BOOL, "false", "Write lookup files next to data files for reuse.", availability=MAIN),
    _opt("lookup.remote-file.level-threshold", INT, "-2147483648", "Lowest level that gets remote lookup files.", availability=MAIN),
    _opt("lookup.blob-as-descriptor", BOOL, "false", "Lookup joins keep BLOB descriptors instead of bytes.", availability=MAIN),
    _opt("lookup.merge-buffer-size", MEM, "8 mb", "Buffer for merging one key's rows during lookup.", availability=MAIN),
    _opt("lookup.merge-records-threshold", INT, "1024", "Rows of one key beyond which lookup merging uses a binary buffer.", availability=MAIN),
    # --- log system (0.9.0 only) --------------------------------------------------------------
    _opt("log.consistency", ENUM, "transactional", "Log system consistency mode.", LogConsistency, availability=OLD),
    _opt("log.changelog-mode", ENUM, "auto", "Which changes go to the log system.", LogChangelogMode, availability=OLD),
    _opt("log.key.format", STR, "json", "Format of log system keys.", availability=OLD),
    _opt("log.format", STR, "debezium-json", "Format of log system records.", availability=OLD),
    # --- catalogs, metastores, callbacks ------------------------------------------------------
    _opt("metastore.partitioned-table", BOOL, "false", "Register the table as partitioned in the metastore."),
    _opt("metastore.tag-to-partition", STR, None, "Expose tags of a non-partitioned table as metastore partitions under this column."),
    _opt("metastore.tag-to-partition.preview", ENUM, "none", "Preview future tags as metastore partitions.", TagCreationMode),
    _opt("query-auth.enabled", BOOL, "false", "Ask the catalog to authorize column and row access.", availability=MAIN),
    # --- format tables, chain tables, materialized tables ------------------------------------
    _opt("format-table.implementation", ENUM, "paimon", "Format tables are read by Paimon or by the engine.", FormatTableImplementation, availability=MAIN),
    _opt("format-table.partition-path-only-value", BOOL, "false", "Format table partition directories hold only values.", availability=MAIN),
    _opt("format-table.file.compression", STR, None, "Compression of format table files.", fallback=("file.compression",), availability=MAIN),
    _opt("format-table.commit-hive-sync-url", STR, None, "Hive metastore synced on format table commits.", availability=MAIN),
    _opt("format-table.scan.list-parallelism", INT, "64", "Parallelism of listing format table partitions.", availability=MAIN),
    _opt("chain-table.enabled", BOOL, "false", "The table is a chain table (snapshot and delta branches).", availability=MAIN),
    _opt("chain-table.chain-partition-keys", LIST, None, "Trailing partition keys that form the chain.", availability=MAIN),
    _opt("chain-table.streaming.merge-snapshot", BOOL, "false", "Streaming reads of a chain table start by merging snapshot and delta partitions.", availability=MAIN),
    _opt("chain-table.split.key-range-enabled", BOOL, "true", "Split chain table buckets by key range.", availability=MAIN),
    _opt("materialized-table.definition-query", STR, None, "Defining query of a materialized table.", availability=MAIN),
    _opt("materialized-table.interval-freshness", STR, None, "Freshness interval of a materialized table.", availability=MAIN),
    _opt("materialized-table.interval-freshness.time-unit", ENUM, None, "Unit of the freshness interval.", MaterializedTableIntervalFreshnessTimeUnit, availability=MAIN),
    _opt("materialized-table.logical-refresh-mode", ENUM, None, "Declared refresh mode of a materialized table.", MaterializedTableRefreshMode, availability=MAIN),
    _opt("materialized-table.refresh-mode", ENUM, None, "Effective refresh mode of a materialized table.", MaterializedTableRefreshMode, availability=MAIN),
    _opt("materialized-table.refresh-status", ENUM, None, "Refresh status of a materialized table.", MaterializedTableRefreshStatus, availability=MAIN),
    _opt("materialized-table.refresh-handler-description", STR, None, "Summary of the refresh handler.", availability=MAIN),
    _opt("materialized-table.refresh-handler-bytes", STR, None, "Serialized refresh handler.", availability=MAIN),
    # --- schema evolution ---------------------------------------------------------------------
    _opt("alter-column-null-to-not-null.disabled", BOOL, "true", "Forbid changing a nullable column to NOT NULL.", availability=MAIN),
    _opt("disable-explicit-type-casting", BOOL, "false", "Allow only widening type changes (no explicit casts) in ALTER TABLE.", availability=MAIN),
    _opt("add-column-before-partition", BOOL, "false", "New columns without a position go before the first partition column.", availability=MAIN),
    # --- row tracking, data evolution, global indexes -----------------------------------------
    _opt("row-tracking.enabled", BOOL, "false", "Give every row of an append table a stable row id.", immutable=True, availability=MAIN),
    _opt("row-tracking.partition-group-on-commit", BOOL, "true", "Keep assigned row ids contiguous per partition.", availability=MAIN),
    _opt("data-evolution.enabled", BOOL, "false", "Allow updating columns of a row-tracking table by row id.", immutable=True, availability=MAIN),
    _opt("data-evolution.reassign.skip-contiguous-row-count", LONG, "1000000000", "Contiguous row-id runs longer than this keep their ids; 0 disables the filter.", availability=MAIN),
    _opt("data-evolution.row-id-conflict-rewrite.max-size", MEM, "256 mb", "Most data rebased automatically when concurrent compaction moves row ids.", availability=MAIN),
    _opt("data-evolution.row-sidecar.enabled", BOOL, "false", "Write row-store sidecars for sparse row-id reads.", availability=MAIN),
    _opt("data-evolution.row-sidecar.max-selected-rows", LONG, "4096", "Most selected rows for which a sidecar is used.", availability=MAIN),
    _opt("data-evolution.row-sidecar.max-selection-ratio", DOUBLE, "0.05", "Largest selected share of a file for which a sidecar is used.", availability=MAIN),
    _opt("data-evolution.merge-into.file-pruning", BOOL, "true", "Prune untouched files in MERGE INTO on data-evolution tables.", availability=MAIN),
    _opt("data-evolution.merge-into.source-persist", BOOL, "false", "Persist the MERGE INTO source on data-evolution tables.", availability=MAIN),
    _opt("data-evolution.compaction.rewrite-row-ids", BOOL, "false", "Legacy; true is rejected.", availability=MAIN),
    _opt("global-index.enabled", BOOL, "true", "Use global indexes when scanning.", availability=MAIN),
    _opt("global-index.external-path", STR, None, "Root of global index files; the table's index directory when absent.", availability=MAIN),
    _opt("global-index.column-update-action", ENUM, "THROW_ERROR", "What an update of an indexed column does to global indexes.", GlobalIndexColumnUpdateAction, availability=MAIN),
    _opt("global-index.row-count-per-shard", LONG, "100000", "Rows per global index shard.", availability=MAIN),
    _opt("global-index.build.max-shard", INT, "32", "Preferred most shards of a global index build.", availability=MAIN),
    _opt("global-index.build.max-parallelism", INT, "4096", "Most parallel tasks building a global index.", availability=MAIN),
    _opt("global-index.search-mode", ENUM, None, "Fallback search mode of global index queries.", GlobalIndexSearchMode, availability=MAIN),
    _opt("global-index.thread-num", INT, "32", "Threads doing global index IO.", availability=MAIN, minimum=1),
    _opt("scalar-index.search-mode", ENUM, "fast", "Search mode of scalar index queries.", GlobalIndexSearchMode, availability=MAIN),
    _opt("vector-index.search-mode", ENUM, "fast", "Search mode of vector index queries.", GlobalIndexSearchMode, availability=MAIN),
    _opt("full-text-index.search-mode", ENUM, "fast", "Search mode of full-text index queries.", GlobalIndexSearchMode, availability=MAIN),
    _opt("vector-search.distribute.enabled", BOOL, "false", "Distribute vector searches.", availability=MAIN),
    _opt("vector-search.lateral-join.batch-size", INT, "256", "Query vectors per batch of a lateral vector search.", availability=MAIN),
    _opt("pk-vector.index.columns", LIST, None, "VECTOR columns with a primary-key vector index.", availability=MAIN),
    _opt("pk-btree.index.columns", LIST, None, "Columns with a primary-key B-tree index.", availability=MAIN),
    _opt("pk-bitmap.index.columns", LIST, None, "Columns with a primary-key bitmap index.", availability=MAIN),
    _opt("pk-multivalue.index.columns", LIST, None, "ARRAY columns with a primary-key multi-value index.", availability=MAIN),
    _opt("pk-full-text.index.columns", LIST, None, "Character columns with a primary-key full-text index.", availability=MAIN),
    # --- postponed buckets --------------------------------------------------------------------
    _opt("postpone.batch-write-fixed-bucket", BOOL, "true", "Batch writes to a postpone-bucket table go straight to real buckets.", availability=MAIN),
    _opt("postpone.merge-on-read", BOOL, "false", "Batch reads merge postponed rows with their real buckets.", availability=MAIN),
    _opt("postpone.batch-write-fixed-bucket.max-parallelism", INT, "2048", "Most buckets a batch write infers for a partition.", availability=MAIN),
    _opt("postpone.batch-write-fixed-bucket.rescale-load-factor", INT, "32", "Load ratio above which a batch write enlarges the bucket layout.", availability=MAIN),
    _opt("postpone.default-bucket-num", INT, None, "Bucket count for partitions getting real buckets for the first time.", availability=MAIN),
    _opt("postpone.target-row-num-per-bucket", LONG, None, "Rows per bucket when estimating bucket counts.", availability=MAIN),
    _opt("postpone.target-size-per-bucket", MEM, "1 gb", "Bytes per bucket when estimating bucket counts.", availability=MAIN),
)
"""Every option key of ``CoreOptions`` on main and in 0.9.0."""


OPTION_PATTERNS: tuple[OptionPattern, ...] = (
    OptionPattern("fields.<field>.aggregate-function", STR, None, "Aggregate function of one column (aggregation and partial-update engines)."),
    OptionPattern("fields.<field>.ignore-retract", BOOL, "false", "The column's aggregate ignores retractions (-U/-D)."),
    OptionPattern("fields.<fields>.sequence-group", LIST, None, "Partial-update: the listed columns are updated only when these sequence columns grow."),
    OptionPattern("fields.<field>.default-value", STR, None, "Value used for the column when a row has NULL (0.9.0; main stores defaults on the field).", availability=OLD),
    OptionPattern("fields.<field>.nested-key", LIST, None, "Keys of the nested rows merged by nested_update."),
    OptionPattern("fields.<field>.nested-key-null-strategy", ENUM, "merge", "nested_update: what a NULL nested key does.", NestedKeyNullStrategy, availability=MAIN),
    OptionPattern("fields.<field>.nested-sequence-field", LIST, None, "nested_update: fields ordering nested rows.", availability=MAIN),
    OptionPattern("fields.<field>.count-limit", INT, "2147483647", "nested_update: most nested rows kept.", availability=MAIN),
    OptionPattern("fields.<field>.distinct", BOOL, "false", "collect / listagg: drop duplicate elements."),
    OptionPattern("fields.<field>.list-agg-delimiter", STR, ",", "listagg: separator between values."),
    OptionPattern("fields.<field>.ts-field", STR, None, "merge_map_with_keytime: the time field of map values.", availability=MAIN),
    OptionPattern("fields.<field>.stats-mode", STR, None, "Stats mode of one column; metadata.stats-mode when absent."),
    OptionPattern("fields.<field>.map.storage-layout", ENUM, "default", "Physical layout of a MAP column.", MapStorageLayout, availability=MAIN),
    OptionPattern("fields.<field>.map.shared-shredding.max-columns", INT, "256", "Value columns of a shared-shredding MAP.", availability=MAIN),
    OptionPattern("fields.<field>.map.shared-shredding.column-placement-policy", ENUM, "lru", "How shared-shredding MAP keys are placed into columns.", MapSharedShreddingColumnPlacementPolicy, availability=MAIN),
    OptionPattern("file-index.<index-type>.columns", LIST, None, "Columns that get a file index of this type (bloom-filter, bitmap, bsi, range-bitmap)."),
    OptionPattern("file-index.bloom-filter.<column>.fpp", DOUBLE, "0.1", "False-positive rate of the column's bloom filter index."),
    OptionPattern("file-index.bloom-filter.<column>.items", INT, "1000000", "Expected distinct values of the column's bloom filter index."),
    OptionPattern("file-index.bitmap.<column>.version", INT, "2", "Bitmap file index layout version (1 or 2).", availability=MAIN),
    OptionPattern("file-index.bitmap.<column>.index-block-size", MEM, "16 kb", "Block size of a version-2 bitmap file index.", availability=MAIN),
    OptionPattern("commit.callback.<class>.param", STR, None, "Constructor argument of one commit callback class."),
    OptionPattern("tag.callback.<class>.param", STR, None, "Constructor argument of one tag callback class."),
)
# fmt: on
"""Families of keys whose middle part names a column, index type or class."""


LEGACY_OPTIONS: Mapping[str, str] = {
    "sequence.auto-padding": "0.5-0.7 only: padded the sequence field to millis/nanos; ignored since 0.8.",
}
"""Keys older releases knew and neither 0.9.0 nor main reads."""

DEFAULTS_0_9: Mapping[str, str | None] = {
    "snapshot.expire.limit": "10",
    "write-buffer-spillable": None,
    "sort-compaction.range-strategy": "QUANTITY",
}
"""Defaults of 0.9.0 where main differs. 0.9.0's ``write-buffer-spillable`` had no default: the
writer spilled when writing to an object store or in batch mode."""

IMMUTABLE_0_9 = frozenset(
    {
        "bucket-key",
        "force-lookup",
        "ignore-delete",
        "merge-engine",
        "partial-update.remove-record-on-delete",
        "partition",
        "primary-key",
        "rowkind.field",
        "sequence.field",
    }
)
"""Keys 0.9.0 refused to change once a table had snapshots (main relaxed ``ignore-delete`` to
"never from true to false" and lets ``sequence.field`` change)."""

OPTIONS_BY_KEY: Mapping[str, OptionSpec] = {spec.key: spec for spec in TABLE_OPTIONS}
IMMUTABLE_OPTIONS = frozenset(spec.key for spec in TABLE_OPTIONS if spec.immutable)


def find_option(key: str) -> OptionSpec | None:
    """The spec of ``key`` or of the option it is a fallback key of."""
    if key in OPTIONS_BY_KEY:
        return OPTIONS_BY_KEY[key]
    for spec in TABLE_OPTIONS:
        if key in spec.fallback_keys:
            return spec
    return None


def find_pattern(key: str) -> tuple[OptionPattern, tuple[str, ...]] | None:
    """The pattern ``key`` belongs to and the values of its variable parts."""
    for pattern in OPTION_PATTERNS:
        match = pattern.regex.fullmatch(key)
        if match is not None:
            return pattern, match.groups()
    return None


# --------------------------------------------------------------------------------------------
# Typed values
# --------------------------------------------------------------------------------------------


def parse_option_value(kind: OptionType, text: str, enum: type[Enum] | None = None) -> Any:
    """Parse ``text`` by the grammar of ``kind``; raise ``ValueError`` with the reason."""
    if kind is OptionType.BOOLEAN:
        return parse_boolean(text)
    if kind is OptionType.INT:
        return parse_int(text)
    if kind is OptionType.LONG:
        return parse_long(text)
    if kind in (OptionType.FLOAT, OptionType.DOUBLE):
        return parse_double(text)
    if kind is OptionType.MEMORY_SIZE:
        return parse_memory_size(text)
    if kind is OptionType.DURATION:
        return parse_duration(text)
    if kind is OptionType.ENUM:
        assert enum is not None
        return parse_enum(enum, text)
    if kind is OptionType.MAP:
        return parse_map(text)
    if kind is OptionType.LIST:
        return parse_name_list(text)
    return text


def lookup_raw(options: Mapping[str, str], spec: OptionSpec) -> tuple[str, str] | None:
    """The ``(key, text)`` that sets ``spec``: its own key first, then its fallback keys."""
    for key in (spec.key, *spec.fallback_keys):
        if key in options:
            return key, options[key]
    return None


def option_value(options: Mapping[str, str], key: str) -> Any:
    """The typed value of a registered option (its default when unset; ``None`` if neither).

    Raise :class:`InvalidOptionError` naming the key when its text does not parse.
    """
    spec = OPTIONS_BY_KEY[key]
    found = lookup_raw(options, spec)
    if found is None:
        if spec.default is None:
            return None
        return parse_option_value(spec.kind, spec.default, spec.enum)
    source, text = found
    try:
        return parse_option_value(spec.kind, text, spec.enum)
    except ValueError as error:
        raise InvalidOptionError(source, text, str(error)) from None


# --------------------------------------------------------------------------------------------
# Keys the engines read by name (each written once; the registry above holds their defaults)
# --------------------------------------------------------------------------------------------

FORCE_LOOKUP_OPTION = "force-lookup"
ROW_DEDUPLICATE_OPTION = "changelog-producer.row-deduplicate"
IGNORE_DELETE_OPTION = "ignore-delete"
SEQUENCE_FIELD_OPTION = "sequence.field"
INDEX_TTL_OPTION = "cross-partition-upsert.index-ttl"
FALLBACK_BRANCH_OPTION = "scan.fallback-branch"

# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------

FIELDS_PREFIX = "fields."
FIELD_OPTION_MIN_PARTS = 3
"""A per-field option key ``fields.<field>.<option>`` splits into at least three dot parts."""
SEQUENCE_GROUP_SUFFIX = ".sequence-group"
AGGREGATE_FUNCTION_SUFFIX = ".aggregate-function"
DEFAULT_AGGREGATE_FUNCTION_KEY = "fields.default-aggregate-function"
BUCKET_DYNAMIC = -1
BUCKET_POSTPONE = -2
OFF_PEAK_DISABLED = -1
LAST_HOUR_OF_DAY = 23


def _check_value(key: str, text: str, kind: OptionType, enum: type[Enum] | None) -> Any:
    try:
        return parse_option_value(kind, text, enum)
    except ValueError as error:
        raise InvalidOptionError(key, text, str(error)) from None


def _check_minimum(spec: OptionSpec, key: str, text: str, value: Any) -> None:
    if spec.minimum is not None and value is not None and value < spec.minimum:
        raise InvalidOptionError(key, text, f"must be at least {spec.minimum}")


_RANGE_RULES: Mapping[str, tuple[Callable[[Any], bool], str]] = {
    "bucket": (
        lambda n: n in (BUCKET_DYNAMIC, BUCKET_POSTPONE) or n > 0,
        "must be -1 (dynamic), -2 (postpone) or a positive bucket count",
    ),
    "dynamic-bucket.max-buckets": (
        lambda n: n == BUCKET_DYNAMIC or n > 0,
        "must be -1 (unbounded) or positive",
    ),
    "compaction.offpeak.start.hour": (
        lambda n: OFF_PEAK_DISABLED <= n <= LAST_HOUR_OF_DAY,
        "must be an hour 0-23, or -1",
    ),
    "compaction.offpeak.end.hour": (
        lambda n: OFF_PEAK_DISABLED <= n <= LAST_HOUR_OF_DAY,
        "must be an hour 0-23, or -1",
    ),
    "data-evolution.row-sidecar.max-selection-ratio": (
        lambda x: 0 < x <= 1,
        "must be in (0, 1]",
    ),
    "data-evolution.compaction.rewrite-row-ids": (
        lambda flag: flag is False,
        "true is no longer supported",
    ),
}
"""Ranges Java enforces beyond the value's type."""


def _parse_mark_done_actions(text: str) -> list[PartitionMarkDoneAction]:
    return [parse_enum(PartitionMarkDoneAction, item) for item in split_java(text)]


def _parse_any(text: str) -> str:
    return text


_VOCABULARIES: Mapping[str, Callable[[str], object]] = {
    "file.format": parse_file_format,
    "changelog-file.format": parse_file_format,
    "manifest.format": parse_manifest_format,
    "metadata.stats-mode": parse_stats_mode,
    "changelog-file.stats-mode": parse_stats_mode,
    "partition.mark-done-action": _parse_mark_done_actions,
}
"""String options whose text must come from a closed vocabulary."""

_LEVEL_MAPS: Mapping[str, Callable[[str], object]] = {
    "file.format.per.level": parse_file_format,
    "file.compression.per.level": _parse_any,
    "metadata.stats-mode.per.level": parse_stats_mode,
}
"""Map options keyed by LSM level; each key must be an int and each value must parse."""


def _check_rules(spec: OptionSpec, key: str, text: str, value: Any) -> None:
    """Ranges, vocabularies and level maps (see the three tables above)."""
    if spec.key in _RANGE_RULES:
        holds, reason = _RANGE_RULES[spec.key]
        if not holds(value):
            raise InvalidOptionError(key, text, reason)
    try:
        if spec.key in _VOCABULARIES:
            _VOCABULARIES[spec.key](text)
        if spec.key in _LEVEL_MAPS:
            for level, item in value.items():
                parse_int(level)
                _LEVEL_MAPS[spec.key](item)
    except ValueError as error:
        raise InvalidOptionError(key, text, str(error)) from None


def validate_option(key: str, text: str) -> None:
    """Check one option's text against its type, range and vocabulary."""
    spec = find_option(key)
    if spec is not None:
        value = _check_value(key, text, spec.kind, spec.enum)
        _check_minimum(spec, key, text, value)
        _check_rules(spec, key, text, value)
        return
    found = find_pattern(key)
    if found is not None:
        pattern, _ = found
        _check_value(key, text, pattern.kind, pattern.enum)
        if pattern.template == "fields.<field>.stats-mode":
            try:
                parse_stats_mode(text)
            except ValueError as error:
                raise InvalidOptionError(key, text, str(error)) from None


def _present(options: Mapping[str, str], key: str) -> bool:
    spec = OPTIONS_BY_KEY[key]
    return lookup_raw(options, spec) is not None


def resolve_startup_mode(options: Mapping[str, str]) -> StartupMode:
    """``scan.mode`` with ``default`` resolved from the other scan options and ``full``
    read as ``latest-full`` (Java ``CoreOptions.startupMode``)."""
    mode: StartupMode = option_value(options, "scan.mode")
    if mode is StartupMode.FULL:
        return StartupMode.LATEST_FULL
    if mode is not StartupMode.DEFAULT:
        return mode
    if _present(options, "scan.timestamp-millis") or _present(options, "scan.timestamp"):
        return StartupMode.FROM_TIMESTAMP
    if any(
        _present(options, key)
        for key in ("scan.snapshot-id", "scan.tag-name", "scan.watermark", "scan.version")
    ):
        return StartupMode.FROM_SNAPSHOT
    if _present(options, "scan.file-creation-time-millis"):
        return StartupMode.FROM_FILE_CREATION_TIME
    if _present(options, "scan.creation-time-millis"):
        return StartupMode.FROM_CREATION_TIMESTAMP
    if _present(options, "incremental-between") or _present(
        options, "incremental-between-timestamp"
    ):
        return StartupMode.INCREMENTAL
    return StartupMode.LATEST_FULL


_STARTUP_REQUIRED_ONE_OF: Mapping[StartupMode, tuple[str, ...]] = {
    StartupMode.FROM_TIMESTAMP: ("scan.timestamp-millis", "scan.timestamp"),
    StartupMode.FROM_SNAPSHOT: ("scan.snapshot-id", "scan.tag-name", "scan.watermark"),
    StartupMode.INCREMENTAL: ("incremental-between", "incremental-between-timestamp"),
    StartupMode.FROM_SNAPSHOT_FULL: ("scan.snapshot-id",),
    StartupMode.FROM_FILE_CREATION_TIME: ("scan.file-creation-time-millis",),
}
"""Modes that need exactly one of these keys (0.9.0 and main agree on these lists)."""

_STARTUP_KEYS = (
    "scan.timestamp-millis",
    "scan.timestamp",
    "scan.snapshot-id",
    "scan.tag-name",
    "scan.file-creation-time-millis",
    "incremental-between",
    "incremental-between-timestamp",
)
"""Scan keys that select a starting point; each belongs to some modes and conflicts with the
rest. (``scan.watermark`` is only checked as a choice of from-snapshot, as in Java.)"""


def validate_startup_options(options: Mapping[str, str]) -> None:
    """A scan mode needs exactly one of its keys and none of another mode's keys
    (Java ``SchemaValidation.validateStartupMode``)."""
    mode = resolve_startup_mode(options)
    allowed = _STARTUP_REQUIRED_ONE_OF.get(mode, ())
    if allowed:
        chosen = [key for key in allowed if _present(options, key)]
        if len(chosen) != 1:
            raise InvalidOptionError(
                "scan.mode",
                mode.value,
                f"needs exactly one of {list(allowed)}, got {chosen or 'none'}",
            )
    for key in _STARTUP_KEYS:
        if key not in allowed and _present(options, key):
            raise InvalidOptionError(
                key, options.get(key), f"cannot be used with scan mode {mode.value}"
            )


def validate_retention(options: Mapping[str, str]) -> None:
    """Minimum retained snapshots/changelogs are at least 1 and at most the maximum."""
    snapshot_min = option_value(options, "snapshot.num-retained.min")
    snapshot_max = option_value(options, "snapshot.num-retained.max")
    if snapshot_min > snapshot_max:
        raise InvalidOptionError(
            "snapshot.num-retained.min",
            str(snapshot_min),
            "must not exceed snapshot.num-retained.max",
        )
    changelog_min = option_value(options, "changelog.num-retained.min")
    changelog_max = option_value(options, "changelog.num-retained.max")
    changelog_min = snapshot_min if changelog_min is None else changelog_min
    changelog_max = snapshot_max if changelog_max is None else changelog_max
    if changelog_min > changelog_max:
        raise InvalidOptionError(
            "changelog.num-retained.min",
            str(changelog_min),
            "must not exceed changelog.num-retained.max",
        )


def validate_engine_combinations(options: Mapping[str, str]) -> None:
    """Combinations of merge engine, changelog producer and deletion vectors that both Java
    versions reject."""
    engine: MergeEngine = option_value(options, "merge-engine")
    producer: ChangelogProducer = option_value(options, "changelog-producer")
    if option_value(options, "deletion-vectors.enabled"):
        if producer is ChangelogProducer.FULL_COMPACTION:
            raise InvalidOptionError(
                "changelog-producer", producer.value, "deletion vectors need none, input or lookup"
            )
        if engine is MergeEngine.FIRST_ROW and not option_value(options, "pk-clustering-override"):
            raise InvalidOptionError(
                "deletion-vectors.enabled", "true", "the first-row engine deletes nothing"
            )
    if engine is MergeEngine.FIRST_ROW and producer not in (
        ChangelogProducer.NONE,
        ChangelogProducer.LOOKUP,
    ):
        raise InvalidOptionError(
            "changelog-producer", producer.value, "first-row supports only none and lookup"
        )
    if option_value(options, "streaming-read-overwrite") and producer in (
        ChangelogProducer.FULL_COMPACTION,
        ChangelogProducer.LOOKUP,
    ):
        raise InvalidOptionError(
            "streaming-read-overwrite", "true", f"would read changes twice with {producer.value}"
        )


def validate_aggregate_functions(options: Mapping[str, str]) -> None:
    """Engines that aggregate (aggregation, partial-update) must know every function named."""
    engine: MergeEngine = option_value(options, "merge-engine")
    if engine not in (MergeEngine.AGGREGATE, MergeEngine.PARTIAL_UPDATE):
        return
    for key, text in options.items():
        names_function = key == DEFAULT_AGGREGATE_FUNCTION_KEY or (
            key.startswith(FIELDS_PREFIX) and key.endswith(AGGREGATE_FUNCTION_SUFFIX)
        )
        if names_function and text not in AGGREGATE_FUNCTIONS:
            raise InvalidOptionError(key, text, "unknown aggregate function")


def validate_options(options: Mapping[str, str]) -> None:
    """Raise :class:`InvalidOptionError` naming the first option that is invalid.

    Each known key (or fallback key, or key of a pattern) must parse by its type and satisfy its
    range and vocabulary; then the option-only combination rules of ``SchemaValidation`` apply.
    Rules that need the schema (fields, keys) live in ``reference.spec.schema``.
    """
    for key, text in options.items():
        validate_option(key, text)
    validate_retention(options)
    validate_startup_options(options)
    validate_engine_combinations(options)
    validate_aggregate_functions(options)


# --------------------------------------------------------------------------------------------
# Typed accessors
# --------------------------------------------------------------------------------------------

PRIMARY_KEY_TABLE_TARGET_FILE_SIZE = 128 * KIBI**2
APPEND_TABLE_TARGET_FILE_SIZE = 256 * KIBI**2
STOP_TRIGGER_EXTRA_RUNS = 3


@dataclass(frozen=True)
class CoreOptions:
    """Typed, read-only view of a table's options (Java ``CoreOptions``' getters).

    Properties parse on access and raise :class:`InvalidOptionError` for bad text; durations are
    nanoseconds and memory sizes bytes.
    """

    options: Mapping[str, str] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        """Typed value of any registered option (default when unset)."""
        return option_value(self.options, key)

    def _field_option(self, name: str, suffix: str) -> str | None:
        return self.options.get(f"{FIELDS_PREFIX}{name}.{suffix}")

    def _parsed_field_option(
        self, name: str, suffix: str, parse: Callable[[str], T], default: T
    ) -> T:
        key = f"{FIELDS_PREFIX}{name}.{suffix}"
        text = self.options.get(key)
        if text is None:
            return default
        try:
            return parse(text)
        except ValueError as error:
            raise InvalidOptionError(key, text, str(error)) from None

    # table layout
    @property
    def bucket(self) -> int:
        value: int = self.get("bucket")
        return value

    @property
    def bucket_key(self) -> list[str]:
        """Bucket-key columns exactly as Java splits them (``split(",")``, no trimming)."""
        text = self.options.get("bucket-key")
        if text is None or not text.strip():
            return []
        return split_java(text)

    @property
    def file_format(self) -> str:
        return str(self.get("file.format")).lower()

    @property
    def manifest_format(self) -> str:
        return str(self.get("manifest.format")).lower()

    @property
    def file_compression(self) -> str:
        return str(self.get("file.compression"))

    @property
    def manifest_compression(self) -> str:
        return str(self.get("manifest.compression"))

    @property
    def file_format_per_level(self) -> dict[int, str]:
        levels: dict[str, str] = self.get("file.format.per.level")
        return {int(level): fmt.lower() for level, fmt in levels.items()}

    @property
    def data_file_prefix(self) -> str:
        return str(self.get("data-file.prefix"))

    @property
    def changelog_file_prefix(self) -> str:
        return str(self.get("changelog-file.prefix"))

    @property
    def data_file_thin_mode(self) -> bool:
        return bool(self.get("data-file.thin-mode"))

    @property
    def partition_default_name(self) -> str:
        return str(self.get("partition.default-name"))

    @property
    def partition_legacy_name(self) -> bool:
        return bool(self.get("partition.legacy-name"))

    @property
    def index_file_in_data_file_dir(self) -> bool:
        """Index files live in the bucket directories (``index-file-in-data-file-dir``)."""
        return bool(self.get("index-file-in-data-file-dir"))

    @property
    def data_file_path_directory(self) -> str | None:
        value = self.get("data-file.path-directory")
        return None if value is None else str(value)

    @property
    def stats_mode(self) -> str:
        text = str(self.get("metadata.stats-mode"))
        try:
            return parse_stats_mode(text)
        except ValueError as error:
            raise InvalidOptionError("metadata.stats-mode", text, str(error)) from None

    def field_stats_mode(self, name: str) -> str:
        """Stats mode of one column: ``fields.<name>.stats-mode`` else ``metadata.stats-mode``."""
        return self._parsed_field_option(name, "stats-mode", parse_stats_mode, self.stats_mode)

    def target_file_size(self, has_primary_key: bool) -> int:
        size: int | None = self.get("target-file-size")
        if size is not None:
            return size
        if has_primary_key:
            return PRIMARY_KEY_TABLE_TARGET_FILE_SIZE
        return APPEND_TABLE_TARGET_FILE_SIZE

    @property
    def write_buffer_size(self) -> int:
        value: int = self.get("write-buffer-size")
        return value

    # merging
    @property
    def merge_engine(self) -> MergeEngine:
        value: MergeEngine = self.get("merge-engine")
        return value

    @property
    def changelog_producer(self) -> ChangelogProducer:
        value: ChangelogProducer = self.get("changelog-producer")
        return value

    @property
    def sequence_fields(self) -> list[str]:
        value: list[str] | None = self.get("sequence.field")
        return value or []

    @property
    def sequence_field_sort_order(self) -> SortOrder:
        value: SortOrder = self.get("sequence.field.sort-order")
        return value

    @property
    def rowkind_field(self) -> str | None:
        value: str | None = self.get("rowkind.field")
        return value

    @property
    def ignore_delete(self) -> bool:
        return bool(self.get("ignore-delete"))

    @property
    def partial_update_remove_record_on_delete(self) -> bool:
        return bool(self.get("partial-update.remove-record-on-delete"))

    @property
    def aggregation_remove_record_on_delete(self) -> bool:
        return bool(self.get("aggregation.remove-record-on-delete"))

    @property
    def fields_default_aggregate_function(self) -> str | None:
        value: str | None = self.get("fields.default-aggregate-function")
        return value

    def field_aggregate_function(self, name: str) -> str | None:
        return self._field_option(name, "aggregate-function")

    def field_ignore_retract(self, name: str) -> bool:
        return self._parsed_field_option(name, "ignore-retract", parse_boolean, False)

    def field_distinct(self, name: str) -> bool:
        return self._parsed_field_option(name, "distinct", parse_boolean, False)

    def field_list_agg_delimiter(self, name: str) -> str:
        text = self._field_option(name, "list-agg-delimiter")
        return "," if text is None else text

    def field_nested_keys(self, name: str) -> list[str]:
        return self._parsed_field_option(name, "nested-key", parse_name_list, [])

    def field_default_value(self, name: str) -> str | None:
        """0.9.0's ``fields.<name>.default-value`` option."""
        return self._field_option(name, "default-value")

    @property
    def sequence_groups(self) -> dict[tuple[str, ...], list[str]]:
        """``fields.<s1,s2>.sequence-group = a,b``: sequence columns -> the columns they guard."""
        groups: dict[tuple[str, ...], list[str]] = {}
        for key, text in self.options.items():
            if key.startswith(FIELDS_PREFIX) and key.endswith(SEQUENCE_GROUP_SUFFIX):
                middle = key[len(FIELDS_PREFIX) : -len(SEQUENCE_GROUP_SUFFIX)]
                groups[tuple(split_java(middle))] = split_java(text)
        return groups

    # LSM tree
    @property
    def num_sorted_run_compaction_trigger(self) -> int:
        value: int = self.get("num-sorted-run.compaction-trigger")
        return value

    @property
    def num_sorted_run_stop_trigger(self) -> int:
        trigger = self.num_sorted_run_compaction_trigger
        stop: int | None = self.get("num-sorted-run.stop-trigger")
        return max(trigger, trigger + STOP_TRIGGER_EXTRA_RUNS if stop is None else stop)

    @property
    def num_levels(self) -> int:
        levels: int | None = self.get("num-levels")
        return self.num_sorted_run_compaction_trigger + 1 if levels is None else levels

    @property
    def full_compaction_delta_commits(self) -> int | None:
        value: int | None = self.get("full-compaction.delta-commits")
        return value

    @property
    def deletion_vectors_enabled(self) -> bool:
        return bool(self.get("deletion-vectors.enabled"))

    @property
    def write_only(self) -> bool:
        return bool(self.get("write-only"))

    @property
    def commit_force_compact(self) -> bool:
        return bool(self.get("commit.force-compact"))

    # dynamic buckets
    @property
    def dynamic_bucket_target_row_num(self) -> int:
        value: int = self.get("dynamic-bucket.target-row-num")
        return value

    @property
    def dynamic_bucket_max_buckets(self) -> int:
        value: int = self.get("dynamic-bucket.max-buckets")
        return value

    # expiration
    @property
    def snapshot_num_retained_min(self) -> int:
        value: int = self.get("snapshot.num-retained.min")
        return value

    @property
    def snapshot_num_retained_max(self) -> int:
        value: int = self.get("snapshot.num-retained.max")
        return value

    @property
    def snapshot_time_retained(self) -> int:
        value: int = self.get("snapshot.time-retained")
        return value

    @property
    def changelog_num_retained_min(self) -> int:
        value: int | None = self.get("changelog.num-retained.min")
        return self.snapshot_num_retained_min if value is None else value

    @property
    def changelog_num_retained_max(self) -> int:
        value: int | None = self.get("changelog.num-retained.max")
        return self.snapshot_num_retained_max if value is None else value

    @property
    def changelog_time_retained(self) -> int:
        value: int | None = self.get("changelog.time-retained")
        return self.snapshot_time_retained if value is None else value

    @property
    def snapshot_expire_limit(self) -> int:
        value: int = self.get("snapshot.expire.limit")
        return value

    @property
    def consumer_expiration_time(self) -> int | None:
        value: int | None = self.get("consumer.expiration-time")
        return value

    # scanning
    @property
    def startup_mode(self) -> StartupMode:
        return resolve_startup_mode(self.options)

    @property
    def scan_snapshot_id(self) -> int | None:
        value: int | None = self.get("scan.snapshot-id")
        return value

    @property
    def scan_tag_name(self) -> str | None:
        value: str | None = self.get("scan.tag-name")
        return value

    @property
    def scan_timestamp_millis(self) -> int | None:
        value: int | None = self.get("scan.timestamp-millis")
        return value

    @property
    def incremental_between(self) -> str | None:
        value: str | None = self.get("incremental-between")
        return value

    # file indexes
    def file_index_columns(self, index_type: str) -> list[str]:
        """Columns with a file index of ``index_type`` (``bloom-filter``, ``bitmap``, ``bsi``)."""
        text = self.options.get(f"file-index.{index_type}.columns")
        return [] if text is None else parse_name_list(text)

    def iter_unknown_keys(self) -> Iterator[str]:
        """Keys that are neither registered options, fallback keys nor pattern keys."""
        for key in self.options:
            if find_option(key) is None and find_pattern(key) is None:
                yield key
