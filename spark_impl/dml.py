"""Row-level changes as Spark jobs: ``delete(condition)``, ``update(condition, set)`` and
``merge(source, on, when...)``.

The rules are ``reference/store/dml.py`` (Java 0.9's ``DeleteFromPaimonTableCommand``,
``UpdatePaimonTableCommand``, ``PaimonSparkWriter.persistDeletionVectors``); this is an
independent implementation in which Spark evaluates the condition and the SET expressions
(a SQL string or a ``Column``)::

    from spark_impl import dml
    dml.delete(spark, "/warehouse/db.db/t", "v < 0")
    dml.update(spark, "/warehouse/db.db/t", "k = 3", {"v": "v + 1"})

* ``delete`` without a condition: one OVERWRITE snapshot deleting every data and index file.
  A condition that references partition keys only (Spark's analyzer lists what it references)
  drops the partitions whose values match it: one OVERWRITE snapshot, none when nothing matches.
* Otherwise the visible rows of the latest snapshot form a DataFrame, one Spark partition per
  data file, each row carrying its file (number) and position.
* Append tables with ``deletion-vectors.enabled``: the positions of the rows the command
  changes (collected to the driver) join their files' deletion vectors; the rows UPDATE makes
  are written by spark_impl's write task (no compaction). One commit: APPEND for the new files,
  COMPACT for the index files.
* Append tables without: a file holding a changed row is rewritten: its rows, in file order,
  deleted ones left out and updated ones replaced in place, go through one write task in file
  order (bucket assignment, sequence numbers after the bucket's) and the file is deleted: one
  APPEND snapshot.
* Primary-key tables: the matching rows are written as ``-D`` (deduplicate engine only) or,
  with the SET expressions applied, as ``+U`` by :func:`spark_impl.jobs.write_table` (with the
  compaction Java's writer makes). A primary-key column cannot be assigned.
* ``merge`` joins the target's visible rows (``target.*``) with the source DataFrame
  (``source.*``) in a full outer join: a target row matching several source rows fails when a
  matched action exists; a matched pair takes the first matched action whose condition holds,
  an unmatched target row the first not-matched-by-source action, an unmatched source row the
  first not-matched action (insert). Copy-on-write rewrites the files holding a matched target
  row (when matched actions exist) or an unmatched one (when not-matched-by-source actions
  exist); inserts are written after the rewritten rows, in source order.
* A command that changes nothing commits nothing.
"""

from __future__ import annotations

import itertools
import pickle
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from reference import layout
from reference.errors import SpecViolation, UnsupportedFeature
from reference.io import FileIO, file_io_for
from reference.spec import data_file
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.commit_message import CommitMessage, DataIncrement
from reference.spec.data_file import DataFileMeta
from reference.spec.file_format import rows_to_arrow
from reference.spec.manifest import IndexFileMeta
from reference.spec.options import MergeEngine
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import Snapshot
from spark_impl import commit as committer
from spark_impl.append_compact import (
    UNAWARE_BUCKET_OPTION,
    change_vectors,
    read_buckets,
    write_vector_file,
)
from spark_impl.compact import read_vectors
from spark_impl.metadata import (
    read_latest_schema,
    read_latest_snapshot,
    read_schema_json,
    read_snapshot,
)
from spark_impl.plan import DeletionFileRef, compute_bucket_dir
from spark_impl.read import apply_deletions, read_deleted_positions
from spark_impl.read_files import evolve_columns, read_data_file
from spark_impl.spark_types import to_spark_arrow_schema, to_spark_batch, to_spark_schema
from spark_impl.stream import ROW_KIND_COLUMN
from spark_impl.write import plan_write, write_task

FILE_COLUMN = "_PAIMON_FILE_NUMBER"
POSITION_COLUMN = "_PAIMON_ROW_POSITION"
MESSAGES_COLUMN = "_PAIMON_MESSAGES"
PARTITION_NUMBER_COLUMN = "_PAIMON_PARTITION_NUMBER"

# --------------------------------------------------------------------------------------------
# Conditions
# --------------------------------------------------------------------------------------------


def to_column(expression: Any) -> Any:
    """A SQL string as a Spark ``Column``; a ``Column`` as it is."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    return F.expr(expression) if isinstance(expression, str) else expression


def is_true(condition: Any) -> Any:
    """``condition`` with NULL as false (SQL's WHERE)."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    return F.coalesce(condition, F.lit(False))


def referenced_columns(frame: Any, condition: Any) -> set[str]:
    """The columns ``condition`` references, as Spark's analyzer resolves them on ``frame``."""
    plan = frame.where(condition)._jdf.queryExecution().analyzed()
    references = plan.condition().references().toSeq()
    return {str(references.apply(i).name()) for i in range(references.size())}


# --------------------------------------------------------------------------------------------
# The table's live files (driver)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LiveFile:
    """A live data file of the latest snapshot and where its deletion vector is."""

    partition: tuple[Any, ...]
    partition_bytes: bytes
    bucket: int
    total_buckets: int
    directory: str
    meta: DataFileMeta
    deletion: DeletionFileRef | None


@dataclass(frozen=True)
class TableState:
    """The latest snapshot of a table as a command sees it."""

    root: str
    schema: TableSchema
    schema_json: str
    file_schema_jsons: Mapping[int, str]
    snapshot: Snapshot | None
    files: tuple[LiveFile, ...]
    vector_files: Mapping[tuple[bytes, int], tuple[IndexFileMeta, ...]]


def compute_deletion_refs(
    root: str, vector_files: Mapping[tuple[bytes, int], Sequence[IndexFileMeta]]
) -> dict[str, DeletionFileRef]:
    """Data file name -> the byte range of its deletion vector."""
    refs: dict[str, DeletionFileRef] = {}
    for index_files in vector_files.values():
        for index_file in index_files:
            path = index_file.external_path or layout.index_file_path(root, index_file.file_name)
            for dv in index_file.dv_ranges or ():
                refs[dv.data_file_name] = DeletionFileRef(path, dv.offset, dv.length)
    return refs


def read_state(file_io: FileIO, root: str) -> TableState:
    """The latest schema and snapshot, its live files bucket by bucket (snapshot order) and
    their deletion vectors (``append_compact.read_buckets``)."""
    schema = read_latest_schema(file_io, root)
    snapshot = read_latest_snapshot(file_io, root)
    grouped, total_buckets, vector_files = read_buckets(file_io, root, snapshot)
    refs = compute_deletion_refs(root, vector_files)
    partition_types = [f.type for f in schema.partition_type.fields]
    files = []
    for (partition_bytes, bucket), metas in grouped.items():
        partition = tuple(deserialize_binary_row(partition_bytes, partition_types))
        directory = compute_bucket_dir(root, schema, partition, bucket)
        total = total_buckets[partition_bytes, bucket]
        files += [
            LiveFile(
                partition, partition_bytes, bucket, total, directory, meta, refs.get(meta.file_name)
            )
            for meta in metas
        ]
    schema_ids = {f.meta.schema_id for f in files} | {schema.id}
    jsons = {i: read_schema_json(file_io, root, i) for i in schema_ids}
    return TableState(
        root,
        schema,
        jsons[schema.id],
        jsons,
        snapshot,
        tuple(files),
        {k: tuple(v) for k, v in vector_files.items()},
    )


# --------------------------------------------------------------------------------------------
# Visible rows with their file and position (executors)
# --------------------------------------------------------------------------------------------


def read_visible_file(file_io: FileIO, state: TableState, number: int) -> pa.Table:
    """The rows of live file ``number`` its vector keeps, in the current schema, with the
    file number and each row's position."""
    live = state.files[number]
    file_fields = decode_schema(state.file_schema_jsons[live.meta.schema_id]).fields
    path = layout.data_file_path(live.directory, live.meta.file_name, live.meta.external_path)
    raw = read_data_file(file_io, path, file_fields)
    raw = raw.append_column(POSITION_COLUMN, pa.array(np.arange(raw.num_rows, dtype=np.int64)))
    if live.deletion is not None:
        raw = apply_deletions(raw, read_deleted_positions(file_io, live.deletion, {}))
    columns = evolve_columns(raw, file_fields, state.schema.fields)
    numbers = pa.array(np.full(raw.num_rows, number, dtype=np.int32))
    names = [f.name for f in state.schema.fields]
    return pa.Table.from_arrays(
        [*columns, numbers, raw.column(POSITION_COLUMN).combine_chunks()],
        names=[*names, FILE_COLUMN, POSITION_COLUMN],
    )


def visible_rows_frame(spark: Any, state: TableState, storage: Mapping[str, str]) -> Any:
    """Every visible row of the latest snapshot with ``FILE_COLUMN`` and ``POSITION_COLUMN``;
    one Spark partition per file."""
    from pyspark.sql.types import IntegerType, LongType, StructField, StructType  # noqa: PLC0415

    schema = StructType(
        [
            *to_spark_schema(state.schema.fields).fields,
            StructField(FILE_COLUMN, IntegerType(), False),
            StructField(POSITION_COLUMN, LongType(), False),
        ]
    )
    arrow_schema = to_spark_arrow_schema(schema)

    def read(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        file_io = file_io_for(state.root, dict(storage))
        for batch in batches:
            for number in batch.column(0).to_pylist():
                table = read_visible_file(file_io, state, number)
                yield from to_spark_batch(table, arrow_schema).to_batches()

    count = max(1, len(state.files))
    numbers = spark.createDataFrame([(i,) for i in range(len(state.files))], "n int")
    return numbers.repartition(count).mapInArrow(read, schema)


# --------------------------------------------------------------------------------------------
# Writing rows through spark_impl's write task (no compaction)
# --------------------------------------------------------------------------------------------


def write_rows(
    rows: Any, file_io: FileIO, root: str, storage: Mapping[str, str]
) -> list[CommitMessage]:
    """``rows`` (the table's columns, in the order to write them) written by one write task
    against the latest snapshot; the commit messages, not committed."""
    from pyspark.sql.types import BinaryType, StructField, StructType  # noqa: PLC0415

    plan = plan_write(file_io, root, dict(storage), overwrite=False)

    def write(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        received = [b for b in batches if b.num_rows]
        if not received:
            return
        table = pa.Table.from_batches(received)
        messages = write_task(file_io_for(root, dict(storage)), plan, table)
        yield pa.record_batch([pa.array([pickle.dumps(messages)], pa.binary())], [MESSAGES_COLUMN])

    output = StructType([StructField(MESSAGES_COLUMN, BinaryType(), False)])
    found = rows.coalesce(1).mapInArrow(write, output).collect()
    return [m for row in found for m in pickle.loads(row[MESSAGES_COLUMN])]


# --------------------------------------------------------------------------------------------
# Append tables
# --------------------------------------------------------------------------------------------


def collect_positions(changed: Any) -> dict[int, np.ndarray]:
    """File number -> positions of the changed rows (collected to the driver)."""
    table = changed.select(FILE_COLUMN, POSITION_COLUMN).toArrow()
    numbers = table.column(FILE_COLUMN).to_numpy()
    positions = table.column(POSITION_COLUMN).to_numpy()
    return {int(n): np.sort(positions[numbers == n]) for n in np.unique(numbers)}


def vector_messages(
    file_io: FileIO, state: TableState, changed: Mapping[int, np.ndarray]
) -> list[CommitMessage]:
    """Each changed bucket's index files after its files' vectors grew by ``changed``."""
    core = state.schema.core_options
    unaware = core.bucket == UNAWARE_BUCKET_OPTION
    bitmap64 = bool(core.get("deletion-vectors.bitmap64"))
    writer_uuid = str(uuid.uuid4())
    counter = itertools.count()

    def write(vectors: Mapping[str, np.ndarray]) -> IndexFileMeta:
        name = data_file.compute_meta_file_name(
            data_file.MetaFileKind.INDEX, writer_uuid, next(counter)
        )
        return write_vector_file(file_io, state.root, name, vectors, bitmap64)

    by_bucket: dict[tuple[bytes, int], dict[str, np.ndarray]] = {}
    totals: dict[tuple[bytes, int], int] = {}
    for number, positions in changed.items():
        live = state.files[number]
        key = (live.partition_bytes, live.bucket)
        by_bucket.setdefault(key, {})[live.meta.file_name] = positions
        totals[key] = live.total_buckets
    messages = []
    for key, grown in by_bucket.items():
        index_files = state.vector_files.get(key, ())
        vectors = read_vectors(file_io, state.root, index_files)
        new = {n: np.union1d(vectors.get(n, np.zeros(0, np.int64)), p) for n, p in grown.items()}
        index = change_vectors(write, unaware, index_files, vectors, new)
        messages.append(CommitMessage(key[0], key[1], totals[key], index=index))
    return messages


def deleted_file_messages(state: TableState, numbers: Sequence[int]) -> list[CommitMessage]:
    grouped: dict[tuple[bytes, int, int], list[DataFileMeta]] = {}
    for number in numbers:
        live = state.files[number]
        key = (live.partition_bytes, live.bucket, live.total_buckets)
        grouped.setdefault(key, []).append(live.meta)
    return [
        CommitMessage(partition, bucket, total, DataIncrement(deleted_files=tuple(metas)))
        for (partition, bucket, total), metas in grouped.items()
    ]


def change_append_table(
    frame: Any,
    condition: Any,
    assignments: Mapping[str, Any] | None,
    *,
    file_io: FileIO,
    state: TableState,
    storage: Mapping[str, str],
) -> list[Snapshot]:
    """DELETE (``assignments`` None) or UPDATE of an append table, then the commit."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    frame = frame.cache()
    matched = collect_positions(frame.where(is_true(condition)))
    if not matched:
        frame.unpersist()
        return []
    names = [f.name for f in state.schema.fields]
    new_values = [
        F.when(is_true(condition), to_column(assignments[n])).otherwise(F.col(n)).alias(n)
        if assignments is not None and n in assignments
        else F.col(n)
        for n in names
    ]
    ordered = [F.col(FILE_COLUMN), F.col(POSITION_COLUMN)]
    if state.schema.core_options.deletion_vectors_enabled:
        messages = vector_messages(file_io, state, matched)
        if assignments is not None:
            updated = frame.where(is_true(condition)).orderBy(*ordered).select(*new_values)
            messages = write_rows(updated, file_io, state.root, storage) + messages
    else:
        touched = sorted(matched)
        kept = frame.where(F.col(FILE_COLUMN).isin(touched))
        if assignments is None:
            kept = kept.where(~is_true(condition))
        rewritten = kept.orderBy(*ordered).select(*new_values)
        messages = write_rows(rewritten, file_io, state.root, storage)
        messages += deleted_file_messages(state, touched)
    frame.unpersist()
    return committer.commit(file_io, state.root, messages)


# --------------------------------------------------------------------------------------------
# Primary-key tables and partition drops
# --------------------------------------------------------------------------------------------


def write_primary_key_changes(
    file_io: FileIO, root: str, rows: Any, kind: str | None, storage: Mapping[str, str]
) -> list[Snapshot]:
    """``rows`` written with row kind ``kind`` (None: their ``_ROW_KIND`` column) by
    :func:`spark_impl.jobs.write_table`; the snapshots it committed."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    from spark_impl.jobs import write_table  # noqa: PLC0415

    before = read_latest_snapshot(file_io, root)
    if kind is not None:
        rows = rows.withColumn(ROW_KIND_COLUMN, F.lit(kind))
    write_table(rows, root, "append", storage)
    after = read_latest_snapshot(file_io, root)
    first = 1 if before is None else before.id + 1
    last = 0 if after is None else after.id
    return [read_snapshot(file_io, root, i) for i in range(first, last + 1)]


def matching_partitions(spark: Any, state: TableState, condition: Any) -> frozenset[bytes]:
    """The partitions of live files whose values satisfy ``condition`` (Spark evaluates it)."""
    distinct = list(dict.fromkeys((f.partition_bytes, f.partition) for f in state.files))
    if not distinct:
        return frozenset()
    fields = list(state.schema.partition_type.fields)
    values = rows_to_arrow([p for _, p in distinct], fields)
    values = values.append_column(
        PARTITION_NUMBER_COLUMN, pa.array(np.arange(len(distinct), dtype=np.int32))
    )
    spark_schema = to_spark_schema(fields)
    from pyspark.sql.types import IntegerType, StructField, StructType  # noqa: PLC0415

    full = StructType([*spark_schema.fields, StructField(PARTITION_NUMBER_COLUMN, IntegerType())])
    frame = spark.createDataFrame(to_spark_batch(values, to_spark_arrow_schema(full)))
    hits = frame.where(is_true(condition)).select(PARTITION_NUMBER_COLUMN).collect()
    return frozenset(distinct[row[0]][0] for row in hits)


def drop_partitions(
    spark: Any, file_io: FileIO, state: TableState, condition: Any
) -> list[Snapshot]:
    partitions = matching_partitions(spark, state, condition)
    if not partitions:
        return []
    return committer.commit(
        file_io,
        state.root,
        [],
        overwrite={},
        dynamic_overwrite=False,
        overwrite_partitions=partitions,
    )


# --------------------------------------------------------------------------------------------
# The commands
# --------------------------------------------------------------------------------------------


def delete(
    spark: Any, path: str, condition: Any = None, options: Mapping[str, str] | None = None
) -> list[Snapshot]:
    """``DELETE FROM table [WHERE condition]``; the snapshots committed."""
    storage = dict(options or {})
    root = path.rstrip("/")
    file_io = file_io_for(root, storage)
    state = read_state(file_io, root)
    if condition is None:
        return committer.commit(file_io, root, [], overwrite={}, dynamic_overwrite=False)
    condition = to_column(condition)
    frame = visible_rows_frame(spark, state, storage)
    keys = set(state.schema.partition_keys)
    forced = bool(state.schema.core_options.get("delete.force-produce-changelog"))
    if keys and not forced and referenced_columns(frame, condition) <= keys:
        return drop_partitions(spark, file_io, state, condition)
    if state.schema.is_primary_key_table:
        if state.schema.core_options.merge_engine is not MergeEngine.DEDUPLICATE:
            raise UnsupportedFeature("DELETE on a primary-key table needs the deduplicate engine")
        current = spark.read.format("paimon").options(**storage).load(root)
        return write_primary_key_changes(
            file_io, root, current.where(is_true(condition)), "-D", storage
        )
    return change_append_table(
        frame, condition, None, file_io=file_io, state=state, storage=storage
    )


def update(
    spark: Any,
    path: str,
    condition: Any,
    assignments: Mapping[str, Any],
    options: Mapping[str, str] | None = None,
) -> list[Snapshot]:
    """``UPDATE table SET column = expression, ... [WHERE condition]`` (``condition`` None:
    every row); the snapshots committed."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    storage = dict(options or {})
    root = path.rstrip("/")
    file_io = file_io_for(root, storage)
    state = read_state(file_io, root)
    unknown = sorted(set(assignments) - set(state.schema.field_names))
    if unknown:
        raise SpecViolation(f"UPDATE assigns unknown columns {unknown}", code="DML_UNKNOWN_COLUMN")
    condition = F.lit(True) if condition is None else to_column(condition)
    if state.schema.is_primary_key_table:
        keys = sorted(set(assignments) & set(state.schema.primary_keys))
        if keys:
            raise SpecViolation(
                f"UPDATE cannot assign primary-key columns {keys}", code="DML_UPDATE_KEY"
            )
        current = spark.read.format("paimon").options(**storage).load(root)
        updated = current.where(is_true(condition)).select(
            *[
                to_column(assignments[f.name]).alias(f.name)
                if f.name in assignments
                else F.col(f.name)
                for f in state.schema.fields
            ]
        )
        return write_primary_key_changes(file_io, root, updated, "+U", storage)
    frame = visible_rows_frame(spark, state, storage)
    return change_append_table(
        frame, condition, assignments, file_io=file_io, state=state, storage=storage
    )


# --------------------------------------------------------------------------------------------
# MERGE INTO
# --------------------------------------------------------------------------------------------

SOURCE_ID_COLUMN = "_PAIMON_SOURCE_ID"
TARGET_ID_COLUMN = "_PAIMON_TARGET_ID"
CHANGE_COLUMN = "_PAIMON_CHANGE"
HAS_TARGET_COLUMN = "_PAIMON_HAS_TARGET"
HAS_SOURCE_COLUMN = "_PAIMON_HAS_SOURCE"
UPDATE, DELETE, INSERT = "update", "delete", "insert"


@dataclass(frozen=True)
class WhenMatched:
    """``WHEN MATCHED [AND condition] THEN UPDATE SET ...`` (``update``: column -> expression
    over ``target.*`` and ``source.*``; unassigned columns keep the target's value) or, with
    ``update`` None, ``THEN DELETE``."""

    condition: Any = None
    update: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class WhenNotMatched:
    """``WHEN NOT MATCHED [AND condition] THEN INSERT`` (``values``: column -> expression over
    ``source.*``; a column not given is null)."""

    values: Mapping[str, Any]
    condition: Any = None


@dataclass(frozen=True)
class WhenNotMatchedBySource:
    """``WHEN NOT MATCHED BY SOURCE [AND condition] THEN UPDATE SET ...`` (over ``target.*``)
    or, with ``update`` None, ``THEN DELETE``."""

    condition: Any = None
    update: Mapping[str, Any] | None = None


def first_action(conditions: Sequence[Any], applies: Any) -> Any:
    """The number of the first action whose condition holds where ``applies``, else null."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    chosen = F.lit(None).cast("int")
    for number in reversed(range(len(conditions))):
        condition = conditions[number]
        holds = F.lit(True) if condition is None else is_true(to_column(condition))
        chosen = F.when(holds, F.lit(number)).otherwise(chosen)
    return F.when(applies, chosen)


def merged_column(
    name: str, actions: Sequence[tuple[Any, Mapping[str, Any] | None]], default: Any
) -> Any:
    """Column ``name`` after the action taken: the assigned expression of an updating action,
    else ``default``."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    value = default
    for chosen, assigned in actions:
        if assigned is not None and name in assigned:
            value = F.when(chosen, to_column(assigned[name])).otherwise(value)
    return value


def check_single_match(matched_pairs: Any) -> None:
    """MERGE INTO's rule: a target row matches at most one source row (else the update would
    be ambiguous; Java ``MergeIntoPaimonTable`` checks the same)."""
    twice = matched_pairs.groupBy(f"target.{TARGET_ID_COLUMN}").count().where("count > 1")
    if twice.limit(1).count():
        raise SpecViolation(
            "a target row matches more than one source row; MERGE INTO needs at most one",
            code="MERGE_CONFLICT",
        )


def compute_merge_frame(
    target: Any,
    source: Any,
    on: Any,
    names: Sequence[str],
    clauses: tuple[
        Sequence[WhenMatched], Sequence[WhenNotMatched], Sequence[WhenNotMatchedBySource]
    ],
) -> Any:
    """Every target and source row after the full outer join with its change (``update``,
    ``delete``, ``insert`` or null) and the row it becomes; matched target rows once each."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    matched, not_matched, by_source = clauses
    source = source.withColumn(SOURCE_ID_COLUMN, F.monotonically_increasing_id())
    joined = target.alias("target").join(source.alias("source"), to_column(on), "full_outer")
    has_target = F.col(f"target.{TARGET_ID_COLUMN}").isNotNull()
    has_source = F.col(f"source.{SOURCE_ID_COLUMN}").isNotNull()
    if matched:
        check_single_match(joined.where(has_target & has_source))
    m = first_action([a.condition for a in matched], has_target & has_source)
    b = first_action([a.condition for a in by_source], has_target & ~has_source)
    n = first_action([a.condition for a in not_matched], ~has_target & has_source)
    updating = [(m == i, a.update) for i, a in enumerate(matched)]
    updating += [(b == i, a.update) for i, a in enumerate(by_source)]
    change = F.lit(None).cast("string")
    kinds = [(m == i, a.update) for i, a in enumerate(matched)]
    kinds += [(b == i, a.update) for i, a in enumerate(by_source)]
    for chosen, assigned in kinds:
        change = F.when(chosen, F.lit(DELETE if assigned is None else UPDATE)).otherwise(change)
    change = F.when(n.isNotNull(), F.lit(INSERT)).otherwise(change)
    columns = []
    for name in names:
        kept = merged_column(name, updating, F.col(f"target.{name}"))
        inserted = merged_column(
            name, [(n == i, a.values) for i, a in enumerate(not_matched)], F.lit(None)
        )
        columns.append(F.when(n.isNotNull(), inserted).otherwise(kept).alias(name))
    extra = [c for c in target.columns if c not in names]
    result = joined.select(
        *columns,
        *[F.col(f"target.{c}").alias(c) for c in extra],
        F.col(f"source.{SOURCE_ID_COLUMN}").alias(SOURCE_ID_COLUMN),
        change.alias(CHANGE_COLUMN),
        has_target.alias(HAS_TARGET_COLUMN),
        has_source.alias(HAS_SOURCE_COLUMN),
    )
    if not matched:
        targets = result.where(F.col(HAS_TARGET_COLUMN)).dropDuplicates([TARGET_ID_COLUMN])
        result = targets.unionByName(result.where(~F.col(HAS_TARGET_COLUMN)))
    return result


def merge(
    spark: Any,
    path: str,
    source: Any,
    on: Any,
    *,
    matched: Sequence[WhenMatched] = (),
    not_matched: Sequence[WhenNotMatched] = (),
    not_matched_by_source: Sequence[WhenNotMatchedBySource] = (),
    options: Mapping[str, str] | None = None,
) -> list[Snapshot]:
    """``MERGE INTO table AS target USING source AS source ON on WHEN ...``; ``on`` and the
    actions' expressions name columns as ``target.<c>`` / ``source.<c>``. Returns the
    snapshots committed."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    storage = dict(options or {})
    root = path.rstrip("/")
    file_io = file_io_for(root, storage)
    state = read_state(file_io, root)
    names = state.schema.field_names
    clauses = (tuple(matched), tuple(not_matched), tuple(not_matched_by_source))
    if state.schema.is_primary_key_table:
        keys = set(state.schema.primary_keys)
        assigned = [a.update for a in matched] + [a.update for a in not_matched_by_source]
        if any(keys & set(update or ()) for update in assigned):
            raise SpecViolation("MERGE cannot assign primary-key columns", code="DML_UPDATE_KEY")
        current = spark.read.format("paimon").options(**storage).load(root)
        target = current.withColumn(TARGET_ID_COLUMN, F.monotonically_increasing_id())
        frame = compute_merge_frame(target, source, on, names, clauses)
        kinds = F.when(F.col(CHANGE_COLUMN) == DELETE, F.lit("-D"))
        kinds = kinds.when(F.col(CHANGE_COLUMN) == UPDATE, F.lit("+U")).otherwise(F.lit("+I"))
        changes = frame.where(F.col(CHANGE_COLUMN).isNotNull()).withColumn(ROW_KIND_COLUMN, kinds)
        return write_primary_key_changes(
            file_io, root, changes.select(*names, ROW_KIND_COLUMN), None, storage
        )
    visible = visible_rows_frame(spark, state, storage)
    target = visible.withColumn(
        TARGET_ID_COLUMN, F.col(FILE_COLUMN).cast("long") * (1 << 40) + F.col(POSITION_COLUMN)
    )
    frame = compute_merge_frame(target, source, on, names, clauses).cache()
    try:
        return commit_merge(frame, names, clauses, file_io=file_io, state=state, storage=storage)
    finally:
        frame.unpersist()


def commit_merge(
    frame: Any,
    names: Sequence[str],
    clauses: tuple[Any, Any, Any],
    *,
    file_io: FileIO,
    state: TableState,
    storage: Mapping[str, str],
) -> list[Snapshot]:
    """The append-table MERGE's changes written and committed (rules of :func:`delete`)."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    matched, _, by_source = clauses
    change = F.col(CHANGE_COLUMN)
    targets = frame.where(F.col(HAS_TARGET_COLUMN))
    inserts = frame.where(change == INSERT).orderBy(SOURCE_ID_COLUMN).select(*names)
    if state.schema.core_options.deletion_vectors_enabled:
        changed = collect_positions(targets.where(change.isNotNull()))
        updated = targets.where(change == UPDATE).orderBy(FILE_COLUMN, POSITION_COLUMN)
        rows = updated.select(*names).unionByName(inserts)
        messages = write_rows(rows, file_io, state.root, storage)
        messages += vector_messages(file_io, state, changed) if changed else []
        return committer.commit(file_io, state.root, messages) if messages else []
    touching = F.lit(False)
    if matched:
        touching = touching | F.col(HAS_SOURCE_COLUMN)
    if by_source:
        touching = touching | ~F.col(HAS_SOURCE_COLUMN)
    found = targets.where(touching).select(FILE_COLUMN).distinct().collect()
    touched = sorted(int(row[0]) for row in found)
    kept = targets.where(F.col(FILE_COLUMN).isin(touched))
    kept = kept.where(change.isNull() | (change != DELETE)).orderBy(FILE_COLUMN, POSITION_COLUMN)
    rows = kept.select(*names).unionByName(inserts)
    messages = write_rows(rows, file_io, state.root, storage)
    messages += deleted_file_messages(state, touched)
    return committer.commit(file_io, state.root, messages) if messages else []
