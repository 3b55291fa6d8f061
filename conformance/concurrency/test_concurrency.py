"""Writer processes committing to one table at the same time, checked afterwards.

See :mod:`conformance.concurrency.simulate` for the workload and the invariants. The default
tier runs 3 writers x 5 commits locally (append and primary-key tables), 3 x 3 on S3, and one
racy run (conditional put turned off) that must lose commits; ``-m slow`` runs more.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conformance.concurrency.simulate import (
    KEY_STRIDE,
    LOG_NAME,
    TABLE_FIELDS,
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
    compute_table_options,
    decode_operation_record,
    format_reports,
    plan_operations,
    run_simulation,
)
from conformance.faults.faulty_io import DelegatingFileIO, FileRole, classify_path
from conformance.objectstore.pytest_fixtures import S3Store
from reference.io import FileIO, LocalFileIO
from reference.store import metadata
from reference.table import Table

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
        assert all(key % KEY_STRIDE == writer for key in keys)
        assert all(
            row[2] == 0 for op in plan if op.kind is OperationKind.OVERWRITE for row in op.rows
        )


def record(error: str | None, retryable: bool | None = None, message: str = "") -> OperationRecord:
    return OperationRecord(
        0,
        "u",
        1,
        OperationKind.UPSERT,
        (),
        (),
        Outcome.FAILED,
        error,
        message,
        retryable,
        False,
        (),
    )


def test_failures_are_classified() -> None:
    deleted = "COMPACT commit conflicts with snapshot 4: data-1.parquet (bucket 0, level 0) is "
    deleted += "deleted but not live; key ranges of data-2 and data-3 overlap"
    overlap = "APPEND commit conflicts with snapshot 9: key ranges of a (bucket 1, level 2) and b"
    twice = "OVERWRITE commit conflicts with an empty table: data-1.orc (bucket 0) is added twice"
    conflict = "CommitConflictError"
    assert classify_failure(record(conflict, False, deleted)) is FailureClass.FILE_DELETED_CONFLICT
    assert classify_failure(record(conflict, False, overlap)) is FailureClass.KEY_RANGE_CONFLICT
    assert (
        classify_failure(record(conflict, False, twice)) is FailureClass.FILE_ADDED_TWICE_CONFLICT
    )
    assert classify_failure(record(conflict, False, "other")) is FailureClass.UNCLASSIFIED
    assert classify_failure(record(conflict, True)) is FailureClass.RETRIES_EXHAUSTED
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
# Regressions found by the simulations
# --------------------------------------------------------------------------------------------


class OthersCommitMeanwhile(DelegatingFileIO):
    """Runs ``meanwhile`` once, right after the first manifest list of a commit is written
    (while the commit is being prepared)."""

    def __init__(self, inner: FileIO, meanwhile: Callable[[], None]) -> None:
        super().__init__(inner)
        self.meanwhile: Callable[[], None] | None = meanwhile

    def write_bytes(self, path: str, data: bytes) -> None:
        self.inner.write_bytes(path, data)
        if classify_path(path) is FileRole.MANIFEST_LIST and self.meanwhile is not None:
            meanwhile, self.meanwhile = self.meanwhile, None
            meanwhile()


def test_a_commit_whose_base_snapshot_expired_meanwhile_is_retried(work_dir: str) -> None:
    """Found by the local append simulation (1 commit lost): writer A prepares snapshot 2 on
    snapshot 1; meanwhile others commit 2, 3 and 4 and expire 1 to 3. Creating snapshot 2
    then succeeded again (the name was free), behind the latest snapshot: the table read as
    of snapshot 2 (its LATEST hint) and lost 2-4. A must retry on snapshot 4 instead."""
    options = {
        **compute_table_options(TableKind.APPEND),
        "snapshot.num-retained.min": "1",
        "snapshot.num-retained.max": "1",
    }
    root = f"{work_dir}/table"
    table = Table.create(LocalFileIO(), root, TABLE_FIELDS, partition_keys=["p"], options=options)
    table.write_and_commit([(1, "a", 0)])

    def others_commit_and_expire() -> None:
        other = Table(LocalFileIO(), root)
        for key in (2, 3, 4):
            other.write_and_commit([(key, "b", 0)])
        time.sleep(0.01)  # older than snapshot.time-retained
        assert other.expire().expired == (1, 2, 3)

    writer = Table(OthersCommitMeanwhile(LocalFileIO(), others_commit_and_expire), root)
    assert [snapshot.id for snapshot in writer.write_and_commit([(100, "c", 0)])] == [5]
    assert metadata.list_snapshot_ids(LocalFileIO(), root) == [4, 5]
    rows = sorted(row for _, row in Table(LocalFileIO(), root).read().rows)
    assert rows == [(1, "a", 0), (2, "b", 0), (3, "b", 0), (4, "b", 0), (100, "c", 0)]


# --------------------------------------------------------------------------------------------
# Simulations
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(TableKind), ids=lambda kind: kind.value)
def test_local_writers(work_dir: str, kind: TableKind) -> None:
    config = local_config(work_dir, kind, 3, 5)
    report = run_simulation(config)
    assert_clean(report)
    assert report.snapshots >= report.writers  # something was committed by everyone
    if kind is TableKind.APPEND:
        drop_a_visible_commit_from_the_logs(config)
        tampered = check_simulation(config, LocalFileIO())
        assert any("created by no writer" in v for v in tampered.violations), tampered.violations
        assert any("serial replay" in v for v in tampered.violations), tampered.violations


def drop_a_visible_commit_from_the_logs(config: SimulationConfig) -> None:
    """Remove the log line of a committed append whose rows the table still shows: the
    checker must then find a snapshot nobody created and a replay without those rows."""
    visible = {row for _, row in Table(LocalFileIO(), config.table_uri).read().rows}
    for writer in range(config.writers):
        log = Path(config.work_dir) / LOG_NAME.format(writer)
        lines = log.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            found = decode_operation_record(line)
            created = any(attempt.created for attempt in found.attempts)
            if found.kind is OperationKind.APPEND and created and set(found.rows) <= visible:
                log.write_text("\n".join(lines[:number] + lines[number + 1 :]) + "\n")
                return
    raise AssertionError("no committed append is visible in the table")


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
