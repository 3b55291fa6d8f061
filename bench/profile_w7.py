"""Where W7's deletion-vector read time goes, against Spark's own scan of the same files.

    python -m bench.profile_w7 <W7 table root> [snapshot id] [parquet]

In one ``local[2]`` session, after the bench's own warm-up (:func:`bench.engines.warm_up`):

1. *The first query*, as the bench times it (one round, the first read of the table in the
   session), stage by stage: planning (``plan_read``), the vectors (index files read and
   decoded, bitmaps built: :func:`spark_impl.native_read.plan_native_scans`), the frames
   (the DataFrames built, the bitmaps literal sent to the JVM), the run (the checksum job:
   Spark's analysis, code generation and the scan); then the same stages of a second read.
   With ``parquet`` as the last argument, a ``spark.read.parquet`` of the same files runs
   first (twice): whatever the first query pays then shows on that query instead.
2. *Steady state*, best of three rounds, the stages alternating within each round (load
   changes hit all of them alike), the checksum query (count and sums, as the bench computes
   it) over: the snapshot's files through ``spark.read.parquet`` (the yardstick: every row,
   deleted or not); the same with ``_metadata.row_index`` selected (what exposing the row
   position costs); read_table's scans (rule 5: each row's bit tested in the scan's own
   condition, no planning); ``spark_impl.read_table`` itself (planning included).
3. read_table's physical plan (lines cut).
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench import engines as e
from bench import workloads as w
from reference.io import LocalFileIO
from spark_impl import native_read as nr
from spark_impl.plan import LATEST, TimeTravel, plan_read

ROUNDS = 3
PLAN_LINE = 160


def load() -> str:
    with open("/proc/loadavg") as loadavg:
        return loadavg.read().split()[0]


def compare(stages: Sequence[tuple[str, Callable[[], Any]]]) -> None:
    """Each stage's best of :data:`ROUNDS`, the stages alternating within a round."""
    times: dict[str, list[float]] = {name: [] for name, _ in stages}
    for _ in range(ROUNDS):
        for name, make in stages:
            started = time.perf_counter()
            w.spark_checksum(make())
            times[name].append(time.perf_counter() - started)
    for name, _ in stages:
        runs = " ".join(f"{t:.2f}" for t in times[name])
        print(f"{name:64s} {min(times[name]):6.2f} s  ({runs})", flush=True)
    print(f"1-minute load after the rounds: {load()}")


def staged_read(spark: Any, root: str, travel: TimeTravel, label: str) -> None:
    """One read_table, its stages timed apart (the same calls read_table makes)."""
    marks = [time.perf_counter()]
    plan = plan_read(LocalFileIO(), root, travel)
    marks.append(time.perf_counter())
    refs = [ref for split in nr.sort_splits(plan).native for ref in split.files]
    scans = nr.plan_native_scans(refs, plan.schema, {})
    marks.append(time.perf_counter())
    frame = nr.union_all([nr.read_native_scan(spark, scan, plan) for scan in scans])
    marks.append(time.perf_counter())
    w.spark_checksum(frame)
    marks.append(time.perf_counter())
    names = ("planning", "vectors", "frames", "run")
    parts = "  ".join(f"{n} {b - a:.2f}" for n, a, b in zip(names, marks, marks[1:], strict=False))
    print(f"{label:40s} {marks[-1] - marks[0]:6.2f} s  ({parts}; load {load()})", flush=True)


def first_queries(spark: Any, root: str, travel: TimeTravel) -> None:
    """Stage 1: the first and the second read of the table in this session."""
    for label in ("first read_table", "second read_table"):
        staged_read(spark, root, travel, label)


def yardstick_first(spark: Any, files: Sequence[str]) -> None:
    """Stage 1 with ``parquet``: Spark's own scan of the files before any read_table."""
    for label in ("first spark.read.parquet(files)", "second spark.read.parquet(files)"):
        started = time.perf_counter()
        w.spark_checksum(spark.read.parquet(*files))
        print(f"{label:40s} {time.perf_counter() - started:6.2f} s  (load {load()})", flush=True)


def native_scans(spark: Any, root: str, travel: TimeTravel) -> Any:
    """Rule 5 as read_table applies it, without the planning: the native scans, unioned."""
    plan = plan_read(LocalFileIO(), root, travel)
    refs = [ref for split in nr.sort_splits(plan).native for ref in split.files]
    scans = nr.plan_native_scans(refs, plan.schema, {})
    return lambda: nr.union_all([nr.read_native_scan(spark, scan, plan) for scan in scans])


def main(root: str, snapshot_id: str | None = None, first: str | None = None) -> None:
    from pyspark.sql import functions as F  # noqa: PLC0415

    import spark_impl  # noqa: PLC0415

    spark = e.start_spark("local[2]")
    e.warm_up(spark)
    travel = TimeTravel(int(snapshot_id), None, None) if snapshot_id else LATEST
    options = {"snapshot-id": snapshot_id} if snapshot_id else {}
    plan = plan_read(LocalFileIO(), root, travel)
    files = [ref.path for split in plan.splits for ref in split.files]
    if first == "parquet":
        yardstick_first(spark, files)
    first_queries(spark, root, travel)
    row_index = F.col("_metadata.row_index").alias("i")
    compare(
        [
            ("spark.read.parquet(files)", lambda: spark.read.parquet(*files)),
            (
                "+ _metadata.row_index selected",
                lambda: spark.read.parquet(*files).select("k", "v", "x", row_index).where("i >= 0"),
            ),
            ("read_table's scans (rule 5, no planning)", native_scans(spark, root, travel)),
            (
                "spark_impl.read_table (planning included)",
                lambda: spark_impl.read_table(spark, root, **options),
            ),
        ]
    )
    print_plan(spark_impl.read_table(spark, root, **options).select(F.count("*")))


def print_plan(frame: Any) -> None:
    """The formatted physical plan, each line cut at 160 characters (the bitmaps are a
    literal of the scan's condition: the whole plan text holds every word)."""
    plan = io.StringIO()
    with contextlib.redirect_stdout(plan):
        frame.explain(mode="formatted")
    for line in plan.getvalue().splitlines():
        print(line if len(line) <= PLAN_LINE else line[:PLAN_LINE] + " ...")


if __name__ == "__main__":
    main(*sys.argv[1:4])
