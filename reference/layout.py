"""Where every file of a Paimon table lives: pure string functions, no IO.

Spec: ``docs/concepts/spec/overview.md`` (layout) and the pages of each file kind.
Java: ``utils/FileStorePathFactory``, ``io/DataFilePathFactory``, ``utils/SnapshotManager``,
``utils/ChangelogManager``, ``utils/TagManager``, ``utils/BranchManager``,
``consumer/ConsumerManager``, ``schema/SchemaManager``, ``utils/HintFileUtils``,
``utils/InternalRowPartitionComputer`` and ``utils/PartitionPathUtils``.

Layout of one table (``<root>`` = ``<warehouse>/<database>.db/<table>``)::

    <root>/schema/schema-<id>                 schema files (JSON)
    <root>/snapshot/snapshot-<id>             snapshots, plus the EARLIEST and LATEST hints
    <root>/changelog/changelog-<id>           long-lived changelog metadata (decoupled
                                              changelog), with its own EARLIEST/LATEST hints
    <root>/manifest/manifest-<uuid>-<n>       data manifests
    <root>/manifest/manifest-list-<uuid>-<n>  manifest lists
    <root>/manifest/index-manifest-<uuid>-<n> index manifests
    <root>/index/index-<uuid>-<n>             hash / deletion-vector index files (in the
                                              bucket directory instead with
                                              ``index-file-in-data-file-dir``, Paimon 1.x)
    <root>/statistics/stat-<uuid>-<n>         table statistics
    <root>/tag/tag-<name>                     tags
    <root>/consumer/consumer-<id>             consumer progress
    <root>/branch/branch-<name>/...           a branch: the same layout again (its own schema,
                                              snapshot, tag, ... directories; data files are
                                              shared under <root>)
    <root>/<k1>=<v1>/<k2>=<v2>/bucket-<n>/    data files of one partition and bucket
        data-<uuid>-<n>.<format>              a data file (``changelog-`` for changelog files)
        data-<uuid>-<n>.<format>.index        its file index, when not embedded in the manifest

Partition directories render each partition value as a string the way Java does (see
:func:`compute_partition_value_string`): by default ("legacy" names, the only behaviour of Paimon
0.9 and the default of later versions) that is Java's ``toString`` of the internal value, so a
DATE partition is written as its day number and a TIMESTAMP as ``2024-01-01T12:30``. A null,
empty or blank value becomes ``partition.default-name`` (``__DEFAULT_PARTITION__``). Names and
values are then escaped character by character as ``%XX``.

The postpone bucket (``bucket = -2``, Paimon 1.1+) lives in ``bucket-postpone``. External data
paths (Paimon 1.1+, ``data-file.external-paths``) repeat the partition/bucket directories under
an external root; a data file's own ``externalPath`` (from its manifest entry) wins over the
computed location.
"""

# ruff: noqa: PLC0414 -- `import X as X` re-exports the file and directory names of reference.spec.data_file are part of the layout.

from __future__ import annotations

import math
import struct
import unicodedata
from collections.abc import Sequence
from decimal import Decimal
from enum import Enum

from reference.errors import FileMissingError, PaimonFormatError, UnsupportedFeature
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.data import Timestamp, Value, date_from_days
from reference.spec.data_file import CHANGELOG_FILE_PREFIX as CHANGELOG_FILE_PREFIX
from reference.spec.data_file import DATA_FILE_PREFIX as DATA_FILE_PREFIX
from reference.spec.data_file import DEFAULT_PARTITION_NAME as DEFAULT_PARTITION_NAME
from reference.spec.data_file import FILE_INDEX_SUFFIX as FILE_INDEX_SUFFIX
from reference.spec.data_file import INDEX_DIR as INDEX_DIR
from reference.spec.data_file import MANIFEST_DIR as MANIFEST_DIR
from reference.spec.data_file import POSTPONE_BUCKET as POSTPONE_BUCKET
from reference.spec.data_file import POSTPONE_BUCKET_NAME as POSTPONE_BUCKET_NAME
from reference.spec.data_file import STATISTICS_DIR as STATISTICS_DIR
from reference.spec.schema import TableSchema
from reference.spec.snapshot import decode_hint
from reference.spec.units import MILLIS_PER_DAY, NANOS_PER_MILLI

SEPARATOR = "/"
DATABASE_SUFFIX = ".db"
MAIN_BRANCH = "main"

SCHEMA_DIR = "schema"
SNAPSHOT_DIR = "snapshot"
CHANGELOG_DIR = "changelog"
TAG_DIR = "tag"
BRANCH_DIR = "branch"
CONSUMER_DIR = "consumer"

SCHEMA_PREFIX = "schema-"
SNAPSHOT_PREFIX = "snapshot-"
CHANGELOG_PREFIX = "changelog-"
MANIFEST_PREFIX = "manifest-"
MANIFEST_LIST_PREFIX = "manifest-list-"
INDEX_MANIFEST_PREFIX = "index-manifest-"
INDEX_PREFIX = "index-"
STATISTICS_PREFIX = "stat-"
TAG_PREFIX = "tag-"
BRANCH_PREFIX = "branch-"
CONSUMER_PREFIX = "consumer-"
BUCKET_PREFIX = "bucket-"


class HintFile(Enum):
    """The two hint files of a snapshot (or changelog) directory; each holds one id as text."""

    EARLIEST = "EARLIEST"
    LATEST = "LATEST"


# --------------------------------------------------------------------------------------------
# Catalog and branches
# --------------------------------------------------------------------------------------------


def join(*parts: str) -> str:
    """Join path parts with ``/``, skipping empty parts and never doubling a separator."""
    kept = [p for p in parts if p]
    if not kept:
        return ""
    text = kept[0].rstrip(SEPARATOR)
    for part in kept[1:]:
        stripped = part.strip(SEPARATOR)
        if stripped:
            text = f"{text}{SEPARATOR}{stripped}"
    return text or SEPARATOR


def database_path(warehouse: str, database: str) -> str:
    """``<warehouse>/<database>.db`` (Java ``CatalogUtils.newDatabasePath``)."""
    return join(warehouse, database + DATABASE_SUFFIX)


def table_path(warehouse: str, database: str, table: str) -> str:
    """``<warehouse>/<database>.db/<table>`` (Java ``FileSystemCatalog`` table location)."""
    return join(database_path(warehouse, database), table)


def branch_path(table_root: str, branch: str = MAIN_BRANCH) -> str:
    """The root of a branch's metadata: the table root for ``main`` (or a blank name),
    ``<root>/branch/branch-<name>`` otherwise (Java ``BranchManager.branchPath``)."""
    if not branch.strip() or branch == MAIN_BRANCH:
        return table_root
    return join(table_root, BRANCH_DIR, BRANCH_PREFIX + branch)


def branch_dir(table_root: str) -> str:
    return join(table_root, BRANCH_DIR)


def parse_branch_path(path: str) -> tuple[str, str] | None:
    """``(table root, branch name)`` when ``path`` has the shape of a branch's metadata root,
    ``<table root>/branch/branch-<name>`` (the reverse of :func:`branch_path`); else None. A
    branch directory is not a table of its own: its manifests and data files are its table's."""
    parts = path.rstrip(SEPARATOR).rsplit(SEPARATOR, 2)
    if len(parts) != 3 or parts[1] != BRANCH_DIR or not parts[0]:
        return None
    name = parse_branch_name(parts[2])
    return None if name is None or name == MAIN_BRANCH else (parts[0], name)


# --------------------------------------------------------------------------------------------
# Metadata files
# --------------------------------------------------------------------------------------------


def schema_dir(table_root: str, branch: str = MAIN_BRANCH) -> str:
    return join(branch_path(table_root, branch), SCHEMA_DIR)


def schema_path(table_root: str, schema_id: int, branch: str = MAIN_BRANCH) -> str:
    return join(schema_dir(table_root, branch), f"{SCHEMA_PREFIX}{schema_id}")


def snapshot_dir(table_root: str, branch: str = MAIN_BRANCH) -> str:
    return join(branch_path(table_root, branch), SNAPSHOT_DIR)


def snapshot_path(table_root: str, snapshot_id: int, branch: str = MAIN_BRANCH) -> str:
    return join(snapshot_dir(table_root, branch), f"{SNAPSHOT_PREFIX}{snapshot_id}")


def changelog_dir(table_root: str, branch: str = MAIN_BRANCH) -> str:
    return join(branch_path(table_root, branch), CHANGELOG_DIR)


def changelog_path(table_root: str, snapshot_id: int, branch: str = MAIN_BRANCH) -> str:
    """Long-lived changelog metadata of a snapshot whose snapshot file has expired."""
    return join(changelog_dir(table_root, branch), f"{CHANGELOG_PREFIX}{snapshot_id}")


def hint_path(directory: str, hint: HintFile) -> str:
    """``<snapshot or changelog dir>/EARLIEST|LATEST`` (Java ``HintFileUtils``)."""
    return join(directory, hint.value)


def read_hint(file_io: FileIO, directory: str, hint: HintFile) -> int | None:
    """The snapshot id in ``directory``'s EARLIEST or LATEST hint, or ``None`` when the file is
    missing or does not hold one (Java ``HintFileUtils.readHint``: a hint only saves a
    listing, so a bad one is ignored, never trusted)."""
    try:
        return decode_hint(file_io.read_bytes(hint_path(directory, hint)))
    except FileMissingError:
        return None


def tag_dir(table_root: str, branch: str = MAIN_BRANCH) -> str:
    return join(branch_path(table_root, branch), TAG_DIR)


def tag_path(table_root: str, tag_name: str, branch: str = MAIN_BRANCH) -> str:
    return join(tag_dir(table_root, branch), TAG_PREFIX + tag_name)


def consumer_dir(table_root: str, branch: str = MAIN_BRANCH) -> str:
    return join(branch_path(table_root, branch), CONSUMER_DIR)


def consumer_path(table_root: str, consumer_id: str, branch: str = MAIN_BRANCH) -> str:
    return join(consumer_dir(table_root, branch), CONSUMER_PREFIX + consumer_id)


def manifest_dir(table_root: str) -> str:
    """Manifests, manifest lists and index manifests all live here (branches share data)."""
    return join(table_root, MANIFEST_DIR)


def manifest_path(table_root: str, file_name: str) -> str:
    return join(manifest_dir(table_root), file_name)


def index_dir(table_root: str) -> str:
    return join(table_root, INDEX_DIR)


def index_file_path(table_root: str, file_name: str) -> str:
    return join(index_dir(table_root), file_name)


def index_file_location(
    table_root: str,
    file_name: str,
    *,
    external_path: str | None = None,
    bucket_directory: str | None = None,
) -> str:
    """Where an index file of an index manifest entry is.

    Rule (Paimon 1.x): the entry's own ``_EXTERNAL_PATH`` wins; otherwise a table with
    ``index-file-in-data-file-dir = true`` keeps the index files of a partition and bucket in
    that bucket's data directory (``bucket_directory``, the one its data files are in); every
    other table keeps them in ``<root>/index/``. Java: ``utils/FileStorePathFactory
    .indexFileFactory`` choosing ``index/IndexInDataFileDirPathFactory`` (``toPath(IndexFileMeta)``
    resolves against the data file factory's ``parent()``) or the global index factory.
    """
    if external_path:
        return external_path
    if bucket_directory is not None:
        return join(bucket_directory, file_name)
    return index_file_path(table_root, file_name)


def statistics_dir(table_root: str) -> str:
    return join(table_root, STATISTICS_DIR)


def statistics_path(table_root: str, file_name: str) -> str:
    return join(statistics_dir(table_root), file_name)


def compute_counted_file_name(prefix: str, writer_uuid: str, count: int) -> str:
    """``<prefix><uuid>-<count>``: how Java names manifests, index and statistics files (one
    UUID per writer, a counter per file it writes)."""
    return f"{prefix}{writer_uuid}-{count}"


def manifest_file_name(writer_uuid: str, count: int) -> str:
    return compute_counted_file_name(MANIFEST_PREFIX, writer_uuid, count)


def manifest_list_file_name(writer_uuid: str, count: int) -> str:
    return compute_counted_file_name(MANIFEST_LIST_PREFIX, writer_uuid, count)


def index_manifest_file_name(writer_uuid: str, count: int) -> str:
    return compute_counted_file_name(INDEX_MANIFEST_PREFIX, writer_uuid, count)


def index_file_name(writer_uuid: str, count: int) -> str:
    return compute_counted_file_name(INDEX_PREFIX, writer_uuid, count)


def statistics_file_name(writer_uuid: str, count: int) -> str:
    return compute_counted_file_name(STATISTICS_PREFIX, writer_uuid, count)


# --------------------------------------------------------------------------------------------
# Versioned names (reverse direction)
# --------------------------------------------------------------------------------------------


def parse_versioned_name(name: str, prefix: str) -> int | None:
    """The id of ``<prefix><id>`` (e.g. ``snapshot-12`` -> 12); None for any other name.

    Only plain non-negative decimal ids count, so temp files and hints are skipped.
    """
    if not name.startswith(prefix):
        return None
    digits = name[len(prefix) :]
    if not digits.isascii() or not digits.isdigit():
        return None
    return int(digits)


def parse_snapshot_id(name: str) -> int | None:
    return parse_versioned_name(name, SNAPSHOT_PREFIX)


def parse_schema_id(name: str) -> int | None:
    return parse_versioned_name(name, SCHEMA_PREFIX)


def parse_changelog_id(name: str) -> int | None:
    return parse_versioned_name(name, CHANGELOG_PREFIX)


def parse_prefixed_name(name: str, prefix: str) -> str | None:
    """The rest of ``<prefix><rest>`` (a tag, branch or consumer name); None otherwise."""
    if not name.startswith(prefix) or len(name) == len(prefix):
        return None
    return name[len(prefix) :]


def parse_tag_name(file_name: str) -> str | None:
    return parse_prefixed_name(file_name, TAG_PREFIX)


def parse_branch_name(dir_name: str) -> str | None:
    return parse_prefixed_name(dir_name, BRANCH_PREFIX)


def parse_consumer_id(file_name: str) -> str | None:
    return parse_prefixed_name(file_name, CONSUMER_PREFIX)


# --------------------------------------------------------------------------------------------
# Partition values as strings
# --------------------------------------------------------------------------------------------


def is_java_whitespace(char: str) -> bool:
    """Java ``Character.isWhitespace``: Unicode space separators except the non-breaking ones,
    plus tab, line feed, vertical tab, form feed, carriage return and U+001C..U+001F."""
    if char in "\t\n\u000b\f\r\u001c\u001d\u001e\u001f":
        return True
    if char in "\u00a0\u2007\u202f":
        return False
    return unicodedata.category(char) in ("Zs", "Zl", "Zp")


def is_blank(text: str) -> bool:
    """Java ``StringUtils.isNullOrWhitespaceOnly`` for a non-null string."""
    return all(is_java_whitespace(c) for c in text)


FLOAT32_MAX_DIGITS = 9
FLOAT64_MAX_DIGITS = 17


def _java_shortest_digits(value: float, is_float32: bool) -> str:
    """The decimal Java prints for ``value``, as Python ``%e`` text: the fewest significant
    digits that read back as the same float (double or float32), the closest such decimal;
    and when one digit would do, the closest two-digit decimal instead (so ``4.9E-324``)."""
    width = "<f" if is_float32 else "<d"
    packed = struct.pack(width, value)

    def reads_back(text: str) -> bool:
        try:
            return struct.pack(width, float(text)) == packed
        except OverflowError:
            return False

    limit = FLOAT32_MAX_DIGITS if is_float32 else FLOAT64_MAX_DIGITS
    for digits in range(1, limit + 1):
        text = f"{value:.{digits - 1}e}"
        if reads_back(text):
            two_digits = f"{value:.1e}"
            return two_digits if digits == 1 and reads_back(two_digits) else text
    return f"{value:.{limit - 1}e}"


def _java_scientific_layout(mantissa_text: str) -> str:
    """Lay out ``d.ddde±x`` (Python) the way Java's ``Double.toString`` does."""
    digits_part, _, exponent_text = mantissa_text.partition("e")
    sign = "-" if digits_part.startswith("-") else ""
    digits = digits_part.lstrip("-").replace(".", "").rstrip("0") or "0"
    exponent = int(exponent_text)
    magnitude = Decimal(f"{digits[0]}.{digits[1:] or '0'}e{exponent}")
    if Decimal("1e-3") <= magnitude < Decimal("1e7"):
        point = exponent + 1
        if point <= 0:
            whole, fraction = "0", "0" * -point + digits
        elif point >= len(digits):
            whole, fraction = digits + "0" * (point - len(digits)), "0"
        else:
            whole, fraction = digits[:point], digits[point:]
        return f"{sign}{whole}.{fraction}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def compute_java_double_string(value: float, *, is_float32: bool = False) -> str:
    """Java ``Double.toString`` / ``Float.toString`` (shortest repr digits, JDK 19+ rules):
    plain notation for magnitudes in [1e-3, 1e7), otherwise ``d.dddE±x``; at least one
    fractional digit; ``NaN``, ``Infinity``, ``-0.0``.

    JDK 17 and older can print one extra digit for a few values; Paimon 0.9 runs there, so such
    partition values may differ (none of the fixtures hits this).
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return _java_scientific_layout(_java_shortest_digits(value, is_float32))


def compute_local_date_time_string(timestamp: Timestamp) -> str:
    """Java ``LocalDateTime.toString()`` of a timestamp: ``yyyy-MM-ddTHH:mm``, then ``:ss`` if
    seconds or nanos are non-zero, then ``.SSS``, ``.SSSSSS`` or ``.SSSSSSSSS`` (the shortest
    group of three that holds the nanos)."""
    days, millis_of_day = divmod(timestamp.millisecond, MILLIS_PER_DAY)
    date_text = compute_local_date_string(days)
    nanos_of_day = millis_of_day * NANOS_PER_MILLI + timestamp.nano_of_millisecond
    seconds_of_day, nano = divmod(nanos_of_day, 1_000_000_000)
    hour, rest = divmod(seconds_of_day, 3600)
    minute, second = divmod(rest, 60)
    text = f"{date_text}T{hour:02d}:{minute:02d}"
    if second or nano:
        text += f":{second:02d}"
    if nano:
        if nano % 1_000_000 == 0:
            text += f".{nano // 1_000_000:03d}"
        elif nano % 1_000 == 0:
            text += f".{nano // 1_000:06d}"
        else:
            text += f".{nano:09d}"
    return text


def compute_local_date_string(days: int) -> str:
    """Java ``LocalDate.toString()`` for years 1..9999 (``yyyy-MM-dd``)."""
    try:
        return date_from_days(days).isoformat()
    except OverflowError as error:
        raise UnsupportedFeature(f"date {days} days from the epoch is out of range") from error


def compute_time_string(millis_of_day: int, precision: int) -> str:
    """Paimon's ``CAST(time AS STRING)`` (``DateTimeUtils.formatTimestampMillis``): ``HH:mm:ss``
    and, when ``precision > 0``, up to ``precision`` millisecond digits, stopping early once the
    remaining digits are all zero (at least one digit)."""
    millis = millis_of_day % MILLIS_PER_DAY
    hour, rest = divmod(millis, 3_600_000)
    minute, rest = divmod(rest, 60_000)
    second, milli = divmod(rest, 1000)
    text = f"{hour:02d}:{minute:02d}:{second:02d}"
    if precision <= 0:
        return text
    fraction = ""
    remaining = milli
    for _ in range(precision):
        fraction += str(remaining // 100)
        remaining = remaining % 100 * 10
        if remaining == 0:
            break
    return f"{text}.{fraction}"


def compute_cast_timestamp_string(timestamp: Timestamp, precision: int) -> str:
    """Paimon's ``CAST(timestamp AS STRING)`` (``DateTimeUtils.formatTimestamp``):
    ``yyyy-MM-dd HH:mm:ss`` plus the nine nano digits with trailing zeros dropped, but never
    fewer digits than ``precision``."""
    days, millis_of_day = divmod(timestamp.millisecond, MILLIS_PER_DAY)
    seconds_of_day, milli = divmod(millis_of_day, 1000)
    hour, rest = divmod(seconds_of_day, 3600)
    minute, second = divmod(rest, 60)
    fraction = f"{milli * NANOS_PER_MILLI + timestamp.nano_of_millisecond:09d}"
    while len(fraction) > precision and fraction.endswith("0"):
        fraction = fraction[:-1]
    text = f"{compute_local_date_string(days)} {hour:02d}:{minute:02d}:{second:02d}"
    return f"{text}.{fraction}" if fraction else text


def _legacy_value_string(value: Value, data_type: t.DataType) -> str:
    """Java ``toString`` of the internal value (the legacy partition name)."""
    if isinstance(data_type, t.BooleanType):
        return "true" if value else "false"
    if isinstance(data_type, (t.TinyIntType, t.SmallIntType, t.IntType, t.BigIntType)):
        return str(int(value))
    if isinstance(data_type, (t.DateType, t.TimeType)):
        return str(int(value))
    if isinstance(data_type, (t.FloatType, t.DoubleType)):
        return compute_java_double_string(
            float(value),
            is_float32=isinstance(data_type, t.FloatType),
        )
    if isinstance(data_type, t.DecimalType):
        return _plain_decimal_string(value)
    if isinstance(data_type, (t.CharType, t.VarCharType)):
        return str(value)
    if isinstance(value, Timestamp):
        return compute_local_date_time_string(value)
    raise UnsupportedFeature(
        f"a {data_type} partition has no stable legacy name (Java prints an object identity); "
        "set partition.legacy-name = false"
    )


def _cast_value_string(value: Value, data_type: t.DataType) -> str:
    """Paimon's ``CAST(value AS STRING)`` (the partition name when legacy names are off)."""
    if isinstance(data_type, t.DateType):
        return compute_local_date_string(int(value))
    if isinstance(data_type, t.TimeType):
        return compute_time_string(int(value), data_type.precision)
    if isinstance(data_type, t.TimestampType) and isinstance(value, Timestamp):
        return compute_cast_timestamp_string(value, data_type.precision)
    if isinstance(data_type, t.LocalZonedTimestampType):
        raise UnsupportedFeature(
            "a non-legacy TIMESTAMP WITH LOCAL TIME ZONE partition name depends on the writer's "
            "JVM time zone"
        )
    if isinstance(data_type, (t.BinaryType, t.VarBinaryType)) and isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return _legacy_value_string(value, data_type)


def _plain_decimal_string(value: Value) -> str:
    """Java ``BigDecimal.toPlainString``: no exponent, the value's own scale."""
    if not isinstance(value, Decimal):
        raise TypeError(f"a DECIMAL value must be a Decimal, got {value!r}")
    return f"{value:f}"


def compute_partition_value_string(
    value: Value,
    data_type: t.DataType,
    *,
    default_name: str = DEFAULT_PARTITION_NAME,
    legacy_name: bool = True,
) -> str:
    """The (unescaped) string of one partition value in a directory name.

    Java: ``InternalRowPartitionComputer.generatePartValues``. Null, empty and whitespace-only
    strings become ``default_name``. With ``legacy_name`` (``partition.legacy-name``, default
    true; Paimon 0.9 has only this) the string is Java's ``toString`` of the internal value:
    DATE and TIME print their integer (days, millis), TIMESTAMP prints ``LocalDateTime`` form,
    floats print Java's ``Double.toString``, decimals ``toPlainString``. Without it the value is
    cast to STRING (``2024-01-31``, ``12:30:00``, ``2024-01-31 12:30:00.123``).
    """
    if value is None:
        return default_name
    text = (
        _legacy_value_string(value, data_type)
        if legacy_name
        else _cast_value_string(value, data_type)
    )
    return default_name if is_blank(text) else text


def compute_partition_spec(
    partition_fields: Sequence[t.DataField],
    values: Sequence[Value],
    *,
    default_name: str = DEFAULT_PARTITION_NAME,
    legacy_name: bool = True,
) -> list[tuple[str, str]]:
    """``[(name, value string), ...]`` of a partition row, in partition-key order."""
    if len(partition_fields) != len(values):
        raise ValueError(f"{len(partition_fields)} partition fields but {len(values)} values")
    return [
        (
            f.name,
            compute_partition_value_string(
                v, f.type, default_name=default_name, legacy_name=legacy_name
            ),
        )
        for f, v in zip(partition_fields, values, strict=True)
    ]


# --------------------------------------------------------------------------------------------
# Escaping
# --------------------------------------------------------------------------------------------

ESCAPED_CHARACTERS = frozenset(
    [chr(c) for c in range(0x20)]
    + ['"', "#", "%", "'", "*", "/", ":", "=", "?", "\\"]
    + ["\u007f", "{", "}", "[", "]", "^"]
)
"""Characters written as ``%XX`` in partition directory names (Java ``PartitionPathUtils``)."""

ESCAPE_CHAR = "%"
HEX_DIGITS = "0123456789abcdefABCDEF"


def escape_path_name(text: str) -> str:
    """Escape one partition name or value: each character in :data:`ESCAPED_CHARACTERS` becomes
    ``%`` and two upper-case hex digits; everything else (non-ASCII too) is kept."""
    if not text:
        raise ValueError("a partition name or value to escape must not be empty")
    return "".join(f"%{ord(c):02X}" if c in ESCAPED_CHARACTERS else c for c in text)


def unescape_path_name(text: str) -> str:
    """Undo :func:`escape_path_name`: ``%`` followed by two characters that Java's
    ``Integer.parseInt(_, 16)`` reads as a non-negative number becomes that character; any other
    ``%`` is kept literally."""
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == ESCAPE_CHAR and index + 2 < len(text):
            code = _parse_two_hex(text[index + 1 : index + 3])
            if code is not None:
                out.append(chr(code))
                index += 3
                continue
        out.append(char)
        index += 1
    return "".join(out)


def _parse_two_hex(pair: str) -> int | None:
    """Java ``Integer.parseInt(pair, 16)`` for a two-character string, None when it throws or
    is negative (a leading ``+`` is accepted, as Java does)."""
    sign, digits = (pair[0], pair[1:]) if pair[0] in "+-" else ("", pair)
    if not digits or any(c not in HEX_DIGITS for c in digits):
        return None
    value = -int(digits, 16) if sign == "-" else int(digits, 16)
    return value if value >= 0 else None


def compute_partition_path(spec: Sequence[tuple[str, str]]) -> str:
    """``k1=v1/k2=v2`` (escaped) for a partition spec; ``""`` for an unpartitioned table.

    Java ``PartitionPathUtils.generatePartitionPath`` (Java adds a trailing ``/``; we join
    with :func:`join` instead).
    """
    return SEPARATOR.join(f"{escape_path_name(k)}={escape_path_name(v)}" for k, v in spec)


def parse_partition_path(relative_path: str) -> list[tuple[str, str]]:
    """``[(name, value), ...]`` (unescaped) of every ``k=v`` component of a relative path, in
    order; components that are not ``k=v`` (``bucket-0``, a file name) are skipped.

    Java ``PartitionPathUtils.extractPartitionSpecFromPath``: a component matches when it has a
    non-empty name, ``=`` and a non-empty value; Java's pattern is greedy, so the *last* ``=``
    separates (escaped names and values never contain a raw ``=`` anyway).
    """
    spec: list[tuple[str, str]] = []
    for component in relative_path.split(SEPARATOR):
        name, separator, value = component.rpartition("=")
        if separator and name and value:
            spec.append((unescape_path_name(name), unescape_path_name(value)))
    return spec


# --------------------------------------------------------------------------------------------
# Data files
# --------------------------------------------------------------------------------------------


def bucket_dir_name(bucket: int) -> str:
    """``bucket-<n>``; the postpone bucket (-2) is ``bucket-postpone``."""
    if bucket == POSTPONE_BUCKET:
        return BUCKET_PREFIX + POSTPONE_BUCKET_NAME
    return f"{BUCKET_PREFIX}{bucket}"


def parse_bucket_dir_name(name: str) -> int | None:
    """The bucket of ``bucket-<n>`` / ``bucket-postpone``; None for other names."""
    if name == BUCKET_PREFIX + POSTPONE_BUCKET_NAME:
        return POSTPONE_BUCKET
    rest = parse_prefixed_name(name, BUCKET_PREFIX)
    if rest is None:
        return None
    body = rest[1:] if rest.startswith("-") else rest
    if not body.isascii() or not body.isdigit():
        return None
    return int(rest)


def relative_bucket_path(
    partition_spec: Sequence[tuple[str, str]],
    bucket: int,
    *,
    data_file_path_directory: str | None = None,
) -> str:
    """``[<data-file.path-directory>/]<partition path>/bucket-<n>`` relative to the table root
    (Java ``FileStorePathFactory.relativeBucketPath``)."""
    return join(
        data_file_path_directory or "",
        compute_partition_path(partition_spec),
        bucket_dir_name(bucket),
    )


def bucket_path(
    table_root: str,
    partition_spec: Sequence[tuple[str, str]],
    bucket: int,
    *,
    data_file_path_directory: str | None = None,
) -> str:
    """The directory of one partition and bucket's data files."""
    return join(
        table_root,
        relative_bucket_path(
            partition_spec, bucket, data_file_path_directory=data_file_path_directory
        ),
    )


def compute_bucket_path(
    table_root: str, schema: TableSchema, partition: Sequence[Value], bucket: int
) -> str:
    """The directory of a partition and bucket of a table: its partition values rendered as Java
    does under the table's ``partition.default-name`` / ``partition.legacy-name``, below its
    ``data-file.path-directory`` (Java ``FileStorePathFactory.bucketPath``)."""
    options = schema.core_options
    spec = compute_partition_spec(
        schema.partition_type.fields,
        partition,
        default_name=options.partition_default_name,
        legacy_name=options.partition_legacy_name,
    )
    return bucket_path(
        table_root, spec, bucket, data_file_path_directory=options.data_file_path_directory
    )


def external_bucket_path(
    external_root: str,
    partition_spec: Sequence[tuple[str, str]],
    bucket: int,
    *,
    data_file_path_directory: str | None = None,
) -> str:
    """The same partition/bucket directories under an external data root (Paimon 1.1+
    ``data-file.external-paths``; Java ``ExternalPathProvider``)."""
    return bucket_path(
        external_root, partition_spec, bucket, data_file_path_directory=data_file_path_directory
    )


def data_file_path(bucket_directory: str, file_name: str, external_path: str | None = None) -> str:
    """Where a data file is: its own external path when the manifest records one, otherwise
    ``<bucket dir>/<file name>`` (Java ``DataFilePathFactory.toPath``)."""
    return external_path if external_path else join(bucket_directory, file_name)


COMPRESSION_FILE_EXTENSIONS = {
    "none": None,
    "gzip": "gz",
    "bzip2": "bz2",
    "deflate": "deflate",
    "snappy": "snappy",
    "lz4": "lz4",
    "zstd": "zst",
}
"""Java ``HadoopCompressionType``: the file extension of each compression (none has none)."""


def compute_compression_extension(compression: str | None) -> str | None:
    """The extension a compression adds to file names; unknown names are used as they are."""
    if not compression:
        return None
    return COMPRESSION_FILE_EXTENSIONS.get(compression.lower(), compression)


def data_file_name(
    writer_uuid: str,
    count: int,
    file_format: str,
    *,
    prefix: str = DATA_FILE_PREFIX,
    compression: str | None = None,
    suffix_include_compression: bool = False,
) -> str:
    """``<prefix><uuid>-<count>.<format>`` (Java ``DataFilePathFactory``); with
    ``file.suffix.include.compression`` the compression's extension sits before the format
    (``.zst.parquet``). Changelog files use ``prefix = "changelog-"``."""
    extension = f".{file_format}"
    compression_extension = compute_compression_extension(compression)
    if compression_extension and suffix_include_compression:
        extension = f".{compression_extension}.{file_format}"
    return f"{prefix}{writer_uuid}-{count}{extension}"


def data_file_format(file_name: str) -> str:
    """The format identifier of a data file name: its last extension (``parquet``), or the one
    before it when the last is a compression extension (``json.gz``)."""
    stem, dot, extension = file_name.rpartition(".")
    if not dot or not stem:
        raise PaimonFormatError(f"data file name {file_name!r} has no format extension")
    if extension in COMPRESSION_FILE_EXTENSIONS.values():
        inner_stem, inner_dot, inner = stem.rpartition(".")
        if not inner_dot or not inner_stem:
            raise PaimonFormatError(f"data file name {file_name!r} has no format extension")
        return inner
    return extension


def file_index_path(data_file: str) -> str:
    """The separate file-index file of a data file: its path plus ``.index``."""
    return data_file + FILE_INDEX_SUFFIX
