"""The engines under benchmark, each reduced to the few calls a workload makes.

* ``spark_impl`` through its public API only (``register``, ``write_table`` (append tables
  through Spark's Parquet writer, others through the Python writer: the native primary-key
  route, ``native_kv_write``, measured slower at 1M and 10M, is opt-in), ``read_table`` (the hybrid
  read), ``format("paimon")`` for point queries, ``jobs.compact``), on a local-mode session
  per master;
* ``spark-native``: Spark's own Parquet path on the same data and files (``df.write.parquet``
  of the same frames, ``spark.read.parquet`` of the snapshot's live data files, unmerged), at
  local[2]: the yardstick of spark_impl's ratios (issue 20);
* ``pypaimon-rust`` 0.4 (write and read), ``pypaimon`` 2.1 (write and read);
* ``reference`` (the pure-Python oracle; small sizes only);
* Java Paimon 0.9 through the conformance harness (full compaction);
* the physical floor: pyarrow writing / reading the same Parquet data directly.

Every read returns a :class:`~bench.workloads.Checksum` that the caller compares with the
workload's expected checksum before the time counts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from bench import features as f
from bench import workloads as w
from reference.io import LocalFileIO
from reference.spec.predicate import Predicate, equal
from reference.spec.schema import SetOption
from reference.store import metadata
from reference.store.query import load_schemas
from reference.store.read import compute_pruning_predicate
from reference.store.scan import plan_scan
from reference.table import Table

ENGINE_NAMES = (
    "spark-local1",
    "spark-local2",
    "spark-native",
    "pypaimon-rust",
    "pypaimon",
    "reference",
    "java",
    "floor",
)
"""Every engine of the suites, in the order the report shows them."""
PYTHON_ENGINE_NAMES = tuple(name for name in ENGINE_NAMES if name != "java")
"""The engines a suite runs in this process (Java runs only where its harness is timed)."""
SPARK_MASTERS = ("local[1]", "local[2]")
SPARK_DRIVER_MEMORY = os.environ.get("BENCH_SPARK_DRIVER_MEMORY", "4g")


# --------------------------------------------------------------------------------------------
# spark_impl
# --------------------------------------------------------------------------------------------


def spark_builder(master: str, *, ui: bool = False, daemon_module: str | None = None) -> Any:
    """A local-mode session builder: one shuffle partition per core, quiet logs."""
    from pyspark.sql import SparkSession  # noqa: PLC0415 (pyspark is optional)

    builder = (
        SparkSession.builder.master(master)
        .appName("paimon-kit-bench")
        .config("spark.ui.enabled", str(ui).lower())
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", master[len("local[") : -1])
        .config("spark.driver.memory", SPARK_DRIVER_MEMORY)
    )
    if daemon_module is not None:
        builder = builder.config("spark.python.daemon.module", daemon_module)
    return builder


def start_spark(master: str, *, ui: bool = False, daemon_module: str | None = None) -> Any:
    """Start a session on ``master``, register ``paimon`` and run one trivial job so that the
    Python workers exist (their start is session start, not job time)."""
    import spark_impl  # noqa: PLC0415

    spark = spark_builder(master, ui=ui, daemon_module=daemon_module).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark_impl.register(spark)
    cores = int(master[len("local[") : -1])
    spark.sparkContext.parallelize(range(cores), cores).map(lambda x: x).collect()
    return spark


class SparkSessions:
    """One session at a time in this process; asking for another master restarts it (the JVM
    stays, so its heap size is fixed by the first session)."""

    def __init__(self) -> None:
        self._spark: Any = None
        self._master: str | None = None
        self.warm_up_seconds: dict[str, list[float]] = {}

    def get(self, master: str) -> Any:
        if self._master != master:
            self.stop()
            self._spark = start_spark(master)
            self._master = master
            begin = time.perf_counter()
            warm_up(self._spark)
            self.warm_up_seconds.setdefault(master, []).append(time.perf_counter() - begin)
        return self._spark

    def stop(self) -> None:
        if self._spark is not None:
            self._spark.stop()
        self._spark, self._master = None, None


WARM_UP_ROWS = 1_000


def warm_up(spark: Any) -> None:
    """One tiny W1 write, merge-read and compaction, so that the Python workers have imported
    spark_impl before anything is timed (a worker's first task pays for its imports)."""
    directory = tempfile.mkdtemp(prefix="bench-warm-up-")
    try:
        root = w.create_pk_table(directory, "warm_up")
        spark_write_pk(spark, root, WARM_UP_ROWS)
        spark_read(spark, root)
        spark_compact(spark, root)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


SESSION_START_SCRIPT = textwrap.dedent(
    """
    import sys, time
    begin = time.perf_counter()
    from bench.engines import start_spark
    spark = start_spark(sys.argv[1])
    print("SESSION_START", time.perf_counter() - begin)
    spark.stop()
    """
)


def measure_session_start(master: str) -> float:
    """Seconds from a fresh interpreter to a registered session with live Python workers."""
    project = str(Path(__file__).resolve().parents[1])
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [project, os.environ.get("PYTHONPATH")])),
    }
    result = subprocess.run(
        [sys.executable, "-c", SESSION_START_SCRIPT, master],
        capture_output=True,
        text=True,
        check=False,
        env=environment,
        cwd=project,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("SESSION_START")]
    if result.returncode != 0 or not lines:
        raise RuntimeError(f"session start failed: {result.stderr[-2000:]}")
    return float(lines[0].split()[1])


def spark_write_commits(
    spark: Any, root: str, rows: int, frames: Callable[[Any, int, int], Any]
) -> None:
    """Write the five commits ``frames(spark, rows, commit)`` with the public
    ``spark_impl.write_table``: Spark's Parquet writer for append tables, the Python writer for
    primary-key tables (at 10M rows, W1 in one session: 40.7 s there against 54.2 s through
    the opt-in ``native_kv_write``)."""
    import spark_impl  # noqa: PLC0415

    for commit in range(w.COMMITS):
        spark_impl.write_table(frames(spark, rows, commit), root)


def spark_write_pk(spark: Any, root: str, rows: int) -> None:
    spark_write_commits(spark, root, rows, w.commit_spark_frame)


def spark_write_append(spark: Any, root: str, rows: int) -> None:
    spark_write_commits(spark, root, rows, w.append_commit_spark_frame)


def spark_read(spark: Any, root: str) -> w.Checksum:
    """The hybrid read (``spark_impl.read_table``)."""
    import spark_impl  # noqa: PLC0415

    return w.spark_checksum(spark_impl.read_table(spark, root))


def spark_native_write(
    spark: Any, directory: str, rows: int, frames: Callable[[Any, int, int], Any]
) -> None:
    """``spark-native``: the same five frames appended with ``df.write.parquet`` (zstd)."""
    for commit in range(w.COMMITS):
        frame = frames(spark, rows, commit)
        frame.write.mode("append").option("compression", "zstd").parquet(directory)


def spark_native_read(spark: Any, paths: Sequence[str]) -> w.Checksum:
    """``spark-native``: ``spark.read.parquet`` of the given data files, nothing merged."""
    return w.spark_checksum(spark.read.parquet(*paths))


def spark_compact(spark: Any, root: str) -> None:
    from spark_impl.jobs import compact  # noqa: PLC0415

    compact(spark, root, full=True)


# --------------------------------------------------------------------------------------------
# pypaimon-rust and pypaimon
# --------------------------------------------------------------------------------------------


def split_root(root: str) -> tuple[str, str, str]:
    """``(warehouse, database, table)`` of a root made by :func:`bench.workloads.table_root`."""
    table = Path(root)
    return str(table.parent.parent), table.parent.name.removesuffix(".db"), table.name


def rust_table(root: str) -> Any:
    from pypaimon_rust.datafusion import PaimonCatalog  # noqa: PLC0415

    warehouse, database, name = split_root(root)
    return PaimonCatalog({"warehouse": warehouse}).get_table((database, name))


def rust_write(root: str, commits: Sequence[pa.Table]) -> None:
    for data in commits:
        builder = rust_table(root).new_batch_write_builder()
        writer = builder.new_write()
        for batch in data.to_batches():
            writer.write_arrow(batch)
        committer = builder.new_commit()
        committer.commit(writer.prepare_commit())
        committer.close()


def rust_read(root: str) -> pa.Table:
    builder = rust_table(root).new_read_builder()
    batches = builder.new_read().read(builder.new_scan().plan().splits())
    return pa.Table.from_batches(batches) if batches else w.ARROW_SCHEMA.empty_table()


def pypaimon_table(root: str) -> Any:
    from pypaimon import CatalogFactory  # noqa: PLC0415

    warehouse, database, name = split_root(root)
    return CatalogFactory.create({"warehouse": warehouse}).get_table(f"{database}.{name}")


def pypaimon_write(root: str, commits: Sequence[pa.Table]) -> None:
    for data in commits:
        builder = pypaimon_table(root).new_batch_write_builder()
        writer = builder.new_write()
        writer.write_arrow(data)
        committer = builder.new_commit()
        committer.commit(writer.prepare_commit())
        writer.close()
        committer.close()


def pypaimon_read(root: str) -> pa.Table:
    builder = pypaimon_table(root).new_read_builder()
    result = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return w.ARROW_SCHEMA.empty_table() if result is None else result


# --------------------------------------------------------------------------------------------
# reference
# --------------------------------------------------------------------------------------------


def reference_write(root: str, commits: Sequence[list[tuple[Any, ...]]]) -> None:
    table = Table.open(LocalFileIO(), root)
    for rows in commits:
        table.write_and_commit(rows)


def reference_read(root: str) -> w.Checksum:
    return rows_checksum([row for _, row in Table.open(LocalFileIO(), root).read().rows])


def rows_checksum(rows: Sequence[tuple[Any, ...]]) -> w.Checksum:
    """The checksum of ``(k, v, x)`` rows."""
    return w.Checksum(
        len(rows),
        sum(row[0] for row in rows),
        float(sum(row[2] for row in rows)),
        sum(len(row[1]) for row in rows),
    )


def allow_compaction(root: str) -> None:
    """Set ``write-only`` to false on the table (a schema change, through the reference)."""
    Table.open(LocalFileIO(), root).alter([SetOption("write-only", "false")])


def reference_compact(root: str) -> None:
    Table.open(LocalFileIO(), root).compact(full=True)


# --------------------------------------------------------------------------------------------
# Java 0.9 (through the conformance harness)
# --------------------------------------------------------------------------------------------


def java_harness() -> Any:
    """A started harness, or ``None`` when Java cannot run here."""
    from conformance.java.harness import JavaHarness, java_unavailable_reason  # noqa: PLC0415

    if java_unavailable_reason() is not None:
        return None
    harness = JavaHarness(timeout=3600.0, jvm_args=("-Duser.timezone=UTC", "-Xmx6g"))
    harness.start()
    harness.ping()
    return harness


def java_compact(harness: Any, root: str) -> None:
    harness.compact(root, full=True, commit=True)


# --------------------------------------------------------------------------------------------
# The physical floor
# --------------------------------------------------------------------------------------------


def live_data_files(root: str, predicate: Predicate | None = None) -> list[str]:
    """Paths of the data files the latest snapshot reads (planned by the reference, for
    ``predicate`` when given: statistics and embedded file indexes prune)."""
    file_io = LocalFileIO()
    snapshot = metadata.read_latest_snapshot(file_io, root)
    if snapshot is None:
        return []
    schemas = load_schemas(file_io, root)
    schema = schemas[snapshot.schema_id]
    pruning = compute_pruning_predicate(predicate, schema)
    plan = plan_scan(file_io, root, snapshot, schema, schemas, predicate=pruning)
    return [f"{s.bucket_path}/{meta.file_name}" for s in plan.splits for meta in s.files]


def list_parquet(directory: str) -> list[str]:
    return sorted(str(p) for p in Path(directory).glob("*.parquet"))


def floor_read(paths: Sequence[str]) -> pa.Table:
    """Every row of the files, decoded by pyarrow, nothing merged (files whose columns differ
    only in nullability, as Spark's commits of one frame kind may, are concatenated as one)."""
    return pa.concat_tables([pq.read_table(p) for p in paths], promote_options="permissive")


def floor_write(directory: str, commits: Sequence[pa.Table]) -> None:
    """Write each commit as one zstd Parquet file per bucket (rows split evenly)."""
    os.makedirs(directory, exist_ok=True)
    for commit, data in enumerate(commits):
        step = -(-data.num_rows // w.BUCKETS)
        for bucket in range(w.BUCKETS):
            part = data.slice(bucket * step, step)
            pq.write_table(part, f"{directory}/data-{commit}-{bucket}.parquet", compression="zstd")


FLOOR_CHANGELOG = "changelog"
"""The floor's changelog files go to this subdirectory of its data files."""


def floor_write_with_changelog(
    directory: str, commits: Sequence[pa.Table], changes: Sequence[pa.Table]
) -> None:
    """:func:`floor_write` of the data, and of the changelog into :data:`FLOOR_CHANGELOG`."""
    floor_write(directory, commits)
    floor_write(f"{directory}/{FLOOR_CHANGELOG}", changes)


def with_system_columns(data: pa.Table, first_sequence: int) -> pa.Table:
    """``data`` with Paimon's key, sequence and row-kind columns in front (the bytes a
    primary-key data file holds)."""
    rows = data.num_rows
    sequence = pa.array(np.arange(first_sequence, first_sequence + rows, dtype=np.int64))
    kinds = pa.array(np.zeros(rows, dtype=np.int8))
    return pa.Table.from_arrays(
        [data["k"], sequence, kinds, *data.columns],
        names=["_KEY_k", "_SEQUENCE_NUMBER", "_VALUE_KIND", *data.column_names],
    )


# --------------------------------------------------------------------------------------------
# Point queries (W5): ``v = value``, exact rows, by every engine
# --------------------------------------------------------------------------------------------


def spark_point_query(spark: Any, root: str, value: str) -> w.Checksum:
    """``read_table`` with the filter as part of the DataFrame, so the plan is pruned by the
    statistics and the embedded bloom filters (a filter Spark pushes into ``format("paimon")``
    prunes nothing: Spark may reuse that plan for another query)."""
    import spark_impl  # noqa: PLC0415

    return w.spark_checksum(spark_impl.read_table(spark, root, [(f.INDEX_COLUMN, "=", value)]))


def reference_point_query(root: str, value: str) -> w.Checksum:
    result = Table.open(LocalFileIO(), root).read(predicate=equal(f.INDEX_COLUMN, value))
    return rows_checksum([row for _, row in result.rows])


def reference_planned_files(root: str, column: str, value: str) -> int:
    """Data files the reference plans for ``column = value`` (after pruning by statistics
    and embedded indexes; ``.index`` files are consulted only when a file is read)."""
    return len(live_data_files(root, equal(column, value)))


def spark_scan_files(root: str, column: str, value: str) -> dict[str, int]:
    """Files spark_impl plans and reads for ``column = value`` (its own planner and index
    evaluation, run on the driver)."""
    from spark_impl.read import count_scan_files  # noqa: PLC0415

    counts = count_scan_files(LocalFileIO(), root, equal(column, value))
    return {"files_planned_by_spark": counts.planned, "files_read_by_spark": counts.read}


def rust_point_query(root: str, value: str) -> w.Checksum:
    leaf = {"method": "equal", "field": f.INDEX_COLUMN, "literals": [value]}
    builder = rust_table(root).new_read_builder().with_filter(leaf)
    batches = builder.new_read().read(builder.new_scan().plan().splits())
    data = pa.Table.from_batches(batches) if batches else w.ARROW_SCHEMA.empty_table()
    return w.arrow_checksum(data.filter(pc.equal(data[f.INDEX_COLUMN], value)))


def pypaimon_point_query(root: str, value: str) -> w.Checksum:
    builder = pypaimon_table(root).new_read_builder()
    builder = builder.with_filter(builder.new_predicate_builder().equal(f.INDEX_COLUMN, value))
    data = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    if data is None:
        return w.arrow_checksum(w.ARROW_SCHEMA.empty_table())
    return w.arrow_checksum(data.filter(pc.equal(data[f.INDEX_COLUMN], value)))


def floor_point_query(paths: Sequence[str], value: str) -> w.Checksum:
    """pyarrow's dataset scan with the filter pushed into Parquet (row-group statistics)."""
    dataset = ds.dataset(list(paths), format="parquet")
    return w.arrow_checksum(dataset.to_table(filter=pc.field(f.INDEX_COLUMN) == value))
