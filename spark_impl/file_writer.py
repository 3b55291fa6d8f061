"""Data files from Arrow tables: encoding, rolling, and the ``DataFileMeta`` Java 0.9 would write.

The rules are those of ``reference/store/file_writer.py`` (which documents them with the Java
classes); this module computes the same metadata column-wise:

* statistics come from Arrow kernels (``min_max``, null counts), then the format's quirks as
  Java reads them back from the file footer (Parquet drops nested columns entirely, drops string
  and binary statistics of 4096+ bytes with a null count of -1, keeps no min/max for a float
  column holding NaN and reports a +0.0 min as -0.0 and a -0.0 max as +0.0, none for TIMESTAMP
  precision > 6 or binaries; ORC folds floats in IEEE order from the first value and bounds
  long strings; Avro's row collector orders floats like Java's ``Float.compare``), then the
  statistics mode (``none``, ``counts``, ``full``, ``truncate(n)``);
* a stats row is a serialized BinaryRow of the columns made nullable, null fields as zero slots
  (0.9's ``InternalRowSerializer``);
* rolling: Java measures a file at its size checks (every 1000th row of the rolling write for
  Parquet and Avro, every 1024th row of the file for ORC) and starts a new file once the size
  reaches ``target-file-size``. The reference measures the encoded size at every check; here
  the check points are searched by bisection over encoded sizes (sizes grow with rows), so the
  common case of one file per flush encodes once.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reference import layout
from reference.errors import InvalidOptionError
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import SERIALIZED_EMPTY_ROW, NullLayout, serialize_binary_row
from reference.spec.data import EPOCH_DATETIME, Timestamp
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.file_format import (
    FileFormat,
    FormatWriteOptions,
    arrow_to_rows,
    encode_data_file,
)
from reference.spec.options import parse_stats_mode as parse_stats_mode_text
from reference.spec.stats import EMPTY_STATS, SimpleStats

STATS_MODE_OPTION = "metadata.stats-mode"
DEFAULT_STATS_MODE = "truncate(16)"
ROLL_CHECK_INTERVAL = 1000
ORC_ROW_BATCH_SIZE = 1024
PARQUET_MAX_STATS_BYTES = 4096
PARQUET_UNKNOWN_NULL_COUNT = -1
ORC_MAX_STRING_BYTES = 1024
INT96_MIN_PRECISION = 7
MAX_CODE_POINT = 0x10FFFF
SURROGATES = range(0xD800, 0xE000)
JAVA_UNENCODABLE = "?"
NOT_COMPARABLE_ROOTS = t.NESTED_ROOTS | t.BINARY_ROOTS | {t.TypeRoot.VARIANT, t.TypeRoot.BLOB}

# --------------------------------------------------------------------------------------------
# Statistics modes
# --------------------------------------------------------------------------------------------


class StatsKind(Enum):
    NONE = "none"
    COUNTS = "counts"
    TRUNCATE = "truncate"
    FULL = "full"


@dataclass(frozen=True)
class StatsMode:
    kind: StatsKind
    length: int = 0


def parse_stats_mode(text: str, option: str) -> StatsMode:
    try:
        mode = parse_stats_mode_text(text)
    except ValueError as error:
        raise InvalidOptionError(option, text, str(error)) from None
    if mode.startswith(StatsKind.TRUNCATE.value):
        return StatsMode(StatsKind.TRUNCATE, int(mode[len("truncate(") : -1]))
    return StatsMode(StatsKind(mode))


def compute_stats_modes(
    options: Mapping[str, str], column_names: Sequence[str], default: str
) -> tuple[StatsMode, ...]:
    """``fields.<column>.stats-mode`` per physical column, else ``default``."""
    modes = []
    for name in column_names:
        key = f"fields.{name}.stats-mode"
        modes.append(parse_stats_mode(options.get(key, default), key))
    return tuple(modes)


# --------------------------------------------------------------------------------------------
# Column statistics
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnStats:
    min: Any
    max: Any
    null_count: int | None


NO_STATS = ColumnStats(None, None, None)


def _internal_pair(low: Any, high: Any, column_type: pa.DataType, data_type: t.DataType) -> Any:
    """Two Arrow scalars as internal values (``reference.spec.data`` conventions)."""
    field = t.DataField(0, "v", data_type.copy(True))
    pair = pa.table({"v": pa.array([low, high], type=column_type)})
    rows = arrow_to_rows(pair, [field])
    low_value: Any = rows[0][0]
    high_value: Any = rows[1][0]
    return low_value, high_value


def _arrow_extremes(column: pa.Array, data_type: t.DataType) -> tuple[Any, Any]:
    extremes = pc.min_max(column)
    low: Any = extremes["min"]
    high: Any = extremes["max"]
    pair: tuple[Any, Any] = _internal_pair(low, high, column.type, data_type)
    return pair


def _float_values(column: pa.Array) -> np.ndarray:
    return np.asarray(column.drop_null().to_numpy(zero_copy_only=False))


def _java_float_extremes(column: pa.Array) -> tuple[Any, Any]:
    """Min and max in ``Float.compare`` order: -0.0 before 0.0, NaN largest."""
    values = _float_values(column).astype(np.float64)
    bits = values.view(np.int64).copy()
    bits[np.isnan(values)] = 0x7FF8000000000000
    image = np.where(bits < 0, bits ^ 0x7FFFFFFFFFFFFFFF, bits)
    return float(values[int(np.argmin(image))]), float(values[int(np.argmax(image))])


def collected_stats(column: pa.Array, data_type: t.DataType, null_count: int) -> ColumnStats:
    """Java's row collector (Avro): min/max of comparable types."""
    if null_count == len(column) or data_type.root in NOT_COMPARABLE_ROOTS:
        return ColumnStats(None, None, null_count)
    if data_type.root in t.FLOATING_ROOTS:
        low, high = _java_float_extremes(column)
        return ColumnStats(low, high, null_count)
    low, high = _arrow_extremes(column, data_type)
    return ColumnStats(low, high, null_count)


def _byte_extremes(column: pa.Array) -> tuple[bytes, bytes]:
    extremes = pc.min_max(column.cast(pa.binary()))
    return extremes["min"].as_py(), extremes["max"].as_py()


def parquet_stats(column: pa.Array, data_type: t.DataType, null_count: int) -> ColumnStats | None:
    """What Java reads from a Parquet footer; ``None``: the column has no statistics."""
    if data_type.root in t.NESTED_ROOTS:
        return None
    all_null = null_count == len(column)
    if data_type.root in t.CHARACTER_ROOTS | t.BINARY_ROOTS and not all_null:
        low_bytes, high_bytes = _byte_extremes(column)
        if len(low_bytes) + len(high_bytes) >= PARQUET_MAX_STATS_BYTES:
            return ColumnStats(None, None, PARQUET_UNKNOWN_NULL_COUNT)
    if all_null:
        return ColumnStats(None, None, null_count)
    if data_type.root in t.FLOATING_ROOTS:
        values = _float_values(column)
        if np.isnan(values).any():
            return ColumnStats(None, None, null_count)
        low, high = float(values.min()), float(values.max())
        return ColumnStats(-0.0 if low == 0.0 else low, 0.0 if high == 0.0 else high, null_count)
    is_int96 = (
        data_type.root in t.TIMESTAMP_ROOTS
        and t.timestamp_precision(data_type) >= INT96_MIN_PRECISION
    )
    if is_int96 or data_type.root in NOT_COMPARABLE_ROOTS:
        return ColumnStats(None, None, null_count)
    return collected_stats(column, data_type, null_count)


def _orc_float_stats(column: pa.Array, null_count: int) -> ColumnStats:
    values = _float_values(column).tolist()
    low = high = values[0]
    for value in values[1:]:
        if value < low:
            low = value
        elif value > high:
            high = value
    return ColumnStats(low, high, null_count)


def _orc_lower_bound(data: bytes) -> bytes:
    cut = ORC_MAX_STRING_BYTES
    while cut > 0 and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return data[:cut]


def _orc_upper_bound(data: bytes) -> bytes:
    text = _orc_lower_bound(data).decode("utf-8")
    return (text[:-1] + chr(min(ord(text[-1]) + 1, MAX_CODE_POINT))).encode("utf-8")


def _orc_string_stats(column: pa.Array, null_count: int) -> ColumnStats:
    """ORC's string statistics: long values turn the min/max into bounds (unknown)."""
    values = column.drop_null().cast(pa.binary())
    if pc.max(pc.binary_length(values)).as_py() <= ORC_MAX_STRING_BYTES:
        low_bytes, high_bytes = _byte_extremes(values)
        return ColumnStats(low_bytes.decode("utf-8"), high_bytes.decode("utf-8"), null_count)
    lowest: bytes | None = None
    highest = b""
    lowest_bound = highest_bound = False
    for data in values.to_pylist():
        is_long = len(data) > ORC_MAX_STRING_BYTES
        if lowest is None:
            lowest = _orc_lower_bound(data) if is_long else data
            highest = _orc_upper_bound(data) if is_long else data
            lowest_bound = highest_bound = is_long
        elif lowest > data:
            lowest, lowest_bound = (_orc_lower_bound(data) if is_long else data), is_long
        elif highest < data:
            highest, highest_bound = (_orc_upper_bound(data) if is_long else data), is_long
    low = None if lowest is None or lowest_bound else lowest.decode("utf-8")
    high = None if lowest is None or highest_bound else highest.decode("utf-8")
    return ColumnStats(low, high, null_count)


def orc_stats(column: pa.Array, data_type: t.DataType, null_count: int) -> ColumnStats:
    if null_count == len(column) or data_type.root in NOT_COMPARABLE_ROOTS:
        return ColumnStats(None, None, null_count)
    if data_type.root in t.FLOATING_ROOTS:
        return _orc_float_stats(column, null_count)
    if data_type.root in t.CHARACTER_ROOTS:
        return _orc_string_stats(column, null_count)
    return collected_stats(column, data_type, null_count)


def raw_stats(column: pa.Array, data_type: t.DataType, fmt: FileFormat) -> ColumnStats | None:
    null_count = column.null_count
    if fmt is FileFormat.PARQUET:
        return parquet_stats(column, data_type, null_count)
    if fmt is FileFormat.ORC:
        return orc_stats(column, data_type, null_count)
    return collected_stats(column, data_type, null_count)


def truncated_max(value: Any, length: int) -> Any:
    """A value not below ``value`` of at most ``length`` code points (``None``: none)."""
    if not isinstance(value, str) or len(value) <= length:
        return value
    prefix = value[:length]
    for position in range(length - 1, -1, -1):
        code_point = ord(prefix[position]) + 1
        if code_point <= MAX_CODE_POINT:
            char = JAVA_UNENCODABLE if code_point in SURROGATES else chr(code_point)
            return prefix[:position] + char
    return None


def apply_stats_mode(stats: ColumnStats | None, mode: StatsMode) -> ColumnStats:
    if stats is None or mode.kind is StatsKind.NONE:
        return NO_STATS
    if mode.kind is StatsKind.COUNTS:
        return ColumnStats(None, None, stats.null_count)
    if mode.kind is StatsKind.FULL:
        return stats
    high = truncated_max(stats.max, mode.length)
    if high is None:
        return ColumnStats(None, None, stats.null_count)
    low = stats.min[: mode.length] if isinstance(stats.min, str) else stats.min
    return ColumnStats(low, high, stats.null_count)


def encode_stats(stats: Sequence[ColumnStats], types: Sequence[t.DataType]) -> SimpleStats:
    if not types:
        return EMPTY_STATS
    nullable = [data_type.copy(True) for data_type in types]
    return SimpleStats(
        serialize_binary_row([s.min for s in stats], nullable, null_layout=NullLayout.ZERO_SLOT),
        serialize_binary_row([s.max for s in stats], nullable, null_layout=NullLayout.ZERO_SLOT),
        tuple(s.null_count for s in stats),
    )


def encode_key(key: Sequence[Any], types: Sequence[t.DataType]) -> bytes:
    return serialize_binary_row(key, types, null_layout=NullLayout.ZERO_SLOT)


# --------------------------------------------------------------------------------------------
# Settings, encoding and rolling
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileSettings:
    """Format, codec options, physical columns with their stats modes, and the roll size."""

    fmt: FileFormat
    write_options: FormatWriteOptions
    fields: tuple[t.DataField, ...]
    stats_modes: tuple[StatsMode, ...]
    target_file_size: int


def column_stats(table: pa.Table, settings: FileSettings, columns: Sequence[int]) -> SimpleStats:
    """The SimpleStats of the physical columns at ``columns`` of a stored table."""
    stats = []
    for index in columns:
        data_type = settings.fields[index].type
        column = table.column(index).combine_chunks()
        raw = raw_stats(column, data_type, settings.fmt)
        stats.append(apply_stats_mode(raw, settings.stats_modes[index]))
    return encode_stats(stats, [settings.fields[i].type for i in columns])


def encode_table(table: pa.Table, settings: FileSettings) -> bytes:
    return encode_data_file(table, settings.fmt, settings.fields, settings.write_options)


def compute_check_points(fmt: FileFormat, start: int, end: int) -> list[int]:
    """Row counts (exclusive ends) at which Java measures the file started at ``start``: every
    1000th row of the whole write (Parquet, Avro) or every 1024th row of the file (ORC)."""
    if fmt is FileFormat.ORC:
        return list(range(start + ORC_ROW_BATCH_SIZE, end + 1, ORC_ROW_BATCH_SIZE))
    first = start - start % ROLL_CHECK_INTERVAL + ROLL_CHECK_INTERVAL
    return list(range(first, end + 1, ROLL_CHECK_INTERVAL))


def compute_rolled_files(table: pa.Table, settings: FileSettings) -> list[tuple[int, int, bytes]]:
    """``(start, end, encoded bytes)`` of the files a rolling write of ``table`` makes."""
    n = table.num_rows
    files: list[tuple[int, int, bytes]] = []
    start = 0
    while start < n:
        whole = encode_table(table.slice(start), settings)
        points = compute_check_points(settings.fmt, start, n)
        if len(whole) < settings.target_file_size or not points:
            files.append((start, n, whole))
            break
        found = _first_full_point(table, settings, start, points)
        if found is None:
            files.append((start, n, whole))
            break
        end, data = found
        files.append((start, end, data))
        start = end
    return files


def _first_full_point(
    table: pa.Table, settings: FileSettings, start: int, points: Sequence[int]
) -> tuple[int, bytes] | None:
    """Bisection for the first check point whose file reaches the target size."""
    low, high = 0, len(points) - 1
    found: tuple[int, bytes] | None = None
    while low <= high:
        middle = (low + high) // 2
        data = encode_table(table.slice(start, points[middle] - start), settings)
        if len(data) >= settings.target_file_size:
            found = (points[middle], data)
            high = middle - 1
        else:
            low = middle + 1
    return found


# --------------------------------------------------------------------------------------------
# Metas
# --------------------------------------------------------------------------------------------


def compute_creation_time(now: datetime.datetime | None = None) -> Timestamp:
    moment = now if now is not None else datetime.datetime.now()
    millis = (moment.replace(tzinfo=None) - EPOCH_DATETIME) // datetime.timedelta(milliseconds=1)
    return Timestamp(millis)


@dataclass(frozen=True)
class MetaContext:
    schema_id: int
    level: int
    file_source: FileSource
    creation_time: Timestamp


NameSource = Callable[[], str]


def write_file(file_io: FileIO, directory: str, name: str, data: bytes) -> None:
    file_io.write_bytes(layout.join(directory, name), data)


def write_append_files(
    file_io: FileIO,
    directory: str,
    table: pa.Table,
    *,
    settings: FileSettings,
    first_sequence: int,
    context: MetaContext,
    names: NameSource,
) -> list[DataFileMeta]:
    """Rows in order into rolled append files (sequence numbers count on across files)."""
    metas = []
    all_columns = range(len(settings.fields))
    for start, end, data in compute_rolled_files(table, settings):
        name = names()
        write_file(file_io, directory, name, data)
        part = table.slice(start, end - start)
        metas.append(
            DataFileMeta(
                file_name=name,
                file_size=len(data),
                row_count=end - start,
                min_key=SERIALIZED_EMPTY_ROW,
                max_key=SERIALIZED_EMPTY_ROW,
                key_stats=EMPTY_STATS,
                value_stats=column_stats(part, settings, all_columns),
                min_sequence_number=first_sequence + start,
                max_sequence_number=first_sequence + end - 1,
                schema_id=context.schema_id,
                level=context.level,
                extra_files=(),
                creation_time=context.creation_time,
                delete_row_count=0,
                embedded_index=None,
                file_source=context.file_source,
            )
        )
    return metas


@dataclass(frozen=True)
class KeyValueLayout:
    """Positions in a primary-key file's physical columns: the key statistics' columns, the
    sequence number, the value kind and the first value column; the key's field names."""

    key_names: tuple[str, ...]
    key_types: tuple[t.DataType, ...]
    key_columns: tuple[int, ...]
    value_start: int
    thin: bool


def compute_key_value_meta(
    table: pa.Table,
    name: str,
    size: int,
    *,
    settings: FileSettings,
    kv_layout: KeyValueLayout,
    context: MetaContext,
) -> DataFileMeta:
    """The meta of one primary-key (or changelog) file whose physical rows are ``table``."""
    sequences = table.column(kv_layout.value_start - 2).combine_chunks()
    kinds = np.asarray(table.column(kv_layout.value_start - 1).to_numpy())
    value_columns = range(kv_layout.value_start, len(settings.fields))
    fields = [t.DataField(i, f"k{i}", dt) for i, dt in enumerate(kv_layout.key_types)]
    keys = table.select(list(kv_layout.key_columns)).rename_columns([f.name for f in fields])
    first_last = arrow_to_rows(keys.take(pa.array([0, table.num_rows - 1])), fields)
    extremes = pc.min_max(sequences)
    return DataFileMeta(
        file_name=name,
        file_size=size,
        row_count=table.num_rows,
        min_key=encode_key(first_last[0], kv_layout.key_types),
        max_key=encode_key(first_last[1], kv_layout.key_types),
        key_stats=column_stats(table, settings, kv_layout.key_columns),
        value_stats=column_stats(table, settings, value_columns),
        min_sequence_number=int(extremes["min"].as_py()),
        max_sequence_number=int(extremes["max"].as_py()),
        schema_id=context.schema_id,
        level=context.level,
        extra_files=(),
        creation_time=context.creation_time,
        delete_row_count=int(np.count_nonzero((kinds == 1) | (kinds == 3))),
        embedded_index=None,
        file_source=context.file_source,
    )
