"""Timing one engine on one workload with pytest-benchmark, with its correctness check.

:func:`measure` runs ``run(*setup())`` for the configured rounds under ``benchmark.pedantic``
(setup and the check are not timed), samples peak memory around each timed call, checks
every round's result with ``check(result, *arguments)`` against ``expected`` before the time
counts, and records the facts the report needs in ``benchmark.extra_info``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import pytest

from bench import engines as e
from bench import workloads as w
from bench.memory import PeakMemory, tracking_peaks

SPARK_ENGINES = {"spark-local1": "local[1]", "spark-local2": "local[2]"}
NATIVE_ENGINE = "spark-native"
"""Spark's own Parquet path (``df.write.parquet``, ``spark.read.parquet``) on the same data and
files, at local[2]: what spark_impl's targets are ratios against (issue 20)."""
SESSION_OF = {**SPARK_ENGINES, NATIVE_ENGINE: "local[2]"}


@dataclass
class Suite:
    """What every benchmark of a run shares: its size, rounds and engines, the warehouse, the
    Spark sessions, the Java harness (started on first use) and the tables benchmarks leave
    for one another."""

    rows: int
    rounds: int
    warehouse: str
    engines: frozenset[str]
    sessions: e.SparkSessions
    kept: dict[str, str] = field(default_factory=dict)
    journal: str | None = None
    """A JSON-lines file receiving every result as soon as it is measured (a run that is
    stopped early still leaves its figures; ``bench/report.py`` reads it too)."""
    _java: Any = None

    def require(self, engine: str) -> None:
        """Skip the calling benchmark unless ``engine`` is selected for this run."""
        if engine not in self.engines:
            pytest.skip(f"engine {engine} not selected (or not run at this size)")

    def spark(self, engine: str) -> Any:
        """The session of a ``spark-local<n>`` engine (``spark-native``: local[2])."""
        return self.sessions.get(SESSION_OF[engine])

    def uses_spark(self) -> bool:
        return bool(set(SESSION_OF) & self.engines)

    def java(self) -> Any:
        """The Java 0.9 harness; skips when Java cannot run here."""
        if self._java is None:
            self._java = e.java_harness()
        if self._java is None:
            pytest.skip("Java 0.9 harness unavailable")
        return self._java

    def record(self, entry: dict[str, Any]) -> None:
        """Append ``entry`` to the journal, if there is one."""
        if self.journal is not None:
            with open(self.journal, "a", encoding="utf-8") as journal:
                journal.write(json.dumps(entry) + "\n")

    def close(self) -> None:
        if self._java is not None:
            self._java.close()
        self.sessions.stop()


@dataclass(frozen=True)
class Plan:
    """How one engine performs one operation: ``setup()`` gives the arguments of a round
    (untimed), ``run(*arguments)`` is timed, ``check(result, *arguments)`` must equal
    ``expected`` (untimed), ``teardown(*arguments)`` cleans up after the check."""

    setup: Callable[[], tuple[Any, ...]]
    run: Callable[..., Any]
    check: Callable[..., w.Checksum]
    expected: w.Checksum
    teardown: Callable[..., None] | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    """Filled by the plan's own callables; recorded with the benchmark."""


def measure(benchmark: Any, suite: Suite, label: tuple[str, str], engine: str, plan: Plan) -> None:
    """Time ``plan`` for ``suite.rounds`` rounds under ``benchmark.pedantic`` and record the
    workload, operation, engine, checksum verdict, load average and peak memory."""
    workload, operation = label
    results: list[Any] = []
    peaks: list[PeakMemory] = []
    checks: list[bool] = []

    seconds: list[float] = []

    def target(*arguments: Any) -> None:
        with tracking_peaks() as peak:
            begin = time.perf_counter()
            results.append(plan.run(*arguments))
            seconds.append(time.perf_counter() - begin)
        peaks.append(peak)

    def after(*arguments: Any) -> None:
        got = plan.check(results[-1], *arguments)
        checks.append(got == plan.expected)
        if plan.teardown is not None:
            plan.teardown(*arguments)
        assert got == plan.expected, f"{engine} {workload} {operation}: {got} != {plan.expected}"

    load_before = os.getloadavg()
    benchmark.group = f"{workload} {operation}"
    benchmark.extra_info.update(
        {
            "workload": workload,
            "operation": operation,
            "engine": engine,
            "rows": suite.rows,
            "buckets": w.BUCKETS,
            "cpu_affinity": len(os.sched_getaffinity(0)),
        }
    )
    benchmark.pedantic(
        target, setup=lambda: (plan.setup(), {}), teardown=after, rounds=suite.rounds, iterations=1
    )
    benchmark.extra_info.update(
        {
            "checksum_ok": all(checks) and len(checks) == suite.rounds,
            "checksum": asdict(plan.expected),
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()],
            **max_peaks(peaks),
            **plan.facts,
        }
    )
    suite.record(
        {
            "extra_info": dict(benchmark.extra_info),
            "stats": {"min": min(seconds), "rounds": len(seconds), "data": seconds},
            "cpu_count": os.cpu_count(),
        }
    )


def max_peaks(peaks: list[PeakMemory]) -> dict[str, float]:
    """The largest of each sampled peak over the rounds."""
    merged: dict[str, float] = {}
    for peak in peaks:
        for key, value in peak.as_info().items():
            merged[key] = max(merged.get(key, 0.0), value)
    return merged
