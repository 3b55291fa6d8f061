"""Where spark_impl's time goes: W1 write and merge-read (and W3 compaction) on one master with
Spark's stage timings and a cProfile of every Python worker.

    python -m bench.profile --rows 1000000 --master local[2] --out bench/results/<machine>/profile

Writes ``<out>/profile-<master>-<rows>.md``: per operation the wall time, each Spark stage's
duration, executor run and CPU time, shuffle bytes (from Spark's REST API), the wall time not
covered by any stage (driver: planning, commit, Python planner processes), and the top
functions of the merged worker profiles by own time and by cumulative time. The driver
process is profiled too (its planning and commit code). Uses spark_impl's public API only.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import engines as e
from bench import workloads as w
from bench.profiled_daemon import PROFILE_DIR_VARIABLE

TOP_FUNCTIONS = 25
PROJECT_FUNCTIONS = r"(spark_impl|reference)/"
SITE_PACKAGES = str(Path(os.__file__).parent) + "/site-packages/"


def fetch_stages(spark: Any) -> list[dict[str, Any]]:
    """Completed stages of the application (Spark's monitoring REST API)."""
    url = f"{spark.sparkContext.uiWebUrl}/api/v1/applications/{spark.sparkContext.applicationId}"
    with urllib.request.urlopen(f"{url}/stages?status=complete") as response:
        stages: list[dict[str, Any]] = json.load(response)
    return stages


def stage_rows(
    stages: list[dict[str, Any]], known: set[tuple[int, int]]
) -> tuple[list[str], float]:
    """Markdown rows of the stages not in ``known`` (which is updated) and their total
    duration in seconds."""
    rows, covered = [], 0.0
    for stage in sorted(stages, key=lambda s: (s["stageId"], s["attemptId"])):
        key = (stage["stageId"], stage["attemptId"])
        if key in known:
            continue
        known.add(key)
        duration = stage_seconds(stage)
        covered += duration
        rows.append(
            f"| {stage['stageId']} | {stage['name'][:60]} | {stage['numTasks']} | "
            f"{duration:.2f} | {stage['executorRunTime'] / 1000:.2f} | "
            f"{stage['executorCpuTime'] / 1e9:.2f} | {stage.get('jvmGcTime', 0) / 1000:.2f} | "
            f"{stage['shuffleWriteBytes'] >> 20} | {stage['shuffleReadBytes'] >> 20} |"
        )
    return rows, covered


def stage_seconds(stage: dict[str, Any]) -> float:
    def parse(text: str) -> float:
        return time.mktime(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")) + int(text[20:23]) / 1e3

    if not stage.get("submissionTime") or not stage.get("completionTime"):
        return 0.0
    return parse(stage["completionTime"]) - parse(stage["submissionTime"])


def merged_profile(directory: Path) -> str:
    """The worker profiles of ``directory`` merged: top functions by own and cumulative time."""
    files = sorted(str(p) for p in directory.glob("worker-*.prof"))
    if not files:
        return "(no worker profiles were written)\n"
    return top_functions(pstats.Stats(*files), f"{len(files)} worker processes")


def top_functions(stats: pstats.Stats, label: str) -> str:
    """The top functions by own time and by cumulative time, then the project's own
    functions (``spark_impl``, ``reference``) by cumulative time."""
    out = io.StringIO()
    stats.stream = out  # type: ignore[attr-defined]
    out.write(f"{label}; by own time:\n")
    stats.sort_stats("tottime").print_stats(TOP_FUNCTIONS)
    out.write("by cumulative time:\n")
    stats.sort_stats("cumulative").print_stats(TOP_FUNCTIONS)
    out.write("the project's own functions by cumulative time:\n")
    stats.sort_stats("cumulative").print_stats(PROJECT_FUNCTIONS, TOP_FUNCTIONS)
    return out.getvalue().replace(SITE_PACKAGES, "…/")


def profile_operation(
    spark: Any, name: str, action: Callable[[], Any], known: set[tuple[int, int]], workers: Path
) -> str:
    for old in workers.glob("worker-*.prof"):
        old.unlink()
    driver = cProfile.Profile()
    begin = time.perf_counter()
    driver.enable()
    action()
    driver.disable()
    wall = time.perf_counter() - begin
    time.sleep(2.0)  # let workers exit and Spark's listener catch up
    stages = fetch_stages(spark)
    rows, covered = stage_rows(stages, known)
    lines = [
        f"## {name}\n",
        f"wall {wall:.2f} s; stages {covered:.2f} s; not in any stage {wall - covered:.2f} s\n",
        "| stage | name | tasks | duration s | executor run s | executor CPU s | GC s | "
        "shuffle write MiB | shuffle read MiB |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        "### Python workers (cProfile)\n",
        "```",
        merged_profile(workers),
        "```",
        "### Driver (cProfile)\n",
        "```",
        top_functions(pstats.Stats(driver), "driver"),
        "```",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--out", default="bench/results/profile")
    parser.add_argument("--operations", default="write,merge-read,full-compaction")
    options = parser.parse_args(argv)
    operations = set(options.operations.split(","))
    workers = Path(tempfile.mkdtemp(prefix="bench-profile-"))
    os.environ[PROFILE_DIR_VARIABLE] = str(workers)
    warehouse = tempfile.mkdtemp(prefix="bench-profile-tables-")
    spark = e.start_spark(options.master, ui=True, daemon_module="bench.profiled_daemon")
    e.warm_up(spark)
    known: set[tuple[int, int]] = {(s["stageId"], s["attemptId"]) for s in fetch_stages(spark)}
    sections = [
        f"# spark_impl profile: W1 at {options.rows:,} rows on {options.master}\n",
        f"load average at start: {os.getloadavg()}\n",
    ]
    try:
        root = w.create_pk_table(warehouse, "w1")
        rows = options.rows
        if "write" in operations:
            action = lambda: e.spark_write_pk(spark, root, rows)  # noqa: E731
            sections.append(profile_operation(spark, "W1 write", action, known, workers))
        else:
            e.spark_write_pk(spark, root, rows)
        if "merge-read" in operations:
            result: list[w.Checksum] = []
            action = lambda: result.append(e.spark_read(spark, root))  # noqa: E731
            sections.append(profile_operation(spark, "W1 merge-read", action, known, workers))
            assert result[0] == w.expected_checksum(rows), result
        if "full-compaction" in operations:
            action = lambda: e.spark_compact(spark, root)  # noqa: E731
            sections.append(profile_operation(spark, "W3 full compaction", action, known, workers))
        sections.append(f"load average at end: {os.getloadavg()}\n")
    finally:
        spark.stop()
        shutil.rmtree(warehouse, ignore_errors=True)
        shutil.rmtree(workers, ignore_errors=True)
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"profile-{options.master.replace('[', '').replace(']', '')}-{rows}.md"
    target.write_text("\n".join(sections), encoding="utf-8")
    print(target)


if __name__ == "__main__":
    main()
