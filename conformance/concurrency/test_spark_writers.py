"""Spark applications (and the reference) appending to one primary-key table at once.

See :mod:`conformance.concurrency.spark_writers`. The simulations are in the ``slow`` tier
(each application starts its own JVM: 1-3 minutes on 2 cores even for 2 applications x 3
writes): 2 x 3 plus a reference writer and 4 x 6 locally, 4 x 6 on S3, and the driver kills.
The default tier proves issue 18 item 2 (a write whose APPEND landed is never told FAILED nor
loses its files to ``abort``) with ``conformance/unit/spark_impl/test_commit_safety.py``, which
drives the same write protocol in one process and injects the conflicting commit at each
moment that matters, and checks this module's checker below. The full figures:
``python scripts/run_spark_writers.py --store local|s3 --runs 3``.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterator

import pytest

from conformance.concurrency.spark_writers import (
    RunConfig,
    RunReport,
    append_record,
    check_writer,
    compute_rows,
    format_reports,
    named_landed,
    run_once,
)
from conformance.objectstore.pytest_fixtures import S3Store


@pytest.fixture
def work_dir() -> Iterator[str]:
    directory = tempfile.mkdtemp(prefix="paimon-kit-spark-writers-")
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def assert_clean(report: RunReport, writes: int) -> None:
    table = format_reports([report])
    assert report.violations == [], table + "\n" + "\n".join(report.violations)
    assert report.lost == 0 and report.duplicated == 0, table
    assert report.acknowledged + report.failed == writes, table
    assert report.snapshots_read == report.snapshots and report.validate_errors == 0, table


# --------------------------------------------------------------------------------------------
# The checker (no processes)
# --------------------------------------------------------------------------------------------


def test_landed_ids_are_read_from_the_error_message() -> None:
    assert named_landed("PartialCommitError: ... landed=(7, 8) ...") == [7, 8]
    assert named_landed("snapshot 12 (APPEND) landed, the compaction after it failed") == [12]
    assert named_landed("COMPACT commit conflicts with snapshot 4") == []


def test_a_failed_write_whose_snapshot_landed_is_a_violation(work_dir: str) -> None:
    config = RunConfig(f"{work_dir}/t", work_dir, 1, 2, reference=False)
    append_record(config, 0, {"outcome": "ok", "write": 0})
    append_record(
        config,
        0,
        {
            "outcome": "failed",
            "write": 1,
            "error": "CommitConflictError",
            "message": "COMPACT commit conflicts",
            "landed": [],
        },
    )
    rows = dict(compute_rows(0, 1))  # write 0 lost, write 1 visible
    commits = {(config.user(0), 2): [(5, "APPEND")]}
    report = RunReport("local", "1 x 2")
    check_writer(config, 0, rows, commits, report)
    assert (report.acknowledged, report.lost, report.failed_but_visible) == (1, 1, 1)
    assert report.conflicts == Counter({"CommitConflictError": 1})
    named = RunReport("local", "1 x 2")
    append_record(
        config,
        0,
        {
            "outcome": "failed",
            "write": 1,
            "error": "PartialCommitError",
            "message": "",
            "landed": [5],
        },
    )
    check_writer(config, 0, {**rows, **dict(compute_rows(0, 0))}, commits, named)
    assert (named.lost, named.failed_but_visible) == (0, 0)


# --------------------------------------------------------------------------------------------
# Simulations
# --------------------------------------------------------------------------------------------


@pytest.mark.spark
@pytest.mark.slow
def test_spark_and_reference_writers_local(work_dir: str) -> None:
    """Two Spark applications and a reference writer (slow tier: the default tier's proof of
    the same item is ``test_commit_safety.py``, see the module docstring)."""
    config = RunConfig(f"{work_dir}/table", work_dir, 2, 3)
    assert_clean(run_once(config, "local"), 3 * 3)


@pytest.mark.spark
@pytest.mark.slow
def test_spark_writers_local_full(work_dir: str) -> None:
    config = RunConfig(f"{work_dir}/table", work_dir, 4, 6)
    assert_clean(run_once(config, "local"), 5 * 6)


@pytest.mark.spark
@pytest.mark.s3
@pytest.mark.slow
def test_spark_writers_s3(s3_store: S3Store, work_dir: str) -> None:
    uri = f"{s3_store.uri}/spark-writers-{uuid.uuid4().hex[:8]}"
    config = RunConfig(uri, work_dir, 4, 6, s3_options=s3_store.options)
    assert_clean(run_once(config, "s3"), 5 * 6)


@pytest.mark.spark
@pytest.mark.slow
def test_killed_spark_drivers(work_dir: str) -> None:
    config = RunConfig(f"{work_dir}/table", work_dir, 2, 8, reference=False)
    report = run_once(config, "local", kills=5, seed=1)
    assert_clean(report, 2 * 8)
    assert report.kills == 5 and report.snapshots_read_after_clean == report.snapshots
