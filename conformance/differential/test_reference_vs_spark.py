"""Differential: the reference and spark_impl given the same random workloads.

Hypothesis draws workloads (``spark_workloads.spark_workloads``: schema with several types,
partitioning, bucket mode, merge engine and its options, sequence / row-kind fields, changelog
producer, deletion vectors, writes of every row kind, compactions, overwrites, and the Spark
write route of each write). The reference writes each into one table, spark_impl (through its
public API in one shared local[2] SparkSession) into another, and ``run_spark.run_workload``
compares refusals, snapshot ids, rows at every snapshot read by both readers, the structure of
every snapshot (files, levels, sequence ranges, bucket of every key, deletion vectors, changelog
files, hash index), ``audit_log`` per step, and (every ``STREAM_EVERY``-th workload) the
streaming reads.

* default: ``DEFAULT_WORKLOADS`` workloads from a fixed seed (``derandomize``);
* ``-m slow``: ``SLOW_WORKLOADS`` workloads, each disagreement recorded and all reported at the
  end (``scripts/run_differential.py`` runs the same long run outside pytest);
* the regression cases (``regressions/cases.py``): each disagreement found, a strict xfail
  naming the wrong side while it stands.

The summary (workloads, steps, snapshots, disagreements, time) is printed at the end (``-s``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from conformance.differential.regressions.cases import REGRESSIONS, Regression
from conformance.differential.run_spark import (
    Summary,
    describe_workload,
    run_workload,
)
from conformance.differential.spark_workloads import SparkWorkload, spark_workloads

pytestmark = pytest.mark.spark

DEFAULT_WORKLOADS = int(os.environ.get("PAIMON_KIT_SPARK_DIFF_WORKLOADS", "300"))
"""At least 300 in CI; the variable lowers it for a quick local run."""
SLOW_WORKLOADS = 5000
DEFAULT_STEPS = 3
SLOW_STEPS = 4
"""Steps per workload: each write and compaction is a Spark job, so the default tier keeps
histories short and the long run makes them longer."""
STREAM_EVERY = 25
"""A streaming query costs more than the rest of a workload: one workload in this many streams."""

HEALTH = list(HealthCheck)
DEFAULT_SETTINGS = settings(
    max_examples=DEFAULT_WORKLOADS,
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=HEALTH,
)
SLOW_SETTINGS = settings(DEFAULT_SETTINGS, max_examples=SLOW_WORKLOADS)

SUMMARIES: dict[str, Summary] = {}


@pytest.fixture(scope="module", autouse=True)
def _print_summary() -> Iterator[None]:
    yield
    for name, summary in SUMMARIES.items():
        print(f"\n{name}: " + "\n".join(summary.lines()))


def summary_of(name: str) -> Summary:
    return SUMMARIES.setdefault(name, Summary())


def failure_message(workload: SparkWorkload, outcome_lines: list[str]) -> str:
    return "\n".join([*outcome_lines, describe_workload(workload)])


@DEFAULT_SETTINGS
@given(workload=spark_workloads(max_steps=DEFAULT_STEPS))
def test_reference_matches_spark(spark: Any, workload: SparkWorkload) -> None:
    summary = summary_of("reference vs spark_impl (default)")
    outcome = run_workload(spark, workload, stream=summary.workloads % STREAM_EVERY == 0)
    summary.add(workload, outcome)
    found = [d.describe() for d in outcome.findings]
    assert not found, failure_message(workload, found)


def test_default_run_covered_enough_workloads() -> None:
    """The default run above ran its ``DEFAULT_WORKLOADS`` (none filtered away)."""
    summary = SUMMARIES.get("reference vs spark_impl (default)")
    if summary is None:
        pytest.skip("the default differential did not run in this session")
    if summary.disagreements:
        pytest.skip("the default differential failed (it stops at its first disagreement)")
    assert summary.workloads >= DEFAULT_WORKLOADS


@pytest.mark.slow
def test_reference_matches_spark_long_run(spark: Any) -> None:
    """``SLOW_WORKLOADS`` workloads; every disagreement is collected, then all reported."""
    summary = summary_of("reference vs spark_impl (long run)")

    @SLOW_SETTINGS
    @given(workload=spark_workloads(max_steps=SLOW_STEPS))
    def run_one(workload: SparkWorkload) -> None:
        stream = summary.workloads % STREAM_EVERY == 0
        summary.add(workload, run_workload(spark, workload, stream=stream))

    run_one()
    found = [
        failure_message(workload, [disagreement.describe()])
        for workload, disagreement in summary.disagreements
    ]
    assert not found, "\n\n".join(found)


class UnrecordedDisagreement(Exception):
    """An open regression case disagrees on another check than the one recorded."""


@pytest.mark.parametrize(
    "regression",
    [
        pytest.param(
            regression,
            id=regression.name,
            marks=[pytest.mark.xfail(strict=True, raises=AssertionError, reason=regression.wrong)]
            if regression.wrong
            else [],
        )
        for regression in REGRESSIONS
    ],
)
def test_regression(spark: Any, regression: Regression) -> None:
    """A disagreement found once: both engines agree on it (sequence numbers compared). While
    the case is open (a strict xfail), a disagreement on another check fails it."""
    outcome = run_workload(spark, regression.workload, sequences=True)
    found = [d.describe() for d in outcome.findings]
    others = [d.describe() for d in outcome.findings if d.check is not regression.check]
    if regression.wrong and others:
        raise UnrecordedDisagreement(failure_message(regression.workload, others))
    assert not found, failure_message(regression.workload, found)
