"""Apply a workload to spark_impl and to the reference, and compare everything they made.

spark_impl is driven only through its public API: ``spark_impl.write_table`` (an append
table's insert-only write without ``_ROW_KIND``, so the native append route is met) or
``df.write.format("paimon")`` for a write (``mode("overwrite")`` for an overwrite),
``spark_impl.jobs.compact`` for a compaction, ``spark.read.format("paimon")`` with
``snapshot-id`` for reads, ``spark_impl.read_stream`` for the changes. spark_impl has no
``CREATE TABLE``: both tables are created by the reference from the same :class:`TableSpec`
(schema-0 is the only file the reference writes into spark_impl's table).

:func:`run_workload` applies each step to both tables and then compares (the comparisons are
named by :class:`Check`):

* ``refusal``: an input one engine refuses, the other refuses too (the workload ends there);
* ``snapshots``: the same latest snapshot id after each step and the same snapshot ids;
* ``rows``: every snapshot of each table is the same read by the reference and by spark_impl
  (one Spark job that unions a ``snapshot-id`` read of every snapshot of its own table and the
  latest of the reference's); ``+U`` is read as ``+I`` (Spark's batch rows carry no kind);
* ``structure``: at every snapshot, the commit kind and record counts agree, and the live data
  files of both tables agree file by file:
  partition, bucket (so every key is in the same bucket), level, sequence range, key range,
  row counts, statistics and the records themselves (key, sequence number, kind, value) with the
  positions their deletion vector removes; and the changelog files and the dynamic-bucket hash
  index of each snapshot (read with ``reference.store.scan`` / ``metadata``);
* ``changelog``: ``audit_log`` with ``incremental-between`` over each step's snapshots (read by
  the reference, Java 0.9's view) is the same for both tables;
* ``stream`` (when asked): spark_impl's streaming read of its table (started after the first
  step, drained after the last) returns the same changes as the reference's ``StreamReader`` on
  its own;
* ``crash``: a reader or a comparison raised where nothing should; ``infrastructure``: Spark
  could not start a Python worker (heavy load), twice in a row (the workload is retried once):
  counted apart, never a finding about an engine.

Sequence numbers are left out of ``structure`` for workloads with an overwrite after a write
(a known reference bug, regression case ``reference-overwrite-restores-sequence-numbers``).
"""

from __future__ import annotations

import functools
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any

import pyarrow as pa

from conformance.differential import run_reference
from conformance.differential.compare import (
    as_inserts,
    canonical_value,
    describe_difference,
)
from conformance.differential.run_reference import ReferenceRunner
from conformance.differential.spark_workloads import (
    SparkWorkload,
    WriteRoute,
    is_compacted_after_write,
)
from conformance.differential.workloads import Change, Compact, Step, TableSpec, Write
from conformance.engines.base import arrow_to_changes
from conformance.spark_settings import session_builder
from reference import layout
from reference.errors import PaimonKitError
from reference.io import LocalFileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.data import RowKind
from reference.spec.data_file import SEQUENCE_NUMBER_FIELD
from reference.spec.deletion_vector import is_deleted
from reference.spec.file_format import rows_to_arrow
from reference.spec.hash_index import HASH_INDEX_TYPE, decode_hash_index
from reference.spec.manifest import FileKind, ManifestEntry
from reference.spec.schema import TableSchema
from reference.spec.snapshot import Snapshot
from reference.store import metadata, scan
from reference.store.query import load_schemas
from reference.store.read import compute_file_fields, read_deletion_vector, read_file_rows
from reference.table import Table

ROW_KIND_COLUMN = "_ROW_KIND"
TABLE_COLUMN = "_diff_table"
SNAPSHOT_COLUMN = "_diff_snapshot"
OURS, THEIRS = "reference", "spark_impl"
IO = LocalFileIO()


class Check(Enum):
    """What two engines were found to disagree on."""

    REFUSAL = "refusal"
    SNAPSHOTS = "snapshots"
    ROWS = "rows"
    STRUCTURE = "structure"
    CHANGELOG = "changelog"
    STREAM = "stream"
    CRASH = "crash"
    """A reader or a comparison raised where no refusal was expected."""
    INFRA = "infrastructure"
    """Spark itself failed (a Python worker did not start in time under load), twice: not a
    finding about either engine, counted apart."""


INFRA_MARKERS = (
    "Python worker failed to connect back",
    "Timed out while waiting for the Python worker to connect back",
)


@dataclass(frozen=True)
class Disagreement:
    check: Check
    step: int
    detail: str

    def describe(self) -> str:
        return f"[{self.check.value} after step {self.step}] {self.detail}"


@dataclass
class Outcome:
    """What one workload did: steps applied, snapshots compared, whether both refused a
    step (the rest was not run), and every disagreement found."""

    steps: int = 0
    snapshots: int = 0
    refused: bool = False
    streamed: bool = False
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def findings(self) -> list[Disagreement]:
        """The disagreements that are about the engines (Spark infrastructure failures not)."""
        return [d for d in self.disagreements if d.check is not Check.INFRA]


# --------------------------------------------------------------------------------------------
# The Spark side
# --------------------------------------------------------------------------------------------


SPARK_MASTER = "local[2]"
SPARK_OVERRIDES = {"spark.sql.shuffle.partitions": "1", "spark.default.parallelism": "1"}
"""One shuffle partition and a default parallelism of one, over the suite's settings
(``conformance.spark_settings``): the workloads are tiny, so fewer tasks is faster. The master
is the suite's ``local[2]`` (the machine's two cores), not ``local[1]``: one pytest process
holds one SparkContext and the differentials build it first, so a ``local[1]`` here ran every
later Spark test of the process on one core; the task count is set by the partitions above,
the cores only let a union read's or a compaction's tasks run two at a time."""


@functools.cache
def spark_session() -> Any:
    """One local SparkSession for the process (two cores, one shuffle partition, the suite's
    settings: UI off, UTC, no adaptive execution) with ``paimon`` registered; ``getOrCreate``
    reuses a session the process already has."""
    import spark_impl  # noqa: PLC0415

    builder = session_builder(SPARK_MASTER, "paimon-kit-differential", **SPARK_OVERRIDES)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    spark_impl.register(session)
    return session


def to_frame(spark: Any, spec: TableSpec, write: Write) -> Any:
    """The rows of ``write`` as a one-partition DataFrame with a ``_ROW_KIND`` column."""
    table = rows_to_arrow([row for _, row in write.changes], spec.fields)
    kinds = pa.array([kind.short_string for kind, _ in write.changes], pa.string())
    return spark.createDataFrame(table.append_column(ROW_KIND_COLUMN, kinds)).coalesce(1)


def with_kinds_if_needed(frame: Any, spec: TableSpec, write: Write) -> Any:
    """``frame`` without its ``_ROW_KIND`` column when the write is only inserts into an
    append table: the call a user makes, which ``spark_impl.write_table`` sends to Spark's
    own Parquet writer where :mod:`spark_impl.native_write` accepts the table (so the
    native append route meets the reference here too)."""
    if spec.primary_keys or any(kind.short_string != "+I" for kind, _ in write.changes):
        return frame
    return frame.drop(ROW_KIND_COLUMN)


class SparkRunner:
    """One table written by spark_impl at ``root`` (created by the reference).

    A ``changelog-producer = full-compaction`` table is fully compacted after each write, as
    the Java side of the Java differential is: the reference's batch write full-compacts (the
    documented ``full-compaction.delta-commits`` behaviour), spark_impl follows Java 0.9's
    batch writer, which does not (conformance/expected_differences.md)."""

    def __init__(self, spark: Any, root: str, spec: TableSpec) -> None:
        self.spark = spark
        self.root = root
        self.spec = spec
        self.compact_after_write = is_compacted_after_write(spec)
        run_reference.create_table(root, spec)

    def latest_id(self) -> int:
        return metadata.find_latest_snapshot_id(IO, self.root) or 0

    def apply(self, step: Step, route: WriteRoute | None) -> int:
        """Apply one step through spark_impl's public API; the latest snapshot id after it."""
        import spark_impl  # noqa: PLC0415
        from spark_impl import jobs  # noqa: PLC0415

        if isinstance(step, Write):
            frame = to_frame(self.spark, self.spec, step)
            mode = "append" if step.overwrite is None else "overwrite"
            if route is WriteRoute.PLAIN:
                frame.write.format("paimon").mode(mode).save(self.root)
            else:
                spark_impl.write_table(
                    with_kinds_if_needed(frame, self.spec, step), self.root, mode=mode
                )
            if self.compact_after_write:
                jobs.compact(self.spark, self.root, full=True)
        elif isinstance(step, Compact):
            jobs.compact(self.spark, self.root, full=step.full)
        return self.latest_id()


def spark_read_snapshots(
    spark: Any, spec: TableSpec, requests: Sequence[tuple[str, int]]
) -> dict[tuple[str, int], list[Change]]:
    """``spark.read.format("paimon").option("snapshot-id", …)`` of each (table root, snapshot
    id), as one Spark job (a union tagged by table and snapshot)."""
    from pyspark.sql import functions as F  # noqa: PLC0415

    if not requests:
        return {}
    frames = [
        spark.read.format("paimon")
        .option("snapshot-id", str(snapshot_id))
        .load(root)
        .withColumn(TABLE_COLUMN, F.lit(index))
        .withColumn(SNAPSHOT_COLUMN, F.lit(snapshot_id))
        for index, (root, snapshot_id) in enumerate(requests)
    ]
    arrow = functools.reduce(lambda a, b: a.unionByName(b), frames).toArrow()
    found: dict[tuple[str, int], list[Change]] = {request: [] for request in requests}
    tables = arrow.column(TABLE_COLUMN).to_pylist()
    changes = arrow_to_changes(arrow.drop_columns([TABLE_COLUMN, SNAPSHOT_COLUMN]), spec.fields)
    for index, change in zip(tables, changes, strict=True):
        found[requests[index]].append(change)
    return found


STREAM_TRIGGER: str | None = "250 milliseconds"
"""The stream's micro-batch interval. Spark's default starts the next batch at once and, with no
new data, polls the source again after 10 ms: each poll is a Python round trip into spark_impl's
``latestOffset``, so a stream left running takes CPU from the writes beside it. 6 streamed
workloads, same process, alternating, best of 3: 32.0 s polling without pause, 28.1 s at 250 ms
(1-minute load 4-6); 79 s and 61 s at a load of 9-12. A drain still processes every commit
(``processAllAvailable``), at most an interval later."""


class SparkStream:
    """``spark_impl.read_stream`` of a table into a list, one micro-batch per drain."""

    def __init__(self, spark: Any, root: str, spec: TableSpec, checkpoint: str) -> None:
        import spark_impl  # noqa: PLC0415

        self.spec = spec
        self.batches: list[pa.Table] = []
        writer = (
            spark_impl.read_stream(spark, root)
            .writeStream.foreachBatch(lambda frame, _: self.batches.append(frame.toArrow()))
            .option("checkpointLocation", checkpoint)
        )
        if STREAM_TRIGGER is not None:
            writer = writer.trigger(processingTime=STREAM_TRIGGER)
        self.query = writer.start()

    def drain(self) -> list[Change]:
        """Every change the stream has read so far (processing what is available first)."""
        self.query.processAllAvailable()
        changes: list[Change] = []
        for batch in self.batches:
            kinds = batch.column(ROW_KIND_COLUMN).to_pylist()
            rows = arrow_to_changes(batch.drop_columns([ROW_KIND_COLUMN]), self.spec.fields)
            changes.extend(
                (RowKind.from_short_string(kind), row)
                for kind, (_, row) in zip(kinds, rows, strict=True)
            )
        return changes

    def stop(self) -> None:
        self.query.stop()


# --------------------------------------------------------------------------------------------
# Structure (read with the reference's metadata and scan)
# --------------------------------------------------------------------------------------------


def canonical_rows(rows: Sequence[tuple[Any, ...]]) -> tuple[Any, ...]:
    """Rows in file order, values made comparable."""
    return tuple(tuple(canonical_value(v) for v in row) for row in rows)


def describe_data_file(
    root: str,
    schema: TableSchema,
    schemas: dict[int, TableSchema],
    entry: ManifestEntry,
    deletion_file: scan.DeletionFile | None,
    *,
    sequences: bool = True,
) -> tuple[Any, ...]:
    """One live (or changelog) file as everything two writers of the same rows agree on: its
    place (partition, bucket, level), counts, sequence and key ranges, statistics, and its
    records in file order with the positions its deletion vector removes. Without
    ``sequences`` the sequence numbers (range and column) are left out."""
    partition_types = [f.type for f in schema.partition_type.fields]
    partition = deserialize_binary_row(entry.partition, partition_types)
    meta = entry.file
    directory = scan.compute_bucket_path(root, schema, partition, entry.bucket)
    path = layout.data_file_path(directory, meta.file_name, meta.external_path)
    fields = compute_file_fields(schemas[meta.schema_id])
    rows = read_file_rows(IO, path, fields)
    if not sequences and SEQUENCE_NUMBER_FIELD in fields:
        at = fields.index(SEQUENCE_NUMBER_FIELD)
        rows = [(*row[:at], None, *row[at + 1 :]) for row in rows]
    deleted: tuple[int, ...] = ()
    if deletion_file is not None:
        vector = read_deletion_vector(IO, deletion_file)
        deleted = tuple(p for p in range(len(rows)) if is_deleted(vector, p))
    return (
        tuple(canonical_value(v) for v in partition),
        entry.bucket,
        meta.level,
        meta.row_count,
        meta.delete_row_count,
        meta.min_sequence_number if sequences else None,
        meta.max_sequence_number if sequences else None,
        meta.min_key,
        meta.max_key,
        repr(meta.key_stats),
        repr(meta.value_stats),
        meta.file_source,
        canonical_rows(rows),
        deleted,
    )


def hash_index(root: str, snapshot: Snapshot) -> Counter[tuple[Any, ...]]:
    """The dynamic-bucket hash index files of a snapshot: (partition, bucket, sorted hashes)."""
    if snapshot.index_manifest is None:
        return Counter()
    live: dict[tuple[bytes, int, str], Any] = {}
    for entry in scan.read_index_manifest(IO, root, snapshot.index_manifest):
        key = (entry.partition, entry.bucket, entry.index_file.file_name)
        if entry.kind is FileKind.ADD:
            live[key] = entry
        else:
            live.pop(key, None)
    found: Counter[tuple[Any, ...]] = Counter()
    for entry in live.values():
        index_file = entry.index_file
        if index_file.index_type != HASH_INDEX_TYPE:
            continue
        data = IO.read_bytes(layout.index_file_path(root, index_file.file_name))
        found[
            (
                entry.partition,
                entry.bucket,
                index_file.row_count,
                tuple(sorted(decode_hash_index(data))),
            )
        ] += 1
    return found


def snapshot_structure(root: str, snapshot_id: int, sequences: bool = True) -> dict[str, Any]:
    """Everything structural about one snapshot of the table at ``root`` (sequence numbers
    left out unless ``sequences``)."""
    schemas = load_schemas(IO, root)
    snapshot = metadata.read_snapshot(IO, root, snapshot_id)
    schema = schemas[snapshot.schema_id]
    deletion_files = {
        name: deletion_file
        for by_file in scan.read_deletion_files(IO, root, snapshot, schema).values()
        for name, deletion_file in by_file.items()
    }
    entries = [
        entry
        for manifest in scan.list_snapshot_manifests(IO, root, snapshot)
        for entry in scan.read_manifest(IO, root, manifest.file_name)
    ]
    live = scan.compute_live_entries(entries).live
    files = Counter(
        describe_data_file(
            root, schema, schemas, e, deletion_files.get(e.file.file_name), sequences=sequences
        )
        for e in live
    )
    changelog: Counter[tuple[Any, ...]] = Counter()
    if snapshot.changelog_manifest_list is not None:
        for manifest in scan.read_manifest_list(IO, root, snapshot.changelog_manifest_list):
            for entry in scan.read_manifest(IO, root, manifest.file_name):
                changelog[
                    describe_data_file(root, schema, schemas, entry, None, sequences=sequences)
                ] += 1
    return {
        "commit kind": snapshot.commit_kind,
        "total record count": snapshot.total_record_count,
        "delta record count": snapshot.delta_record_count,
        "changelog record count": snapshot.changelog_record_count,
        "data files": files,
        "changelog files": changelog,
        "hash index": hash_index(root, snapshot),
    }


def describe_structure_difference(ours: dict[str, Any], theirs: dict[str, Any]) -> str | None:
    lines = []
    for key, value in ours.items():
        other = theirs[key]
        if value == other:
            continue
        if isinstance(value, Counter):
            only_ours, only_theirs = value - other, other - value
            lines.append(f"  {key}:")
            lines.extend(f"    only {OURS}: {item}" for item in sorted(only_ours, key=repr))
            lines.extend(f"    only {THEIRS}: {item}" for item in sorted(only_theirs, key=repr))
        else:
            lines.append(f"  {key}: {OURS} {value!r}, {THEIRS} {other!r}")
    return "\n".join(lines) if lines else None


# --------------------------------------------------------------------------------------------
# One workload
# --------------------------------------------------------------------------------------------


def reference_stream_changes(reader: Any) -> list[Change]:
    return [change for _, changes in reader.iterate() for change in changes]


@dataclass
class Run:
    """The two tables of one workload and what was found so far."""

    ours: ReferenceRunner
    theirs: SparkRunner
    outcome: Outcome
    sequences: bool = True
    ids: list[tuple[int, int]] = field(default_factory=list)

    def disagree(self, check: Check, step: int, detail: str) -> None:
        self.outcome.disagreements.append(Disagreement(check, step, detail))


def attempt(action: Callable[[], int], refusals: type[Exception]) -> int | Exception:
    """The snapshot id ``action`` returns, or the refusal it raised."""
    try:
        return action()
    except refusals as error:
        return error


def apply_step(run: Run, index: int, step: Step, route: WriteRoute | None) -> bool:
    """Apply a step to both; False when the workload ends here (a refusal). The reference
    refuses with its own errors; any exception from spark_impl counts (Spark wraps them).
    The reference applies its step in a thread while Spark runs the job (the driver waits on
    the JVM meanwhile): the two tables are independent."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(attempt, lambda: run.ours.apply(step), PaimonKitError)
        theirs = attempt(lambda: run.theirs.apply(step, route), Exception)
        ours = pending.result()
    refusals = {who: r for who, r in ((OURS, ours), (THEIRS, theirs)) if isinstance(r, Exception)}
    if refusals:
        run.outcome.refused = True
        if len(refusals) == 1:
            [(who, error)] = refusals.items()
            run.disagree(Check.REFUSAL, index, f"only {who} refused: {short_error(error)}")
        return False
    assert isinstance(ours, int) and isinstance(theirs, int)
    run.outcome.steps += 1
    if ours != theirs:
        run.disagree(Check.SNAPSHOTS, index, f"latest snapshot {ours} vs {theirs}")
    run.ids.append((ours, theirs))
    return True


def short_error(error: BaseException | None, limit: int = 1200) -> str:
    """The error's type and message, its middle elided when long (a Spark error carries the
    Python traceback; its last lines say what failed)."""
    text = f"{type(error).__name__}: {error}"
    if len(text) <= limit:
        return text
    return f"{text[: limit // 4]} ... {text[-3 * limit // 4 :]}"


def step_of_snapshot(ids: Sequence[tuple[int, int]], snapshot_id: int) -> int:
    return next((i for i, (ours, _) in enumerate(ids) if ours >= snapshot_id), len(ids) - 1)


SparkRows = dict[tuple[str, int], list[Change]] | Exception


def read_spark_rows(
    spark: Any, spec: TableSpec, run: Run, snapshot_ids: Sequence[int]
) -> SparkRows:
    """spark_impl's reads for :func:`check_rows` (its own table at every snapshot, the
    reference's at the latest: Spark reads cost), or the error the read raised."""
    ours, theirs = run.ours.root, run.theirs.root
    requests = [(theirs, s) for s in snapshot_ids] + [(ours, snapshot_ids[-1])]
    try:
        return spark_read_snapshots(spark, spec, requests)
    except Exception as error:  # any failure of the read is a finding
        return error


def read_reference_rows(run: Run, snapshot_ids: Sequence[int]) -> dict[int, list[list[Change]]]:
    """The reference's reads of both tables at every snapshot, for :func:`check_rows`."""
    roots = (run.ours.root, run.theirs.root)
    return {s: [run_reference.read_rows(root, s) for root in roots] for s in snapshot_ids}


def check_rows(
    run: Run,
    reference_rows: dict[int, list[list[Change]]],
    spark_rows: SparkRows,
    snapshot_ids: Sequence[int],
) -> None:
    """Every snapshot of both tables is the same read by the reference
    (``reference_rows``, from :func:`read_reference_rows`), and by spark_impl (``spark_rows``,
    from :func:`read_spark_rows`)."""
    if isinstance(spark_rows, Exception):
        detail = f"spark_impl read failed: {short_error(spark_rows)}"
        run.disagree(Check.ROWS, len(run.ids) - 1, detail)
        return
    ours, theirs = run.ours.root, run.theirs.root
    latest = snapshot_ids[-1]
    for snapshot_id in snapshot_ids:
        by_ours, by_theirs = reference_rows[snapshot_id]
        readings = [
            (f"reference reading {OURS}'s", by_ours),
            (f"reference reading {THEIRS}'s", by_theirs),
            (f"spark_impl reading {THEIRS}'s", spark_rows[(theirs, snapshot_id)]),
        ]
        if snapshot_id == latest:
            readings.append((f"spark_impl reading {OURS}'s", spark_rows[(ours, latest)]))
        base_name, base = readings[0]
        for name, rows in readings[1:]:
            difference = describe_difference(base_name, as_inserts(base), name, as_inserts(rows))
            if difference is not None:
                step = step_of_snapshot(run.ids, snapshot_id)
                run.disagree(Check.ROWS, step, f"snapshot {snapshot_id}\n{difference}")
                return


def check_structure(run: Run, snapshot_ids: Sequence[int]) -> None:
    for snapshot_id in snapshot_ids:
        difference = describe_structure_difference(
            snapshot_structure(run.ours.root, snapshot_id, run.sequences),
            snapshot_structure(run.theirs.root, snapshot_id, run.sequences),
        )
        if difference is not None:
            step = step_of_snapshot(run.ids, snapshot_id)
            run.disagree(Check.STRUCTURE, step, f"snapshot {snapshot_id}\n{difference}")
            return


def check_changelogs(run: Run) -> None:
    """``audit_log`` over each step's snapshots, both tables read by the reference."""
    before = (0, 0)
    for index, after in enumerate(run.ids):
        ours = run_reference.read_audit_log(run.ours.root, before[0], after[0])
        theirs = run_reference.read_audit_log(run.theirs.root, before[1], after[1])
        difference = describe_difference(OURS, ours, THEIRS, theirs)
        if difference is not None:
            run.disagree(Check.CHANGELOG, index, f"audit_log {before}..{after}\n{difference}")
            return
        before = after


def has_overwrite_after_write(workload: SparkWorkload) -> bool:
    """An overwrite following a write: the reference continues the bucket's sequence numbers
    where Java 0.9 and spark_impl restart them (regression case
    ``reference-overwrite-restores-sequence-numbers``)."""
    writes = [s for s in workload.steps if isinstance(s, Write)]
    return any(s.overwrite is not None for s in writes[1:])


def run_workload(
    spark: Any,
    workload: SparkWorkload,
    base: str | None = None,
    *,
    stream: bool = False,
    sequences: bool | None = None,
) -> Outcome:
    """Run ``workload`` on both engines in fresh tables under ``base`` (a temporary directory
    when ``None``) and compare (the checks of the module docstring). Sequence numbers are
    compared unless ``sequences`` is False; by default they are not where the known
    difference :func:`has_overwrite_after_write` would show."""
    if sequences is None:
        sequences = not has_overwrite_after_write(workload)
    for _ in range(INFRA_ATTEMPTS):
        with tempfile.TemporaryDirectory(prefix="paimon-kit-spark-diff-", dir=base) as directory:
            try:
                outcome = _run(spark, workload, Path(directory), stream=stream, sequences=sequences)
            except Exception as error:  # a reader or a comparison crashing is a finding too
                outcome = Outcome(disagreements=[Disagreement(Check.CRASH, -1, short_error(error))])
        if not is_infrastructure_failure(outcome):
            return outcome
    found = [replace(d, check=Check.INFRA) for d in outcome.disagreements]
    return replace(outcome, disagreements=found)


INFRA_ATTEMPTS = 2


def is_infrastructure_failure(outcome: Outcome) -> bool:
    """Spark failed to start a Python worker (under heavy load): the workload is run again."""
    return any(m in d.detail for d in outcome.disagreements for m in INFRA_MARKERS)


def _run(
    spark: Any, workload: SparkWorkload, directory: Path, *, stream: bool, sequences: bool
) -> Outcome:
    spec = workload.spec
    run = Run(
        ReferenceRunner(str(directory / "reference"), spec),
        SparkRunner(spark, str(directory / "spark"), spec),
        Outcome(streamed=stream),
        sequences,
    )
    spark_stream: SparkStream | None = None
    stream_changes: tuple[list[Change], list[Change]] = ([], [])
    reader = None
    try:
        for index, (step, route) in enumerate(zip(workload.steps, workload.routes, strict=True)):
            if not apply_step(run, index, step, route):
                break
            if stream and index == 0 and run.ids[0][0] > 0:
                reader = Table(IO, run.ours.root).stream()
                stream_changes[0].extend(reference_stream_changes(reader))
                spark_stream = SparkStream(
                    spark, run.theirs.root, spec, str(directory / "checkpoint")
                )
                spark_stream.drain()
        if run.outcome.disagreements:
            return run.outcome
        if reader is not None and spark_stream is not None:
            stream_changes[0].extend(reference_stream_changes(reader))
            stream_changes[1].extend(spark_stream.drain())
    except Exception as error:  # a stream or a reference reader failing is a finding
        run.disagree(Check.STREAM, len(run.ids) - 1, f"streaming read failed: {short_error(error)}")
        return run.outcome
    finally:
        if spark_stream is not None:
            spark_stream.stop()
    compare_tables(run, spark, spec)
    if spark_stream is not None:
        difference = describe_difference(
            f"{OURS} stream", stream_changes[0], f"{THEIRS} stream", stream_changes[1]
        )
        if difference is not None:
            run.disagree(Check.STREAM, len(run.ids) - 1, difference)
    return run.outcome


def check_reference_side(
    run: Run, snapshot_ids: Sequence[int]
) -> tuple[dict[int, list[list[Change]]], list[Disagreement]]:
    """What needs no Spark: the structure check, the changelog check (its disagreements
    returned apart, reported after the rows as before), the reference's reads of both."""
    check_structure(run, snapshot_ids)
    found = len(run.outcome.disagreements)
    check_changelogs(run)
    changelog = run.outcome.disagreements[found:]
    del run.outcome.disagreements[found:]
    return read_reference_rows(run, snapshot_ids), changelog


def compare_tables(run: Run, spark: Any, spec: TableSpec) -> None:
    ours_ids = run_reference.snapshot_ids(run.ours.root)
    theirs_ids = run_reference.snapshot_ids(run.theirs.root)
    if ours_ids != theirs_ids:
        run.disagree(Check.SNAPSHOTS, len(run.ids) - 1, f"snapshot ids {ours_ids} vs {theirs_ids}")
        return
    run.outcome.snapshots = len(ours_ids)
    if not ours_ids:
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        # The reference reads and compares in a thread while Spark reads here.
        checked = pool.submit(check_reference_side, run, ours_ids)
        spark_rows = read_spark_rows(spark, spec, run, ours_ids)
        reference_rows, changelog = checked.result()
    check_rows(run, reference_rows, spark_rows, ours_ids)
    run.outcome.disagreements.extend(changelog)


# --------------------------------------------------------------------------------------------
# Many workloads (the long run and the summaries)
# --------------------------------------------------------------------------------------------


@dataclass
class Summary:
    """Totals over many workloads."""

    workloads: int = 0
    steps: int = 0
    snapshots: int = 0
    refused: int = 0
    streamed: int = 0
    seconds: float = 0.0
    disagreements: list[tuple[SparkWorkload, Disagreement]] = field(default_factory=list)
    by_check: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)

    def add(self, workload: SparkWorkload, outcome: Outcome) -> None:
        self.workloads += 1
        self.steps += outcome.steps
        self.snapshots += outcome.snapshots
        self.refused += outcome.refused
        self.streamed += outcome.streamed
        self.seconds = time.monotonic() - self.started
        for disagreement in outcome.disagreements:
            self.by_check[disagreement.check.value] += 1
            if disagreement.check is not Check.INFRA:
                self.disagreements.append((workload, disagreement))

    def lines(self) -> Iterator[str]:
        yield (
            f"workloads: {self.workloads}, steps: {self.steps}, snapshots compared:"
            f" {self.snapshots}, refused by both: {self.refused}, streamed: {self.streamed},"
            f" disagreements: {len(self.disagreements)} (by check, with Spark infrastructure"
            f" failures apart: {dict(self.by_check)}),"
            f" time: {self.seconds:.0f} s"
        )


def describe_workload(workload: SparkWorkload) -> str:
    steps = "\n".join(
        f"    {i}: {route.value if route else 'compact'} {step}"
        for i, (step, route) in enumerate(zip(workload.steps, workload.routes, strict=True))
    )
    spec = workload.spec
    return (
        f"  layout: {workload.label}\n  fields: {[(f.name, str(f.type)) for f in spec.fields]}\n"
        f"  primary keys: {spec.primary_keys}, partition keys: {spec.partition_keys}\n"
        f"  options: {dict(spec.options)}\n  steps:\n{steps}"
    )
