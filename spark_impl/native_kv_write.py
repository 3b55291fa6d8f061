"""Native primary-key writes: deduplication, bucketing and sorting in the JVM, Spark's own
Parquet writer into Paimon's key-value layout, then spark_impl's compaction and commit.

Opt-in: measured on 2 cores it is slower than the Python writer (W1 at 10M rows, one session:
54.2 s against 40.7 s; at 1M 1.32x), because the shuffle of every column and the sort of every
row under the deduplicating window cost the JVM more than the Arrow transfer costs Python; see
docs/native-paths.md, "Primary-key writes". ``spark_impl.write_table`` does not use it.

Usage (every table: one without a primary key goes on to
:func:`spark_impl.native_write.write_table`, a primary-key table rule 1 refuses to the Python
writer, ``spark_impl.jobs.write_table``)::

    from spark_impl.native_kv_write import write_table
    write_table(df, "/warehouse/db.db/t", mode="append")     # or "overwrite"

Rules:

1. A primary-key table is written natively when Java's writer (``MergeTreeWriter`` with the
   ``DeduplicateMergeFunction``) needs no per-row work Spark cannot express: a local root,
   level-0 files in Parquet with a codec Spark and Java share, ``merge-engine = deduplicate``
   without ``sequence.field``, ``changelog-producer = none``, no deletion vectors, no file
   index, no ``rowkind.field``, fixed buckets whose key :mod:`spark_impl.jvm_bucket`
   hashes, a primary key holding every
   partition key (no cross-partition update), full key columns (no thin mode), the column
   types the append rule accepts (:func:`spark_impl.native_write.is_type_writable`) with key
   columns Spark orders as Java's key comparator (integers, DECIMAL, DATE, TIMESTAMP,
   STRING), no ``data-file.path-directory``, and options the Python writer accepts
   (``spark_impl.write.validate_write_options``); the call is a plain append or overwrite
   (:func:`spark_impl.native_write.native_input_refusal`: no write options, no ``_ROW_KIND``
   column, so every row is +I). Any other table or call goes to the Python writer.
2. The rows (table columns cast, NOT NULL checked, partition copies and bucket as
   :func:`spark_impl.native_write.prepare_frame`) get their input position
   (``monotonically_increasing_id`` before the shuffle) and are shuffled by the bucket's
   task key (:mod:`spark_impl.placement`; partitioned tables by partition and bucket, as
   ``spark_impl.jobs.write_table``). Per (partition, bucket, key) only the last row in input
   order stays (Java merges one flush's records of a key with the merge function before it
   writes; deduplicate keeps the latest), by a window ranking the rows within one sort of
   the task's rows by (partition, bucket, key, position descending), which is also the
   order Spark's writer needs: each file holds its keys once, ascending.
3. Physical columns (Java ``KeyValue`` layout,
   :func:`spark_impl.kv_layout.compute_physical_fields`): ``_KEY_<k>`` copies,
   ``_SEQUENCE_NUMBER`` = the base snapshot's largest sequence number of any bucket + 1 +
   the input position (above every sequence number the bucket holds, increasing with input
   order; not contiguous), ``_VALUE_KIND`` = 0 (+I), the values.
4. Spark writes them staged by partition and bucket (:func:`spark_impl.native_write.stage`);
   each file is renamed into its bucket as a level-0 data file named by the level-0 file
   plan (prefix, extension). Its ``DataFileMeta`` comes from the footer: key and value
   statistics in the level's stats modes, min / max sequence number from
   ``_SEQUENCE_NUMBER``'s statistics, min / max key from the first and last row, no
   deletes, FileSource APPEND. A file larger than ``target-file-size`` would have been
   rolled by Java into several level-0 runs: then the staged files are dropped and the
   Python writer (which rolls as Java) writes the input.
5. Unless ``write-only``, each written bucket gets the compaction Java's writer would run
   after its flush (:func:`spark_impl.after_write.compact_after_write` over the base
   snapshot's files), one Spark task per bucket whose picking (done on the driver first)
   finds a unit; the driver commits APPEND (or OVERWRITE)
   and COMPACT (:func:`spark_impl.commit.commit_write`, a compaction that loses a conflict
   is dropped, as the Python writer's). A failed write or commit deletes those of the
   files this write staged, placed or compacted that no published snapshot references
   (:func:`spark_impl.commit.delete_written_files`: a commit can raise after its snapshot
   landed).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pyarrow.parquet as pq

from reference.errors import PaimonKitError
from reference.io import LOCAL_SCHEMES, FileIO, file_io_for, split_scheme
from reference.spec import data_file
from reference.spec import types as t
from reference.spec.column_stats import (
    apply_stats_mode,
    encode_key,
    encode_simple_stats,
)
from reference.spec.commit_message import CommitMessage
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.file_format import arrow_to_rows
from reference.spec.key_value import WRITE_LEVEL
from reference.spec.options import ChangelogProducer, MergeEngine
from reference.spec.schema import TableSchema
from reference.spec.stats import SimpleStats
from spark_impl.after_write import BaseFiles, compact_after_write, read_base_files
from spark_impl.commit import CommitOutcome, Overwrite, commit_write, delete_written_files
from spark_impl.compact import compaction_options, decode_ranges, pick
from spark_impl.file_writer import (
    FileFacts,
    KeyValueLayout,
    MetaContext,
    build_meta,
    compute_creation_time,
)
from spark_impl.kv_layout import FileKindPlan, compute_kv_layout, compute_level_plans
from spark_impl.metadata import find_latest_snapshot_id
from spark_impl.native_write import (
    BUCKET_DIR_COLUMN,
    NATIVE_CODECS,
    PARTITION_COPY_PREFIX,
    STAGING_PREFIX,
    PlacedFile,
    StagedFile,
    footer_stats,
    is_type_writable,
    list_staged,
    native_input_refusal,
    prepare_frame,
    read_partition,
    stage,
    to_messages,
)
from spark_impl.native_write import write_table as write_appended
from spark_impl.plan import compute_bucket_dir

ORDER_COLUMN = "__paimon_order"
TASK_COLUMN = "__paimon_task"
RANK_COLUMN = "__paimon_rank"
KEY_ROOTS = t.INTEGER_ROOTS | {
    t.TypeRoot.DECIMAL,
    t.TypeRoot.DATE,
    t.TypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE,
    t.TypeRoot.VARCHAR,
}
"""Key types whose Spark ascending order is Java's key order (no float NaN / -0.0, no
binary)."""
INSERT_KIND = 0


# --------------------------------------------------------------------------------------------
# Rule 1: which tables
# --------------------------------------------------------------------------------------------


def is_python_writable(schema: TableSchema) -> bool:
    """Whether the Python writer accepts the table's options (else it raises the error)."""
    from spark_impl.write import validate_write_options  # noqa: PLC0415 (heavy, lazily)

    try:
        validate_write_options(schema)
    except PaimonKitError:
        return False
    return True


def native_kv_write_refusal(schema: TableSchema, table_root: str) -> str | None:
    """Rule 1: why the primary-key table is not written natively (``None``: it is)."""
    from spark_impl.jvm_bucket import is_jvm_bucketable  # noqa: PLC0415 (pyspark-free)

    if not schema.primary_keys:
        return "not a primary-key table"
    options = schema.core_options
    data, _ = compute_level_plans(schema, WRITE_LEVEL)
    by_name = {f.name: f for f in schema.fields}
    keys = schema.trimmed_primary_keys
    checks = [
        (split_scheme(table_root)[0] not in LOCAL_SCHEMES, "not a local table"),
        (data.settings.fmt.value != "parquet", "level-0 file.format is not parquet"),
        (data.settings.write_options.compression not in NATIVE_CODECS, "file.compression"),
        (options.merge_engine is not MergeEngine.DEDUPLICATE, "merge-engine"),
        (bool(options.sequence_fields), "sequence.field"),
        (options.changelog_producer is not ChangelogProducer.NONE, "changelog-producer"),
        (options.deletion_vectors_enabled, "deletion vectors"),
        (any(k.startswith("file-index.") for k in schema.options), "file indexes"),
        (options.rowkind_field is not None, "rowkind.field"),
        (options.bucket < 1 or not is_jvm_bucketable(schema), "bucket key"),
        (schema.cross_partition_update, "cross-partition update"),
        (compute_kv_layout(schema).thin, "data-file.thin-mode"),
        (not all(is_type_writable(f.type) for f in schema.fields), "column types"),
        (not all(by_name[k].type.root in KEY_ROOTS for k in keys), "key column types"),
        (options.data_file_path_directory is not None, "data-file.path-directory"),
        (not is_python_writable(schema), "options the Python writer refuses"),
    ]
    return next((reason for refused, reason in checks if refused), None)


# --------------------------------------------------------------------------------------------
# Rules 2 and 3: the rows
# --------------------------------------------------------------------------------------------


def shuffle(frame: Any, schema: TableSchema, parallelism: int) -> Any:
    """Rule 2: the rows of a (partition, bucket) on one task, buckets placed evenly."""
    from pyspark.sql import functions as F  # noqa: PLC0415 (pyspark is optional)

    from spark_impl.placement import task_key_column  # noqa: PLC0415

    copies = [f"{PARTITION_COPY_PREFIX}{i}" for i in range(len(schema.partition_keys))]
    if copies:
        frame = frame.withColumn(TASK_COLUMN, F.lit(0))
        return frame.repartition(parallelism, *copies, BUCKET_DIR_COLUMN)
    count = schema.core_options.bucket
    frame = frame.withColumn(TASK_COLUMN, task_key_column(BUCKET_DIR_COLUMN, count))
    return frame.repartition(count, TASK_COLUMN)


def deduplicate(frame: Any, schema: TableSchema) -> Any:
    """Rule 2: the last row in input order of each (partition, bucket, key); the window's
    sort (partition, bucket, key, ..., position descending) orders each task's rows."""
    from pyspark.sql import Window  # noqa: PLC0415
    from pyspark.sql import functions as F  # noqa: PLC0415

    copies = [f"{PARTITION_COPY_PREFIX}{i}" for i in range(len(schema.partition_keys))]
    keys = [f"`{k}`" for k in schema.trimmed_primary_keys]
    window = Window.partitionBy(*copies, BUCKET_DIR_COLUMN, *keys, TASK_COLUMN).orderBy(
        F.col(ORDER_COLUMN).desc()
    )
    ranked = frame.withColumn(RANK_COLUMN, F.row_number().over(window))
    # The window's own sort already orders the rows so (Spark drops this one as redundant);
    # stated in the logical plan, it tells Spark's writer that its split columns lead the
    # order, so the writer adds no sort of its own.
    order = [*copies, BUCKET_DIR_COLUMN, *keys, TASK_COLUMN, F.col(ORDER_COLUMN).desc()]
    return ranked.where(F.col(RANK_COLUMN) == 1).sortWithinPartitions(*order)


def physical_columns(schema: TableSchema, base_sequence: int) -> list[Any]:
    """Rule 3: ``_KEY_`` copies, sequence number, value kind, values, then the split columns."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    copies = [f"{PARTITION_COPY_PREFIX}{i}" for i in range(len(schema.partition_keys))]
    sequence = (F.lit(base_sequence + 1) + F.col(ORDER_COLUMN)).cast("bigint")
    return [
        *(
            F.col(f"`{k}`").alias(f"{data_file.KEY_FIELD_PREFIX}{k}")
            for k in schema.trimmed_primary_keys
        ),
        sequence.alias(data_file.SEQUENCE_NUMBER_FIELD.name),
        F.lit(INSERT_KIND).cast("tinyint").alias(data_file.VALUE_KIND_FIELD.name),
        *(F.col(f"`{f.name}`") for f in schema.fields),
        *(F.col(c) for c in copies),
        F.col(BUCKET_DIR_COLUMN),
    ]


def compute_key_value_frame(df: Any, schema: TableSchema, base_sequence: int) -> Any:
    """Rules 2 and 3: the frame Spark writes (physical columns and the split columns)."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    prepared = prepare_frame(df, schema).withColumn(ORDER_COLUMN, F.monotonically_increasing_id())
    parallelism = df.sparkSession.sparkContext.defaultParallelism
    unique = deduplicate(shuffle(prepared, schema, parallelism), schema)
    return unique.select(*physical_columns(schema, base_sequence))


# --------------------------------------------------------------------------------------------
# Rule 4: files and metadata
# --------------------------------------------------------------------------------------------


def edge_keys(reader: pq.ParquetFile, kv: KeyValueLayout) -> tuple[bytes, bytes]:
    """The first and the last key of a key-sorted file (two rows kept), encoded."""
    fields = [t.DataField(i, f"k{i}", dt.copy(True)) for i, dt in enumerate(kv.key_types)]
    columns = [f"{data_file.KEY_FIELD_PREFIX}{k}" for k in kv.key_names]
    first = reader.read_row_group(0, columns=columns).slice(0, 1)
    last_table = reader.read_row_group(reader.metadata.num_row_groups - 1, columns=columns)
    last = last_table.slice(last_table.num_rows - 1, 1)
    rows = [
        arrow_to_rows(edge.rename_columns([f.name for f in fields]), fields)[0]
        for edge in (first, last)
    ]
    return encode_key(rows[0], kv.key_types), encode_key(rows[1], kv.key_types)


def footer_file_stats(
    metadata: pq.FileMetaData, plan: FileKindPlan, columns: Sequence[int]
) -> SimpleStats:
    """Rule 4: statistics of the physical ``columns`` from the footer, in the level's modes."""
    arrow_schema = metadata.schema.to_arrow_schema()
    fields = plan.settings.fields
    stats = [
        apply_stats_mode(
            footer_stats(metadata, i, arrow_schema.field(i).type, fields[i]),
            plan.settings.stats_modes[i],
        )
        for i in columns
    ]
    return encode_simple_stats(stats, [fields[i].type for i in columns])


def describe_file(
    path: str, name: str, schema: TableSchema, plan: FileKindPlan, context: MetaContext
) -> DataFileMeta:
    """Rule 4: the ``DataFileMeta`` of one staged key-value file."""
    reader = pq.ParquetFile(path)
    metadata = reader.metadata
    kv = compute_kv_layout(schema)
    sequence = footer_stats(
        metadata,
        kv.sequence_column,
        metadata.schema.to_arrow_schema().field(kv.sequence_column).type,
        plan.settings.fields[kv.sequence_column],
    )
    stats = (
        footer_file_stats(metadata, plan, kv.key_columns),
        footer_file_stats(metadata, plan, range(kv.value_start, len(plan.settings.fields))),
    )
    facts = FileFacts(
        name,
        os.path.getsize(path),
        metadata.num_rows,
        edge_keys(reader, kv),
        stats,
        (int(sequence.min), int(sequence.max)),
        0,
    )
    return build_meta(facts, context)


def place_all(
    staged: Sequence[StagedFile], table_root: str, schema: TableSchema, plan: FileKindPlan
) -> list[PlacedFile]:
    """Rule 4 for every staged file: described, then renamed into its bucket."""
    writer = str(uuid.uuid4())
    context = MetaContext(schema.id, WRITE_LEVEL, FileSource.APPEND, compute_creation_time())
    placed = []
    for count, file in enumerate(staged):
        name = data_file.compute_data_file_name(plan.prefix, writer, count, plan.extension)
        partition = read_partition(file.path, schema)
        meta = describe_file(file.path, name, schema, plan, context)
        directory = compute_bucket_dir(table_root, schema, partition, file.bucket)
        _, local_directory = split_scheme(directory)
        os.makedirs(local_directory, exist_ok=True)
        target = os.path.join(local_directory, name)
        os.replace(file.path, target)
        placed.append(PlacedFile((partition, file.bucket), meta, target))
    return placed


def is_rolled_by_java(staged: Sequence[StagedFile], plan: FileKindPlan) -> bool:
    """Rule 4: whether a staged file is larger than ``target-file-size``."""
    return any(os.path.getsize(f.path) > plan.settings.target_file_size for f in staged)


# --------------------------------------------------------------------------------------------
# Rule 5: compaction and commit
# --------------------------------------------------------------------------------------------


def is_compaction_picked(schema: TableSchema, base: BaseFiles, message: CommitMessage) -> bool:
    """Rule 5: whether the bucket's compaction after the write has a unit (universal picking
    of :func:`spark_impl.compact.pick` over the base and new files, as the task would), so
    that buckets with nothing to do cost no Spark task."""
    options = compaction_options(schema)
    if options.full_rounds:
        return True
    files = [*base.files.get((message.partition, message.bucket), ()), *message.data.new_files]
    key_types = [f.type for f in schema.trimmed_primary_keys_type.fields]
    return pick(files, decode_ranges(files, key_types), options, False) is not None


def compact_in_tasks(
    spark: Any,
    table_root: str,
    settings: Mapping[str, str],
    base: BaseFiles,
    messages: Sequence[CommitMessage],
    *,
    overwrite: bool,
) -> list[CommitMessage]:
    """Rule 5: each message with its bucket's compaction, one Spark task per bucket that
    compacts (each task gets only its bucket's base files)."""
    from spark_impl.jobs import run_tasks  # noqa: PLC0415 (pyspark)

    schema = base.schema
    picked = [m for m in messages if is_compaction_picked(schema, base, m)]
    if not picked:
        return list(messages)

    def items(message: CommitMessage) -> tuple[CommitMessage, BaseFiles]:
        key = (message.partition, message.bucket)
        files = {key: base.files[key]} if key in base.files else {}
        vectors = {key: base.vector_files[key]} if key in base.vector_files else {}
        return message, replace(base, files=files, vector_files=vectors)

    def run(item: tuple[CommitMessage, BaseFiles]) -> list[CommitMessage]:
        message, bucket_base = item
        io = file_io_for(table_root, settings)
        return compact_after_write(io, table_root, [message], overwrite=overwrite, base=bucket_base)

    compacted = run_tasks(spark, [items(m) for m in picked], run)
    return [m for m in messages if m not in picked] + compacted


def commit_files(
    file_io: FileIO, root: str, schema: TableSchema, messages: list[CommitMessage], mode: str
) -> CommitOutcome:
    """Rule 5: commit; a dropped compaction's files are deleted."""
    overwrite = Overwrite({}) if mode == "overwrite" else None
    since = find_latest_snapshot_id(file_io, root)
    outcome = commit_write(file_io, root, messages, overwrite=overwrite, optional_compaction=True)
    if outcome.dropped is not None:
        delete_written_files(file_io, root, schema, messages, since=since)
    return outcome


def write_natively(
    df: Any, root: str, schema: TableSchema, mode: str, settings: Mapping[str, str]
) -> CommitOutcome | None:
    """Rules 2-5 (``None``: rule 4 handed the input to the Python writer)."""
    file_io = file_io_for(root, settings)
    overwrite = mode == "overwrite"
    base_snapshot = find_latest_snapshot_id(file_io, root)
    base = read_base_files(file_io, root, schema, overwrite=overwrite)
    base_sequence = max(
        (f.max_sequence_number for group in base.files.values() for f in group), default=-1
    )
    plan, _ = compute_level_plans(schema, WRITE_LEVEL)
    _, local_root = split_scheme(root)
    staging = os.path.join(local_root, f"{STAGING_PREFIX}{uuid.uuid4()}")
    placed: list[PlacedFile] = []
    messages: list[CommitMessage] = []
    try:
        stage(compute_key_value_frame(df, schema, base_sequence), staging, schema)
        staged = list_staged(staging)
        if is_rolled_by_java(staged, plan):
            return None
        placed = place_all(staged, root, schema, plan)
        messages = to_messages(placed, schema)
        if messages and not schema.core_options.write_only:
            messages = compact_in_tasks(
                df.sparkSession, root, settings, base, messages, overwrite=overwrite
            )
        return commit_files(file_io, root, schema, messages, mode)
    except BaseException:
        written = messages or to_messages(placed, schema)
        delete_written_files(file_io, root, schema, written, since=base_snapshot)
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def write_table(
    df: Any, path: str, mode: str = "append", options: Mapping[str, str] | None = None
) -> CommitOutcome | None:
    """Rules 1-5: ``df`` appended to (or overwriting) the table at ``path``. A table without
    a primary key goes to :func:`spark_impl.native_write.write_table` (its own native route);
    a primary-key table (or input) the rules refuse is written by
    ``spark_impl.jobs.write_table`` (then ``None`` is returned)."""
    from spark_impl.metadata import read_latest_schema  # noqa: PLC0415

    settings = {str(k): str(v) for k, v in (options or {}).items()}
    root = path.rstrip("/")
    schema = read_latest_schema(file_io_for(root, settings), root)
    if not schema.primary_keys:
        return write_appended(df, path, mode, options)
    native = (
        native_input_refusal(df.columns, mode, settings) is None
        and native_kv_write_refusal(schema, root) is None
    )
    outcome = write_natively(df, root, schema, mode, settings) if native else None
    if outcome is None:
        from spark_impl import jobs  # noqa: PLC0415 (pyspark)

        jobs.write_table(df, path, mode, options)
    return outcome
