"""Data files from Arrow tables: encoding, rolling, and the ``DataFileMeta`` Java 0.9 would write.

The rules are those of ``reference/store/file_writer.py`` (which documents them with the Java
classes); this module computes the same metadata column-wise:

* statistics: raw min/max/null counts from Arrow kernels per column (numpy for Java's float
  order), with the format limits, modes and the stats-row encoding of
  :mod:`reference.spec.column_stats`;
* rolling: Java measures a file at its size checks (every 1000th row of the rolling write for
  Parquet and Avro, every 1024th row of the file for ORC) and starts a new file once the size
  reaches ``target-file-size``. The reference measures the encoded size at every check; here
  the check points are searched by bisection over encoded sizes (sizes grow with rows), so the
  common case of one file per flush encodes once;
* file indexes (``reference/store/file_writer.py`` rule 7): every append file gets the
  container :mod:`spark_impl.file_index` builds from its Arrow columns when its settings carry
  an index plan (append tables with ``file-index.*`` options), embedded in the meta up to
  ``file-index.in-manifest-threshold`` bytes, else written to ``<data file>.index`` and named
  in the meta's extra files. Primary-key files get none (as Paimon 0.9.0).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reference import layout
from reference.io import FileIO
from reference.spec import types as t
from reference.spec.binary_row import SERIALIZED_EMPTY_ROW
from reference.spec.column_stats import (
    NOT_COMPARABLE_ROOTS,
    ORC_MAX_STRING_BYTES,
    PARQUET_UNKNOWN_NULL_COUNT,
    STATS_MODE_OPTION,
    ColumnStats,
    StatsMode,
    apply_stats_mode,
    compute_orc_float_extremes,
    compute_orc_string_extremes,
    compute_stats_modes,
    encode_key,
    encode_simple_stats,
    is_parquet_binary_stats_dropped,
    is_parquet_int96,
)
from reference.spec.data import EPOCH_DATETIME, Timestamp
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.file_format import (
    FileFormat,
    FormatWriteOptions,
    arrow_to_rows,
    encode_data_file,
)
from reference.spec.rolling import ORC_ROW_BATCH_SIZE, ROLL_CHECK_INTERVAL
from reference.spec.stats import EMPTY_STATS, SimpleStats
from spark_impl.file_index import (
    NO_INDEX,
    FileIndexPlan,
    WrittenIndex,
    build_file_index,
    write_file_index,
)

RETRACT_KIND_BYTES = (1, 3)
"""Row kind bytes of -U and -D (a file's delete row count)."""


def compute_stats_modes_with_default(
    options: Mapping[str, str], column_names: Sequence[str], default: str
) -> tuple[StatsMode, ...]:
    """``fields.<column>.stats-mode`` per physical column, else ``default``."""
    return tuple(compute_stats_modes({**options, STATS_MODE_OPTION: default}, column_names))


# --------------------------------------------------------------------------------------------
# Column statistics: raw extremes from Arrow kernels, then the spec's limits and modes
# --------------------------------------------------------------------------------------------

FLOAT_NAN_BITS = 0x7FF8000000000000
FLOAT_ORDER_FLIP = 0x7FFFFFFFFFFFFFFF


def _as_internal(pair: pa.Array, data_type: t.DataType) -> tuple[Any, Any]:
    """A two-element Arrow array (min, max) as internal values."""
    field = t.DataField(0, "v", data_type.copy(True))
    low, high = arrow_to_rows(pa.table({"v": pair}), [field])
    return low[0], high[0]


def _kernel_extremes(present: pa.Array, data_type: t.DataType) -> tuple[Any, Any]:
    found = pc.min_max(present)
    return _as_internal(pa.array([found["min"], found["max"]], type=present.type), data_type)


def _java_float_extremes(present: pa.Array) -> tuple[float, float]:
    """Min and max in ``Float.compare`` order (-0.0 before 0.0, NaN largest): compare the IEEE
    bits after folding negatives, so a signed-integer argmin/argmax finds them."""
    values = np.asarray(present.to_numpy(zero_copy_only=False), dtype=np.float64)
    bits = values.view(np.int64).copy()
    bits[np.isnan(values)] = FLOAT_NAN_BITS
    ordered = np.where(bits < 0, bits ^ FLOAT_ORDER_FLIP, bits)
    return float(values[ordered.argmin()]), float(values[ordered.argmax()])


def _binary_extremes(present: pa.Array) -> tuple[bytes, bytes]:
    found = pc.min_max(present.cast(pa.binary()))
    return found["min"].as_py(), found["max"].as_py()


def avro_column_stats(column: pa.Array, data_type: t.DataType) -> ColumnStats:
    """Java's row collector: every comparable type gets its min/max in Java's order."""
    present = column.drop_null()
    nulls = len(column) - len(present)
    if not len(present) or data_type.root in NOT_COMPARABLE_ROOTS:
        return ColumnStats(None, None, nulls)
    if data_type.root in t.FLOATING_ROOTS:
        return ColumnStats(*_java_float_extremes(present), nulls)
    return ColumnStats(*_kernel_extremes(present, data_type), nulls)


def parquet_column_stats(column: pa.Array, data_type: t.DataType) -> ColumnStats | None:
    """What Java reads back from a Parquet footer (``None``: not even a null count)."""
    if data_type.root in t.NESTED_ROOTS:
        return None
    present = column.drop_null()
    nulls = len(column) - len(present)
    if len(present) and data_type.root in t.CHARACTER_ROOTS | t.BINARY_ROOTS:
        low, high = _binary_extremes(present)
        if is_parquet_binary_stats_dropped(len(low), len(high)):
            return ColumnStats(None, None, PARQUET_UNKNOWN_NULL_COUNT)
    counted_only = (
        not len(present) or is_parquet_int96(data_type) or data_type.root in NOT_COMPARABLE_ROOTS
    )
    if counted_only:
        return ColumnStats(None, None, nulls)
    if data_type.root not in t.FLOATING_ROOTS:
        return avro_column_stats(column, data_type)
    values = np.asarray(present.to_numpy(zero_copy_only=False), dtype=np.float64)
    if np.isnan(values).any():
        return ColumnStats(None, None, nulls)
    low_value, high_value = float(values.min()), float(values.max())
    # parquet-mr writes a zero min as -0.0 and a zero max as +0.0.
    return ColumnStats(
        -0.0 if low_value == 0.0 else low_value, 0.0 if high_value == 0.0 else high_value, nulls
    )


def orc_column_stats(column: pa.Array, data_type: t.DataType) -> ColumnStats:
    """What Java reads back from an ORC footer (other types as the row collector)."""
    if data_type.root not in t.FLOATING_ROOTS | t.CHARACTER_ROOTS:
        return avro_column_stats(column, data_type)
    present = column.drop_null()
    nulls = len(column) - len(present)
    if not len(present):
        return ColumnStats(None, None, nulls)
    if data_type.root in t.FLOATING_ROOTS:
        return ColumnStats(*compute_orc_float_extremes(present.to_pylist()), nulls)
    as_bytes = present.cast(pa.binary())
    longest = pc.max(pc.binary_length(as_bytes)).as_py()
    if longest > ORC_MAX_STRING_BYTES:
        return ColumnStats(*compute_orc_string_extremes(as_bytes.to_pylist()), nulls)
    low, high = _binary_extremes(as_bytes)
    return ColumnStats(low.decode("utf-8"), high.decode("utf-8"), nulls)


RAW_STATS_BY_FORMAT: Mapping[FileFormat, Callable[[pa.Array, t.DataType], ColumnStats | None]] = {
    FileFormat.PARQUET: parquet_column_stats,
    FileFormat.ORC: orc_column_stats,
    FileFormat.AVRO: avro_column_stats,
}


# --------------------------------------------------------------------------------------------
# Settings, encoding and rolling
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileSettings:
    """Format, codec options, physical columns with their stats modes, the roll size, and the
    file indexes every append file gets (None: no index)."""

    fmt: FileFormat
    write_options: FormatWriteOptions
    fields: tuple[t.DataField, ...]
    stats_modes: tuple[StatsMode, ...]
    target_file_size: int
    index: FileIndexPlan | None = None


def column_stats(table: pa.Table, settings: FileSettings, columns: Sequence[int]) -> SimpleStats:
    """The SimpleStats of the physical columns at ``columns`` of a stored table."""
    raw = RAW_STATS_BY_FORMAT[settings.fmt]
    types = [settings.fields[i].type for i in columns]
    stats = [
        apply_stats_mode(raw(table.column(i).combine_chunks(), data_type), settings.stats_modes[i])
        for i, data_type in zip(columns, types, strict=True)
    ]
    return encode_simple_stats(stats, types)


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
    """The local wall clock in milliseconds since the epoch (what Java stores)."""
    moment = (now or datetime.datetime.now()).replace(tzinfo=None)
    return Timestamp((moment - EPOCH_DATETIME) // datetime.timedelta(milliseconds=1))


class MetaContext(NamedTuple):
    """Shared by every file of one task's write: schema id, level, source, creation time."""

    schema_id: int
    level: int
    file_source: FileSource
    creation_time: Timestamp


NameSource = Callable[[], str]


def write_file(file_io: FileIO, directory: str, name: str, data: bytes) -> None:
    file_io.write_bytes(layout.join(directory, name), data)


class FileFacts(NamedTuple):
    """What one written file adds to its context to make a ``DataFileMeta``."""

    name: str
    size: int
    rows: int
    keys: tuple[bytes, bytes]
    stats: tuple[SimpleStats, SimpleStats]
    sequences: tuple[int, int]
    deletes: int


def build_meta(
    facts: FileFacts, context: MetaContext, index: WrittenIndex = NO_INDEX
) -> DataFileMeta:
    """The 0.9 data file meta; ``index`` says where the file's index went, if it has one."""
    return DataFileMeta(
        facts.name,
        facts.size,
        facts.rows,
        *facts.keys,
        *facts.stats,
        *facts.sequences,
        context.schema_id,
        context.level,
        index.extra_files,
        context.creation_time,
        facts.deletes,
        index.embedded,
        context.file_source,
    )


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
    """Rows in order into rolled append files (sequence numbers count on across files), each
    with the file index its settings ask for."""
    every_column = range(len(settings.fields))
    no_keys = (SERIALIZED_EMPTY_ROW, SERIALIZED_EMPTY_ROW)
    metas = []
    for start, end, data in compute_rolled_files(table, settings):
        name = names()
        write_file(file_io, directory, name, data)
        rows = table.slice(start, end - start)
        values = column_stats(rows, settings, every_column)
        sequences = (first_sequence + start, first_sequence + end - 1)
        facts = FileFacts(
            name, len(data), end - start, no_keys, (EMPTY_STATS, values), sequences, 0
        )
        metas.append(
            build_meta(facts, context, write_append_index(file_io, directory, name, rows, settings))
        )
    return metas


def write_append_index(
    file_io: FileIO, directory: str, name: str, rows: pa.Table, settings: FileSettings
) -> WrittenIndex:
    """The index of the append file ``name`` holding ``rows``, embedded or written beside it."""
    if settings.index is None:
        return NO_INDEX
    container = build_file_index(settings.index, rows, settings.fields)
    return write_file_index(file_io, directory, name, container, settings.index.threshold)


@dataclass(frozen=True)
class KeyValueLayout:
    """Positions in a primary-key file's physical columns: the key statistics' columns, the
    sequence number, the value kind and the first value column; the key's field names."""

    key_names: tuple[str, ...]
    key_types: tuple[t.DataType, ...]
    key_columns: tuple[int, ...]
    value_start: int
    thin: bool

    @property
    def sequence_column(self) -> int:
        return self.value_start - 2

    @property
    def kind_column(self) -> int:
        return self.value_start - 1


def _edge_keys(table: pa.Table, kv_layout: KeyValueLayout) -> tuple[bytes, bytes]:
    """The first and the last key of a key-sorted file, encoded."""
    fields = [t.DataField(i, f"k{i}", dt) for i, dt in enumerate(kv_layout.key_types)]
    edges = table.select(list(kv_layout.key_columns)).take([0, table.num_rows - 1])
    first, last = arrow_to_rows(edges.rename_columns([f.name for f in fields]), fields)
    return encode_key(first, kv_layout.key_types), encode_key(last, kv_layout.key_types)


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
    sequence = pc.min_max(table.column(kv_layout.sequence_column))
    kinds = np.asarray(table.column(kv_layout.kind_column).to_numpy())
    stats = (
        column_stats(table, settings, kv_layout.key_columns),
        column_stats(table, settings, range(kv_layout.value_start, len(settings.fields))),
    )
    facts = FileFacts(
        name,
        size,
        table.num_rows,
        _edge_keys(table, kv_layout),
        stats,
        (int(sequence["min"].as_py()), int(sequence["max"].as_py())),
        int(np.isin(kinds, RETRACT_KIND_BYTES).sum()),
    )
    return build_meta(facts, context)
