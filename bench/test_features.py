"""The feature suites (``bench/features.py``): W4 write with the lookup changelog producer, W5
point queries pruned by a bloom-filter index (and the write that builds the index), W6
merge-read of partial-update and aggregation tables, W7 read of a deletion-vector table.
Sizes, rounds and engines come from the options of ``bench/conftest.py``; every timed result
is checked first (W4 also counts the changelog records the write produced)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.engines import PYTHON_ENGINE_NAMES
from bench.harness import Suite, measure
from bench.plans import (
    W4,
    W5,
    W6_AGGREGATE,
    W6_PARTIAL,
    W7,
    TableWorkload,
    point_query_plan,
    read_plan,
    reader_table,
    write_plan,
)

ENGINES = PYTHON_ENGINE_NAMES
MERGE_WORKLOADS = {"W6-partial": W6_PARTIAL, "W6-aggregate": W6_AGGREGATE, "W7": W7}
NOT_COMPARABLE = {
    ("W7", "pypaimon"): "pypaimon 2.1 cannot read spark_impl's manifests, and the deletion-vector "
    "table it writes itself keeps every row in level 0 (it does not compact as Java's writer "
    "does), where a deletion-vector read sees nothing: no table to time it on"
}


NATIVE_ONLY_READS = "spark-native is the yardstick of reads here (W6/W7 files, unmerged)"


def run_write(benchmark: Any, suite: Suite, workload: TableWorkload, engine: str) -> None:
    suite.require(engine)
    if engine == "spark-native":
        pytest.skip(NATIVE_ONLY_READS)
    plan = write_plan(suite, engine, workload)
    measure(benchmark, suite, (workload.name, "write"), engine, plan)


@pytest.mark.parametrize("engine", ENGINES)
def test_w4_lookup_changelog_write(benchmark: Any, engine: str, suite: Suite) -> None:
    run_write(benchmark, suite, W4, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_w5_indexed_write(benchmark: Any, engine: str, suite: Suite) -> None:
    run_write(benchmark, suite, W5, engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_w5_point_query(benchmark: Any, engine: str, suite: Suite) -> None:
    suite.require(engine)
    if engine == "spark-native":
        pytest.skip(NATIVE_ONLY_READS)
    root = reader_table(suite, W5, engine)
    measure(benchmark, suite, ("W5", "point-query"), engine, point_query_plan(suite, engine, root))
    benchmark.extra_info["table"] = Path(root).name


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", MERGE_WORKLOADS)
def test_merge_engine_read(benchmark: Any, name: str, engine: str, suite: Suite) -> None:
    workload = MERGE_WORKLOADS[name]
    suite.require(engine)
    if (name, engine) in NOT_COMPARABLE:
        pytest.skip(NOT_COMPARABLE[name, engine])
    root = reader_table(suite, workload, engine)
    plan = read_plan(suite, engine, root, workload.expected(suite.rows))
    measure(benchmark, suite, (name, workload.read_operation), engine, plan)
    benchmark.extra_info["table"] = Path(root).name
