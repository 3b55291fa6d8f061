"""What every system table shares: the result record, Java's text renderings, local times,
time travel, and the two Java versions whose column sets differ.

Spec: ``docs/concepts/system-tables.md``; the seeds' section 3.7. Java: ``table/system/*``,
``utils/RowDataToObjectArrayConverter``, ``casting/CastExecutors.resolveToString``,
``casting/RowToStringCastRule``, ``utils/JsonSerdeUtil.toFlatJson``, ``utils/TimeTravelUtil``.

Rules:

1. A system table has a fixed row type and rows of internal values (``reference.spec.data``).
   ``SystemTableVersion.MAIN`` gives main's columns, ``PAIMON_0_9`` those of Paimon 0.9.0 (the
   oracle jar); each table module lists the differences.
2. Java prints several columns as text. Paimon 0.9 and main's statistics columns use Java's
   ``toString`` of the internal value (*object text*): strings as they are, numbers as Java
   prints them, DATE as its day count, TIME as its millisecond count, TIMESTAMP as a
   ``LocalDateTime`` (``2023-02-24T16:06:21.166``), DECIMAL plainly, null as ``null``; a list
   is ``[a, b]`` and a map ``{a=1, b=2}`` with keys in Java ``String`` order (``TreeMap``).
   Main prints partitions by casting each value to STRING (*cast text*, ``2024-10-01`` for a
   DATE) inside ``{a, b}``.
3. Java turns epoch milliseconds into local date-times in the JVM's time zone; the reference
   uses UTC (the Java oracle runs with ``-Duser.timezone=UTC``), so a local time is the epoch
   milliseconds themselves.
4. Maps Java loads into a ``HashMap`` (a schema's options, a catalog's options) iterate in
   ``HashMap`` order, which is reproduced from ``String.hashCode``.
5. Time travel (``scan.snapshot-id``, ``scan.tag-name``, ``scan.timestamp-millis``) selects
   the snapshot of the tables that read one (files, manifests, partitions, table_indexes, ro,
   audit_log, binlog); without it they read the latest snapshot.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from functools import cmp_to_key
from typing import Any

from reference.errors import InvalidOptionError
from reference.io import FileIO
from reference.layout import compute_local_date_time_string
from reference.merge.java_semantics import compare_java_strings
from reference.spec import types as t
from reference.spec.casts import (
    NULL_TEXT,
    STRING_TYPE,
    cast_value,
    decimal_to_plain_string,
    format_java_double,
    format_java_float,
)
from reference.spec.data import Row, Timestamp, Value
from reference.spec.file_index.java_order import compute_hash_map_order, compute_java_string_hash
from reference.spec.options import option_value
from reference.spec.snapshot import LocalDateTime, Snapshot
from reference.spec.units import (
    MILLIS_PER_DAY,
    MILLIS_PER_SECOND,
    NANOS_PER_MILLI,
    SECONDS_PER_HOUR,
    SECONDS_PER_MINUTE,
)
from reference.store.query import LATEST, TimeTravel, resolve_snapshot

BINARY_OBJECT_TEXT = "[B@?"
"""Java prints a ``byte[]`` as its class and identity hash (``[B@1b6d3586``), which differs from
run to run; the reference prints this placeholder."""
NESTED_OBJECT_TEXT = "<nested>"
"""Java prints a nested value's object identity; the reference prints this placeholder."""
EPOCH_DATE = datetime.date(1970, 1, 1)


class SystemTableVersion(Enum):
    """Whose column set a system table has (rule 1)."""

    MAIN = "main"
    PAIMON_0_9 = "0.9"


def string_type(nullable: bool = True) -> t.VarCharType:
    """Java's ``STRING`` (``VARCHAR(2147483647)``)."""
    return t.VarCharType(t.MAX_LENGTH, nullable=nullable)


@dataclass(frozen=True)
class SystemTableRows:
    """The row type and rows of a system table."""

    fields: tuple[t.DataField, ...]
    rows: list[Row]

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def column(self, name: str) -> list[Value]:
        index = self.field_names.index(name)
        return [row[index] for row in self.rows]

    def project(self, names: Sequence[str]) -> SystemTableRows:
        indexes = [self.field_names.index(name) for name in names]
        return SystemTableRows(
            tuple(self.fields[i] for i in indexes),
            [tuple(row[i] for i in indexes) for row in self.rows],
        )


def compute_fields(columns: Sequence[tuple[str, t.DataType]]) -> tuple[t.DataField, ...]:
    """Fields numbered from 0 in order."""
    return tuple(t.DataField(i, name, data_type) for i, (name, data_type) in enumerate(columns))


def select_columns(
    columns: Sequence[tuple[str, t.DataType]], only_0_9: Sequence[str], version: SystemTableVersion
) -> tuple[t.DataField, ...]:
    """Main's fields, or the 0.9 subset (by name, main's order)."""
    if version is SystemTableVersion.PAIMON_0_9:
        columns = [c for c in columns if c[0] in only_0_9]
    return compute_fields(columns)


def compute_rows(fields: Sequence[t.DataField], values: Sequence[Mapping[str, Value]]) -> list[Row]:
    """Rows holding the named values of ``fields`` (a name missing is null)."""
    return [tuple(row.get(f.name) for f in fields) for row in values]


# --------------------------------------------------------------------------------------------
# Text (rule 2)
# --------------------------------------------------------------------------------------------


def format_object_text(value: Value, data_type: t.DataType) -> str:
    """Java ``String.valueOf`` of an internal value (rule 2, object text)."""
    if value is None:
        return NULL_TEXT
    root = data_type.root
    if root is t.TypeRoot.BOOLEAN:
        return "true" if value else "false"
    if root in t.INTEGER_ROOTS or root in (t.TypeRoot.DATE, t.TypeRoot.TIME_WITHOUT_TIME_ZONE):
        return str(int(value))
    if root is t.TypeRoot.FLOAT:
        return format_java_float(float(value))
    if root is t.TypeRoot.DOUBLE:
        return format_java_double(float(value))
    if isinstance(data_type, t.DecimalType) and isinstance(value, Decimal):
        return decimal_to_plain_string(value, data_type.scale)
    if root in t.CHARACTER_ROOTS:
        return str(value)
    if isinstance(value, Timestamp):
        return compute_local_date_time_string(value)
    if isinstance(value, bytes):
        return BINARY_OBJECT_TEXT
    return NESTED_OBJECT_TEXT


def format_cast_text(value: Value, data_type: t.DataType) -> str:
    """Paimon's ``CAST(value AS STRING)`` (rule 2, cast text); null is ``null``."""
    if value is None:
        return NULL_TEXT
    return str(cast_value(value, data_type, STRING_TYPE))


def format_java_list(items: Sequence[str]) -> str:
    """``AbstractCollection.toString``."""
    return "[" + ", ".join(items) + "]"


def compare_java(left: str, right: str) -> int:
    return compare_java_strings(left, right)


def format_java_tree_map(entries: Mapping[str, str]) -> str:
    """``TreeMap<String, ?>.toString``: ``{key=value, ...}`` in Java string order."""
    keys = sorted(entries, key=cmp_to_key(compare_java))
    return "{" + ", ".join(f"{key}={entries[key]}" for key in keys) + "}"


def format_object_row(values: Row, types: Sequence[t.DataType]) -> str:
    """``Arrays.toString`` of a row's values as objects (0.9's partition and key text)."""
    return format_java_list(
        [format_object_text(v, ty) for v, ty in zip(values, types, strict=True)]
    )


def format_cast_row(values: Row, types: Sequence[t.DataType]) -> str:
    """Main's ``CAST(row AS STRING)``: ``{a, b}`` (``RowToStringCastRule``)."""
    texts = [format_cast_text(v, ty) for v, ty in zip(values, types, strict=True)]
    return "{" + ", ".join(texts) + "}"


def encode_flat_json(value: Any) -> str:
    """Jackson's compact output (``JsonSerdeUtil.toFlatJson``): no spaces, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Local times (rule 3) and HashMap order (rule 4)
# --------------------------------------------------------------------------------------------


def compute_local_timestamp(epoch_millis: int) -> Timestamp:
    """The local date-time of an instant in UTC, as a ``TIMESTAMP(3)`` value."""
    return Timestamp(epoch_millis, 0)


def compute_timestamp_of_local(local: LocalDateTime) -> Timestamp:
    """A tag's ``LocalDateTime`` as a timestamp value (its nanoseconds kept)."""
    date = datetime.date(local.year, local.month, local.day)
    days = (date - EPOCH_DATE).days
    millis_of_day = (
        (local.hour * SECONDS_PER_HOUR + local.minute * SECONDS_PER_MINUTE + local.second)
        * MILLIS_PER_SECOND
    ) + local.nano // NANOS_PER_MILLI
    return Timestamp(days * MILLIS_PER_DAY + millis_of_day, local.nano % NANOS_PER_MILLI)


def compute_hash_map_keys(keys: Sequence[str]) -> list[str]:
    """The keys, put into a ``HashMap<String, ?>`` in this order, in its iteration order."""
    order = compute_hash_map_order(
        [(key, compute_java_string_hash(key)) for key in keys], compute_if_absent=False
    )
    return [str(key) for key in order]


def order_as_hash_map(mapping: Mapping[str, str]) -> dict[str, str]:
    """``mapping`` (in file order) re-ordered as Java's ``HashMap`` iterates it."""
    return {key: mapping[key] for key in compute_hash_map_keys(list(mapping))}


# --------------------------------------------------------------------------------------------
# Time travel (rule 5)
# --------------------------------------------------------------------------------------------


def parse_time_travel(options: Mapping[str, str]) -> TimeTravel:
    """``scan.snapshot-id`` / ``scan.tag-name`` / ``scan.timestamp-millis`` (at most one)."""
    chosen = [
        key
        for key in ("scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis")
        if key in options
    ]
    if len(chosen) > 1:
        raise InvalidOptionError(chosen[1], options[chosen[1]], f"conflicts with {chosen[0]}")
    return TimeTravel(
        snapshot_id=option_value(options, "scan.snapshot-id"),
        tag=option_value(options, "scan.tag-name"),
        timestamp_millis=option_value(options, "scan.timestamp-millis"),
    )


def resolve_travel_snapshot(
    file_io: FileIO, table_root: str, options: Mapping[str, str]
) -> Snapshot | None:
    """The snapshot a system table reads (rule 5); ``None`` for a table without snapshots."""
    return resolve_snapshot(file_io, table_root, parse_time_travel(options))


def is_time_travel(options: Mapping[str, str]) -> bool:
    return parse_time_travel(options) != LATEST
