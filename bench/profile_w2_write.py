"""Where W2's append write time goes, against Spark's own Parquet write of the same frames.

    python -m bench.profile_w2_write [rows per write ...]     (default: 2000000)

For each size, in one ``local[2]`` session, :data:`ROUNDS` rounds; each round writes W2's
frame of that many rows once with every variant, the order rotated from round to round, and
each variant appends into its own directory or table, so round ``k`` is its ``k``-th commit
as in the bench:

* ``df.write.parquet``: Spark's own write (zstd at parquet-mr's default level 3), as the
  bench's ``spark-native`` engine;
* ``df.write.parquet level 1``: the same at zstd level 1, the level Paimon's
  ``file.compression.zstd-level`` defaults to and ``native_write`` therefore writes at;
* ``native_write.write_table``: spark_impl's native append write into a W2 table.

Per variant: best and median wall time, the Spark job's own time (submission to completion,
from the status store), the driver time before the job and after it (Spark's job commit, and
for the native write the footer reads, renames and Paimon commit), and the JVM's CPU seconds;
for the native write also its driver steps (timed by wrapping them in the module); then the
1-minute load.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from bench import engines as e
from bench import workloads as w

ROUNDS = 5
DEFAULT_SIZES = (2_000_000,)
DRIVER_STEPS = ("plan_read", "prepare_frame", "list_staged", "place_all", "commit_write")
PAIMON_ZSTD_LEVEL = "1"
MILLIS = 1000.0


@dataclass(frozen=True)
class Sample:
    """One write: wall, Spark job, driver before / after the job, JVM CPU (seconds)."""

    wall: float
    job: float
    before: float
    after: float
    jvm_cpu: float


def timed(steps: dict[str, list[float]], name: str, function: Callable[..., Any]) -> Any:
    """``function`` with each call's wall time appended to ``steps[name]``."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            steps.setdefault(name, []).append(time.perf_counter() - started)

    return wrapper


def read_jvm_cpu(pid: int) -> float:
    """User plus system CPU seconds of process ``pid`` (``/proc/<pid>/stat``)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def list_jobs(spark: Any) -> dict[int, tuple[float, float]]:
    """``{job id: (submitted, completed)}`` in epoch seconds, of every finished job."""
    jobs = spark.sparkContext._jsc.sc().statusStore().jobsList(None)
    found = {}
    for index in range(jobs.size()):
        job = jobs.apply(index)
        submitted, completed = job.submissionTime(), job.completionTime()
        if submitted.isDefined() and completed.isDefined():
            times = (submitted.get().getTime() / MILLIS, completed.get().getTime() / MILLIS)
            found[int(job.jobId())] = times
    return found


def measure(spark: Any, jvm_pid: int, run: Callable[[], None]) -> Sample:
    """Run one write and take it apart (its jobs are the ones that finished meanwhile)."""
    known = set(list_jobs(spark))
    cpu = read_jvm_cpu(jvm_pid)
    started, clock = time.perf_counter(), time.time()
    run()
    wall, ended = time.perf_counter() - started, time.time()
    jobs = [times for job, times in list_jobs(spark).items() if job not in known]
    first = min((s for s, _ in jobs), default=ended)
    last = max((c for _, c in jobs), default=ended)
    busy = sum(c - s for s, c in jobs)
    return Sample(wall, busy, first - clock, ended - last, read_jvm_cpu(jvm_pid) - cpu)


def variants(spark: Any, rows: int, scratch: str) -> dict[str, Callable[[int], None]]:
    """Each variant writes round ``k``'s frame (W2's commit ``k mod 5``) into its own target."""
    from spark_impl import native_write as nw  # noqa: PLC0415

    root = w.create_append_table(scratch, "native")

    def frame(commit: int) -> Any:
        return w.append_commit_spark_frame(spark, rows * w.COMMITS, commit % w.COMMITS)

    def parquet(commit: int, target: str, level: str | None) -> None:
        writer = frame(commit).write.mode("append").option("compression", "zstd")
        if level is not None:
            writer = writer.option(nw.PARQUET_ZSTD_LEVEL_KEY, level)
        writer.parquet(os.path.join(scratch, target))

    return {
        "df.write.parquet": lambda k: parquet(k, "spark", None),
        f"df.write.parquet level {PAIMON_ZSTD_LEVEL}": lambda k: parquet(
            k, "spark-level", PAIMON_ZSTD_LEVEL
        ),
        "native_write.write_table": lambda k: nw.write_table(frame(k), root),
    }


def report(samples: dict[str, list[Sample]], steps: dict[str, list[float]]) -> None:
    for name, runs in samples.items():
        walls = [s.wall for s in runs]
        print(f"  {name:28s} best {min(walls):5.2f} s  median {statistics.median(walls):5.2f} s")
        for label in ("job", "before", "after", "jvm_cpu"):
            values = [getattr(s, label) for s in runs]
            print(
                f"    {label:8s} best {min(values):6.3f}  median {statistics.median(values):6.3f}"
            )
        print(f"    rounds  {', '.join(f'{v:.2f}' for v in walls)}")
    for name in DRIVER_STEPS:
        values = steps.get(name, [])
        if values:
            print(
                f"  driver {name:21s} best {min(values):6.3f} s  median "
                f"{statistics.median(values):6.3f} s ({len(values)} calls)"
            )


def run_size(spark: Any, rows: int, steps: dict[str, list[float]]) -> None:
    jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    scratch = tempfile.mkdtemp(prefix="w2-write-")
    try:
        runs = variants(spark, rows, scratch)
        names = list(runs)
        samples: dict[str, list[Sample]] = {name: [] for name in names}
        steps.clear()
        for commit in range(ROUNDS):
            shift = commit % len(names)
            for name in names[shift:] + names[:shift]:
                samples[name].append(measure(spark, jvm_pid, partial(runs[name], commit)))
        print(f"rows per write {rows}, load {os.getloadavg()[0]:.2f}", flush=True)
        report(samples, steps)
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
