"""Writing data files: rows in, file bytes and a complete :class:`DataFileMeta` out.

Spec: ``docs/concepts/spec/datafile.md`` (file layouts), ``manifest.md`` (the data file meta and
its statistics). Java (0.9.0): ``io/RowDataFileWriter``, ``io/KeyValueDataFileWriter``,
``io/RollingFileWriter``, ``io/StatsCollectingSingleFileWriter``, ``io/DataFileIndexWriter``,
``statistics/*SimpleColStatsCollector``, ``stats/SimpleStatsConverter``,
``utils/StatsCollectorFactories``, ``format/parquet/ParquetSimpleStatsExtractor``,
``format/orc/filter/OrcSimpleStatsExtractor``, ``format/*/…BulkWriter.reachTargetSize``.

Rules:

1. *Statistics mode.* Each physical column has a mode: ``fields.<column>.stats-mode`` if set
   (the column's physical name, so ``_KEY_k`` for a key column), else ``metadata.stats-mode``
   (default ``truncate(16)``). ``none`` keeps nothing (null min, max and null count),
   ``counts`` only the null count, ``full`` min, max and null count, ``truncate(n)`` like
   ``full`` with strings cut to ``n`` code points (min: the prefix; max: the prefix with its
   last code point incremented, see :func:`compute_truncated_max`; when no code point can be
   incremented the column keeps only its null count).
2. *Raw statistics* are what Java learns about a column before the mode is applied, and they
   depend on the format, because Java reads them back from the Parquet/ORC footer and collects
   them row by row only for Avro:

   * Avro (Java's row collector): min/max by Java's ``compareTo`` over the comparable types
     (numbers with NaN largest and -0.0 < 0.0, strings by UTF-8 bytes, decimals, timestamps,
     booleans, dates, times); BINARY/VARBINARY and nested types have no min/max.
   * Parquet: nested columns (ARRAY, MAP, MULTISET, ROW) have no statistics at all, not even a
     null count; a string or binary column whose min and max together take 4096 bytes or more
     has none either and its null count reads as -1 (parquet-mr drops such statistics); a
     FLOAT/DOUBLE column holding a NaN has no min/max, otherwise a min of +0.0 reads as -0.0
     and a max of -0.0 as +0.0; TIMESTAMP with precision > 6 (INT96) has no min/max;
     BINARY/VARBINARY have no min/max.
   * ORC: FLOAT/DOUBLE statistics follow IEEE comparisons from the first value (a NaN is kept
     only when it comes first, -0.0 and 0.0 are equal); a string min or max longer than 1024
     UTF-8 bytes is replaced by a bound and reads as unknown; BINARY and nested types have no
     min/max.

   The statistics describe the values as stored (timestamps truncated to their precision).
3. *Stats rows.* A file's value (and key) statistics are a SimpleStats: the min row and the max
   row as serialized BinaryRows over the columns made nullable, written the way 0.9's
   ``InternalRowSerializer`` writes them (null non-compact decimals and timestamps take no
   variable part), and the null counts.
4. *Rolling.* Rows are written in order to one file until the file reaches
   ``target-file-size``; the next rows go to a new file. Java checks the size only at some rows:
   Parquet and Avro after every 1000th row of the whole rolling write, ORC after every 1024th
   row of the current file (its row batch). Java measures an estimate (Parquet: bytes written
   plus buffered; ORC: bytes written plus a fifth of the buffered memory; Avro: only bytes that
   left its 64 KB block buffers, so Java's Avro files roll much later); the reference measures
   the real size the file would have if closed at that row. Parquet boundaries agree with Java
   in our comparisons; ORC and Avro boundaries can differ by check intervals.
5. *Append file meta:* empty min/max key and key statistics, value statistics over the table
   columns, sequence numbers ``first .. first + rows - 1``, level 0, delete row count 0.
6. *Primary-key file meta:* min/max key are the keys of the first and last record (files are
   sorted by key), key statistics over the ``_KEY_`` columns (in thin mode the statistics of the
   key's value columns), value statistics over the table columns, the sequence range of the
   records written, and the number of retracting (-U/-D) records as the delete row count.
7. *File index hook.* A :class:`FileIndexBuilder` may return a file-index body for the rows of
   a file; a body up to ``file-index.in-manifest-threshold`` (500 bytes) is embedded in the
   meta, a larger one is written beside the data file as ``<data file>.index`` and named in
   ``extra_files``. Primary-key files never get one in 0.9.

The pure parts of rules 1-3 (modes, truncation, format limits, ORC folds, stats rows) are
:mod:`reference.spec.column_stats`, shared with ``spark_impl``.

Where main differs (not followed): main gives system and key columns ``truncate(128)`` unless a
field mode is set, may keep statistics densely (``_VALUE_STATS_COLS``), and writes field ids.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import pyarrow as pa

from reference import layout
from reference.errors import InvalidOptionError
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import (
    SERIALIZED_EMPTY_ROW,
)
from reference.spec.column_stats import (
    NOT_COMPARABLE_ROOTS,
    PARQUET_UNKNOWN_NULL_COUNT,
    ColumnStats,
    StatsMode,
    apply_stats_mode,
    compute_orc_float_extremes,
    compute_orc_string_extremes,
    encode_key,
    encode_simple_stats,
    is_parquet_binary_stats_dropped,
    is_parquet_int96,
)
from reference.spec.compare import compare_values
from reference.spec.data import EPOCH_DATETIME, Row, Timestamp, Value
from reference.spec.data_file import (
    DataFileMeta,
    FileSource,
    compute_file_index_file_name,
)
from reference.spec.file_format import (
    FileFormat,
    FormatWriteOptions,
    arrow_to_rows,
    encode_data_file,
    rows_to_arrow,
)
from reference.spec.key_value import KeyValue
from reference.spec.options import parse_memory_size
from reference.spec.rolling import ORC_ROW_BATCH_SIZE, ROLL_CHECK_INTERVAL
from reference.spec.stats import EMPTY_STATS

# --------------------------------------------------------------------------------------------
# Raw column statistics (rule 2)
# --------------------------------------------------------------------------------------------


def _non_null(values: Sequence[Value]) -> list[Value]:
    return [v for v in values if v is not None]


def compute_extremes(values: Sequence[Value], data_type: t.DataType) -> tuple[Value, Value]:
    """The smallest and largest non-null value in Java's order (``None`` if all are null)."""
    smallest: Value = None
    largest: Value = None
    for value in _non_null(values):
        if smallest is None or compare_values(data_type, value, smallest) < 0:
            smallest = value
        if largest is None or compare_values(data_type, value, largest) > 0:
            largest = value
    return smallest, largest


def compute_collected_stats(values: Sequence[Value], data_type: t.DataType) -> ColumnStats:
    """Java's row collector (Avro files): null count, and min/max of comparable types."""
    null_count = len(values) - len(_non_null(values))
    if data_type.root in NOT_COMPARABLE_ROOTS:
        return ColumnStats(None, None, null_count)
    smallest, largest = compute_extremes(values, data_type)
    return ColumnStats(smallest, largest, null_count)


def _utf8_size(value: Value) -> int:
    return len(value.encode("utf-8")) if isinstance(value, str) else len(value)


def is_parquet_stats_dropped(values: Sequence[Value], data_type: t.DataType) -> bool:
    """parquet-mr drops a binary column's statistics when min and max take 4096+ bytes."""
    if data_type.root not in t.CHARACTER_ROOTS | t.BINARY_ROOTS:
        return False
    smallest, largest = compute_extremes(values, data_type)
    if smallest is None:
        return False
    return is_parquet_binary_stats_dropped(_utf8_size(smallest), _utf8_size(largest))


def compute_parquet_float_stats(values: Sequence[Value], null_count: int) -> ColumnStats:
    """No min/max with a NaN; +0.0 min reads as -0.0 and -0.0 max as +0.0 (parquet-mr)."""
    present = _non_null(values)
    if any(math.isnan(v) for v in present):
        return ColumnStats(None, None, null_count)
    smallest, largest = compute_extremes(present, t.DoubleType())
    if smallest == 0.0:
        smallest = -0.0
    if largest == 0.0:
        largest = 0.0
    return ColumnStats(smallest, largest, null_count)


def compute_parquet_stats(values: Sequence[Value], data_type: t.DataType) -> ColumnStats | None:
    """What Java reads from a Parquet footer for one column; ``None``: nothing at all."""
    if data_type.root in t.NESTED_ROOTS:
        return None
    if is_parquet_stats_dropped(values, data_type):
        return ColumnStats(None, None, PARQUET_UNKNOWN_NULL_COUNT)
    null_count = len(values) - len(_non_null(values))
    if null_count == len(values):
        return ColumnStats(None, None, null_count)
    if data_type.root in t.FLOATING_ROOTS:
        return compute_parquet_float_stats(values, null_count)
    if is_parquet_int96(data_type) or data_type.root in NOT_COMPARABLE_ROOTS:
        return ColumnStats(None, None, null_count)
    return compute_collected_stats(values, data_type)


def compute_orc_float_stats(values: Sequence[Value], null_count: int) -> ColumnStats:
    """ORC's double statistics (``reference.spec.column_stats.compute_orc_float_extremes``)."""
    smallest, largest = compute_orc_float_extremes(_non_null(values))
    return ColumnStats(smallest, largest, null_count)


def compute_orc_string_stats(values: Sequence[Value], null_count: int) -> ColumnStats:
    """ORC's string statistics (``reference.spec.column_stats.compute_orc_string_extremes``)."""
    encoded = [value.encode("utf-8") for value in _non_null(values)]
    smallest, largest = compute_orc_string_extremes(encoded)
    return ColumnStats(smallest, largest, null_count)


def compute_orc_stats(values: Sequence[Value], data_type: t.DataType) -> ColumnStats:
    """What Java reads from an ORC footer for one column."""
    null_count = len(values) - len(_non_null(values))
    if null_count == len(values) or data_type.root in NOT_COMPARABLE_ROOTS:
        return ColumnStats(None, None, null_count)
    if data_type.root in t.FLOATING_ROOTS:
        return compute_orc_float_stats(values, null_count)
    if data_type.root in t.CHARACTER_ROOTS:
        return compute_orc_string_stats(values, null_count)
    return compute_collected_stats(values, data_type)


def compute_raw_stats(
    values: Sequence[Value], data_type: t.DataType, fmt: FileFormat
) -> ColumnStats | None:
    """Rule 2: a column's statistics before the mode; ``None`` when the format has none."""
    if fmt is FileFormat.PARQUET:
        return compute_parquet_stats(values, data_type)
    if fmt is FileFormat.ORC:
        return compute_orc_stats(values, data_type)
    return compute_collected_stats(values, data_type)


def compute_column_stats(
    rows: Sequence[Row],
    fields: Sequence[t.DataField],
    modes: Sequence[StatsMode],
    fmt: FileFormat,
    columns: Sequence[int],
) -> list[ColumnStats]:
    """The statistics of the columns at ``columns`` of stored ``rows``."""
    return [
        apply_stats_mode(compute_raw_stats([row[i] for row in rows], fields[i].type, fmt), modes[i])
        for i in columns
    ]


# --------------------------------------------------------------------------------------------
# Encoding and rolling (rule 4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileSettings:
    """How the files of one rolling write look: format, codec options, physical columns, their
    statistics modes and the roll size."""

    fmt: FileFormat
    write_options: FormatWriteOptions
    fields: tuple[t.DataField, ...]
    stats_modes: tuple[StatsMode, ...]
    target_file_size: int


def encode_rows(table: pa.Table, settings: FileSettings) -> bytes:
    return encode_data_file(table, settings.fmt, settings.fields, settings.write_options)


def is_roll_check(fmt: FileFormat, written: int, in_file: int) -> bool:
    """Whether Java checks the file size after the ``written``-th row of the rolling write,
    the ``in_file``-th of the current file."""
    if fmt is FileFormat.ORC:
        return in_file % ORC_ROW_BATCH_SIZE == 0
    return written % ROLL_CHECK_INTERVAL == 0


def compute_file_ranges(table: pa.Table, settings: FileSettings) -> list[tuple[int, int]]:
    """Rule 4: ``(start, end)`` row ranges of the files a rolling write makes."""
    ranges: list[tuple[int, int]] = []
    start = 0
    for written in range(1, table.num_rows + 1):
        if not is_roll_check(settings.fmt, written, written - start):
            continue
        size = len(encode_rows(table.slice(start, written - start), settings))
        if size >= settings.target_file_size:
            ranges.append((start, written))
            start = written
    if start < table.num_rows:
        ranges.append((start, table.num_rows))
    return ranges


# --------------------------------------------------------------------------------------------
# File index hook (rule 7)
# --------------------------------------------------------------------------------------------

FILE_INDEX_THRESHOLD_OPTION = "file-index.in-manifest-threshold"
DEFAULT_FILE_INDEX_THRESHOLD = "500 b"


class FileIndexBuilder(Protocol):
    """Builds the file-index body (``reference.spec.file_index.container``) of one data file
    from its stored rows, or ``None`` when the file gets no index."""

    def __call__(self, rows: Sequence[Row], fields: Sequence[t.DataField]) -> bytes | None: ...


def parse_file_index_threshold(options: Mapping[str, str]) -> int:
    text = options.get(FILE_INDEX_THRESHOLD_OPTION, DEFAULT_FILE_INDEX_THRESHOLD)
    try:
        return parse_memory_size(text)
    except ValueError as error:
        raise InvalidOptionError(FILE_INDEX_THRESHOLD_OPTION, text, str(error)) from None


@dataclass(frozen=True)
class FileIndexResult:
    """Where a data file's index went: embedded bytes, or the name of its own file."""

    embedded: bytes | None = None
    extra_files: tuple[str, ...] = ()


def write_file_index(
    file_io: FileIO, data_path: str, body: bytes | None, threshold: int
) -> FileIndexResult:
    """Rule 7: embed a small body, write a larger one to ``<data file>.index``."""
    if body is None:
        return FileIndexResult()
    if len(body) <= threshold:
        return FileIndexResult(embedded=body)
    index_path = layout.file_index_path(data_path)
    file_io.write_bytes(index_path, body)
    return FileIndexResult(extra_files=(compute_file_index_file_name(_base_name(data_path)),))


def _base_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


# --------------------------------------------------------------------------------------------
# Writing one file
# --------------------------------------------------------------------------------------------


def compute_creation_time(now: datetime.datetime | None = None) -> Timestamp:
    """The local wall-clock time at millisecond precision (Java ``LocalDateTime.now()``
    truncated by ``toMillisTimestamp``)."""
    moment = now if now is not None else datetime.datetime.now()
    millis = (moment.replace(tzinfo=None) - EPOCH_DATETIME) // datetime.timedelta(milliseconds=1)
    return Timestamp(millis)


@dataclass(frozen=True)
class WrittenFile:
    """A data file on storage: its name, size and the rows as stored (read back from Arrow)."""

    name: str
    size: int
    rows: list[Row]


def write_rows(
    file_io: FileIO, directory: str, name: str, table: pa.Table, settings: FileSettings
) -> WrittenFile:
    """Encode ``table`` and write it as ``directory/name``."""
    data = encode_rows(table, settings)
    file_io.write_bytes(layout.join(directory, name), data)
    return WrittenFile(name, len(data), arrow_to_rows(table, settings.fields))


def to_arrow(rows: Sequence[Row], settings: FileSettings) -> pa.Table:
    """The canonical Arrow table of physical rows (values must fit their column types)."""
    return rows_to_arrow(rows, settings.fields)


# --------------------------------------------------------------------------------------------
# Metas (rules 5 and 6)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetaContext:
    """What every file of one write shares: schema id, level, source and creation time."""

    schema_id: int
    level: int
    file_source: FileSource
    creation_time: Timestamp


def compute_append_meta(
    written: WrittenFile,
    settings: FileSettings,
    first_sequence: int,
    context: MetaContext,
    index: FileIndexResult,
) -> DataFileMeta:
    """Rule 5 (Java ``DataFileMeta.forAppend``)."""
    columns = range(len(settings.fields))
    stats = compute_column_stats(
        written.rows, settings.fields, settings.stats_modes, settings.fmt, columns
    )
    return DataFileMeta(
        file_name=written.name,
        file_size=written.size,
        row_count=len(written.rows),
        min_key=SERIALIZED_EMPTY_ROW,
        max_key=SERIALIZED_EMPTY_ROW,
        key_stats=EMPTY_STATS,
        value_stats=encode_simple_stats(stats, [f.type for f in settings.fields]),
        min_sequence_number=first_sequence,
        max_sequence_number=first_sequence + len(written.rows) - 1,
        schema_id=context.schema_id,
        level=context.level,
        extra_files=index.extra_files,
        creation_time=context.creation_time,
        delete_row_count=0,
        embedded_index=index.embedded,
        file_source=context.file_source,
    )


@dataclass(frozen=True)
class KeyValueLayout:
    """Where the parts of a key-value record sit in a primary-key file's physical row.

    ``key_columns`` are the positions of the key statistics' columns (the ``_KEY_`` columns,
    or in thin mode the key's value columns); values start at ``value_start``.
    """

    key_types: tuple[t.DataType, ...]
    key_columns: tuple[int, ...]
    value_start: int
    thin: bool


def compute_key_value_row(record: KeyValue, key_value_layout: KeyValueLayout) -> Row:
    """``[key...] + (sequence number, row kind byte) + value...`` (Java ``KeyValueSerializer``)."""
    key = () if key_value_layout.thin else record.key
    return (*key, record.sequence_number, record.kind.byte_value, *record.value)


def compute_key_value_meta(
    written: WrittenFile,
    records: Sequence[KeyValue],
    settings: FileSettings,
    key_value_layout: KeyValueLayout,
    context: MetaContext,
) -> DataFileMeta:
    """Rule 6 (Java ``KeyValueDataFileWriter.result``)."""
    key_columns = key_value_layout.key_columns
    value_columns = range(key_value_layout.value_start, len(settings.fields))
    rows, fields, modes = written.rows, settings.fields, settings.stats_modes
    key_stats = compute_column_stats(rows, fields, modes, settings.fmt, key_columns)
    value_stats = compute_column_stats(rows, fields, modes, settings.fmt, value_columns)
    key_types = key_value_layout.key_types
    sequences = [record.sequence_number for record in records]
    return DataFileMeta(
        file_name=written.name,
        file_size=written.size,
        row_count=len(records),
        min_key=encode_key(records[0].key, key_types),
        max_key=encode_key(records[-1].key, key_types),
        key_stats=encode_simple_stats(key_stats, key_types),
        value_stats=encode_simple_stats(value_stats, [fields[i].type for i in value_columns]),
        min_sequence_number=min(sequences),
        max_sequence_number=max(sequences),
        schema_id=context.schema_id,
        level=context.level,
        extra_files=(),
        creation_time=context.creation_time,
        delete_row_count=sum(1 for record in records if record.kind.is_retract),
        embedded_index=None,
        file_source=context.file_source,
    )


# --------------------------------------------------------------------------------------------
# Rolling writes
# --------------------------------------------------------------------------------------------

NameSource = Callable[[], str]
"""Returns the next file name each time it is called."""


def write_append_files(
    file_io: FileIO,
    directory: str,
    rows: Sequence[Row],
    *,
    settings: FileSettings,
    first_sequence: int,
    context: MetaContext,
    names: NameSource,
    file_index: FileIndexBuilder | None = None,
    file_index_threshold: int = 0,
) -> list[DataFileMeta]:
    """Rules 4, 5, 7: ``rows`` (in order) into rolled files; sequence numbers count on across
    files (Java ``RowDataRollingFileWriter``)."""
    table = to_arrow(rows, settings)
    metas = []
    for start, end in compute_file_ranges(table, settings):
        written = write_rows(file_io, directory, names(), table.slice(start, end - start), settings)
        body = None if file_index is None else file_index(written.rows, settings.fields)
        index = write_file_index(
            file_io, layout.join(directory, written.name), body, file_index_threshold
        )
        metas.append(compute_append_meta(written, settings, first_sequence + start, context, index))
    return metas


def compute_key_value_ranges(
    records: Sequence[KeyValue], settings: FileSettings, key_value_layout: KeyValueLayout
) -> tuple[pa.Table, list[tuple[int, int]]]:
    """The physical table of ``records`` and the row ranges of its rolled files."""
    table = to_arrow([compute_key_value_row(r, key_value_layout) for r in records], settings)
    return table, compute_file_ranges(table, settings)


def write_key_value_file(
    file_io: FileIO,
    directory: str,
    name: str,
    table: pa.Table,
    records: Sequence[KeyValue],
    *,
    settings: FileSettings,
    key_value_layout: KeyValueLayout,
    context: MetaContext,
) -> DataFileMeta:
    """Write one primary-key (or changelog) file of ``records`` (``table`` is their rows)."""
    written = write_rows(file_io, directory, name, table, settings)
    return compute_key_value_meta(written, records, settings, key_value_layout, context)
