"""Native append writes: Spark's own Parquet writer into Paimon's layout, then spark_impl's commit.

Usage::

    from spark_impl.native_write import write_table
    write_table(df, "/warehouse/db.db/t", mode="append")     # or "overwrite"

The public ``spark_impl.write_table`` calls :func:`write_table`; the Python writer of
:mod:`spark_impl.write` (:func:`spark_impl.jobs.write_table`) stays the route of every write
rule 1 refuses, and :func:`write_table` hands those to it.

Rules:

1. A table is written natively when its rows need no Python at all (Java
   ``AppendOnlyFileStoreWrite`` with no per-row work beyond the bucket): an append table
   (no primary key) on a local root, ``file.format = parquet`` with a codec Spark and Java
   share (zstd, snappy, gzip, none), no file index, no row tracking, bucket-unaware
   (``bucket = -1``) or fixed buckets whose key the JVM hashes (:mod:`spark_impl.jvm_bucket`),
   and only columns whose Parquet encoding by Spark is the one Java Paimon writes and reads:
   BOOLEAN, TINYINT..BIGINT, FLOAT, DOUBLE, DECIMAL (INT32 / INT64 / FIXED by precision, as
   Java's ``ParquetRowDataWriter``), STRING, BYTES, DATE and TIMESTAMP(4..6) (INT64
   microseconds; Spark writes no millisecond or nanosecond timestamps without a session
   setting, so TIMESTAMP(0..3) and (7..9) go through Python); no ``rowkind.field``. The call
   itself is native only as a plain ``append`` / ``overwrite`` with no write options and no
   ``_ROW_KIND`` column (:func:`native_input_refusal`): options such as ``commit.identifier``
   or ``static-partition`` and row kinds (an append table refuses a retraction) are the
   Python writer's to honour.
2. NOT NULL columns are checked in the JVM (``raise_error`` naming the column, turned into
   ``SpecViolation``) before a row is written; the frame's columns are selected by the table's
   names and cast to its types. A column the frame already declares with the table's type
   is not cast, and one it declares non-nullable with that type is not checked (Spark folds
   both away).
3. Spark writes the rows into a staging directory under the table root (the table's codec,
   zstd at the level Java hands parquet-mr: ``file.compression.zstd-level``, default 1, not
   Spark's 3; :func:`parquet_write_options`), split by partition and bucket (``partitionBy``
   on copies of the partition columns and the bucket, so the data files keep every table
   column as Paimon's do). Each file is then renamed into its
   ``<partition>/bucket-<n>/`` directory with a Paimon data file name
   (``layout.data_file_name``).
4. Each file's ``DataFileMeta`` comes from its Parquet footer (Java
   ``ParquetSimpleStatsExtractor``): row count, size, per-column min / max / null count over
   the row groups, then the table's ``metadata.stats-mode`` (``column_stats.apply_stats_mode``);
   its partition is read from the file's partition columns. Sequence numbers count on from
   the bucket's largest one (0 for bucket-unaware tables, as the Python writer).
5. A fixed-bucket table that is not ``write-only`` compacts the written buckets as Java's
   ``AppendOnlyWriter`` does after a flush (:mod:`spark_impl.after_write`). The files are
   committed by :func:`spark_impl.commit.commit_write` (APPEND, or OVERWRITE of the table's
   ``dynamic-partition-overwrite`` choice; a compaction losing a conflict is dropped). A
   failed write or commit deletes the staged files and those of the renamed and compacted
   ones that no published snapshot references (a commit can raise after its snapshot landed).
"""

from __future__ import annotations

import math
import os
import re
import shutil
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from reference import layout
from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature
from reference.io import LOCAL_SCHEMES, FileIO, file_io_for, split_scheme
from reference.spec import types as t
from reference.spec.binary_row import SERIALIZED_EMPTY_ROW, serialize_binary_row
from reference.spec.column_stats import (
    PARQUET_UNKNOWN_NULL_COUNT,
    ColumnStats,
    apply_stats_mode,
    compute_stats_modes,
    encode_simple_stats,
)
from reference.spec.commit_message import CommitMessage, DataIncrement
from reference.spec.data import Timestamp
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.file_format import PARQUET_ZSTD_LEVEL_KEY, ZSTD_LEVEL_KEY, arrow_to_rows
from reference.spec.row_tracking import is_data_evolution_enabled
from reference.spec.schema import TableSchema
from reference.spec.stats import EMPTY_STATS
from reference.spec.units import MICROS_PER_MILLI, NANOS_PER_MICRO
from spark_impl.after_write import compact_after_write
from spark_impl.commit import CommitOutcome, Overwrite, commit_write, delete_written_files
from spark_impl.file_writer import compute_creation_time
from spark_impl.metadata import read_latest_schema
from spark_impl.plan import ReadPlan, compute_bucket_dir, plan_read
from spark_impl.stream import ROW_KIND_COLUMN

NATIVE_CODECS = {"zstd": "zstd", "snappy": "snappy", "gzip": "gzip", "none": "none"}
"""Paimon ``file.compression`` -> Spark's Parquet ``compression`` (same codec in both)."""
SIMPLE_ROOTS = frozenset(
    {
        t.TypeRoot.BOOLEAN,
        t.TypeRoot.TINYINT,
        t.TypeRoot.SMALLINT,
        t.TypeRoot.INTEGER,
        t.TypeRoot.BIGINT,
        t.TypeRoot.FLOAT,
        t.TypeRoot.DOUBLE,
        t.TypeRoot.DECIMAL,
        t.TypeRoot.DATE,
    }
)
MIN_TIMESTAMP_PRECISION = 4
MAX_TIMESTAMP_PRECISION = 6
PARTITION_COPY_PREFIX = "__paimon_partition_"
BUCKET_DIR_COLUMN = "__paimon_bucket"
STAGING_PREFIX = "_native-write-"
UNAWARE_BUCKET = -1
APPEND_LEVEL = 0


# --------------------------------------------------------------------------------------------
# Rule 1: which tables
# --------------------------------------------------------------------------------------------


def is_type_writable(data_type: t.DataType) -> bool:
    """Rule 1: Spark's Parquet encoding of the type is Java Paimon's."""
    if data_type.root in SIMPLE_ROOTS:
        return True
    if isinstance(data_type, t.VarCharType | t.VarBinaryType):
        return data_type.length == t.MAX_LENGTH
    if isinstance(data_type, t.TimestampType):
        return MIN_TIMESTAMP_PRECISION <= data_type.precision <= MAX_TIMESTAMP_PRECISION
    return False


def native_input_refusal(
    columns: Sequence[str], mode: str, options: Mapping[str, str]
) -> str | None:
    """Rule 1 for the call: why this write is not native (``None``: it may be). Only plain
    appends and overwrites without write options go native: an option (``commit.user``,
    ``commit.identifier``, ``static-partition``, a dynamic table option) and a ``_ROW_KIND``
    column (a retraction an append table must refuse, a row kind a primary-key table must
    keep) are the Python writer's to honour."""
    if mode not in ("append", "overwrite"):
        return f"mode {mode!r}"
    if options:
        return f"write options {sorted(options)}"
    if ROW_KIND_COLUMN in columns:
        return f"a {ROW_KIND_COLUMN} column"
    return None


def native_write_refusal(schema: TableSchema, table_root: str) -> str | None:
    """Rule 1: why the table is not written natively (``None``: it is)."""
    from spark_impl.jvm_bucket import is_jvm_bucketable  # noqa: PLC0415 (pyspark-free)

    options = schema.core_options
    scheme, _ = split_scheme(table_root)
    checks = [
        (bool(schema.primary_keys), "a primary-key table"),
        (scheme not in LOCAL_SCHEMES, "not a local table"),
        (options.file_format.lower() != "parquet", "file.format is not parquet"),
        (options.file_compression.lower() not in NATIVE_CODECS, "file.compression"),
        (any(k.startswith("file-index.") for k in schema.options), "file indexes"),
        (is_data_evolution_enabled(schema.options), "row tracking"),
        (options.rowkind_field is not None, "rowkind.field"),
        (options.bucket != UNAWARE_BUCKET and not is_jvm_bucketable(schema), "bucket key"),
        (not all(is_type_writable(f.type) for f in schema.fields), "column types"),
        (options.data_file_path_directory is not None, "data-file.path-directory"),
    ]
    return next((reason for refused, reason in checks if refused), None)


# --------------------------------------------------------------------------------------------
# Rules 2 and 3: the Spark write
# --------------------------------------------------------------------------------------------


def is_cast_needed(data_field: t.DataField, given: Any) -> bool:
    """Rule 2: whether the frame's column (its Spark ``StructField``; ``None`` when the frame
    has no field of exactly that name) needs a cast to the table's Spark type. Where it has
    that type already Spark's ``SimplifyCasts`` removes the cast anyway."""
    from spark_impl.spark_types import to_spark_type  # noqa: PLC0415

    return given is None or given.dataType != to_spark_type(data_field.type)


def is_check_needed(data_field: t.DataField, given: Any) -> bool:
    """Rule 2: whether a NOT NULL column needs the per-row check: not where the frame declares
    it non-nullable and no cast is needed, as Spark's ``NullPropagation`` makes ``isnull`` of
    such a column false anyway (Java ``AppendOnlyWriter`` checks per row; here the frame's
    schema, which Spark itself relies on, stands for rows it declares non-null). A cast may
    make a null (a STRING that is no number, without ANSI mode), so a cast column is checked."""
    if data_field.type.nullable:
        return False
    return given is None or given.nullable or is_cast_needed(data_field, given)


def table_column(data_field: t.DataField, given: Any) -> Any:
    """Rule 2 for one column: the frame's column ``given`` as the table's column, cast and
    NOT NULL checked where needed; fewer expressions mean less driver time building and
    analysing them, the written rows are the same."""
    from pyspark.sql import functions as F  # noqa: PLC0415 (pyspark is optional)

    from spark_impl.spark_types import to_spark_type  # noqa: PLC0415

    column = F.col(f"`{data_field.name}`")
    if is_cast_needed(data_field, given):
        column = column.cast(to_spark_type(data_field.type))
    if is_check_needed(data_field, given):
        message = f"column '{data_field.name}' is NOT NULL: a row has a null value"
        column = F.when(column.isNull(), F.raise_error(F.lit(message))).otherwise(column)
    return column


def is_taken_as_given(given: Sequence[Any], schema: TableSchema) -> bool:
    """Whether the frame with the Spark fields ``given`` is the table's rows as they are: the
    table's columns in its order needing no cast and no check, and no partition copy to add
    (rule 2 then needs no projection at all)."""
    return (
        not schema.partition_keys
        and len(given) == len(schema.fields)
        and all(
            mine.name == theirs.name
            and not is_cast_needed(mine, theirs)
            and not is_check_needed(mine, theirs)
            for mine, theirs in zip(schema.fields, given, strict=True)
        )
    )


def prepare_frame(df: Any, schema: TableSchema, *, bucket_column: bool = True) -> Any:
    """Rule 2 and the split columns of rule 3, in one projection: table columns (NOT NULL
    checked), the partition copies and (unless ``bucket_column`` is false, for a table
    :func:`is_single_directory` stages without it) the bucket."""
    from pyspark.sql import functions as F  # noqa: PLC0415 (pyspark is optional)

    from spark_impl.jvm_bucket import with_jvm_bucket  # noqa: PLC0415

    given = list(df.schema.fields)
    if not bucket_column and is_single_directory(schema) and is_taken_as_given(given, schema):
        return df
    by_name = {f.name: f for f in given}
    columns = {f.name: table_column(f, by_name.get(f.name)) for f in schema.fields}
    selected = [column.alias(name) for name, column in columns.items()]
    selected += [
        columns[key].alias(f"{PARTITION_COPY_PREFIX}{index}")
        for index, key in enumerate(schema.partition_keys)
    ]
    if schema.core_options.bucket != UNAWARE_BUCKET:
        return with_jvm_bucket(df.select(*selected), schema, BUCKET_DIR_COLUMN)
    if bucket_column:
        selected.append(F.lit(0).alias(BUCKET_DIR_COLUMN))
    return df.select(*selected)


def is_single_directory(schema: TableSchema) -> bool:
    """An unpartitioned bucket-unaware table: every file goes to ``bucket-0``."""
    return not schema.partition_keys and schema.core_options.bucket == UNAWARE_BUCKET


NOT_NULL_FAILURE = re.compile(r"column '(.+?)' is NOT NULL: a row has a null value")
"""The message of rule 2's NOT NULL check, as Spark's error carries it."""


def stage(frame: Any, staging: str, schema: TableSchema) -> None:
    """Rule 3: Spark's Parquet writer, one directory per partition and bucket. A null in a
    NOT NULL column (rule 2) fails it with ``SpecViolation`` naming the column."""
    split_columns = [
        *(f"{PARTITION_COPY_PREFIX}{i}" for i in range(len(schema.partition_keys))),
        BUCKET_DIR_COLUMN,
    ]
    if is_single_directory(schema):
        # One directory: partitionBy would make Spark sort every task's rows by a constant.
        if BUCKET_DIR_COLUMN in frame.columns:
            frame = frame.drop(BUCKET_DIR_COLUMN)
        split_columns, staging = [], f"{staging}/{BUCKET_DIR_COLUMN}=0"
    writer = frame.write.mode("overwrite").options(**parquet_write_options(schema))
    # No shuffle: each task writes its rows into the directories of the partitions and buckets
    # it holds (Spark sorts within the task), as df.write.parquet does.
    try:
        (writer.partitionBy(*split_columns) if split_columns else writer).parquet(staging)
    except Exception as error:
        found = NOT_NULL_FAILURE.search(str(error))
        if found is None:
            raise
        raise SpecViolation(found.group(0), code="NULL_IN_NOT_NULL_COLUMN") from None


def parquet_write_options(schema: TableSchema) -> dict[str, str]:
    """Rule 3: the options of Spark's Parquet writer: the table's codec and its zstd level as
    Java ``ParquetFileFormat.getParquetConfiguration`` (0.9) hands it to parquet-mr: the
    table's ``parquet.compression.codec.zstd.level`` when set, else
    ``file.compression.zstd-level`` (default 1; left to Spark, parquet-mr would use 3)."""
    settings = {"compression": NATIVE_CODECS[schema.core_options.file_compression.lower()]}
    text = schema.options.get(PARQUET_ZSTD_LEVEL_KEY)
    try:
        level = int(schema.core_options.get(ZSTD_LEVEL_KEY) if text is None else text)
    except ValueError:
        raise InvalidOptionError(PARQUET_ZSTD_LEVEL_KEY, text, "must be an integer") from None
    settings[PARQUET_ZSTD_LEVEL_KEY] = str(level)
    return settings


@dataclass(frozen=True)
class StagedFile:
    path: str
    bucket: int


def list_staged(staging: str) -> list[StagedFile]:
    """The Parquet files Spark wrote, with the bucket their directory names."""
    found = []
    for directory, _, names in os.walk(staging):
        parts = dict(
            p.split("=", 1) for p in os.path.relpath(directory, staging).split(os.sep) if "=" in p
        )
        for name in sorted(names):
            if name.endswith(".parquet") and not name.startswith((".", "_")):
                found.append(
                    StagedFile(os.path.join(directory, name), int(parts[BUCKET_DIR_COLUMN]))
                )
    return found


# --------------------------------------------------------------------------------------------
# Rule 4: metadata from the footers
# --------------------------------------------------------------------------------------------


def raw_to_internal(raw: Any, data_type: t.DataType) -> Any:
    """A footer bound pyarrow cannot convert, from its physical value: a DECIMAL's unscaled
    integer (INT32 / INT64, or big-endian two's complement bytes), a TIMESTAMP's microseconds."""
    if isinstance(data_type, t.DecimalType):
        unscaled = int.from_bytes(raw, "big", signed=True) if isinstance(raw, bytes) else raw
        return Decimal(unscaled).scaleb(-data_type.scale)
    if isinstance(data_type, t.TimestampType):
        millis, micros = divmod(int(raw), MICROS_PER_MILLI)
        return Timestamp(millis, micros * NANOS_PER_MICRO)
    raise UnsupportedFeature(f"no statistics conversion for {data_type}")


def bound_value(statistics: Any, which: str, arrow_type: pa.DataType, field: t.DataField) -> Any:
    """One bound (``min`` / ``max``) of a row group as an internal value of the field's type."""
    try:
        value = getattr(statistics, which)
    except pa.ArrowNotImplementedError:
        return raw_to_internal(getattr(statistics, f"{which}_raw"), field.type)
    plain = t.DataField(0, field.name, field.type.copy(True))
    array = pa.array([value], type=arrow_type)
    return arrow_to_rows(pa.table({field.name: array}), [plain])[0][0]


def java_read_bounds(stats: ColumnStats, data_type: t.DataType) -> ColumnStats:
    """A FLOAT / DOUBLE column's footer bounds as Java reads them (parquet-mr's
    ``Statistics`` builder for reading, PARQUET-1222): a NaN bound drops both, a zero min is
    -0.0 and a zero max +0.0 (the Python writer's ``parquet_column_stats`` computes the same;
    Spark's footer holds +0.0 for both)."""
    if data_type.root not in t.FLOATING_ROOTS or stats.min is None or stats.max is None:
        return stats
    low, high = float(stats.min), float(stats.max)
    if math.isnan(low) or math.isnan(high):
        return ColumnStats(None, None, stats.null_count)
    return ColumnStats(-0.0 if low == 0.0 else low, 0.0 if high == 0.0 else high, stats.null_count)


def footer_stats(
    metadata: pq.FileMetaData, column: int, arrow_type: pa.DataType, field: t.DataField
) -> ColumnStats:
    """Min, max and null count of one column over every row group (unknown bounds where a row
    group with values kept none, an unknown null count where one kept no statistics)."""
    low: Any = None
    high: Any = None
    nulls = 0
    for group in range(metadata.num_row_groups):
        statistics = metadata.row_group(group).column(column).statistics
        if statistics is None:
            return ColumnStats(None, None, PARQUET_UNKNOWN_NULL_COUNT)
        nulls += statistics.null_count
        if statistics.has_min_max:
            group_low = bound_value(statistics, "min", arrow_type, field)
            group_high = bound_value(statistics, "max", arrow_type, field)
            low = group_low if low is None else min(low, group_low)
            high = group_high if high is None else max(high, group_high)
        elif statistics.num_values:
            return ColumnStats(None, None, nulls)
    return java_read_bounds(ColumnStats(low, high, nulls), field.type)


def compute_file_stats(metadata: pq.FileMetaData, schema: TableSchema) -> Any:
    """Rule 4: the value statistics of one file, in the table's stats modes."""
    arrow_schema = metadata.schema.to_arrow_schema()
    modes = compute_stats_modes(schema.options, [f.name for f in schema.fields])
    stats = []
    for index, data_field in enumerate(schema.fields):
        arrow_type = arrow_schema.field(index).type
        raw = footer_stats(metadata, index, arrow_type, data_field)
        stats.append(apply_stats_mode(raw, modes[index]))
    return encode_simple_stats(stats, [f.type for f in schema.fields])


def read_partition(path: str, schema: TableSchema) -> tuple[Any, ...]:
    """The partition values of a staged file (every row of it has the same ones)."""
    if not schema.partition_keys:
        return ()
    by_name = {f.name: f for f in schema.fields}
    fields = [by_name[k] for k in schema.partition_keys]
    first_group = pq.ParquetFile(path).read_row_group(0, columns=list(schema.partition_keys))
    table = first_group.slice(0, 1)
    return tuple(arrow_to_rows(table, fields)[0])


Slot = tuple[tuple[Any, ...], int]
"""A (partition values, bucket) pair: where a file goes, and what one commit message covers."""


@dataclass(frozen=True)
class PlacedFile:
    """A staged file renamed into its bucket directory (rule 3) and described (rule 4)."""

    slot: Slot
    meta: DataFileMeta
    path: str


def place_file(
    staged: StagedFile,
    plan: ReadPlan,
    schema: TableSchema,
    partition: tuple[Any, ...],
    *,
    name: str,
    first_sequence: int,
) -> PlacedFile:
    """Rules 3 and 4 for one staged file of ``partition``: its meta (sequence numbers from
    ``first_sequence``), and the file renamed to ``name`` in its bucket."""
    metadata = pq.read_metadata(staged.path)
    directory = compute_bucket_dir(plan.table_root, schema, partition, staged.bucket)
    _, local_directory = split_scheme(directory)
    os.makedirs(local_directory, exist_ok=True)
    target = os.path.join(local_directory, name)
    size = os.path.getsize(staged.path)
    rows = metadata.num_rows
    meta = DataFileMeta(
        name,
        size,
        rows,
        SERIALIZED_EMPTY_ROW,
        SERIALIZED_EMPTY_ROW,
        EMPTY_STATS,
        compute_file_stats(metadata, schema),
        first_sequence,
        first_sequence + rows - 1,
        schema.id,
        APPEND_LEVEL,
        (),
        compute_creation_time(),
        0,
        None,
        FileSource.APPEND,
    )
    os.replace(staged.path, target)
    return PlacedFile((partition, staged.bucket), meta, target)


# --------------------------------------------------------------------------------------------
# Rule 5: commit
# --------------------------------------------------------------------------------------------


def max_sequences(plan: ReadPlan) -> dict[Slot, int]:
    """The largest sequence number of each (partition, bucket) of the base snapshot."""
    found: dict[Slot, int] = {}
    for split in plan.splits:
        slot = (split.partition, split.bucket)
        for ref in split.files:
            found[slot] = max(found.get(slot, -1), ref.max_sequence_number)
    return found


def place_all(
    staged: Sequence[StagedFile], plan: ReadPlan, schema: TableSchema
) -> list[PlacedFile]:
    """Rules 3 and 4 for every staged file; sequence numbers count on per bucket."""
    writer = str(uuid.uuid4())
    unaware = schema.core_options.bucket == UNAWARE_BUCKET
    bases = max_sequences(plan)
    next_sequence: dict[Slot, int] = {}
    placed = []
    for count, file in enumerate(staged):
        name = layout.data_file_name(writer, count, "parquet")
        partition = read_partition(file.path, schema)
        slot = (partition, file.bucket)
        if slot not in next_sequence:
            next_sequence[slot] = 0 if unaware else bases.get(slot, -1) + 1
        first = next_sequence[slot]
        result = place_file(file, plan, schema, partition, name=name, first_sequence=first)
        next_sequence[slot] += result.meta.row_count
        placed.append(result)
    return placed


def to_messages(placed: Sequence[PlacedFile], schema: TableSchema) -> list[CommitMessage]:
    """One commit message per (partition, bucket)."""
    types = [f.type for f in schema.partition_type.fields]
    total = schema.core_options.bucket
    grouped: dict[Slot, list[DataFileMeta]] = {}
    for file in placed:
        grouped.setdefault(file.slot, []).append(file.meta)
    return [
        CommitMessage(
            serialize_binary_row(list(partition), types),
            bucket,
            total,
            DataIncrement(new_files=tuple(metas)),
        )
        for (partition, bucket), metas in grouped.items()
    ]


def write_table(
    df: Any, path: str, mode: str = "append", options: Mapping[str, str] | None = None
) -> CommitOutcome | None:
    """Rules 1-5: ``df`` appended to (or overwriting) the table at ``path``; a table the rules
    refuse is written by the Python writer (:func:`spark_impl.jobs.write_table`; then ``None``
    is returned). The refusal needs only the latest schema; the table is planned after it."""
    settings = dict(options or {})
    root = path.rstrip("/")
    file_io = file_io_for(root, settings)
    latest_schema = read_latest_schema(file_io, root)
    refused = native_input_refusal(df.columns, mode, settings) or native_write_refusal(
        latest_schema, root
    )
    if refused is not None:
        from spark_impl import jobs  # noqa: PLC0415 (pyspark)

        jobs.write_table(df, path, mode, options)
        return None
    return write_natively(df, file_io, root, plan_read(file_io, root), mode)


def write_natively(df: Any, file_io: FileIO, root: str, plan: ReadPlan, mode: str) -> CommitOutcome:
    """Rules 2-5 on a planned table. A fixed-bucket table that is not ``write-only``
    compacts the written buckets after the write, as Java's ``AppendOnlyWriter`` and the
    Python writer do (:func:`spark_impl.after_write.compact_after_write`); a compaction that
    loses a conflict is dropped (the APPEND stands). A failure deletes only the files no
    published snapshot references (:func:`spark_impl.commit.delete_written_files`: a commit
    can raise after its snapshot landed)."""
    schema = plan.schema
    _, local_root = split_scheme(root)
    staging = os.path.join(local_root, f"{STAGING_PREFIX}{uuid.uuid4()}")
    messages: list[CommitMessage] = []
    overwrite = mode == "overwrite"
    try:
        frame = prepare_frame(df, schema, bucket_column=not is_single_directory(schema))
        stage(frame, staging, schema)
        messages = to_messages(place_all(list_staged(staging), plan, schema), schema)
        messages = compact_after_write(file_io, root, messages, overwrite=overwrite)
        outcome = commit_write(
            file_io,
            root,
            messages,
            overwrite=Overwrite({}) if overwrite else None,
            optional_compaction=True,
        )
    except BaseException:
        delete_written_files(file_io, root, schema, messages, since=plan.snapshot_id)
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if outcome.dropped is not None:
        delete_written_files(file_io, root, schema, messages, since=plan.snapshot_id)
    return outcome
