"""Where W7's deletion-vector read time goes, against Spark's own scan of the same files.

    python -m bench.profile_w7 <W7 table root> [snapshot id]   (e.g. a ``--bench-keep`` table)

Prints, best of three rounds in one ``local[2]`` session (the stages alternate within each
round, so load changes hit all of them alike), the checksum query (count and sums, as the bench
computes it) over: the snapshot's files through ``spark.read.parquet`` (the yardstick: every
row, deleted or not), the same with the ``_VALUE_KIND`` filter, the same with
``_metadata.file_name`` and ``_metadata.row_index`` selected; then the rows read_table keeps
two ways, from one plan: the scans of :func:`spark_impl.native_read.plan_native_scans` (rule 5:
each row's bit tested in the scan's own condition) and the same files anti-joined with a
broadcast frame of the bitmaps on the file name (the rule before, kept here as the baseline);
then ``spark_impl.read_table`` itself (planning included) and its physical plan (lines cut). The
differences between the lines are the costs of each part of the native DV path.
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from bench import engines as e
from bench import workloads as w
from reference.io import LocalFileIO
from spark_impl import native_read as nr
from spark_impl.plan import LATEST, ReadPlan, TimeTravel, plan_read

ROUNDS = 3
PLAN_LINE = 160


def compare(stages: Sequence[tuple[str, Callable[[], Any]]]) -> None:
    """Each stage's best of :data:`ROUNDS`, the stages alternating within a round."""
    times: dict[str, list[float]] = {name: [] for name, _ in stages}
    for _ in range(ROUNDS):
        for name, make in stages:
            started = time.perf_counter()
            w.spark_checksum(make())
            times[name].append(time.perf_counter() - started)
    with open("/proc/loadavg") as loadavg:
        load = loadavg.read().split()[0]
    for name, _ in stages:
        runs = " ".join(f"{t:.2f}" for t in times[name])
        print(f"{name:64s} {min(times[name]):6.2f} s  ({runs})", flush=True)
    print(f"1-minute load after the rounds: {load}")


def native_scans(spark: Any, plan: ReadPlan) -> Any:
    """Rule 5 as read_table applies it, without the planning: the native scans, unioned."""
    refs = [ref for split in nr.sort_splits(plan).native for ref in split.files]
    scans = nr.plan_native_scans(refs, plan.schema, {})
    return nr.union_all([nr.read_native_scan(spark, scan, plan) for scan in scans])


def anti_joined(spark: Any, plan: ReadPlan) -> Any:
    """The baseline: the files with a vector read with their file name and row index, and
    anti-joined with a broadcast frame of (file name, bitmap words) on the file name, the
    row's bit as the join condition; unioned with the files without."""
    from pyspark.sql import functions as F  # noqa: PLC0415 (pyspark is optional)

    refs = [ref for split in nr.sort_splits(plan).native for ref in split.files]
    scans = nr.plan_native_scans(refs, plan.schema, {})
    bitmaps = {name: words for scan in scans for name, words in scan.bitmaps.items()}
    frames = [nr.read_native_scan(spark, scan, plan) for scan in scans if not scan.bitmaps]
    paths = [path for scan in scans if scan.bitmaps for path in scan.paths]
    if paths:
        names = list(bitmaps)
        table = pa.table(
            {"f": names, "b": pa.array([bitmaps[n] for n in names], pa.list_(pa.int64()))}
        )
        columns = [field.name for field in plan.schema.fields]
        rows = spark.read.parquet(*paths).select(
            *columns,
            F.col("_metadata.file_name").alias("n"),
            F.col("_metadata.row_index").alias("i"),
        )
        word = F.element_at(F.col("b"), (F.shiftright(F.col("i"), nr.WORD_SHIFT) + 1).cast("int"))
        bit = F.call_function("shiftright", word, (F.col("i") % nr.WORD_BITS).cast("int"))
        deleted = (F.col("n") == F.col("f")) & (bit.bitwiseAND(F.lit(1)) == 1)
        joined = rows.join(F.broadcast(spark.createDataFrame(table)), deleted, "left_anti")
        frames.append(joined.select(*columns))
    return nr.union_all(frames)


def main(root: str, snapshot_id: str | None = None) -> None:
    from pyspark.sql import functions as F  # noqa: PLC0415

    import spark_impl  # noqa: PLC0415

    spark = e.start_spark("local[2]")
    e.warm_up(spark)
    travel = TimeTravel(int(snapshot_id), None, None) if snapshot_id else LATEST
    options = {"snapshot-id": snapshot_id} if snapshot_id else {}
    plan = plan_read(LocalFileIO(), root, travel)
    files = [ref.path for split in plan.splits for ref in split.files]
    live = F.col("_VALUE_KIND").isin(0, 2)
    metadata = [F.col("_metadata.file_name").alias("f"), F.col("_metadata.row_index").alias("i")]
    compare(
        [
            ("spark.read.parquet(files)", lambda: spark.read.parquet(*files)),
            ("+ _VALUE_KIND filter", lambda: spark.read.parquet(*files).where(live)),
            (
                "+ _metadata.file_name and row_index selected",
                lambda: (
                    spark.read.parquet(*files)
                    .select("k", "v", "x", *metadata)
                    .where(F.col("f").isNotNull() & (F.col("i") >= 0))
                ),
            ),
            (
                "read_table's scans (bit tested in the scan's condition)",
                lambda: native_scans(spark, plan),
            ),
            ("baseline: broadcast anti-join on the file name", lambda: anti_joined(spark, plan)),
            (
                "spark_impl.read_table (planning included)",
                lambda: spark_impl.read_table(spark, root, **options),
            ),
        ]
    )
    frame = spark_impl.read_table(spark, root, **options).select(F.count("*"))
    print_plan(frame)


def print_plan(frame: Any) -> None:
    """The formatted physical plan, each line cut at 160 characters (the bitmaps are a
    literal of the scan's condition: the whole plan text holds every word)."""
    plan = io.StringIO()
    with contextlib.redirect_stdout(plan):
        frame.explain(mode="formatted")
    for line in plan.getvalue().splitlines():
        print(line if len(line) <= PLAN_LINE else line[:PLAN_LINE] + " ...")


if __name__ == "__main__":
    main(*sys.argv[1:3])
