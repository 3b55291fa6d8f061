"""Options and fixtures of the benchmark suites (see bench/README.md).

``--bench-rows N`` sets the workload size, ``--bench-rounds R`` the timed rounds of each
benchmark, ``--bench-engines a,b`` restricts the engines, ``--bench-dir D`` where tables are
written (removed afterwards unless ``--bench-keep``), ``--bench-journal F`` a JSON-lines file
receiving each result as soon as it is measured, ``--bench-table W1=ROOT`` an existing table
to read instead of writing the shared one. The JSON written with ``--benchmark-json`` carries
the machine's load average, memory, git sha and versions.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from bench import engines as e
from bench import workloads as w
from bench.harness import Suite

PROJECT = str(Path(__file__).resolve().parents[1])
# Spark's Python workers must import this very tree (not another checkout on sys.path).
os.environ["PYTHONPATH"] = os.pathsep.join(
    [PROJECT, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p != PROJECT]]
).rstrip(os.pathsep)

REFERENCE_MAX_ROWS = 1_000_000
VERSIONED_PACKAGES = ("pyspark", "pyarrow", "pypaimon", "pypaimon-rust", "pytest-benchmark")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("paimon-kit bench")
    group.addoption("--bench-rows", type=int, default=100_000, help="workload rows")
    group.addoption("--bench-rounds", type=int, default=1, help="timed rounds per benchmark")
    group.addoption("--bench-engines", default=",".join(e.ENGINE_NAMES), help="engines to run")
    group.addoption("--bench-dir", default=None, help="directory for the tables")
    group.addoption("--bench-keep", action="store_true", help="keep the tables")
    group.addoption("--bench-journal", default=None, help="JSON-lines file of results so far")
    group.addoption(
        "--bench-table",
        action="append",
        default=[],
        help="WORKLOAD=ROOT: read this existing table (e.g. W1 written by an earlier run) "
        "instead of writing the shared one",
    )


FAILURES: list[dict[str, str]] = []
"""Benchmarks that raised (pytest-benchmark saves no entry for them); reported as such."""
WARM_UPS: dict[str, list[float]] = {}
JOURNALS: list[Suite] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:
        crash = getattr(report.longrepr, "reprcrash", None)
        message = str(report.longrepr) if crash is None else str(crash.message)
        failure = {"test": report.nodeid, "when": report.when, "message": message[:500]}
        FAILURES.append(failure)
        for suite in JOURNALS:
            suite.record({"failure": failure})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.bench)


def selected_engines(config: pytest.Config) -> frozenset[str]:
    names = {n.strip() for n in str(config.getoption("--bench-engines")).split(",")}
    if config.getoption("--bench-rows") > REFERENCE_MAX_ROWS:
        names.discard("reference")
    return frozenset(names)


@pytest.fixture(scope="session")
def suite(request: pytest.FixtureRequest) -> Iterator[Suite]:
    config = request.config
    chosen = config.getoption("--bench-dir")
    directory = chosen or tempfile.mkdtemp(prefix="paimon-kit-bench-")
    os.makedirs(directory, exist_ok=True)
    shared = Suite(
        rows=int(config.getoption("--bench-rows")),
        rounds=int(config.getoption("--bench-rounds")),
        warehouse=directory,
        engines=selected_engines(config),
        sessions=e.SparkSessions(),
        journal=config.getoption("--bench-journal"),
        kept=dict(item.split("=", 1) for item in config.getoption("--bench-table")),
    )
    JOURNALS.append(shared)
    shared.record(
        {
            "header": {
                **describe_tree(),
                "rows": shared.rows,
                "buckets": w.BUCKETS,
                "rounds": shared.rounds,
                "started": datetime.now(timezone.utc).isoformat(),
                "node": platform.node(),
                "cpu_count": os.cpu_count(),
                "memory_total_mib": memory_total_mib(),
            }
        }
    )
    yield shared
    WARM_UPS.update(shared.sessions.warm_up_seconds)
    shared.close()
    if not config.getoption("--bench-keep"):
        shutil.rmtree(directory, ignore_errors=True)


def memory_total_mib() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)


def describe_tree() -> dict[str, Any]:
    """Git sha and state of the tree under benchmark, and package versions."""

    def git(*arguments: str) -> str:
        result = subprocess.run(
            ["git", "-C", PROJECT, *arguments], capture_output=True, text=True, check=False
        )
        return result.stdout.strip()

    versions = {}
    for name in VERSIONED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return {
        "project": PROJECT,
        "git_sha": git("rev-parse", "HEAD") or os.environ.get("BENCH_SOURCE_SHA", "unknown"),
        "git_dirty": bool(git("status", "--porcelain", "--", "reference", "spark_impl")),
        "versions": versions,
    }


def pytest_benchmark_update_machine_info(
    config: pytest.Config, machine_info: dict[str, Any]
) -> None:
    machine_info["load_average_at_end"] = list(os.getloadavg())
    machine_info["memory_total_mib"] = memory_total_mib()
    machine_info["cpu_count"] = os.cpu_count()


def pytest_benchmark_update_json(
    config: pytest.Config, benchmarks: list[Any], output_json: dict[str, Any]
) -> None:
    output_json["paimon_kit"] = {
        **describe_tree(),
        "rows": config.getoption("--bench-rows"),
        "buckets": w.BUCKETS,
        "rounds": config.getoption("--bench-rounds"),
        "failures": FAILURES,
        "spark_warm_up_seconds": WARM_UPS,
    }
