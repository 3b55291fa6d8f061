"""System tables from Spark: ``spark.read.format("paimon").load("/wh/db.db/t$snapshots")``.

The name after ``$`` (Java's ``<table>$<name>``, case-insensitive) or the read option
``system-table`` selects one of Paimon 0.9's data system tables; each has the columns (names
and types) of Java 0.9's ``org.apache.paimon.table.system.*Table`` and is computed here from
the table's metadata with spark_impl's own readers (:mod:`spark_impl.plan`). Time travel for
the tables that read one snapshot (``files``, ``manifests``, ``statistics``, ``audit_log``,
``ro``): ``scan.snapshot-id`` / ``scan.tag-name`` / ``scan.timestamp-millis`` (or the batch
spellings ``snapshot-id`` / ``tag-name`` / ``timestamp-millis``).

Shared rules (Java: ``RowDataToObjectArrayConverter``, ``JsonSerdeUtil.toFlatJson``):

1. Times are local date-times of the commit's epoch milliseconds in UTC (``TIMESTAMP(3)``).
2. Maps Java keeps in a ``HashMap`` (a schema's options, the consumers) come in ``HashMap``
   order, reproduced from ``String.hashCode``; ``TreeMap`` texts in Java string order
   (UTF-16 code units).
3. Values printed as text use Java's ``String.valueOf`` of the internal value (*object
   text*): DATE as its day count, TIMESTAMP as a ``LocalDateTime``, null as ``null``.

The per-table rules are in :mod:`spark_impl.system_table_rows`; the registry and the reader
Spark calls in :mod:`spark_impl.system_table_source`.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import pyarrow as pa

from reference.errors import InvalidOptionError
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.data import EPOCH_DATETIME
from reference.spec.format_table import PATH_OPTION
from spark_impl.options import SYSTEM_TABLE_OPTION
from spark_impl.plan import TimeTravel

SYSTEM_TABLE_SEPARATOR = "$"
MAX_BATCH_ROWS = 65_536
TIME_TRAVEL_KEYS = {
    "snapshot_id": ("scan.snapshot-id", "snapshot-id"),
    "tag_name": ("scan.tag-name", "tag-name"),
    "timestamp_millis": ("scan.timestamp-millis", "timestamp-millis"),
}
"""The time travel options of a system table (Paimon's ``scan.*`` and the batch spellings)."""

Columns = Sequence[tuple[str, t.DataType]]
TableOptions = Mapping[str, str]


class SystemTable(NamedTuple):
    """A system table: its columns and its rows (Python tuples in column order, or an Arrow
    table of canonical Paimon columns), both of ``(file_io, table_root, options)``."""

    columns: Callable[[FileIO, str, TableOptions], Columns]
    rows: Callable[[FileIO, str, TableOptions], list[tuple[Any, ...]] | pa.Table]


def fixed_columns(columns: Columns) -> Callable[[FileIO, str, TableOptions], Columns]:
    return lambda _io, _root, _options: columns


def split_system_table(path: str, options: Mapping[str, str]) -> tuple[str, str | None]:
    """``(table root, system table name or None)`` of a load path: ``<root>$<name>``, or the
    ``system-table`` option. A ``$`` inside the last path segment only counts."""
    root = path.rstrip("/")
    head, _, last = root.rpartition("/")
    name: str | None = None
    if SYSTEM_TABLE_SEPARATOR in last:
        table, _, name = last.partition(SYSTEM_TABLE_SEPARATOR)
        root = f"{head}/{table}" if head else table
    option = options.get(SYSTEM_TABLE_OPTION)
    if option is not None and name is not None and option.lower() != name.lower():
        raise InvalidOptionError(SYSTEM_TABLE_OPTION, option, f"the path names '{name}'")
    name = option if name is None else name
    return root, None if name is None else name.lower()


def compute_fields(columns: Columns) -> list[t.DataField]:
    return [t.DataField(i, name, data_type) for i, (name, data_type) in enumerate(columns)]


def parse_travel(options: TableOptions) -> TimeTravel:
    """``scan.snapshot-id`` / ``scan.tag-name`` / ``scan.timestamp-millis`` (at most one)."""
    chosen: dict[str, Any] = {}
    for attribute, keys in TIME_TRAVEL_KEYS.items():
        for key in keys:
            if key in options:
                chosen[attribute] = options[key]
    if len(chosen) > 1:
        raise InvalidOptionError("scan.snapshot-id", str(chosen), "choose one time travel option")
    for attribute in ("snapshot_id", "timestamp_millis"):
        if attribute in chosen:
            text = chosen[attribute]
            if not str(text).strip().lstrip("-").isdigit():
                raise InvalidOptionError(TIME_TRAVEL_KEYS[attribute][0], text, "not an integer")
            chosen[attribute] = int(text)
    return TimeTravel(**chosen)


def to_local_datetime(epoch_millis: int | None) -> datetime.datetime | None:
    """Rule 1: the UTC date-time of ``epoch_millis`` (a naive ``TIMESTAMP_NTZ``)."""
    if epoch_millis is None:
        return None
    return EPOCH_DATETIME + datetime.timedelta(milliseconds=epoch_millis)


def system_table_of(options: TableOptions) -> tuple[str, str] | None:
    """``(table root, system table name)`` when a read's path or options name a system table."""
    path = options.get(PATH_OPTION)
    if path is None:
        return None
    root, name = split_system_table(path, options)
    return None if name is None else (root, name)
