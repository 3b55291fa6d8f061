"""The engine adapter protocol: what the case runner asks of every Paimon implementation.

An adapter drives one implementation (the reference, Java 0.9 through the harness, pypaimon,
spark_impl, or a third party's engine) through one small API. Values crossing the API follow
``reference.spec.data`` (DATE = days, TIME = millis of the day, TIMESTAMP = ``Timestamp``,
DECIMAL = ``Decimal``, ARRAY = list, MAP/MULTISET = dict, ROW = tuple). Rows travel with their
row kind as ``(RowKind, row)``.

An adapter declares what it can do in ``capabilities`` (the ``CAP_*`` names below and the
``type:<root>`` / ``format:<name>`` families); a case that requires something missing is skipped
with that reason, never failed. An optional ``slow_capabilities`` set names capabilities whose
cases are the ``slow`` pytest tier on that adapter. An adapter that cannot run at all on this
machine raises :class:`EngineUnavailable` from its constructor. An adapter signals an expected,
classified failure (an invalid option, a missing snapshot) with :class:`EngineError` and one of
the ``ERROR_*`` codes; any other exception is an unclassified error.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol, runtime_checkable

import pyarrow as pa

from reference.spec import types as t
from reference.spec.data import Row, RowKind, Timestamp, Value
from reference.spec.file_format import FileFormat
from reference.spec.options import AGGREGATE_FUNCTIONS as OPTION_AGGREGATE_FUNCTIONS
from reference.spec.options import ChangelogProducer, MergeEngine

# --------------------------------------------------------------------------------------------
# Capabilities
# --------------------------------------------------------------------------------------------

CAP_WRITE = "write"
"""Create a table and commit batches of inserts (+I)."""
CAP_WRITE_ROW_KINDS = "write-row-kinds"
"""Write rows of kind -U, +U and -D (retractions and updates)."""
CAP_OVERWRITE = "overwrite"
CAP_COMPACT = "compact"
CAP_ALTER = "alter"
CAP_TAG = "tag"
CAP_EXPIRE = "expire"
CAP_READ = "read"
CAP_VIEW = "view"
"""Create, drop and list views (a named query kept as text) in a catalog; the engine also
implements :class:`ViewEngine`."""
CAP_PROJECTION = "projection"
CAP_FILTER = "filter"
CAP_TRAVEL_SNAPSHOT = "time-travel-snapshot"
CAP_TRAVEL_TAG = "time-travel-tag"
CAP_TRAVEL_TIMESTAMP = "time-travel-timestamp"
CAP_READ_CHANGES = "read-changes"
CAP_PRIMARY_KEY = "primary-key"
CAP_APPEND = "append"
CAP_PARTITION = "partition"
CAP_BUCKET_FIXED = "bucket-fixed"
CAP_BUCKET_DYNAMIC = "bucket-dynamic"
CAP_BUCKET_UNAWARE = "bucket-unaware"
CAP_BUCKET_CROSS_PARTITION = "bucket-cross-partition"
CAP_BUCKET_KEY = "bucket-key"
CAP_SEQUENCE_FIELD = "sequence-field"
CAP_ROWKIND_FIELD = "rowkind-field"
CAP_SEQUENCE_GROUP = "sequence-group"
CAP_DELETION_VECTORS = "deletion-vectors"
CAP_FORMAT_TABLE = "format-table"
"""Format tables (``type = format-table``: plain files, the schema kept by the adapter, as a
catalog keeps it); plus ``format-table:<csv|parquet|orc>``."""
CAP_FILE_INDEX = "file-index"
"""Tables with file index options (``file-index.<type>.columns``); plus ``file-index:<type>``."""

MERGE_ENGINE_PREFIX = "merge-engine:"
CHANGELOG_PREFIX = "changelog:"
FORMAT_PREFIX = "format:"
TYPE_PREFIX = "type:"
SYSTEM_TABLE_PREFIX = "system-table:"
AGGREGATE_PREFIX = "aggregate:"
FILE_INDEX_PREFIX = "file-index:"
FORMAT_TABLE_PREFIX = "format-table:"
FORMAT_TABLE_FORMATS = ("csv", "parquet", "orc")

PRIMARY_KEY_AGGREGATE = "primary-key"
MERGE_ENGINES = tuple(engine.value for engine in MergeEngine)
CHANGELOG_PRODUCERS = tuple(p.value for p in ChangelogProducer if p is not ChangelogProducer.NONE)
FILE_FORMATS = tuple(f.value for f in FileFormat)
AGGREGATE_FUNCTIONS = tuple(sorted(OPTION_AGGREGATE_FUNCTIONS - {PRIMARY_KEY_AGGREGATE}))
"""Aggregate functions a case may require: what ``fields.<f>.aggregate-function`` accepts in
0.9 or main, without ``primary-key`` (a marker, not a function)."""
FILE_INDEX_TYPES = ("bloom-filter", "bitmap", "bsi")
SYSTEM_TABLES = ("snapshots", "schemas", "options", "tags", "files", "manifests", "audit_log")
READ_CAPABILITIES = frozenset(
    {
        CAP_READ,
        CAP_PROJECTION,
        CAP_FILTER,
        CAP_TRAVEL_SNAPSHOT,
        CAP_TRAVEL_TAG,
        CAP_TRAVEL_TIMESTAMP,
    }
)
"""Batch reads with projection, filters and every form of time travel."""
LAYOUT_CAPABILITIES = frozenset(
    {
        CAP_PRIMARY_KEY,
        CAP_APPEND,
        CAP_PARTITION,
        CAP_BUCKET_FIXED,
        CAP_BUCKET_DYNAMIC,
        CAP_BUCKET_UNAWARE,
        CAP_BUCKET_KEY,
        CAP_SEQUENCE_FIELD,
        CAP_ROWKIND_FIELD,
        CAP_FILE_INDEX,
    }
)
"""The table layouts every built-in engine handles (each adds what else it does)."""


def merge_engine_capability(name: str) -> str:
    return MERGE_ENGINE_PREFIX + name


def changelog_capability(producer: str) -> str:
    return CHANGELOG_PREFIX + producer


def format_capability(file_format: str) -> str:
    return FORMAT_PREFIX + file_format


def format_table_capability(file_format: str) -> str:
    return FORMAT_TABLE_PREFIX + file_format


def type_capability(root: t.TypeRoot) -> str:
    """``type:decimal``, ``type:timestamp_with_local_time_zone``, ..."""
    return TYPE_PREFIX + root.name.lower()


def system_table_capability(name: str) -> str:
    return SYSTEM_TABLE_PREFIX + name


def aggregate_capability(function: str) -> str:
    return AGGREGATE_PREFIX + function


def file_index_capability(index_type: str) -> str:
    return FILE_INDEX_PREFIX + index_type


def all_type_capabilities(excluded: Sequence[t.TypeRoot] = ()) -> frozenset[str]:
    """Every ``type:<root>`` capability except the ``excluded`` roots."""
    return frozenset(type_capability(root) for root in t.TypeRoot if root not in excluded)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

ERROR_INVALID_TABLE = "INVALID_TABLE"
"""Creating or altering a table was refused (bad option, key, type or change)."""
ERROR_INVALID_WRITE = "INVALID_WRITE"
"""A written row was refused (null in a NOT NULL column, a kind the table cannot take)."""
ERROR_NOT_FOUND = "NOT_FOUND"
"""A snapshot, tag or table does not exist (time travel to nothing, an expired snapshot)."""
ERROR_ALREADY_EXISTS = "ALREADY_EXISTS"
"""Creating what exists already (a view, or a table of that name)."""
ERROR_CODES = (ERROR_INVALID_TABLE, ERROR_INVALID_WRITE, ERROR_NOT_FOUND, ERROR_ALREADY_EXISTS)


class EngineError(Exception):
    """A classified failure: ``code`` is one of :data:`ERROR_CODES`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class EngineUnavailable(Exception):
    """The engine cannot run here (missing runtime, library or tool); the message says why."""


# --------------------------------------------------------------------------------------------
# Arguments and results
# --------------------------------------------------------------------------------------------

Change = tuple[RowKind, Row]
"""A row with its row kind."""


@dataclass(frozen=True)
class TimeTravel:
    """At most one of these selects the snapshot a read sees; all ``None`` = the latest."""

    snapshot_id: int | None = None
    tag: str | None = None
    timestamp_millis: int | None = None

    def __post_init__(self) -> None:
        chosen = [x for x in (self.snapshot_id, self.tag, self.timestamp_millis) if x is not None]
        if len(chosen) > 1:
            raise ValueError("choose at most one of snapshot_id, tag and timestamp_millis")

    @property
    def is_latest(self) -> bool:
        return self.snapshot_id is None and self.tag is None and self.timestamp_millis is None


LATEST = TimeTravel()

FILTER_OPS = (
    "EQUAL",
    "NOT_EQUAL",
    "LESS_THAN",
    "LESS_OR_EQUAL",
    "GREATER_THAN",
    "GREATER_OR_EQUAL",
    "IS_NULL",
    "IS_NOT_NULL",
    "IN",
    "NOT_IN",
    "STARTS_WITH",
)
"""Leaf operators of a filter (the names of Java's ``LeafFunction`` classes, upper-cased)."""


@dataclass(frozen=True)
class FilterLeaf:
    """``field <op> literals``; literals are internal values of the field's type."""

    op: str
    field: str
    literals: tuple[Value, ...] = ()

    def __post_init__(self) -> None:
        if self.op not in FILTER_OPS:
            raise ValueError(f"unknown filter operator {self.op!r}")


@dataclass(frozen=True)
class FilterAnd:
    children: tuple[Filter, ...]


@dataclass(frozen=True)
class FilterOr:
    children: tuple[Filter, ...]


Filter = FilterLeaf | FilterAnd | FilterOr
"""A row filter: an engine must return exactly the rows it keeps (not a superset)."""


@dataclass(frozen=True)
class Rows:
    """What a read returns: the columns and the rows with their kinds, in the engine's order."""

    fields: tuple[t.DataField, ...]
    rows: list[Change] = field(default_factory=list)

    @property
    def column_names(self) -> list[str]:
        return [f.name for f in self.fields]


AlterChange = Mapping[str, Any]
"""One schema change in the case encoding, e.g. ``{"kind": "add_column", "name": "c",
"type": "INT"}``; see ``conformance/cases/FORMAT.md`` for the kinds."""


# --------------------------------------------------------------------------------------------
# The protocol
# --------------------------------------------------------------------------------------------


@runtime_checkable
class Engine(Protocol):
    """One Paimon implementation behind the case runner. Tables are named by a local directory.

    Every method may raise :class:`EngineError` for a classified failure. Methods behind a
    capability the engine does not declare are never called.
    """

    name: str
    capabilities: frozenset[str]

    def create_table(
        self,
        path: str,
        fields: Sequence[t.DataField],
        partition_keys: Sequence[str],
        primary_keys: Sequence[str],
        options: Mapping[str, str],
    ) -> None:
        """Create an empty table at ``path`` (the directory does not exist yet)."""

    def write(
        self, path: str, rows: Sequence[Change], overwrite: Mapping[str, Value] | None = None
    ) -> int | None:
        """Write ``rows`` as one batch and commit it; ``overwrite`` is ``None`` (append), ``{}``
        (overwrite the table) or a static partition spec. Returns the latest snapshot id."""

    def compact(self, path: str, full: bool) -> int | None:
        """Compact every bucket (``full``: into one sorted run) and commit; latest snapshot id."""

    def alter(self, path: str, changes: Sequence[AlterChange]) -> None:
        """Apply schema changes, in order, as one schema version."""

    def create_tag(self, path: str, name: str, snapshot_id: int | None) -> None:
        """Tag ``snapshot_id`` (``None``: the latest snapshot)."""

    def expire(
        self,
        path: str,
        retain_max: int | None,
        retain_min: int | None,
        time_retained_millis: int | None,
    ) -> None:
        """Expire snapshots; ``None`` limits come from the table's options."""

    def read(
        self,
        path: str,
        travel: TimeTravel,
        projection: Sequence[str] | None,
        filter: Filter | None,
    ) -> Rows:
        """A batch read of the selected snapshot: only rows matching ``filter``, only the
        ``projection`` columns (in that order)."""

    def read_changes(self, path: str, from_snapshot: int, to_snapshot: int | None) -> Rows:
        """The changes committed by snapshots ``from_snapshot + 1 .. to_snapshot`` (``None``:
        the latest) as a stream reader sees them: the changelog files with a changelog
        producer, else each snapshot's delta. Retractions keep their kinds."""

    def system_table(self, path: str, name: str) -> Rows:
        """All rows of the system table ``<table>$<name>``."""

    def close(self) -> None:
        """Release what the engine holds (a JVM, a session); called once at the end."""


VIEW_FIELDS = (
    t.DataField(0, "name", t.VarCharType(t.MAX_LENGTH, nullable=False)),
    t.DataField(1, "query", t.VarCharType(t.MAX_LENGTH, nullable=False)),
    t.DataField(2, "comment", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(3, "columns", t.VarCharType(t.MAX_LENGTH, nullable=False)),
)
"""The rows of :meth:`ViewEngine.show_views`: one per view; ``columns`` is the view's field
names joined by commas."""


@runtime_checkable
class ViewEngine(Protocol):
    """The view methods of an engine that declares :data:`CAP_VIEW`. The views live in a
    catalog that keeps them (Paimon's JDBC catalog), in the database of the case's table."""

    def create_view(
        self, path: str, name: str, query: str, comment: str | None, fields: Sequence[t.DataField]
    ) -> None:
        """Store view ``name`` with its ``query`` text (never run) and the ``fields`` it
        produces; :data:`ERROR_ALREADY_EXISTS` if a view or table of that name exists."""

    def drop_view(self, path: str, name: str) -> None:
        """Drop view ``name``; :data:`ERROR_NOT_FOUND` if there is none."""

    def show_views(self, path: str) -> Rows:
        """Every view of the table's database (:data:`VIEW_FIELDS`), by name."""


def field_type(fields: Sequence[t.DataField], name: str) -> t.DataType:
    """The type of column ``name`` (``KeyError`` if absent)."""
    for candidate in fields:
        if candidate.name == name:
            return candidate.type
    raise KeyError(name)


def project_fields(
    fields: Sequence[t.DataField], projection: Sequence[str]
) -> tuple[t.DataField, ...]:
    """The fields named by ``projection``, in its order."""
    by_name = {f.name: f for f in fields}
    return tuple(by_name[name] for name in projection)


def project_rows(rows: Rows, projection: Sequence[str]) -> Rows:
    """Keep only the ``projection`` columns of ``rows`` (for engines that cannot push it)."""
    names = rows.column_names
    indexes = [names.index(name) for name in projection]
    return Rows(
        tuple(rows.fields[i] for i in indexes),
        [(kind, tuple(row[i] for i in indexes)) for kind, row in rows.rows],
    )


# --------------------------------------------------------------------------------------------
# Arrow results (for adapters whose engine returns Arrow tables)
# --------------------------------------------------------------------------------------------

NANOS_PER_ARROW_UNIT = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
NANOS_PER_MILLI = 1_000_000
EPOCH = datetime.datetime(1970, 1, 1)
EPOCH_DATE = datetime.date(1970, 1, 1)


def timestamp_from_micros(micros: int) -> Timestamp:
    return Timestamp(micros // 1000, micros % 1000 * 1000)


def from_python_value(value: Any, data_type: t.DataType) -> Value:
    """A value as ``pyarrow``'s ``to_pylist`` gives it, as an internal value of ``data_type``
    (timestamps there are microsecond datetimes)."""
    if value is None:
        return None
    if isinstance(data_type, (t.TimestampType, t.LocalZonedTimestampType)):
        if not isinstance(value, datetime.datetime):
            return value
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        delta = value - EPOCH
        return timestamp_from_micros(
            (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        )
    if isinstance(data_type, t.DateType) and isinstance(value, datetime.date):
        return (value - EPOCH_DATE).days
    if isinstance(data_type, t.TimeType) and isinstance(value, datetime.time):
        seconds = value.hour * 3600 + value.minute * 60 + value.second
        return seconds * 1000 + value.microsecond // 1000
    if isinstance(data_type, t.ArrayType):
        return [from_python_value(v, data_type.element) for v in value]
    if isinstance(data_type, t.MapType):
        return {
            from_python_value(k, data_type.key): from_python_value(v, data_type.value)
            for k, v in value
        }
    if isinstance(data_type, t.MultisetType):
        return {from_python_value(k, data_type.element): int(n) for k, n in value}
    if isinstance(data_type, t.RowType):
        items = list(value.values()) if isinstance(value, dict) else list(value)
        return tuple(
            from_python_value(v, f.type) for v, f in zip(items, data_type.fields, strict=True)
        )
    if isinstance(data_type, t.DecimalType) and not isinstance(value, Decimal):
        return Decimal(str(value))
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def from_arrow_column(column: pa.ChunkedArray | pa.Array, data_type: t.DataType) -> list[Value]:
    """A column as internal values; top-level timestamps keep their full precision through
    an integer cast, dates and times are converted from their integer units."""
    arrow_type = column.type
    if pa.types.is_timestamp(arrow_type):
        per_unit = NANOS_PER_ARROW_UNIT[arrow_type.unit]
        return [
            None if n is None else Timestamp(*divmod(n * per_unit, NANOS_PER_MILLI))
            for n in column.cast(pa.int64()).to_pylist()
        ]
    if pa.types.is_date32(arrow_type):
        return list(column.cast(pa.int32()).to_pylist())
    if pa.types.is_time(arrow_type):
        per_unit = NANOS_PER_ARROW_UNIT[arrow_type.unit]
        width = pa.int32() if pa.types.is_time32(arrow_type) else pa.int64()
        return [
            None if n is None else n * per_unit // NANOS_PER_MILLI
            for n in column.cast(width).to_pylist()
        ]
    return [from_python_value(v, data_type) for v in column.to_pylist()]


def arrow_to_changes(table: pa.Table, fields: Sequence[t.DataField]) -> list[Change]:
    """The rows of an Arrow table (columns by position) as +I changes."""
    columns = [from_arrow_column(table.column(i), f.type) for i, f in enumerate(fields)]
    return [(RowKind.INSERT, tuple(values)) for values in zip(*columns, strict=True)]
