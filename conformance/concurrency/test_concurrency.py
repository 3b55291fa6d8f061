"""Writer processes committing to one table at the same time, checked afterwards.

See :mod:`conformance.concurrency.simulate` for the workload and the invariants. The default
tier runs 3 writers x 5 commits locally (append and primary-key tables), 3 x 3 on S3, and one
racy run (conditional put turned off) that must lose commits; ``-m slow`` runs more.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.concurrency.simulate import (
    KEY_SPACE,
    LOG_NAME,
    Attempt,
    FailureClass,
    OperationKind,
    OperationRecord,
    Outcome,
    SimulationConfig,
    SimulationReport,
    TableKind,
    check_history,
    check_simulation,
    classify_failure,
    format_reports,
    plan_operations,
    run_simulation,
)
from conformance.objectstore.pytest_fixtures import S3Store
from reference.io import LocalFileIO

SHARED_MEMORY = "/dev/shm"


@pytest.fixture
def work_dir() -> Iterator[str]:
    """A scratch directory on tmpfs when there is one (the local store fsyncs every file)."""
    parent = SHARED_MEMORY if os.access(SHARED_MEMORY, os.W_OK) else None
    directory = tempfile.mkdtemp(prefix="paimon-kit-sim-", dir=parent)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def local_config(
    work_dir: str, kind: TableKind, writers: int, commits: int, **more: object
) -> SimulationConfig:
    return SimulationConfig(
        f"{work_dir}/table",
        kind,
        writers,
        commits,
        f"{work_dir}/logs",
        **more,  # type: ignore[arg-type]
    )


def assert_clean(report: SimulationReport) -> None:
    table = format_reports([report])
    assert report.violations == [], table + "\n" + "\n".join(report.violations)
    assert report.lost == 0 and report.applied_twice == 0, table
    assert report.operations == report.writers * report.commits, table


# --------------------------------------------------------------------------------------------
# The plan and the checker (no processes)
# --------------------------------------------------------------------------------------------


def test_plans_are_deterministic_and_keep_writers_apart(work_dir: str) -> None:
    config = local_config(work_dir, TableKind.PRIMARY_KEY, 3, 8, seed=5)
    plans = [plan_operations(config, writer) for writer in range(3)]
    assert plans == [plan_operations(config, writer) for writer in range(3)]
    for writer, plan in enumerate(plans):
        assert [op.identifier for op in plan] == list(range(1, 9))
        assert plan[0].kind is OperationKind.UPSERT
        keys = {row[0] for op in plan for row in op.rows}
        assert all(writer * KEY_SPACE <= key < (writer + 1) * KEY_SPACE for key in keys)
        assert all(
            row[2] == 0 for op in plan if op.kind is OperationKind.OVERWRITE for row in op.rows
        )


def record(error: str | None, retryable: bool | None = None) -> OperationRecord:
    return OperationRecord(
        0, "u", 1, OperationKind.UPSERT, (), (), Outcome.FAILED, error, "", retryable, False, ()
    )


def test_failures_are_classified() -> None:
    assert classify_failure(record("CommitConflictError", False)) is FailureClass.FILE_CONFLICT
    assert classify_failure(record("CommitConflictError", True)) is FailureClass.RETRIES_EXHAUSTED
    assert classify_failure(record("FileMissingError")) is FailureClass.CONCURRENT_EXPIRATION
    assert classify_failure(record("KeyError")) is FailureClass.UNCLASSIFIED


def test_history_check_counts_lost_and_twice_applied_commits() -> None:
    report = SimulationReport("local", "append", 2, 2)
    claims = {
        1: [Attempt(1, True, "APPEND", "a", 1)],
        2: [Attempt(2, True, "APPEND", "a", 2), Attempt(2, True, "APPEND", "b", 1)],
        3: [Attempt(3, True, "APPEND", "a", 2)],
    }
    on_store = {1: ("a", 1, "APPEND"), 2: ("b", 1, "APPEND"), 3: ("a", 2, "APPEND")}
    honoured = check_history(claims, on_store, report)
    assert report.lost == 1  # a's first claim of snapshot 2 was overwritten by b
    assert report.applied_twice == 0
    assert sorted(honoured) == [1, 2, 3]
    report = SimulationReport("local", "append", 1, 2)
    twice = {1: [Attempt(1, True, "APPEND", "a", 1)], 2: [Attempt(2, True, "APPEND", "a", 1)]}
    check_history(twice, {1: ("a", 1, "APPEND"), 2: ("a", 1, "APPEND")}, report)
    assert report.applied_twice == 1
    report = SimulationReport("local", "append", 1, 1)
    check_history({2: [Attempt(2, True, "APPEND", "a", 1)]}, {}, report)
    assert report.violations == ["snapshots created by no writer: [1]"]


# --------------------------------------------------------------------------------------------
# Simulations
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(TableKind), ids=lambda kind: kind.value)
def test_local_writers(work_dir: str, kind: TableKind) -> None:
    report = run_simulation(local_config(work_dir, kind, 3, 5))
    assert_clean(report)
    assert report.snapshots >= report.writers  # something was committed by everyone


def test_the_checker_sees_a_tampered_log(work_dir: str) -> None:
    """Dropping one writer's log line must break the history and the replay."""
    config = local_config(work_dir, TableKind.APPEND, 2, 3)
    report = run_simulation(config)
    assert_clean(report)
    log = Path(config.work_dir) / LOG_NAME.format(0)
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    tampered = check_simulation(replace(config, writers=2), LocalFileIO())
    assert any("created by no writer" in v for v in tampered.violations)
    assert any("serial replay" in v for v in tampered.violations)


def test_racy_store_loses_commits(work_dir: str) -> None:
    """Without a conditional put (check, wait, overwrite), writers overwrite each other's
    snapshots while all of them report success: the simulation must say so."""
    report = run_simulation(local_config(work_dir, TableKind.APPEND, 3, 5, racy=True))
    assert report.lost > 0, format_reports([report])
    assert report.succeeded == report.operations  # every writer believes it committed


def s3_config(
    store: S3Store, work_dir: str, kind: TableKind, writers: int, commits: int, **more: object
) -> SimulationConfig:
    return SimulationConfig(
        f"{store.uri}/sim-{uuid.uuid4().hex[:8]}",
        kind,
        writers,
        commits,
        work_dir,
        s3_endpoint=store.endpoint,
        s3_region=store.region,
        **more,  # type: ignore[arg-type]
    )


def s3_env(store: S3Store) -> dict[str, str]:
    return {"AWS_ACCESS_KEY_ID": store.access_key, "AWS_SECRET_ACCESS_KEY": store.secret_key}


@pytest.mark.s3
def test_s3_writers(s3_store: S3Store, work_dir: str) -> None:
    config = s3_config(s3_store, work_dir, TableKind.PRIMARY_KEY, 3, 3)
    assert_clean(run_simulation(config, s3_env(s3_store)))


@pytest.mark.s3
@pytest.mark.slow
def test_s3_racy_store_loses_commits(s3_store: S3Store, work_dir: str) -> None:
    config = s3_config(s3_store, work_dir, TableKind.APPEND, 3, 4, racy=True)
    report = run_simulation(config, s3_env(s3_store))
    assert report.lost > 0, format_reports([report])


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(TableKind), ids=lambda kind: kind.value)
def test_local_writers_long(work_dir: str, kind: TableKind) -> None:
    assert_clean(run_simulation(local_config(work_dir, kind, 4, 20, seed=1)))


@pytest.mark.s3
@pytest.mark.slow
@pytest.mark.parametrize("kind", list(TableKind), ids=lambda kind: kind.value)
def test_s3_writers_long(s3_store: S3Store, work_dir: str, kind: TableKind) -> None:
    config = s3_config(s3_store, work_dir, kind, 4, 8, seed=1)
    assert_clean(run_simulation(config, s3_env(s3_store)))
