"""Snapshot files, the EARLIEST/LATEST hints, tag files and consumer files.

Spec: ``docs/concepts/spec/snapshot.md``.
Java: ``org.apache.paimon.Snapshot`` (paimon-api on main, paimon-core in 0.9.0),
``org.apache.paimon.utils.HintFileUtils``, ``org.apache.paimon.tag.Tag`` and
``org.apache.paimon.consumer.Consumer``.

A snapshot file (``snapshot/snapshot-<id>``) is a JSON object. Its members, in the order every
Java version writes them, are (``*`` = written only when set; the rest are always written, as
``null`` when unset):

``version``, ``uuid``\\*, ``id``, ``schemaId``, ``baseManifestList``,
``baseManifestListSize``\\*, ``deltaManifestList``, ``deltaManifestListSize``\\*,
``changelogManifestList``, ``changelogManifestListSize``\\*, ``indexManifest``\\*,
``commitUser``, ``writerVersion``\\*, ``commitIdentifier``, ``commitKind``, ``timeMillis``,
``logOffsets``\\*, ``totalRecordCount``, ``deltaRecordCount``, ``changelogRecordCount``\\*,
``watermark``\\*, ``statistics``\\*, ``properties``\\*, ``nextRowId``\\*, ``operation``\\*.

Which optional members exist depends on the writer: 0.9.0 writes ``changelogManifestList``
even when it is ``null`` and always writes ``logOffsets`` (usually ``{ }``); the list sizes
appear from 1.1, ``properties`` from 1.2 and ``nextRowId`` from 1.3; from 1.4
``changelogManifestList`` is omitted when unset and ``logOffsets`` is gone; ``uuid``,
``writerVersion`` and ``operation`` are main only. To re-encode any of these files byte for
byte, :class:`Snapshot` remembers which optional members the file wrote as an explicit ``null``
(:attr:`Snapshot.null_members`) and keeps members it does not know (:attr:`Snapshot.extra`,
written after the known ones, in their original order). A file without ``version`` comes from
Paimon 0.2 and reads as version 1.

A tag file (``tag/tag-<name>``) is a snapshot plus ``tagCreateTime`` (a local date-time as the
array ``[year, month, day, hour, minute(, second(, nano))]``) and ``tagTimeRetained`` (seconds
as a decimal with nine fractional digits, e.g. ``5.000000000``; ``0.0`` for zero).

A consumer file (``consumer/consumer-<id>``) is ``{"nextSnapshot" : N}``.

``snapshot/EARLIEST`` and ``snapshot/LATEST`` hold a snapshot id as decimal text, no newline.
They are hints: a reader that finds garbage (or a non-positive id) lists the directory instead.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from enum import Enum
from types import MappingProxyType
from typing import Any

from reference.errors import PaimonFormatError, UnsupportedFeature
from reference.spec.java_numbers import INT_MAX, INT_MIN
from reference.spec.json_format import (
    JsonValue,
    as_integer,
    as_string,
    as_string_map,
    decode_json_object,
    encode_json,
    json_kind,
    require_member,
)
from reference.spec.units import NANOS_PER_MICRO, NANOS_PER_SECOND

# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------

CURRENT_SNAPSHOT_VERSION = 3
PAIMON_02_SNAPSHOT_VERSION = 1
"""Version of snapshot files written before the ``version`` member existed (Paimon 0.2)."""

FIRST_SNAPSHOT_ID = 1
EARLIEST_HINT = "EARLIEST"
LATEST_HINT = "LATEST"

DURATION_SCALE = 9
"""Fractional digits of a duration written as seconds (Jackson's ``DurationSerializer``)."""

LOCAL_DATE_TIME_MIN_PARTS = 5
LOCAL_DATE_TIME_MAX_PARTS = 7


class CommitKind(Enum):
    """What a commit did. Java: ``Snapshot.CommitKind``."""

    APPEND = "APPEND"
    COMPACT = "COMPACT"
    OVERWRITE = "OVERWRITE"
    ANALYZE = "ANALYZE"


class Operation(Enum):
    """The SQL operation behind a snapshot (main only). Java: ``Snapshot.Operation``."""

    WRITE = "WRITE"
    OVERWRITE = "OVERWRITE"
    DELETE = "DELETE"
    TRUNCATE = "TRUNCATE"
    UPDATE = "UPDATE"
    MERGE = "MERGE"
    CREATE_TABLE_AS_SELECT = "CREATE_TABLE_AS_SELECT"
    REPLACE_TABLE_AS_SELECT = "REPLACE_TABLE_AS_SELECT"
    CREATE_OR_REPLACE_TABLE_AS_SELECT = "CREATE_OR_REPLACE_TABLE_AS_SELECT"


SNAPSHOT_MEMBERS = (
    "version",
    "uuid",
    "id",
    "schemaId",
    "baseManifestList",
    "baseManifestListSize",
    "deltaManifestList",
    "deltaManifestListSize",
    "changelogManifestList",
    "changelogManifestListSize",
    "indexManifest",
    "commitUser",
    "writerVersion",
    "commitIdentifier",
    "commitKind",
    "timeMillis",
    "logOffsets",
    "totalRecordCount",
    "deltaRecordCount",
    "changelogRecordCount",
    "watermark",
    "statistics",
    "properties",
    "nextRowId",
    "operation",
)
"""Every member a Java version writes, in writing order."""

OPTIONAL_MEMBERS = frozenset(
    {
        "uuid",
        "baseManifestListSize",
        "deltaManifestListSize",
        "changelogManifestList",
        "changelogManifestListSize",
        "indexManifest",
        "writerVersion",
        "logOffsets",
        "changelogRecordCount",
        "watermark",
        "statistics",
        "properties",
        "nextRowId",
        "operation",
    }
)
"""Members omitted when unset (Jackson ``NON_NULL``) by main; 0.9.0-1.3 wrote a ``null``
``changelogManifestList``, which :attr:`Snapshot.null_members` records."""

JAVA_0_9_NULL_MEMBERS = frozenset({"changelogManifestList"})
"""``null_members`` that make a snapshot encode like a 0.9.0 writer (with ``log_offsets={}``)."""

TAG_MEMBERS = ("tagCreateTime", "tagTimeRetained")


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


def _frozen(mapping: Mapping[Any, Any] | None) -> Mapping[Any, Any] | None:
    return None if mapping is None else MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Snapshot:
    """One snapshot file. Java: ``org.apache.paimon.Snapshot``.

    ``total_record_count`` / ``delta_record_count`` are ``None`` only in files of Paimon <= 0.3.
    ``log_offsets`` maps a log partition to an offset (0.9.0-1.3 write ``{ }``).
    """

    id: int
    schema_id: int
    base_manifest_list: str
    delta_manifest_list: str
    commit_user: str
    commit_identifier: int
    commit_kind: CommitKind
    time_millis: int
    total_record_count: int | None
    delta_record_count: int | None
    version: int = CURRENT_SNAPSHOT_VERSION
    uuid: str | None = None
    base_manifest_list_size: int | None = None
    delta_manifest_list_size: int | None = None
    changelog_manifest_list: str | None = None
    changelog_manifest_list_size: int | None = None
    index_manifest: str | None = None
    writer_version: str | None = None
    log_offsets: Mapping[int, int] | None = None
    changelog_record_count: int | None = None
    watermark: int | None = None
    statistics: str | None = None
    properties: Mapping[str, str] | None = None
    next_row_id: int | None = None
    operation: Operation | None = None
    null_members: frozenset[str] = frozenset()
    extra: Mapping[str, JsonValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "log_offsets", _frozen(self.log_offsets))
        object.__setattr__(self, "properties", _frozen(self.properties))
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))


@dataclass(frozen=True, order=True)
class LocalDateTime:
    """A wall-clock date-time with nanoseconds (Java ``LocalDateTime``), as tags store it."""

    year: int
    month: int
    day: int
    hour: int = 0
    minute: int = 0
    second: int = 0
    nano: int = 0

    def to_datetime(self) -> datetime.datetime:
        """The naive ``datetime`` of this wall-clock time, to the microsecond (the nanoseconds
        below it are dropped, as Spark's and Python's timestamps hold microseconds)."""
        date = datetime.date(self.year, self.month, self.day)
        time = datetime.time(self.hour, self.minute, self.second, self.nano // NANOS_PER_MICRO)
        return datetime.datetime.combine(date, time)


@dataclass(frozen=True)
class Tag:
    """A tag file: the tagged snapshot plus when the tag was made and how long it lives.
    Java: ``org.apache.paimon.tag.Tag``. ``time_retained_nanos`` is a Java ``Duration``."""

    snapshot: Snapshot
    create_time: LocalDateTime | None = None
    time_retained_nanos: int | None = None


@dataclass(frozen=True)
class Consumer:
    """A consumer file: the next snapshot a named streaming reader will read."""

    next_snapshot: int


# --------------------------------------------------------------------------------------------
# Snapshot JSON: members
# --------------------------------------------------------------------------------------------


def _optional_long(members: Mapping[str, JsonValue], name: str) -> int | None:
    value = members.get(name)
    return None if value is None else as_integer(name, value)


def _optional_string(members: Mapping[str, JsonValue], name: str) -> str | None:
    value = members.get(name)
    return None if value is None else as_string(name, value)


def _decode_enum(name: str, value: JsonValue, enum_type: type[Enum]) -> Any:
    text = as_string(name, value)
    for member in enum_type:
        if member.value == text:
            return member
    raise PaimonFormatError(f"member '{name}' has unknown value {text!r}")


def _decode_log_offsets(value: JsonValue) -> dict[int, int] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise PaimonFormatError(f"member 'logOffsets' must be an object, got {json_kind(value)}")
    offsets: dict[int, int] = {}
    for key, offset in value.items():
        try:
            partition = int(key)
        except ValueError:
            raise PaimonFormatError(f"logOffsets key {key!r} is not an integer") from None
        offsets[as_integer("logOffsets key", partition, INT_MIN, INT_MAX)] = as_integer(
            f"logOffsets.{key}", offset
        )
    return offsets


def _decode_snapshot_version(members: Mapping[str, JsonValue]) -> int:
    value = members.get("version")
    if value is None:
        return PAIMON_02_SNAPSHOT_VERSION
    version = as_integer("version", value, INT_MIN, INT_MAX)
    if version < PAIMON_02_SNAPSHOT_VERSION:
        raise PaimonFormatError(f"snapshot version {version} does not exist")
    if version > CURRENT_SNAPSHOT_VERSION:
        raise UnsupportedFeature(f"snapshot version {version} is newer than this reader knows")
    return version


def snapshot_from_json(members: Mapping[str, JsonValue]) -> Snapshot:
    """Build a :class:`Snapshot` from decoded members; raise ``PaimonFormatError`` on bad ones."""
    operation = members.get("operation")
    properties = members.get("properties")
    return Snapshot(
        version=_decode_snapshot_version(members),
        uuid=_optional_string(members, "uuid"),
        id=as_integer("id", require_member(members, "id")),
        schema_id=as_integer("schemaId", require_member(members, "schemaId")),
        base_manifest_list=as_string(
            "baseManifestList", require_member(members, "baseManifestList")
        ),
        base_manifest_list_size=_optional_long(members, "baseManifestListSize"),
        delta_manifest_list=as_string(
            "deltaManifestList", require_member(members, "deltaManifestList")
        ),
        delta_manifest_list_size=_optional_long(members, "deltaManifestListSize"),
        changelog_manifest_list=_optional_string(members, "changelogManifestList"),
        changelog_manifest_list_size=_optional_long(members, "changelogManifestListSize"),
        index_manifest=_optional_string(members, "indexManifest"),
        commit_user=as_string("commitUser", require_member(members, "commitUser")),
        writer_version=_optional_string(members, "writerVersion"),
        commit_identifier=as_integer(
            "commitIdentifier", require_member(members, "commitIdentifier")
        ),
        commit_kind=_decode_enum("commitKind", require_member(members, "commitKind"), CommitKind),
        time_millis=as_integer("timeMillis", require_member(members, "timeMillis")),
        log_offsets=_decode_log_offsets(members.get("logOffsets")),
        total_record_count=_optional_long(members, "totalRecordCount"),
        delta_record_count=_optional_long(members, "deltaRecordCount"),
        changelog_record_count=_optional_long(members, "changelogRecordCount"),
        watermark=_optional_long(members, "watermark"),
        statistics=_optional_string(members, "statistics"),
        properties=None if properties is None else as_string_map("properties", properties),
        next_row_id=_optional_long(members, "nextRowId"),
        operation=None if operation is None else _decode_enum("operation", operation, Operation),
        null_members=frozenset(
            name for name in OPTIONAL_MEMBERS if name in members and members[name] is None
        ),
        extra={k: v for k, v in members.items() if k not in SNAPSHOT_MEMBERS},
    )


def _member_values(snapshot: Snapshot) -> dict[str, JsonValue]:
    """Every known member's JSON value (``None`` when unset), in writing order."""
    log_offsets = snapshot.log_offsets
    return {
        "version": snapshot.version,
        "uuid": snapshot.uuid,
        "id": snapshot.id,
        "schemaId": snapshot.schema_id,
        "baseManifestList": snapshot.base_manifest_list,
        "baseManifestListSize": snapshot.base_manifest_list_size,
        "deltaManifestList": snapshot.delta_manifest_list,
        "deltaManifestListSize": snapshot.delta_manifest_list_size,
        "changelogManifestList": snapshot.changelog_manifest_list,
        "changelogManifestListSize": snapshot.changelog_manifest_list_size,
        "indexManifest": snapshot.index_manifest,
        "commitUser": snapshot.commit_user,
        "writerVersion": snapshot.writer_version,
        "commitIdentifier": snapshot.commit_identifier,
        "commitKind": snapshot.commit_kind.value,
        "timeMillis": snapshot.time_millis,
        "logOffsets": None if log_offsets is None else {str(k): v for k, v in log_offsets.items()},
        "totalRecordCount": snapshot.total_record_count,
        "deltaRecordCount": snapshot.delta_record_count,
        "changelogRecordCount": snapshot.changelog_record_count,
        "watermark": snapshot.watermark,
        "statistics": snapshot.statistics,
        "properties": None if snapshot.properties is None else dict(snapshot.properties),
        "nextRowId": snapshot.next_row_id,
        "operation": None if snapshot.operation is None else snapshot.operation.value,
    }


def snapshot_to_json(snapshot: Snapshot) -> dict[str, JsonValue]:
    """The members to write: required ones always, optional ones when set or recorded as an
    explicit ``null``, then the unknown members kept from decoding."""
    members = {
        name: value
        for name, value in _member_values(snapshot).items()
        if value is not None or name not in OPTIONAL_MEMBERS or name in snapshot.null_members
    }
    members.update(snapshot.extra)
    return members


# --------------------------------------------------------------------------------------------
# Snapshot JSON: files
# --------------------------------------------------------------------------------------------


def decode_snapshot(data: bytes | str) -> Snapshot:
    """Decode a snapshot file; unknown members are kept in :attr:`Snapshot.extra`."""
    return snapshot_from_json(decode_json_object(data))


def encode_snapshot(snapshot: Snapshot) -> str:
    """The text of a snapshot file (Jackson's pretty printer, no trailing newline)."""
    return encode_json(snapshot_to_json(snapshot))


# --------------------------------------------------------------------------------------------
# Hints
# --------------------------------------------------------------------------------------------


def decode_hint(data: bytes) -> int | None:
    """The snapshot id in an EARLIEST/LATEST hint, or ``None`` when the bytes are not a positive
    decimal ``long`` exactly (Java's ``Long.parseLong`` of the whole file, no trimming)."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isdigit():
        return None
    value = int(text)
    if not FIRST_SNAPSHOT_ID <= value <= 2**63 - 1:
        return None
    return value


def encode_hint(snapshot_id: int) -> bytes:
    """The bytes of a hint file naming ``snapshot_id``."""
    if snapshot_id < FIRST_SNAPSHOT_ID:
        raise ValueError(f"snapshot ids start at {FIRST_SNAPSHOT_ID}, got {snapshot_id}")
    return str(snapshot_id).encode("ascii")


# --------------------------------------------------------------------------------------------
# Tags
# --------------------------------------------------------------------------------------------


def decode_local_date_time(value: JsonValue) -> LocalDateTime:
    """A Jackson ``LocalDateTime`` array ``[y, mo, d, h, mi(, s(, nanos))]``."""
    if not isinstance(value, list):
        raise PaimonFormatError(f"tagCreateTime must be an array, got {json_kind(value)}")
    if not LOCAL_DATE_TIME_MIN_PARTS <= len(value) <= LOCAL_DATE_TIME_MAX_PARTS:
        raise PaimonFormatError(f"tagCreateTime must have 5 to 7 numbers, got {len(value)}")
    parts = [as_integer("tagCreateTime[]", part, INT_MIN, INT_MAX) for part in value]
    date_time = LocalDateTime(*parts)
    limits = (
        (1, date_time.month, 12),
        (1, date_time.day, 31),
        (0, date_time.hour, 23),
        (0, date_time.minute, 59),
        (0, date_time.second, 59),
        (0, date_time.nano, NANOS_PER_SECOND - 1),
    )
    if any(not low <= part <= high for low, part, high in limits):
        raise PaimonFormatError(f"tagCreateTime {value} is not a valid date-time")
    return date_time


def encode_local_date_time(date_time: LocalDateTime) -> list[int]:
    """Jackson's array form: seconds only when seconds or nanos are non-zero, nanos only when
    non-zero."""
    parts = [date_time.year, date_time.month, date_time.day, date_time.hour, date_time.minute]
    if date_time.second or date_time.nano:
        parts.append(date_time.second)
    if date_time.nano:
        parts.append(date_time.nano)
    return parts


def decode_duration_seconds(value: JsonValue) -> int:
    """A Jackson ``Duration`` written as (fractional) seconds, in nanoseconds."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise PaimonFormatError(f"tagTimeRetained must be a number, got {json_kind(value)}")
    nanos = Decimal(value) * NANOS_PER_SECOND
    if nanos != nanos.to_integral_value():
        raise PaimonFormatError(f"tagTimeRetained {value} has more than nanosecond precision")
    return int(nanos)


def encode_duration_seconds(nanos: int) -> Decimal:
    """Seconds with nine fractional digits (``5.000000000``); zero is written ``0.0``."""
    if nanos == 0:
        return Decimal("0.0")
    return Decimal(nanos).scaleb(-DURATION_SCALE)


def decode_tag(data: bytes | str) -> Tag:
    """Decode a tag file: a snapshot plus the two tag members."""
    members = decode_json_object(data)
    snapshot = snapshot_from_json({k: v for k, v in members.items() if k not in TAG_MEMBERS})
    create_time = members.get("tagCreateTime")
    retained = members.get("tagTimeRetained")
    return Tag(
        snapshot=snapshot,
        create_time=None if create_time is None else decode_local_date_time(create_time),
        time_retained_nanos=None if retained is None else decode_duration_seconds(retained),
    )


def encode_tag(tag: Tag) -> str:
    """The text of a tag file: the snapshot's members, then the tag members that are set.

    Members the snapshot did not know stay after the tag members, where a tag file that was
    decoded had them."""
    snapshot = tag.snapshot
    members = snapshot_to_json(replace(snapshot, extra={}))
    if tag.create_time is not None:
        members["tagCreateTime"] = encode_local_date_time(tag.create_time)
    if tag.time_retained_nanos is not None:
        members["tagTimeRetained"] = encode_duration_seconds(tag.time_retained_nanos)
    members.update(snapshot.extra)
    return encode_json(members)


# --------------------------------------------------------------------------------------------
# Consumers
# --------------------------------------------------------------------------------------------


def decode_consumer(data: bytes | str) -> Consumer:
    members = decode_json_object(data)
    return Consumer(as_integer("nextSnapshot", require_member(members, "nextSnapshot")))


def encode_consumer(consumer: Consumer) -> str:
    return encode_json({"nextSnapshot": consumer.next_snapshot})
