"""The ``paimon`` source as Spark users use it: DataFrames and temporary views reused across
queries under every filter shape, readers running while others append, write tasks that fail
and are retried, speculative execution, and streaming reads.

Expected rows are the rows each test wrote, filtered in Python (checked once against the
reference's read), never what ``spark_impl`` answers. Issue 18: a query pushing a partition
filter left its pruned plan on the relation and a later query of the same DataFrame or view
read only that partition (``test_reused_relations``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from conformance.unit.spark_impl import user_pattern_jobs as jobs
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.store import orphans, query
from reference.table import Table

pytestmark = pytest.mark.spark
ADAPTIVE = "spark.sql.adaptive.enabled"


@pytest.fixture(autouse=True)
def spark_defaults(spark: Any) -> Iterator[None]:
    """These tests use Spark as users run it: adaptive execution on (Spark's default; the
    suite's other sessions turn it off for speed, ``conformance.spark_settings``)."""
    before = spark.conf.get(ADAPTIVE)
    spark.conf.set(ADAPTIVE, "true")
    yield
    spark.conf.set(ADAPTIVE, before)

IO = LocalFileIO()
Row = tuple[Any, ...]
FIELDS = [
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.IntType()),
    t.DataField(2, "dt", t.VarCharType(t.MAX_LENGTH, nullable=False)),
]
SPARK_SCHEMA = "k int, v int, dt string"
DAYS = tuple(f"2024-01-0{d}" for d in range(1, 6))
COMMITS = 3
ROWS_PER_COMMIT = 60
TABLE_KINDS = {
    "append": ([], {"bucket": "-1"}),
    "primary-key": (["dt", "k"], {"bucket": "2"}),
}
JOB_TIMEOUT_SECONDS = 600


class Shape(NamedTuple):
    """A filter as SQL and as the Python rule over ``(k, v, dt)``."""

    sql: str
    keep: Callable[[Row], bool]


SHAPES = {
    "partition": Shape("dt = '2024-01-04'", lambda r: r[2] == "2024-01-04"),
    "key": Shape("k < 40", lambda r: r[0] < 40),
    "value": Shape("v > 70", lambda r: r[1] is not None and r[1] > 70),
    "in": Shape("dt IN ('2024-01-01', '2024-01-03')", lambda r: r[2] in DAYS[0:3:2]),
    "is-null": Shape("v IS NULL", lambda r: r[1] is None),
    "or": Shape("dt = '2024-01-02' OR v > 85", lambda r: r[2] == DAYS[1] or (r[1] or 0) > 85),
    "and": Shape("dt = '2024-01-05' AND k >= 100", lambda r: r[2] == DAYS[4] and r[0] >= 100),
}


def commit_rows(commit: int) -> list[Row]:
    """The rows of one commit: keys ``60c ..``, values ``30c + i % 30`` (each commit's files
    have their own key and value ranges, so statistics can prune them), some nulls."""
    base = commit * ROWS_PER_COMMIT
    return [
        (base + i, None if i % 13 == 0 else 30 * commit + i % 30, DAYS[i % len(DAYS)])
        for i in range(ROWS_PER_COMMIT)
    ]


def reference_rows(root: str) -> Counter[Row]:
    """The reference's read of the latest snapshot."""
    return Counter(row for _, row in query.read_table(IO, root, query.LATEST).rows)


def rows_of(frame: Any) -> Counter[Row]:
    return Counter(tuple(r) for r in frame.collect())


def append(spark: Any, root: str, rows: list[Row]) -> None:
    spark.createDataFrame(rows, SPARK_SCHEMA).write.format("paimon").mode("append").save(root)


class Written(NamedTuple):
    root: str
    rows: list[Row]

    def expected(self, shape: str | None = None) -> Counter[Row]:
        keep = SHAPES[shape].keep if shape else (lambda _: True)
        return Counter(r for r in self.rows if keep(r))


@pytest.fixture(scope="module", params=sorted(TABLE_KINDS))
def written(request: Any, spark: Any, tmp_path_factory: Any) -> Written:
    """A table partitioned by ``dt`` written by Spark in ``COMMITS`` appends."""
    primary_keys, options = TABLE_KINDS[request.param]
    root = str(tmp_path_factory.mktemp(request.param) / "t")
    Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=primary_keys, options=options
    )
    rows: list[Row] = []
    for commit in range(COMMITS):
        append(spark, root, commit_rows(commit))
        rows += commit_rows(commit)
    assert reference_rows(root) == Counter(rows)
    return Written(root, rows)


ORDER = sorted(SHAPES)


def test_same_dataframe_filtered_then_unfiltered(spark: Any, written: Written) -> None:
    frame = spark.read.format("paimon").load(written.root)
    for shape in ORDER:
        assert rows_of(frame.filter(SHAPES[shape].sql)) == written.expected(shape), shape
        assert frame.count() == len(written.rows), shape
    assert rows_of(frame) == written.expected()


def test_same_dataframe_filter_a_then_filter_b(spark: Any, written: Written) -> None:
    frame = spark.read.format("paimon").load(written.root)
    for shape in [*ORDER, *reversed(ORDER)]:
        assert rows_of(frame.filter(SHAPES[shape].sql)) == written.expected(shape), shape


def test_temporary_view_with_and_without_where(spark: Any, written: Written) -> None:
    view = f"user_patterns_{Path(written.root).parent.name.replace('-', '_')}"
    spark.sql(
        f"CREATE OR REPLACE TEMPORARY VIEW {view} USING paimon OPTIONS (path '{written.root}')"
    )
    try:
        for shape in ORDER:
            where = spark.sql(f"SELECT k, v, dt FROM {view} WHERE {SHAPES[shape].sql}")
            assert rows_of(where) == written.expected(shape), shape
            total = spark.sql(f"SELECT count(*) FROM {view}").collect()[0][0]
            assert total == len(written.rows), shape
    finally:
        spark.catalog.dropTempView(view)


def test_two_dataframes_of_one_path(spark: Any, written: Written) -> None:
    first = spark.read.format("paimon").load(written.root)
    second = spark.read.format("paimon").load(written.root)
    for shape in ORDER:
        assert rows_of(first.filter(SHAPES[shape].sql)) == written.expected(shape), shape
        assert rows_of(second) == written.expected(), shape


def test_cached_dataframe_then_filters(spark: Any, written: Written) -> None:
    frame = spark.read.format("paimon").load(written.root).cache()
    try:
        for shape in ORDER:
            assert rows_of(frame.filter(SHAPES[shape].sql)) == written.expected(shape), shape
            assert frame.count() == len(written.rows), shape
    finally:
        frame.unpersist()


# --------------------------------------------------------------------------------------------
# Readers while others write
# --------------------------------------------------------------------------------------------


def test_readers_during_appends_see_whole_snapshots(spark: Any, tmp_path: Path) -> None:
    """A reader thread reads (fresh and reused DataFrames) while another appends: every read
    is the rows of one committed prefix of the appends, never part of one."""
    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, partition_keys=["dt"], options={"bucket": "-1"})
    batches = [commit_rows(c) for c in range(4)]
    prefixes = [Counter(r for b in batches[:n] for r in b) for n in range(len(batches) + 1)]
    seen: list[Counter[Row]] = []
    errors: list[BaseException] = []

    def write() -> None:
        try:
            for batch in batches:
                append(spark, root, batch)
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    writer = threading.Thread(target=write)
    reused = spark.read.format("paimon").load(root)
    writer.start()
    while writer.is_alive():
        seen.append(rows_of(spark.read.format("paimon").load(root)))
        seen.append(rows_of(reused.filter("k >= 0")))
        seen.append(rows_of(reused))
    writer.join()
    assert not errors
    seen.append(rows_of(spark.read.format("paimon").load(root)))
    assert all(rows in prefixes for rows in seen), [sum(s.values()) for s in seen]
    assert seen[-1] == prefixes[-1]


# --------------------------------------------------------------------------------------------
# Retried and speculative write tasks (their own SparkSession, in a subprocess)
# --------------------------------------------------------------------------------------------


class JobResult(NamedTuple):
    warehouse: Path
    attempts: list[str]


@pytest.fixture(scope="module")
def retried_jobs(tmp_path_factory: Any) -> JobResult:
    """Runs :mod:`user_pattern_jobs` once (``local[2,4]``, speculation on)."""
    pytest.importorskip("pyspark")
    warehouse = tmp_path_factory.mktemp("jobs")
    for name in jobs.TABLES:
        Table.create(IO, str(warehouse / name), FIELDS, partition_keys=["dt"])
    result = warehouse / "result.json"
    command = [sys.executable, "-m", jobs.__name__, str(warehouse), str(result)]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=JOB_TIMEOUT_SECONDS, check=False
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return JobResult(warehouse, json.loads(result.read_text())["attempts"])


def expected_job_rows() -> Counter[Row]:
    return Counter(jobs.expected_row(k) for k in range(jobs.ROWS))


def check_exactly_once(root: Path) -> None:
    """Every snapshot reads (each file it references exists) and the latest holds each row
    once; files no snapshot references are allowed (a failed attempt's output)."""
    for snapshot in sorted((root / "snapshot").glob("snapshot-*")):
        snapshot_id = int(snapshot.name.removeprefix("snapshot-"))
        query.read_table(IO, str(root), query.TimeTravel(snapshot_id=snapshot_id))
    assert reference_rows(str(root)) == expected_job_rows()


def unreferenced_data_files(root: Path) -> list[str]:
    used = orphans.read_used_names(IO, str(root))
    candidates = orphans.list_candidates(IO, str(root), ["main"])
    return [p for p in candidates if "bucket-" in p and orphans.compute_name(p) not in used]


def test_task_failing_before_the_write_is_retried_once(retried_jobs: JobResult) -> None:
    assert f"before_write-{jobs.FAILING_PARTITION}-1" in retried_jobs.attempts
    check_exactly_once(retried_jobs.warehouse / "before_write")


def test_attempt_that_wrote_files_then_failed_is_not_committed(retried_jobs: JobResult) -> None:
    """Two attempts of one task wrote files (a duplicate attempt): the rows land once and
    the failed attempt's files stay unreferenced."""
    wrote = [a for a in retried_jobs.attempts if a.startswith("after_write_wrote")]
    assert f"after_write_wrote-{jobs.FAILING_PARTITION}-0" in wrote
    assert f"after_write_wrote-{jobs.FAILING_PARTITION}-1" in wrote
    root = retried_jobs.warehouse / "after_write"
    check_exactly_once(root)
    assert unreferenced_data_files(root)


def test_speculation_settings_write_each_row_once(retried_jobs: JobResult) -> None:
    """With speculation on and a slow task the rows land once (local mode launches no
    speculative copy: see :mod:`user_pattern_jobs`; the duplicate attempt is tested above, and
    real speculative copies on a standalone cluster in ``test_speculation_cluster.py``)."""
    assert f"speculation-{jobs.SLOW_PARTITION}-0" in retried_jobs.attempts
    check_exactly_once(retried_jobs.warehouse / "speculation")


# --------------------------------------------------------------------------------------------
# Streaming
# --------------------------------------------------------------------------------------------


def run_available_now(spark: Any, root: str, checkpoint: Path) -> Counter[Row]:
    """One ``availableNow`` run of a stream over the table; the rows it delivered."""
    got: Counter[Row] = Counter()

    def collect(batch: Any, _: int) -> None:
        got.update(tuple(r) for r in batch.collect())

    stream = spark.readStream.format("paimon").option("read.row-kind", "true").load(root)
    query_handle = (
        stream.writeStream.foreachBatch(collect)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query_handle.awaitTermination()
    return got


def test_stream_reads_each_committed_row_once(spark: Any, tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, partition_keys=["dt"], options={"bucket": "-1"})
    checkpoint = tmp_path / "checkpoint"
    append(spark, root, commit_rows(0))
    append(spark, root, commit_rows(1))
    first = run_available_now(spark, root, checkpoint)
    assert first == Counter((*r, "+I") for r in commit_rows(0) + commit_rows(1))
    append(spark, root, commit_rows(2))
    assert run_available_now(spark, root, checkpoint) == Counter((*r, "+I") for r in commit_rows(2))
    assert run_available_now(spark, root, checkpoint) == Counter()
