"""The ``paimon`` source's batch reader and writer and its streaming reader's base: what
:mod:`spark_impl.datasource` hands Spark, and what :mod:`spark_impl.stream_source` and
:mod:`spark_impl.stream_sink` build on (below all three; the options, filters, reading and
writing are described in :mod:`spark_impl.datasource`)."""

from __future__ import annotations

import datetime
import json
import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

import numpy as np
import pyarrow as pa
from pyspark.sql.datasource import (
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamReader,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.types import StructType

from reference.errors import (
    InvalidOptionError,
    SpecViolation,
    TableAlreadyExistsError,
    UnsupportedFeature,
)
from reference.io import FileIO, file_io_for
from reference.spec import types as t
from reference.spec.bucket import BucketMode
from reference.spec.casts import cast_value
from reference.spec.commit_message import CommitMessage
from reference.spec.data import Timestamp, days_from_date
from reference.spec.format_table import DYNAMIC_OVERWRITE_OPTION, PATH_OPTION
from reference.spec.predicate import Leaf, Predicate, PredicateOp
from reference.spec.schema import TableSchema, decode_schema
from reference.spec.snapshot import Snapshot
from reference.spec.units import MICROS_PER_MILLI, NANOS_PER_MICRO
from spark_impl import format_files as format_table
from spark_impl import stream
from spark_impl.after_write import compact_after_write
from spark_impl.commit import (
    BATCH_COMMIT_IDENTIFIER,
    CommitOutcome,
    Overwrite,
    commit_write,
    delete_written_files,
)
from spark_impl.compact import is_hidden_until_compacted, recompact_after_write
from spark_impl.create import check_write_columns, check_write_options, create_schema, is_table
from spark_impl.cross_partition import write_cross_partition_task
from spark_impl.fallback import plan_with_fallback
from spark_impl.metadata import find_latest_snapshot_id, latest_schema_id, read_schema_json
from spark_impl.options import (
    COMMIT_IDENTIFIER_OPTION,
    COMMIT_USER_OPTION,
    ROW_KIND_OPTION,
    STATIC_PARTITION_OPTION,
    check_option_names,
    resolve_time_travel,
)
from spark_impl.plan import (
    ReadPlan,
    Split,
    TimeTravel,
    compute_read_splits,
    plan_read,
)
from spark_impl.read import read_split
from spark_impl.spark_types import to_spark_arrow_schema, to_spark_batch
from spark_impl.system_tables import MAX_BATCH_ROWS
from spark_impl.write import (
    ASSIGNER_COLUMN,
    BUCKET_COLUMN,
    compute_bucket_mode,
    plan_write,
    to_paimon_column,
    write_task,
)

LOG = logging.getLogger(__name__)
STRING_TYPE = t.VarCharType(t.MAX_LENGTH)
BOOLEAN_TEXTS = ("true", "false")
ROW_KIND_COLUMN = stream.ROW_KIND_COLUMN
EPOCH = datetime.datetime(1970, 1, 1)
NO_PATH_REASON = (
    "no table path reached the paimon source: use load(path) / save(path) (or "
    "option('path', ...) with saveAsTable / writeTo); SQL CREATE TABLE ... USING paimon, "
    "CTAS, INSERT INTO and SELECT on such a table reach a Python data source without its "
    "OPTIONS or LOCATION in PySpark 4.3: create with spark_impl.create_table or a "
    "df.write.format('paimon') save, query through spark.read.format('paimon').load(path)"
    ".createOrReplaceTempView(name)"
)


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------


def plain_options(options: Mapping[str, str]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in options.items()}


def parse_time_travel(
    options: Mapping[str, str], pinned_snapshot_id: int | None = None
) -> TimeTravel:
    """The snapshot a batch read selects (:func:`spark_impl.options.resolve_time_travel`:
    Paimon's ``scan.*`` keys, ``versionAsOf`` / ``timestampAsOf``, the short keys); when they
    select none (the latest), ``pinned_snapshot_id`` if given (the snapshot the load pinned)."""
    choice = resolve_time_travel(options)
    travel = TimeTravel(choice.snapshot_id, choice.tag_name, choice.timestamp_millis)
    if travel.is_latest and pinned_snapshot_id is not None:
        return TimeTravel(snapshot_id=pinned_snapshot_id)
    return travel


def check_read_options(options: Mapping[str, str]) -> None:
    """Refuse unknown keys (nearest known named) and bad values of Paimon's options."""
    check_option_names(options)


def parse_dynamic_overwrite(options: Mapping[str, str]) -> bool | None:
    """The write option ``dynamic-partition-overwrite`` (``None``: the table's own)."""
    text = options.get(DYNAMIC_OVERWRITE_OPTION)
    if text is not None and text.lower() not in BOOLEAN_TEXTS:
        raise InvalidOptionError(DYNAMIC_OVERWRITE_OPTION, text, "expected true or false")
    return None if text is None else text.lower() == "true"


def parse_static_partition(options: Mapping[str, str], schema: TableSchema) -> dict[str, Any]:
    """The write option ``static-partition``: a JSON object of partition values (``INSERT
    OVERWRITE ... PARTITION (k = v)``); a string value is cast to its column's type."""
    text = options.get(STATIC_PARTITION_OPTION)
    if text is None:
        return {}
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidOptionError(STATIC_PARTITION_OPTION, text, f"not JSON: {error}") from None
    if not isinstance(spec, dict):
        raise InvalidOptionError(STATIC_PARTITION_OPTION, text, "must be a JSON object")
    types = {f.name: f.type for f in schema.partition_type.fields}
    unknown = sorted(set(spec) - set(types))
    if unknown:
        raise InvalidOptionError(STATIC_PARTITION_OPTION, text, f"{unknown} are not partition keys")
    return {
        k: cast_value(v, STRING_TYPE, types[k])
        if isinstance(v, str) and types[k].root not in (t.TypeRoot.CHAR, t.TypeRoot.VARCHAR)
        else v
        for k, v in spec.items()
    }


def parse_commit_identifier(options: Mapping[str, str]) -> int:
    """The ``commit.identifier`` write option (default: the batch identifier)."""
    text = options.get(COMMIT_IDENTIFIER_OPTION)
    if text is None:
        return BATCH_COMMIT_IDENTIFIER
    if not text.strip().isdigit():
        raise InvalidOptionError(COMMIT_IDENTIFIER_OPTION, text, "expected a non-negative integer")
    return int(text)


def table_path(options: Mapping[str, str]) -> str:
    """The table directory; none reaches the source from SQL (PySpark 4.3 hands a Python data
    source of a session-catalog table, ``CREATE TABLE ... USING paimon [AS SELECT]``,
    ``INSERT INTO`` / ``SELECT FROM`` it, no OPTIONS and no LOCATION), so say the way round."""
    if PATH_OPTION not in options:
        raise InvalidOptionError(PATH_OPTION, None, NO_PATH_REASON)
    return options[PATH_OPTION].rstrip("/")


def open_file_io(options: Mapping[str, str]) -> FileIO:
    return file_io_for(table_path(options), options)


# --------------------------------------------------------------------------------------------
# Filters -> predicates (pruning only)
# --------------------------------------------------------------------------------------------


def _timestamp_literal(value: datetime.datetime) -> Timestamp:
    micros = (value - EPOCH) // datetime.timedelta(microseconds=1)
    millis, micro_of_milli = divmod(micros, MICROS_PER_MILLI)
    return Timestamp(millis, micro_of_milli * NANOS_PER_MICRO)


def to_internal_literal(value: Any, data_type: t.DataType) -> tuple[bool, Any]:
    """``(True, internal value)`` when a Spark literal converts exactly, else ``(False, _)``."""
    root = data_type.root
    if root is t.TypeRoot.BOOLEAN and isinstance(value, bool):
        return True, value
    if root in t.INTEGER_ROOTS and isinstance(value, int) and not isinstance(value, bool):
        return True, value
    if root in t.FLOATING_ROOTS and isinstance(value, float):
        return True, value
    if isinstance(data_type, t.DecimalType) and isinstance(value, Decimal):
        return True, value
    if root in t.CHARACTER_ROOTS and isinstance(value, str):
        return True, value
    if root in t.BINARY_ROOTS and isinstance(value, (bytes, bytearray)):
        return True, bytes(value)
    if root is t.TypeRoot.DATE and type(value) is datetime.date:
        return True, days_from_date(value)
    if (
        root is t.TypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE
        and isinstance(value, datetime.datetime)
        and value.tzinfo is None
    ):
        return True, _timestamp_literal(value)
    return False, None


_COMPARISONS = {
    "EqualTo": PredicateOp.EQUAL,
    "GreaterThan": PredicateOp.GREATER_THAN,
    "GreaterThanOrEqual": PredicateOp.GREATER_OR_EQUAL,
    "LessThan": PredicateOp.LESS_THAN,
    "LessThanOrEqual": PredicateOp.LESS_OR_EQUAL,
}


def _column(spark_filter: Any, types: Mapping[str, t.DataType]) -> str | None:
    attribute = getattr(spark_filter, "attribute", None)
    if not isinstance(attribute, tuple) or len(attribute) != 1 or attribute[0] not in types:
        return None
    return str(attribute[0])


def _literal_leaf(
    op: PredicateOp, name: str, values: Iterable[Any], types: Mapping[str, t.DataType]
) -> Leaf | None:
    literals = []
    for value in values:
        ok, literal = to_internal_literal(value, types[name])
        if not ok:
            return None
        literals.append(literal)
    return Leaf(op, name, tuple(literals))


def to_predicate(spark_filter: Any, types: Mapping[str, t.DataType]) -> Predicate | None:
    """A Paimon predicate equivalent to a Spark filter, or ``None`` when there is none."""
    kind = type(spark_filter).__name__
    if kind == "Not":
        inner = spark_filter.child
        name = _column(inner, types)
        if name is None:
            return None
        if type(inner).__name__ == "EqualTo":
            return _literal_leaf(PredicateOp.NOT_EQUAL, name, [inner.value], types)
        if type(inner).__name__ == "In":
            return _literal_leaf(PredicateOp.NOT_IN, name, inner.value, types)
        return None
    name = _column(spark_filter, types)
    if name is None:
        return None
    if kind in _COMPARISONS:
        return _literal_leaf(_COMPARISONS[kind], name, [spark_filter.value], types)
    if kind == "EqualNullSafe":
        if spark_filter.value is None:
            return Leaf(PredicateOp.IS_NULL, name)
        return _literal_leaf(PredicateOp.EQUAL, name, [spark_filter.value], types)
    if kind == "In":
        values = [v for v in spark_filter.value if v is not None]
        return _literal_leaf(PredicateOp.IN, name, values, types) if values else None
    if kind == "IsNull":
        return Leaf(PredicateOp.IS_NULL, name)
    if kind == "IsNotNull":
        return Leaf(PredicateOp.IS_NOT_NULL, name)
    if kind == "StringStartsWith":
        return _literal_leaf(PredicateOp.STARTS_WITH, name, [spark_filter.value], types)
    return None


# --------------------------------------------------------------------------------------------
# The data source
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SplitPartition(InputPartition):
    """One split and the schemas (JSON) needed to read it: the whole of what a task reads, so
    a plan Spark reuses for another scan still reads the same rows."""

    split: Split
    schema_json: str
    file_schema_jsons: Mapping[int, str]


def compute_schema_travel(options: Mapping[str, str]) -> TimeTravel:
    """The snapshot whose schema a load reports: the batch selection, or the latest when the
    options name a start only a stream read has (the batch reader refuses those itself)."""
    try:
        return parse_time_travel(options)
    except UnsupportedFeature:
        return TimeTravel()


def compute_pinned_snapshot(
    travel: TimeTravel, snapshot: Snapshot | None, schema_json: str
) -> int | None:
    """The snapshot a load of the latest state pins: every query of that DataFrame (or of a
    view over it) reads this snapshot, however often Spark plans it again, until the table
    is loaded again. ``None`` (no pin) for a table without snapshots, an explicit time
    travel, or a latest schema newer than the latest snapshot's."""
    if not travel.is_latest or snapshot is None:
        return None
    return snapshot.id if snapshot.schema_id == decode_schema(schema_json).id else None


def is_row_kind_read(options: Mapping[str, str]) -> bool:
    return options.get(ROW_KIND_OPTION, "false").strip().lower() == "true"


def to_output_batches(table: pa.Table, spark_schema: StructType) -> Iterator[pa.RecordBatch]:
    """Canonical Paimon columns (and ``_ROW_KIND``) as the Arrow batches Spark expects."""
    batch_table = to_spark_batch(table, to_spark_arrow_schema(spark_schema))
    yield from batch_table.to_batches(max_chunksize=MAX_BATCH_ROWS)


class PaimonReader(DataSourceReader):
    """Reads one snapshot in splits; planning is a function of the options alone (and of the
    snapshot the load pinned, :func:`compute_pinned_snapshot`).

    Spark keeps the partitions this reader plans on the relation and reuses them for later
    scans that push no filter (see the module docstring), so nothing a query pushes may change
    them: the reader holds no per-query state.
    """

    def __init__(
        self, options: dict[str, str], schema: StructType, pinned_snapshot_id: int | None = None
    ) -> None:
        self.options = options
        self.spark_schema = schema
        self.travel = parse_time_travel(options, pinned_snapshot_id)

    def pushFilters(self, filters: list[Any]) -> Iterable[Any]:
        """Hand every filter back (Spark applies them all): a plan pruned by one query's
        filters would be reused by the next query on the same DataFrame or view."""
        return filters

    def plan(self) -> ReadPlan:
        """The splits of the snapshot the options select (no pruning predicate)."""
        return plan_read(open_file_io(self.options), table_path(self.options), self.travel)

    def partitions(self) -> list[SplitPartition]:
        """One partition per read split (:func:`spark_impl.plan.compute_read_splits`: an
        append bucket of many files is packed into several), each carrying its schemas (with
        ``scan.fallback-branch``, the fallback branch's splits carry that branch's:
        ``spark_impl.fallback``; a load of the latest state pins main's snapshot, the fallback
        branch is read at its latest)."""
        file_io, root = open_file_io(self.options), table_path(self.options)
        asked = parse_time_travel(self.options)
        return [
            SplitPartition(
                split,
                plan.schema_json,
                {f.schema_id: plan.file_schema_jsons[f.schema_id] for f in split.files},
            )
            for plan in plan_with_fallback(file_io, root, asked, self.plan())
            for split in compute_read_splits(plan)
        ]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        # With no splits Spark still reads one plain InputPartition: there is nothing in it.
        if not hasattr(partition, "split"):
            return
        partition = cast(SplitPartition, partition)
        schema = decode_schema(partition.schema_json)
        file_schemas = {i: decode_schema(j) for i, j in partition.file_schema_jsons.items()}
        table = read_split(open_file_io(self.options), partition.split, schema, file_schemas)
        if ROW_KIND_COLUMN in self.spark_schema.fieldNames():
            table = stream.with_row_kinds(table, np.zeros(table.num_rows, dtype=np.int64))
        yield from to_output_batches(table, self.spark_schema)


@dataclass(frozen=True)
class FormatFilePartition(InputPartition):
    """One data file of a format table and its partition's directory strings."""

    path: str
    texts: tuple[str, ...]


class FormatTableReader(DataSourceReader):
    """``type = format-table``: the files of a directory, read by Paimon's rules
    (:mod:`spark_impl.format_table`)."""

    def __init__(self, options: dict[str, str], schema: StructType) -> None:
        self.options = options
        self.spark_schema = schema
        self.table = format_table.parse_source_options(options, table_path(options), schema)
        if format_table.implementation_of(self.table) != format_table.PAIMON_IMPLEMENTATION:
            raise InvalidOptionError(
                format_table.IMPLEMENTATION_OPTION,
                format_table.ENGINE_IMPLEMENTATION,
                "the engine's own file sources are read by spark_impl.format_table."
                "read_format_table, not through the paimon source",
            )

    def partitions(self) -> list[FormatFilePartition]:
        files = format_table.plan_files(open_file_io(self.options), self.table)
        return [FormatFilePartition(path, texts) for path, texts in files]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not hasattr(partition, "path"):  # no files: Spark still reads one empty partition
            return
        partition = cast(FormatFilePartition, partition)
        rows = format_table.read_file_table(
            open_file_io(self.options), self.table, partition.path, partition.texts
        )
        yield from to_output_batches(rows, self.spark_schema)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PaimonCommitMessage(WriterCommitMessage):
    """What one write task hands to the driver: its Paimon commit messages."""

    messages: tuple[CommitMessage, ...]
    compacted: bool = True
    """Whether the task compacted its buckets (its input was shuffled by bucket)."""


def prepare_write_target(
    file_io: FileIO, options: Mapping[str, str], spark_schema: StructType | None
) -> None:
    """Before a write plans: refuse unknown option keys; create the table from the
    DataFrame's schema and Paimon's options (``primary-key``, ``partition``, ``bucket``, ...)
    when the path holds none, else refuse options that differ from the table's
    (:mod:`spark_impl.create`)."""
    check_option_names(options)
    root = table_path(options)
    if not is_table(file_io, root) and spark_schema is not None:
        try:
            create_schema(file_io, root, spark_schema, options, check=compute_bucket_mode)
            return
        except TableAlreadyExistsError:  # a concurrent writer created it: write into theirs
            pass
    if is_table(file_io, root):
        schema = decode_schema(read_latest_schema_json(file_io, root))
        check_write_options(schema, options, root)
        if spark_schema is not None:
            check_write_columns(schema, spark_schema, root)


def read_latest_schema_json(file_io: FileIO, root: str) -> str:
    return read_schema_json(file_io, root, latest_schema_id(file_io, root))


def explain_conversion_error(
    batch: pa.Table, schema: TableSchema, options: Mapping[str, str], error: Exception
) -> SpecViolation:
    """An Arrow error of a write task as one line naming the table, the column (found by
    converting each column alone) and the cause."""
    for data_field in schema.fields:
        if data_field.name not in batch.column_names:
            continue
        try:
            to_paimon_column(batch.column(data_field.name).combine_chunks(), data_field.type)
        except pa.ArrowException as cause:
            return SpecViolation(
                f"column {data_field.name!r} ({data_field.type}): {cause}",
                path=table_path(options),
                code="WRITE_VALUE",
            )
    return SpecViolation(f"writing failed: {error}", path=table_path(options), code="WRITE_VALUE")


class PaimonWriter(DataSourceArrowWriter):
    """Tasks write files; the driver commits (two-phase commit).

    What the user is told (issue 18: a write told FAILED whose APPEND snapshot had landed,
    then Spark's ``abort`` deleted that snapshot's files):

    * *The data snapshot landed: the write succeeded.* A write commits an APPEND (or
      OVERWRITE) snapshot, then the COMPACT snapshot of the buckets it wrote. On a table
      whose batch reads see level-0 files, compaction is an optimisation: when it loses a
      conflict with a concurrent commit (before or after the APPEND landed) it is dropped
      with a warning naming the table, the landed snapshot and the conflict; its output
      files, referenced by no snapshot, are deleted. ``save()`` returns normally and the
      rows are committed. A compaction job (``spark_impl.jobs.compact``) still fails on a
      conflict.
    * *Unless level 0 is hidden: then the rows must be compacted to be seen.* Batch reads
      of a primary-key table with ``deletion-vectors.enabled`` or ``merge-engine =
      first-row`` skip level-0 files (Java ``DataTableBatchScan``; ``plan.
      is_level_zero_skipped``), so the rows of a landed APPEND whose compaction lost would
      be committed but invisible. The driver then compacts the written buckets again: a
      fresh plan on the new latest snapshot, committed as a COMPACT snapshot under the
      write's commit user and identifier, at most
      :data:`spark_impl.compact.WRITE_RECOMPACTION_ATTEMPTS` times
      (:func:`spark_impl.compact.recompact_after_write`). When none lands, ``save()``
      raises :class:`~reference.errors.PartialCommitError` naming the table, the landed
      snapshot ids and the last reason: the rows are committed (do not write them again)
      and become visible after the next compaction (``spark_impl.jobs.compact(spark,
      path)``). Other table kinds (the ``lookup`` changelog producer included) read level 0.
    * *``save()`` raised: nothing of the write is visible*, except for that
      :class:`~reference.errors.PartialCommitError`. The commit raises only when its data
      snapshot did not land (conflict, retries exhausted, storage failure); Spark then
      calls :meth:`abort`.
    * *``abort`` deletes only files no published snapshot references*, checked against the
      snapshots committed since the write began, never against what the writer believes.
    * *Retrying the same job is safe.* The write options ``commit.user`` (a name stable
      across retries of one job) and ``commit.identifier`` (an increasing number per write of
      that user; both are needed) make the commit idempotent, as Java's ``filterCommitted``:
      a run whose identifier that user committed already (the driver died after the snapshot
      was written, or the job was resubmitted) commits nothing, deletes the files it wrote
      and succeeds. Without them every write draws a fresh commit user; a commit still never
      creates two snapshots for one attempt whose outcome was unknown.
    """

    def __init__(
        self, options: dict[str, str], overwrite: bool, spark_schema: StructType | None = None
    ) -> None:
        self.options = options
        self.overwrite = overwrite
        file_io = open_file_io(options)
        prepare_write_target(file_io, options, spark_schema)
        self.since = find_latest_snapshot_id(file_io, table_path(options).rstrip("/"))
        """The latest snapshot when the write began: only newer ones can hold its files."""
        self.commit_user = options.get(COMMIT_USER_OPTION) or None
        self.commit_identifier = parse_commit_identifier(options)
        self.plan = plan_write(file_io, table_path(options), options, overwrite=overwrite)

    def write(self, iterator: Iterator[pa.RecordBatch]) -> PaimonCommitMessage:
        from pyspark import TaskContext  # noqa: PLC0415

        batches = list(iterator)
        if not batches or not any(b.num_rows for b in batches):
            return PaimonCommitMessage(())
        context = TaskContext.get()
        task_id = context.partitionId() if context is not None else 0
        table = pa.Table.from_batches(batches)
        try:
            cross_partition = self.plan.mode is BucketMode.CROSS_PARTITION
            task = write_cross_partition_task if cross_partition else write_task
            messages = task(open_file_io(self.options), self.plan, table, task_id)
        except pa.ArrowException as error:  # a value its column's type cannot hold
            raise explain_conversion_error(table, self.plan.schema, self.options, error) from None
        prepared = bool({BUCKET_COLUMN, ASSIGNER_COLUMN} & set(table.column_names))
        return PaimonCommitMessage(tuple(messages), prepared or self.plan.base is None)

    def _messages(
        self, messages: list[WriterCommitMessage | None], compacted: bool | None = None
    ) -> list[CommitMessage]:
        return [
            m
            for message in messages
            if isinstance(message, PaimonCommitMessage)
            and (compacted is None or message.compacted == compacted)
            for m in message.messages
        ]

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:

        file_io = open_file_io(self.options)
        root = table_path(self.options).rstrip("/")
        collected = self._messages(messages, True)
        try:
            collected += compact_after_write(
                file_io, root, self._messages(messages, False), overwrite=self.overwrite
            )
            outcome = self._commit(file_io, root, collected)
        except BaseException:
            self._delete_unreferenced(file_io, root, collected)  # the driver's compaction
            raise
        if outcome.earlier is not None:
            LOG.warning(
                "%s: commit user %s committed identifier %d already (snapshots %s): this run "
                "commits nothing",
                root,
                self.commit_user,
                self.commit_identifier,
                [s.id for s in outcome.earlier],
            )
        if outcome.dropped is not None or outcome.earlier is not None:
            self._delete_unreferenced(file_io, root, collected)
        if outcome.dropped is not None:
            self._settle_lost_compaction(file_io, root, collected, outcome, outcome.dropped)

    def _settle_lost_compaction(
        self,
        file_io: FileIO,
        root: str,
        collected: list[CommitMessage],
        outcome: CommitOutcome,
        lost: Exception,
    ) -> None:
        """The data snapshot of ``outcome`` landed, its compaction lost (``lost``: why): drop
        it with a warning, or, on a table whose batch reads skip level 0, compact the written
        buckets again (:func:`spark_impl.compact.recompact_after_write`, which raises
        :class:`~reference.errors.PartialCommitError` when that fails too)."""
        landed = outcome.snapshots
        ids = ", ".join(str(s.id) for s in landed)
        if not landed or not is_hidden_until_compacted(file_io, root, self.plan.schema):
            LOG.warning(
                "%s: the write committed snapshot %s; its compaction was dropped: %s",
                root,
                ids,
                lost,
            )
            return
        LOG.warning(
            "%s: the write committed snapshot %s; its compaction lost (%s): compacting the "
            "written buckets again, their rows are hidden from batch reads until then",
            root,
            ids,
            lost,
        )
        buckets = {(m.partition, m.bucket) for m in collected}
        snapshot = recompact_after_write(file_io, root, landed, buckets, lost)
        LOG.info(
            "%s: the compaction of the buckets written by snapshot %s landed: %s",
            root,
            ids,
            "nothing left to compact" if snapshot is None else f"snapshot {snapshot.id}",
        )

    def _commit(self, file_io: FileIO, root: str, collected: list[CommitMessage]) -> CommitOutcome:
        static = parse_static_partition(self.options, self.plan.schema) if self.overwrite else {}
        dynamic = False if static else parse_dynamic_overwrite(self.options)
        return commit_write(
            file_io,
            root,
            collected,
            overwrite=Overwrite(static, dynamic) if self.overwrite else None,
            commit_user=self.commit_user,
            commit_identifier=self.commit_identifier,
            optional_compaction=True,
        )

    def _delete_unreferenced(
        self, file_io: FileIO, root: str, messages: list[CommitMessage]
    ) -> list[str]:
        """Delete the files ``messages`` made that no snapshot since the write began holds."""
        return delete_written_files(file_io, root, self.plan.schema, messages, since=self.since)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        """Spark's abort (a task or ``commit`` failed): delete the files the tasks made that
        no published snapshot references (a commit may have raised after its snapshot
        landed; Spark calls this in another process, so the snapshots are the only truth)."""
        file_io = open_file_io(self.options)
        root = table_path(self.options).rstrip("/")
        self._delete_unreferenced(file_io, root, self._messages(messages))


# --------------------------------------------------------------------------------------------
# Streaming
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamPartition(InputPartition):
    split: stream.StreamSplit


class PaimonStreamReader(DataSourceStreamReader):
    """Offsets are snapshot ids (see :mod:`spark_impl.stream`)."""

    def __init__(self, options: dict[str, str], schema: StructType) -> None:
        check_read_options(options)
        if ROW_KIND_COLUMN not in schema.fieldNames():
            raise InvalidOptionError(
                ROW_KIND_OPTION, options.get(ROW_KIND_OPTION), "a stream read needs 'true'"
            )
        self.options = options
        self.spark_schema = schema

    def initialOffset(self) -> dict[str, int]:
        return stream.make_offset(stream.NOTHING_READ)

    def latestOffset(
        self, start: dict[str, Any] | None = None, limit: Any = None
    ) -> dict[str, int]:
        begin = stream.offset_value(start)
        latest = stream.latest_offset(open_file_io(self.options), table_path(self.options), begin)
        return stream.make_offset(latest)

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> list[StreamPartition]:
        splits = stream.plan_micro_batch(
            open_file_io(self.options),
            table_path(self.options),
            stream.offset_value(start),
            stream.offset_value(end),
        )
        return [StreamPartition(split) for split in splits]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not hasattr(partition, "split"):
            return
        split = cast(StreamPartition, partition).split
        table = stream.read_stream_split(open_file_io(self.options), split)
        yield from to_output_batches(table, self.spark_schema)

    def commit(self, end: dict[str, Any]) -> None:
        return None
