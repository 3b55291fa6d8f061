"""Where W2's append write time goes, against Spark's own Parquet write of the same frame.

    python -m bench.profile_w2_write [rows per commit ...]     (default: 1000000 2000000)

For each size, in one ``local[2]`` session, alternating, best of :data:`ROUNDS`: (a)
``df.write.parquet`` (zstd) of W2's frame, (b) ``prepare_frame(df)`` written the same way, (c)
``stage`` of the prepared frame, (d) the whole ``native_write.write_table`` into a fresh W2
table; then the driver-side steps, timed by wrapping them in the module: ``prepare_frame``
(building and analysing the projection), ``plan_read``, ``list_staged``, ``place_all`` (footer
reads and renames) and ``commit_write``; and the 1-minute load.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from bench import engines as e
from bench import workloads as w

ROUNDS = 3
DEFAULT_SIZES = (1_000_000, 2_000_000)
DRIVER_STEPS = ("prepare_frame", "plan_read", "list_staged", "place_all", "commit_write")


def timed(steps: dict[str, list[float]], name: str, function: Callable[..., Any]) -> Any:
    """``function`` with each call's wall time appended to ``steps[name]``."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            steps.setdefault(name, []).append(time.perf_counter() - started)

    return wrapper


def frame_of(spark: Any, rows: int) -> Any:
    """W2's first commit at ``rows * COMMITS`` rows: a frame of ``rows`` rows."""
    return w.append_commit_spark_frame(spark, rows * w.COMMITS, 0)


def variants(spark: Any, rows: int, scratch: str) -> dict[str, Callable[[], None]]:
    from spark_impl import native_write as nw  # noqa: PLC0415

    schema_root = w.create_append_table(scratch, "schema")
    schema = nw.plan_read(nw.file_io_for(schema_root, {}), schema_root).schema
    counter = iter(range(1_000_000))

    def fresh() -> str:
        return os.path.join(scratch, f"out-{next(counter)}")

    def parquet(frame: Any) -> None:
        frame.write.mode("append").option("compression", "zstd").parquet(fresh())

    return {
        "(a) df.write.parquet": lambda: parquet(frame_of(spark, rows)),
        "(b) prepare_frame(df).write.parquet": lambda: parquet(
            nw.prepare_frame(frame_of(spark, rows), schema)
        ),
        "(c) stage(prepare_frame(df))": lambda: nw.stage(
            nw.prepare_frame(frame_of(spark, rows), schema), fresh(), schema
        ),
        "(d) native_write.write_table": lambda: nw.write_table(
            frame_of(spark, rows), w.create_append_table(scratch, f"t{next(counter)}")
        ),
    }


def run_size(spark: Any, rows: int, steps: dict[str, list[float]]) -> None:
    scratch = tempfile.mkdtemp(prefix="w2-write-")
    try:
        runs = variants(spark, rows, scratch)
        times: dict[str, list[float]] = {name: [] for name in runs}
        steps.clear()
        for _ in range(ROUNDS):
            for name, run in runs.items():
                started = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - started)
        print(f"rows per commit {rows}, load {os.getloadavg()[0]:.2f}", flush=True)
        for name, values in times.items():
            rounds = ", ".join(f"{v:.2f}" for v in values)
            print(f"  {name:44s} best {min(values):6.2f} s  ({rounds})")
        for name in DRIVER_STEPS:
            values = steps.get(name, [])
            print(f"  driver {name:37s} best {min(values):6.3f} s  ({len(values)} calls)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(sizes: list[int]) -> None:
    from spark_impl import native_write as nw  # noqa: PLC0415

    steps: dict[str, list[float]] = {}
    for name in DRIVER_STEPS:
        setattr(nw, name, timed(steps, name, getattr(nw, name)))
    spark = e.start_spark("local[2]")
    e.warm_up(spark)
    try:
        for rows in sizes:
            run_size(spark, rows, steps)
    finally:
        spark.stop()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or list(DEFAULT_SIZES))
