"""The benchmark suites: Spark session start; W1 (primary-key table) write and merge-read,
also written ``write-only`` (W1-runs: five sorted runs per bucket to merge); W2 (append
table) write and scan; W3 (full compaction of W1-runs). Sizes, rounds and engines come
from the options of ``bench/conftest.py``; every timed result is checked first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from bench import engines as e
from bench.harness import Suite, measure
from bench.plans import (
    W1,
    W1_RUNS,
    W2,
    TableWorkload,
    compact_plan,
    read_plan,
    reader_table,
    shared_table,
    write_plan,
)

WRITE_ENGINES = e.PYTHON_ENGINE_NAMES
COMPACT_ENGINES = ("spark-local1", "spark-local2", "java", "reference")
WORKLOADS = {"W1": W1, "W1-runs": W1_RUNS, "W2": W2}
REFERENCE_WORKLOADS = {"W1"}
"""The reference takes part in W1 only (issue 10: the reference at 1M rows on W1)."""


def select(suite: Suite, workload: TableWorkload, engine: str) -> None:
    suite.require(engine)
    if engine == "reference" and workload.name not in REFERENCE_WORKLOADS:
        pytest.skip("the reference runs W1 only")


@pytest.mark.parametrize("master", e.SPARK_MASTERS)
def test_spark_session_start(benchmark: Any, master: str, suite: Suite) -> None:
    engine = f"spark-local{master[len('local[') : -1]}"
    suite.require(engine)
    benchmark.group = "Spark session start"
    inner: list[float] = []
    benchmark.pedantic(lambda: inner.append(e.measure_session_start(master)), rounds=1)
    benchmark.extra_info.update(
        {
            "workload": "session",
            "operation": "start",
            "engine": engine,
            "inner_seconds": round(inner[0], 3),
            "checksum_ok": True,
        }
    )
    suite.record(
        {"extra_info": dict(benchmark.extra_info), "stats": {"min": inner[0], "rounds": 1}}
    )


@pytest.mark.parametrize("engine", WRITE_ENGINES)
@pytest.mark.parametrize("name", WORKLOADS)
def test_write(benchmark: Any, name: str, engine: str, suite: Suite) -> None:
    workload = WORKLOADS[name]
    select(suite, workload, engine)
    measure(benchmark, suite, (name, "write"), engine, write_plan(suite, engine, workload))


@pytest.mark.parametrize("engine", WRITE_ENGINES)
@pytest.mark.parametrize("name", WORKLOADS)
def test_read(benchmark: Any, name: str, engine: str, suite: Suite) -> None:
    workload = WORKLOADS[name]
    select(suite, workload, engine)
    root = reader_table(suite, workload, engine)
    plan = read_plan(suite, engine, root, workload.expected(suite.rows))
    measure(benchmark, suite, (name, workload.read_operation), engine, plan)
    benchmark.extra_info["table"] = Path(root).name
    if engine == "floor":
        paths = e.live_data_files(root)
        benchmark.extra_info["physical_rows"] = sum(pq.read_metadata(p).num_rows for p in paths)
        benchmark.extra_info["files"] = len(paths)


@pytest.mark.parametrize("engine", COMPACT_ENGINES)
def test_w3_full_compaction(benchmark: Any, engine: str, suite: Suite) -> None:
    suite.require(engine)
    root = shared_table(suite, W1_RUNS)
    plan = compact_plan(suite, engine, root, W1_RUNS.expected(suite.rows))
    measure(benchmark, suite, ("W3", "full-compaction"), engine, plan)
