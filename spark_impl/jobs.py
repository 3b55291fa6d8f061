"""Distributed jobs of spark_impl: prepared writes, compaction, snapshot expiration, streams.

* :func:`write_table` prepares a DataFrame the way Java's writers receive rows (arrival
  position, bucket or dynamic-bucket assigner computed vectorized in ``mapInArrow``, or for
  large inputs with integer bucket keys by Spark expressions (:mod:`spark_impl.jvm_bucket`),
  shuffled by (partition, bucket); an unpartitioned fixed-bucket table gets one task per
  bucket, placed exactly by :mod:`spark_impl.placement`, so tasks are balanced and a task
  holds one bucket)
  and writes it through the ``paimon`` data source: each task orders its buckets' rows by
  arrival position and key itself, writes level-0 files, runs the compaction Java's writer
  would, and the driver commits.
* :func:`compact` plans on the driver which buckets a compaction changes, runs one Spark job
  with a task per bucket (each returns a commit message) and commits them on the driver; an
  append table gets a task per group of small files (:mod:`spark_impl.append_compact`).
* :func:`expire` decides on the driver which snapshots expire, deletes the files only they use
  in one Spark job, then the metadata on the driver (:mod:`spark_impl.expire`).
* ``compact``, ``expire`` and :func:`delete_files` run in this process when ``spark`` is
  ``None``; the procedures of :mod:`spark_impl.procedures` build on them.
* :func:`read_stream` is ``spark.readStream.format("paimon")`` with the ``_ROW_KIND`` column.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa

from reference.io import FileIO, file_io_for
from reference.spec.bucket import BucketMode
from reference.spec.commit_message import CommitMessage
from reference.spec.schema import decode_schema
from reference.spec.snapshot import Snapshot
from spark_impl import commit as committer
from spark_impl import cross_partition
from spark_impl import expire as expiration
from spark_impl.append_compact import (
    FULL_MIN_FILES,
    AppendTask,
    append_options,
    plan_append_tasks,
    run_task_message,
)
from spark_impl.bucketing import compute_row_hash
from spark_impl.compact import BucketJob, compact_bucket, plan_bucket_jobs
from spark_impl.jvm_bucket import is_jvm_bucketable, is_large_input, with_jvm_bucket
from spark_impl.metadata import read_latest_schema, read_latest_snapshot, read_schema_json
from spark_impl.placement import task_key_column
from spark_impl.write import (
    ASSIGNER_COLUMN,
    BUCKET_COLUMN,
    POSITION_COLUMN,
    compute_assigners,
    compute_bucket_mode,
    compute_dynamic_options,
    compute_fixed_buckets,
    compute_trimmed_key_hashes,
    distinct_partitions,
    to_paimon_table,
)

LOG = logging.getLogger(__name__)
_Item = TypeVar("_Item")
_Out = TypeVar("_Out")


def _options(path: str, options: Mapping[str, str] | None) -> dict[str, str]:
    return {**{str(k): str(v) for k, v in (options or {}).items()}, "path": path.rstrip("/")}


# --------------------------------------------------------------------------------------------
# Prepared writes
# --------------------------------------------------------------------------------------------


def _routing_function(schema_json: str, mode: BucketMode) -> Any:
    """The ``mapInArrow`` function adding the bucket (fixed) or assigner (dynamic) column."""

    def route(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:

        schema = decode_schema(schema_json)
        names = schema.bucket_keys if mode is BucketMode.FIXED else schema.trimmed_primary_keys
        fields = [f for f in schema.fields if f.name in {*names, *schema.partition_keys}]
        for batch in batches:
            table = to_paimon_table(
                pa.Table.from_batches([batch]).select([f.name for f in fields]), fields
            )
            if mode is BucketMode.FIXED:
                values = compute_fixed_buckets(table, schema).astype(np.int32)
                column = BUCKET_COLUMN
            else:
                options = compute_dynamic_options(schema)
                partitions, ids = distinct_partitions(table, schema)
                types = [f.type for f in schema.partition_type.fields]
                hashes = np.array([compute_row_hash(p, types) for p in partitions], dtype=np.int64)
                keys = compute_trimmed_key_hashes(table, schema).astype(np.int64)
                values = compute_assigners(hashes[ids], keys, options.assigners).astype(np.int32)
                column = ASSIGNER_COLUMN
            yield pa.RecordBatch.from_arrays(
                [*batch.columns, pa.array(values)], names=[*batch.schema.names, column]
            )

    return route


def write_table(
    df: Any,
    path: str,
    mode: str = "append",
    options: Mapping[str, str] | None = None,
    num_partitions: int | None = None,
) -> None:
    """Write ``df`` (columns named as the table's, optional ``_ROW_KIND``) to the table at
    ``path`` with ``mode`` ``append`` or ``overwrite``."""
    from pyspark.sql import functions as F  # noqa: PLC0415
    from pyspark.sql.types import IntegerType, StructField, StructType  # noqa: PLC0415

    from spark_impl import datasource  # noqa: PLC0415 (pyspark)

    settings = _options(path, options)
    file_io = file_io_for(settings["path"], settings)
    schema = read_latest_schema(file_io, settings["path"])
    bucket_mode = compute_bucket_mode(schema)
    spark = df.sparkSession
    prepared = df.withColumn(POSITION_COLUMN, F.monotonically_increasing_id())
    if bucket_mode is BucketMode.CROSS_PARTITION:
        schema_json = read_schema_json(file_io, settings["path"], schema.id)
        parallelism = num_partitions or spark.sparkContext.defaultParallelism
        prepared = cross_partition.prepare_input(prepared, schema_json, parallelism)
    elif bucket_mode is not BucketMode.UNAWARE:
        column = BUCKET_COLUMN if bucket_mode is BucketMode.FIXED else ASSIGNER_COLUMN
        if bucket_mode is BucketMode.FIXED and is_jvm_bucketable(schema) and is_large_input(df):
            prepared = with_jvm_bucket(prepared, schema, column)
        else:
            schema_json = read_schema_json(file_io, settings["path"], schema.id)
            fields = [*prepared.schema.fields, StructField(column, IntegerType(), False)]
            routing = _routing_function(schema_json, bucket_mode)
            prepared = prepared.mapInArrow(routing, StructType(fields))
        # Each task sorts its buckets itself (vectorized, by key and arrival position), so a
        # Spark sort within the partitions would only add work (3-4 s per million rows here).
        if bucket_mode is BucketMode.FIXED and not schema.partition_keys:
            count = num_partitions or schema.core_options.bucket
            prepared = prepared.repartition(count, task_key_column(BUCKET_COLUMN, count))
        else:
            count = num_partitions or spark.sparkContext.defaultParallelism
            prepared = prepared.repartition(count, *schema.partition_keys, column)
    writer = prepared.write.format(datasource.FORMAT_NAME).mode(mode)
    for key, value in settings.items():
        if key != "path":
            writer = writer.option(key, value)
    writer.save(settings["path"])


def read_stream(spark: Any, path: str, options: Mapping[str, str] | None = None) -> Any:
    """A streaming DataFrame of the table's changes (see :mod:`spark_impl.stream`)."""
    from spark_impl import datasource  # noqa: PLC0415 (pyspark)

    reader = spark.readStream.format(datasource.FORMAT_NAME).option("read.row-kind", "true")
    for key, value in (options or {}).items():
        reader = reader.option(key, value)
    return reader.load(path.rstrip("/"))


# --------------------------------------------------------------------------------------------
# Compaction
# --------------------------------------------------------------------------------------------


def run_tasks(
    spark: Any, items: Sequence[_Item], task: Callable[[_Item], list[_Out]]
) -> list[_Out]:
    """``task`` on each item, as a Spark job with a task per item, or in this process when
    ``spark`` is ``None`` (the ``paimon-kit`` command's procedures)."""
    if spark is None:
        return [out for item in items for out in task(item)]
    rdd = spark.sparkContext.parallelize(list(items), max(len(items), 1))
    return list(rdd.flatMap(task).collect())


def compact(
    spark: Any, path: str, full: bool = False, options: Mapping[str, str] | None = None
) -> list[Snapshot]:
    """Compact every bucket that needs it (``full``: into the top level) as one Spark job
    (``spark`` ``None``: in this process); returns the snapshots committed. An empty list
    means no bucket needed it: :func:`explain_no_compaction` says why (logged at INFO), and
    :func:`spark_impl.procedures.compact` returns it with the result."""
    settings = _options(path, options)
    root = settings["path"]
    file_io = file_io_for(root, settings)
    if not read_latest_schema(file_io, root).is_primary_key_table:
        return compact_append(spark, root, settings, full=full)
    jobs = plan_bucket_jobs(file_io, root, full=full)
    if not jobs:
        LOG.info("compaction of %s: %s", root, explain_no_compaction(file_io, root, full=full))
        return []

    def run(job: BucketJob) -> list[Any]:
        message = compact_bucket(file_io_for(job.table_root, settings), job)
        return [] if message is None else [message]

    messages = run_tasks(spark, jobs, run)
    return committer.commit(file_io_for(root, settings), root, messages)


def compact_append(
    spark: Any, root: str, settings: Mapping[str, str], *, full: bool
) -> list[Snapshot]:
    """:func:`compact` for an append table: one Spark task per compaction task."""
    file_io = file_io_for(root, settings)
    tasks = plan_append_tasks(file_io, root, full=full)
    if not tasks:
        LOG.info("compaction of %s: %s", root, explain_no_compaction(file_io, root, full=full))
        return []

    def run(task: AppendTask) -> list[CommitMessage]:
        return [run_task_message(file_io_for(task.table_root, settings), task)]

    messages = run_tasks(spark, tasks, run)
    return committer.commit(file_io_for(root, settings), root, messages)


def explain_no_compaction(file_io: FileIO, root: str, *, full: bool) -> str:
    """Why a compaction planned no task (Java's compaction managers decide the same way:
    ``MergeTreeCompactManager`` / ``UniversalCompaction``, ``AppendOnlyTableCompactionCoordinator``
    for bucket-unaware append tables, ``BucketedAppendCompactManager`` for fixed buckets)."""
    schema = read_latest_schema(file_io, root)
    if read_latest_snapshot(file_io, root) is None:
        return "the table has no snapshot"
    if schema.is_primary_key_table:
        if full:
            return "every bucket is already one sorted run at the top level (or empty)"
        trigger = schema.core_options.get("num-sorted-run.compaction-trigger")
        return f"no bucket reached num-sorted-run.compaction-trigger ({trigger} sorted runs)"
    options = append_options(schema)
    if options.unaware:
        return (
            "bucket-unaware append table: a compaction rewrites a group of files smaller than "
            f"{options.small} bytes once it holds target-file-size ({options.target} bytes) in "
            f"at least compaction.min.file-num ({options.min_files}) files, or "
            f"compaction.max.file-num ({options.max_files}) files; no partition has one "
            "(full compaction does not apply to bucket -1)"
        )
    if full:
        return (
            f"no bucket has {FULL_MIN_FILES} or more files below target-file-size "
            f"({options.target} bytes) to merge"
        )
    return (
        f"no bucket has compaction.min.file-num ({options.min_files}) files within "
        f"target-file-size ({options.target} bytes)"
    )


# --------------------------------------------------------------------------------------------
# Expiration
# --------------------------------------------------------------------------------------------


def delete_files(
    spark: Any, root: str, paths: Sequence[str], options: Mapping[str, str] | None = None
) -> int:
    """Delete ``paths`` (missing ones quietly) as a Spark job, or in this process when
    ``spark`` is ``None``; returns how many were deleted."""
    settings = _options(root, options)
    if not paths:
        return 0
    if spark is None:
        io = file_io_for(root, settings)
        return sum(expiration.delete_quietly(io, p) for p in paths)
    count = min(len(paths), spark.sparkContext.defaultParallelism * 4)

    def delete(chunk: Iterator[str]) -> Iterator[int]:
        io = file_io_for(root, settings)
        yield sum(expiration.delete_quietly(io, p) for p in chunk)

    return int(
        sum(spark.sparkContext.parallelize(list(paths), count).mapPartitions(delete).collect())
    )


def expire_plan(
    spark: Any,
    path: str,
    limits: expiration.ExpireLimits,
    options: Mapping[str, str] | None = None,
) -> expiration.ExpirationPlan | None:
    """:func:`expire` within ``limits``, returning the plan it carried out (``None``: nothing
    expired)."""
    settings = _options(path, options)
    root = settings["path"]
    file_io = file_io_for(root, settings)
    plan = expiration.plan_expiration(file_io, root, limits)
    if plan is None:
        return None
    delete_files(spark, root, plan.data_paths, options)
    expiration.finish_expiration(file_io, root, plan)
    return plan


def expire(
    spark: Any,
    path: str,
    *,
    options: Mapping[str, str] | None = None,
    retain_max: int | None = None,
    retain_min: int | None = None,
    time_retained_millis: int | None = None,
    max_deletes: int | None = None,
    now_millis: int | None = None,
) -> list[int]:
    """Expire snapshots (limits default to the table's ``snapshot.*`` options); the data files
    are deleted by a Spark job (``spark`` ``None``: in this process). Returns the expired
    snapshot ids."""
    limits = expiration.ExpireLimits(
        retain_max, retain_min, time_retained_millis, max_deletes, now_millis
    )
    plan = expire_plan(spark, path, limits, options)
    return [] if plan is None else list(plan.snapshot_ids)
