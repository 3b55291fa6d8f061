"""The options of the ``paimon`` source: Paimon's own keys, the source's few keys of its own,
and the rules that turn a read's options into the snapshot it reads.

Vocabulary (declared once):

* every table option of :data:`reference.spec.options.TABLE_OPTIONS` (and its fallback keys
  and key patterns such as ``fields.<field>.aggregate-function``), read options included
  (``scan.snapshot-id``, ``scan.tag-name``, ``scan.timestamp-millis``, ``scan.mode``,
  ``incremental-between``, ``consumer-id``, ...);
* :data:`SOURCE_OPTIONS`: the keys only this source knows (the table path, the short time
  travel keys, Spark's ``versionAsOf`` / ``timestampAsOf``, the write's commit identity,
  format-table reads, Spark's own streaming keys);
* the S3 keys :data:`reference.io.S3_OPTION_KEYS` accepts.

Spark hands options to a Python data source with lower-cased keys, so every key here is
compared lower-cased. A key outside the vocabulary is refused (:func:`check_option_names`)
with the nearest known keys (``difflib``), on reads and writes alike: a typo such as
``bukket`` would otherwise be silently ignored.

Time travel (:func:`resolve_time_travel`), as Paimon's Spark connector maps it (Java
``SparkCatalog.loadTable(ident, version)`` / ``loadTable(ident, timestamp)``,
``CoreOptions.startupMode``):

* ``scan.snapshot-id`` (or ``snapshot-id``), ``scan.tag-name`` (or ``tag-name``),
  ``scan.timestamp-millis`` (or ``timestamp-millis``) select one snapshot;
* ``versionAsOf`` and ``scan.version``: a number is a snapshot id, other text a tag name;
* ``timestampAsOf``: epoch milliseconds, or an ISO date-time (UTC unless it carries an
  offset): the latest snapshot committed at or before it;
* ``scan.mode``: ``default`` / ``latest-full`` / ``full`` / ``latest`` read the latest
  snapshot in a batch read; ``from-snapshot`` / ``from-snapshot-full`` /
  ``from-timestamp`` need their key (Java ``SchemaValidation.validateStartupMode``);
  the other modes are refused in a batch read as unsupported.
* At most one selector; two are refused naming both.

Stream-only keys (``consumer-id``, ``streaming.read.*``, ...) are known keys: a batch read
accepts them and, as Java's batch scan, does nothing with them. ``incremental-between`` and
``incremental-between-timestamp`` are refused in a batch read (``UnsupportedFeature``, the
reference's ``reference.store.incremental`` reads them) rather than silently ignored.
"""

from __future__ import annotations

import datetime
import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from reference.errors import InvalidOptionError, UnsupportedFeature
from reference.io import S3_OPTION_KEYS
from reference.spec.format_table import PATH_OPTION
from reference.spec.options import (
    OPTION_PATTERNS,
    TABLE_OPTIONS,
    StartupMode,
    find_option,
    find_pattern,
    resolve_startup_mode,
    validate_option,
    validate_startup_options,
)
from reference.spec.units import MILLIS_PER_SECOND

SNAPSHOT_ID_OPTION = "snapshot-id"
TAG_NAME_OPTION = "tag-name"
TIMESTAMP_MILLIS_OPTION = "timestamp-millis"
VERSION_AS_OF_OPTION = "versionasof"
TIMESTAMP_AS_OF_OPTION = "timestampasof"
ROW_KIND_OPTION = "read.row-kind"
STATIC_PARTITION_OPTION = "static-partition"
COMMIT_USER_OPTION = "commit.user"
COMMIT_IDENTIFIER_OPTION = "commit.identifier"
SYSTEM_TABLE_OPTION = "system-table"
CHECKPOINT_LOCATION_OPTION = "checkpointlocation"
SCAN_MODE_OPTION = "scan.mode"
SCAN_SNAPSHOT_ID_OPTION = "scan.snapshot-id"
SCAN_TAG_NAME_OPTION = "scan.tag-name"
SCAN_TIMESTAMP_MILLIS_OPTION = "scan.timestamp-millis"
SCAN_VERSION_OPTION = "scan.version"
INCREMENTAL_BETWEEN_OPTION = "incremental-between"
INCREMENTAL_BETWEEN_TIMESTAMP_OPTION = "incremental-between-timestamp"
LOCAL_READ_MAX_ROWS_OPTION = "read.local.max-rows"
NEAREST_KEYS = 3
NEAREST_CUTOFF = 0.6

SOURCE_OPTIONS: Mapping[str, str] = {
    PATH_OPTION: "the table directory (load(path) / save(path))",
    SNAPSHOT_ID_OPTION: "short for scan.snapshot-id",
    TAG_NAME_OPTION: "short for scan.tag-name",
    TIMESTAMP_MILLIS_OPTION: "short for scan.timestamp-millis",
    VERSION_AS_OF_OPTION: "Spark's versionAsOf: a snapshot id (a number) or a tag name",
    TIMESTAMP_AS_OF_OPTION: "Spark's timestampAsOf: epoch millis or an ISO date-time",
    ROW_KIND_OPTION: "add the _ROW_KIND column (needed by stream reads)",
    STATIC_PARTITION_OPTION: "overwrite this partition only (a JSON object)",
    COMMIT_USER_OPTION: "the write's commit user (stable across retries of one job)",
    COMMIT_IDENTIFIER_OPTION: "the write's commit identifier (increasing per write)",
    SYSTEM_TABLE_OPTION: "read this system table of the table",
    CHECKPOINT_LOCATION_OPTION: "Spark's streaming checkpoint location",
    LOCAL_READ_MAX_ROWS_OPTION: "read_table: most planned rows read on the driver",
    "fields": "format tables: the columns (JSON), when no .schema(...) is given",
    "partition-keys": "format tables: the partition columns",
    "format-table.implementation": "format tables: paimon or engine",
}
"""Keys only the ``paimon`` source knows (lower-cased, as Spark hands them over)."""

TIME_TRAVEL_KEYS: tuple[tuple[str, str], ...] = (
    (SCAN_SNAPSHOT_ID_OPTION, SNAPSHOT_ID_OPTION),
    (SCAN_TAG_NAME_OPTION, TAG_NAME_OPTION),
    (SCAN_TIMESTAMP_MILLIS_OPTION, TIMESTAMP_MILLIS_OPTION),
)
"""Each Paimon time-travel key and its short spelling."""

BATCH_LATEST_MODES = frozenset(
    {StartupMode.DEFAULT, StartupMode.LATEST_FULL, StartupMode.FULL, StartupMode.LATEST}
)
BATCH_SELECTING_MODES = frozenset(
    {StartupMode.FROM_SNAPSHOT, StartupMode.FROM_SNAPSHOT_FULL, StartupMode.FROM_TIMESTAMP}
)


def known_keys() -> list[str]:
    """Every key the source accepts literally (patterns aside), for suggestions."""
    keys = {spec.key for spec in TABLE_OPTIONS}
    keys.update(k for spec in TABLE_OPTIONS for k in spec.fallback_keys)
    keys.update(SOURCE_OPTIONS)
    keys.update(k for spellings in S3_OPTION_KEYS.values() for k in spellings)
    return sorted(keys)


def is_known_key(key: str) -> bool:
    """A table option (or fallback key, or pattern key), a source key or an S3 key."""
    if key in SOURCE_OPTIONS or find_option(key) is not None or find_pattern(key) is not None:
        return True
    return any(key in spellings for spellings in S3_OPTION_KEYS.values())


def nearest_keys(key: str) -> list[str]:
    """The known keys closest to ``key`` (``difflib``), then pattern templates sharing its
    first word."""
    close = difflib.get_close_matches(key, known_keys(), n=NEAREST_KEYS, cutoff=NEAREST_CUTOFF)
    if close:
        return close
    head = key.split(".", 1)[0]
    return [p.template for p in OPTION_PATTERNS if p.template.startswith(head + ".")][:NEAREST_KEYS]


def check_option_names(options: Mapping[str, str], allowed: Iterable[str] = ()) -> None:
    """Refuse the first unknown key with its name and the nearest known keys; then check the
    text of each known Paimon option (type, range, vocabulary: ``validate_option``)."""
    extra = set(allowed)
    for key in sorted(options):
        if key in extra:
            continue
        if not is_known_key(key):
            near = nearest_keys(key)
            hint = f"; did you mean {', '.join(repr(k) for k in near)}?" if near else ""
            raise InvalidOptionError(key, options[key], f"unknown option{hint}")
        if key not in SOURCE_OPTIONS:
            validate_option(key, options[key])


# --------------------------------------------------------------------------------------------
# Time travel
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TravelChoice:
    """The snapshot a batch read selects: at most one field set (none: the latest)."""

    snapshot_id: int | None = None
    tag_name: str | None = None
    timestamp_millis: int | None = None


def _long(key: str, text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise InvalidOptionError(key, text, "expected an integer") from None


def parse_timestamp_as_of(text: str) -> int:
    """``timestampAsOf``: epoch millis, or an ISO date-time (UTC unless it has an offset)."""
    stripped = text.strip()
    if stripped.lstrip("-").isdigit():
        return int(stripped)
    try:
        moment = datetime.datetime.fromisoformat(stripped)
    except ValueError:
        raise InvalidOptionError(
            TIMESTAMP_AS_OF_OPTION, text, "expected epoch millis or 'YYYY-MM-DD HH:MM:SS[.fff]'"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return round(moment.timestamp() * MILLIS_PER_SECOND)


def _version_choice(key: str, text: str) -> TravelChoice:
    """``versionAsOf`` / ``scan.version``: a number is a snapshot id, else a tag name."""
    stripped = text.strip()
    if stripped.isdigit():
        return TravelChoice(snapshot_id=int(stripped))
    if not stripped:
        raise InvalidOptionError(key, text, "expected a snapshot id or a tag name")
    return TravelChoice(tag_name=stripped)


def _choices(options: Mapping[str, str]) -> dict[str, TravelChoice]:
    """Each time-travel key present and what it selects."""
    found: dict[str, TravelChoice] = {}
    for key in (SCAN_SNAPSHOT_ID_OPTION, SNAPSHOT_ID_OPTION):
        if key in options:
            found[key] = TravelChoice(snapshot_id=_long(key, options[key]))
    for key in (SCAN_TAG_NAME_OPTION, TAG_NAME_OPTION):
        if key in options:
            found[key] = TravelChoice(tag_name=options[key])
    for key in (SCAN_TIMESTAMP_MILLIS_OPTION, TIMESTAMP_MILLIS_OPTION):
        if key in options:
            found[key] = TravelChoice(timestamp_millis=_long(key, options[key]))
    for key in (VERSION_AS_OF_OPTION, SCAN_VERSION_OPTION):
        if key in options:
            found[key] = _version_choice(key, options[key])
    if TIMESTAMP_AS_OF_OPTION in options:
        millis = parse_timestamp_as_of(options[TIMESTAMP_AS_OF_OPTION])
        found[TIMESTAMP_AS_OF_OPTION] = TravelChoice(timestamp_millis=millis)
    return found


def _paimon_spelling(options: Mapping[str, str], choice: TravelChoice) -> dict[str, str]:
    """The scan options (and ``scan.mode``) that say the same, for Java's mode rules."""
    spelled = {k: v for k, v in options.items() if k == SCAN_MODE_OPTION}
    if choice.snapshot_id is not None:
        spelled[SCAN_SNAPSHOT_ID_OPTION] = str(choice.snapshot_id)
    elif choice.tag_name is not None:
        spelled[SCAN_TAG_NAME_OPTION] = choice.tag_name
    elif choice.timestamp_millis is not None:
        spelled[SCAN_TIMESTAMP_MILLIS_OPTION] = str(choice.timestamp_millis)
    for key in (INCREMENTAL_BETWEEN_OPTION, INCREMENTAL_BETWEEN_TIMESTAMP_OPTION):
        if key in options:
            spelled[key] = options[key]
    return spelled


def resolve_time_travel(options: Mapping[str, str]) -> TravelChoice:
    """The snapshot a batch read's options select (see the module docstring).

    Raise :class:`InvalidOptionError` naming the keys for two selectors or a scan mode
    without its key, and :class:`UnsupportedFeature` for a scan mode a batch read of
    spark_impl does not have (``incremental``, ``compacted-full``, ...)."""
    found = _choices(options)
    if len(found) > 1:
        keys = sorted(found)
        raise InvalidOptionError(
            keys[1], options[keys[1]], f"choose one time-travel option, got {keys}"
        )
    choice = next(iter(found.values()), TravelChoice())
    spelled = _paimon_spelling(options, choice)
    validate_startup_options(spelled)
    mode = resolve_startup_mode(spelled)
    if mode not in BATCH_LATEST_MODES | BATCH_SELECTING_MODES:
        key = SCAN_MODE_OPTION if SCAN_MODE_OPTION in options else _incremental_key(options)
        raise UnsupportedFeature(
            f"option '{key}' = {options.get(key)!r}: spark_impl's batch reads select one "
            f"snapshot (scan mode {mode.value} is not supported); read the changes with "
            "spark_impl.read_stream or the reference (reference.store.incremental)"
        )
    return choice


def _incremental_key(options: Mapping[str, str]) -> str:
    for key in (INCREMENTAL_BETWEEN_OPTION, INCREMENTAL_BETWEEN_TIMESTAMP_OPTION):
        if key in options:
            return key
    return SCAN_MODE_OPTION
