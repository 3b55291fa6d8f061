"""Crash injection at every IO step of write + commit (and of compaction and expiration).

The quick tier crashes at the first step of each file role (and at every snapshot create),
one fault kind per step in turn; ``-m slow`` crashes at every step with every fault kind.
See :mod:`conformance.faults.crash` for the checks made after each crash.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator

import pytest

from conformance.faults.crash import (
    SCENARIOS,
    SCENARIOS_BY_NAME,
    CaseReport,
    CaseResult,
    compute_model_rows,
    create_base,
    read_rows,
    read_snapshot_rows,
    record_steps,
    run_case,
    run_scenario,
)
from conformance.faults.faulty_io import (
    FaultKind,
    FaultyFileIO,
    FileRole,
    InjectedFault,
    RacyFileIO,
    RecordingFileIO,
    SimulatedCrash,
    StepKind,
    classify_path,
)
from conformance.objectstore.pytest_fixtures import S3Store
from reference.io import LocalFileIO
from reference.store import commit as commit_module
from reference.store import metadata

SHARED_MEMORY = "/dev/shm"


@pytest.fixture
def fast_dir() -> Iterator[str]:
    """A scratch directory on tmpfs when there is one (the local store fsyncs every file)."""
    parent = SHARED_MEMORY if os.access(SHARED_MEMORY, os.W_OK) else None
    directory = tempfile.mkdtemp(prefix="paimon-kit-crash-", dir=parent)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def describe(reports: list[CaseReport]) -> str:
    return "\n".join(
        f"{r.scenario} step {r.step.index} ({r.step.kind.value} {r.step.role.value}) "
        f"{r.fault.value}: {problem}"
        for r in reports
        for problem in r.problems
    )


# --------------------------------------------------------------------------------------------
# The wrappers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "role"),
    [
        ("/t/p=1/bucket-0/data-0a-0.parquet", FileRole.DATA),
        ("/t/bucket-3/changelog-0a-1.orc", FileRole.CHANGELOG),
        ("/t/bucket-0/data-0a-0.parquet.index", FileRole.FILE_INDEX),
        ("/t/index/index-0a-0", FileRole.INDEX),
        ("/t/manifest/manifest-0a-0", FileRole.MANIFEST),
        ("/t/manifest/manifest-list-0a-2", FileRole.MANIFEST_LIST),
        ("/t/manifest/index-manifest-0a-0", FileRole.INDEX_MANIFEST),
        ("/t/snapshot/snapshot-12", FileRole.SNAPSHOT),
        ("/t/snapshot/LATEST", FileRole.HINT),
        ("/t/snapshot/.snapshot-3.abc.tmp", FileRole.TEMPORARY),
        ("/t/schema/schema-0", FileRole.SCHEMA),
        ("s3://b/t/tag/tag-x", FileRole.TAG),
    ],
)
def test_classify_path(path: str, role: FileRole) -> None:
    assert classify_path(path) is role


def test_recording_sees_every_step_of_a_commit(fast_dir: str) -> None:
    scenario = SCENARIOS_BY_NAME["pk-lookup-dv"]
    create_base(LocalFileIO(), f"{fast_dir}/base", scenario)
    steps = record_steps(LocalFileIO(), f"{fast_dir}/base", f"{fast_dir}/work", scenario)
    roles = [step.role for step in steps]
    creates = [step for step in steps if step.kind is StepKind.CREATE]
    # One APPEND and one COMPACT snapshot, each followed by the LATEST hint.
    assert [step.role for step in creates] == [FileRole.SNAPSHOT, FileRole.SNAPSHOT]
    assert all(roles[step.index + 1] is FileRole.HINT for step in creates)
    assert {FileRole.DATA, FileRole.CHANGELOG, FileRole.INDEX, FileRole.INDEX_MANIFEST} <= set(
        roles
    )
    assert [step.index for step in steps] == list(range(len(steps)))


def test_crash_points_cover_every_file_role(fast_dir: str) -> None:
    roles: set[FileRole] = set()
    for scenario in SCENARIOS:
        base = f"{fast_dir}/{scenario.name}/base"
        create_base(LocalFileIO(), base, scenario)
        steps = record_steps(LocalFileIO(), base, f"{fast_dir}/{scenario.name}/work", scenario)
        roles |= {step.role for step in steps}
    wanted = {
        FileRole.DATA,
        FileRole.CHANGELOG,
        FileRole.FILE_INDEX,
        FileRole.INDEX,
        FileRole.MANIFEST,
        FileRole.MANIFEST_LIST,
        FileRole.INDEX_MANIFEST,
        FileRole.SNAPSHOT,
        FileRole.HINT,
    }
    assert wanted <= roles


def test_raise_leaves_the_store_untouched(fast_dir: str) -> None:
    faulty = FaultyFileIO(LocalFileIO(), 1, FaultKind.RAISE)
    faulty.write_bytes(f"{fast_dir}/a", b"a")
    with pytest.raises(InjectedFault):
        faulty.write_bytes(f"{fast_dir}/b", b"b")
    faulty.write_bytes(f"{fast_dir}/c", b"c")
    assert sorted(os.listdir(fast_dir)) == ["a", "c"]
    assert faulty.fired is not None and faulty.fired.index == 1


def test_ambiguous_does_the_call_then_raises(fast_dir: str) -> None:
    faulty = FaultyFileIO(LocalFileIO(), 0, FaultKind.AMBIGUOUS)
    with pytest.raises(InjectedFault):
        faulty.create_exclusive(f"{fast_dir}/snapshot-1", b"x")
    assert not LocalFileIO().create_exclusive(f"{fast_dir}/snapshot-1", b"y")


def test_in_process_tear_leaves_a_partial_file_and_kills_all_later_calls(fast_dir: str) -> None:
    faulty = FaultyFileIO(LocalFileIO(), 0, FaultKind.TEAR, in_process=True)
    with pytest.raises(SimulatedCrash):
        faulty.write_bytes(f"{fast_dir}/manifest-1", b"0123456789")
    with open(f"{fast_dir}/manifest-1", "rb") as handle:
        assert handle.read() == b"01234"
    with pytest.raises(SimulatedCrash):
        faulty.read_bytes(f"{fast_dir}/manifest-1")


def test_torn_create_leaves_only_a_temporary_file(fast_dir: str) -> None:
    faulty = FaultyFileIO(LocalFileIO(), 0, FaultKind.TEAR, in_process=True)
    with pytest.raises(SimulatedCrash):
        faulty.create_exclusive(f"{fast_dir}/snapshot-1", b"{}")
    (name,) = os.listdir(fast_dir)
    assert classify_path(f"{fast_dir}/{name}") is FileRole.TEMPORARY


def test_racy_create_lets_two_writers_win(fast_dir: str) -> None:
    racy = RacyFileIO(LocalFileIO(), window=0.0)
    assert racy.create_exclusive(f"{fast_dir}/snapshot-1", b"a")
    assert not racy.create_exclusive(f"{fast_dir}/snapshot-1", b"b")  # sequentially it checks
    racy.inner.delete(f"{fast_dir}/snapshot-1")
    assert racy.create_exclusive(f"{fast_dir}/snapshot-1", b"b")


def test_recording_and_faults_count_the_same_steps(fast_dir: str) -> None:
    """A fault at index i hits the i-th step the recorder saw (the crash points line up)."""
    recorder = RecordingFileIO(LocalFileIO())
    recorder.write_bytes(f"{fast_dir}/x", b"1")
    recorder.read_bytes(f"{fast_dir}/x")
    recorder.create_exclusive(f"{fast_dir}/y", b"1")
    recorder.delete(f"{fast_dir}/x")
    assert [s.kind for s in recorder.steps] == [StepKind.WRITE, StepKind.CREATE, StepKind.DELETE]
    assert recorder.steps[1].created is True
    faulty = FaultyFileIO(LocalFileIO(), 2, FaultKind.RAISE)
    faulty.write_bytes(f"{fast_dir}/x", b"1")
    faulty.read_bytes(f"{fast_dir}/x")
    faulty.create_exclusive(f"{fast_dir}/z", b"1")
    with pytest.raises(InjectedFault):
        faulty.delete(f"{fast_dir}/x")


# --------------------------------------------------------------------------------------------
# Regressions found by crash injection
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("torn", [b"", b"1", b"\x00\xff", b"99999999999999999999999"])
def test_a_torn_latest_hint_does_not_break_reads(fast_dir: str, torn: bytes) -> None:
    """A crash while a store without atomic writes rewrites ``LATEST`` leaves a partial hint:
    readers must fall back to listing (hints are advisory)."""
    scenario = SCENARIOS_BY_NAME["append-overwrite"]
    root = f"{fast_dir}/t"
    create_base(LocalFileIO(), root, scenario)
    with open(f"{root}/snapshot/LATEST", "wb") as handle:
        handle.write(torn)
    assert metadata.find_latest_snapshot_id(LocalFileIO(), root) == 2
    assert read_rows(LocalFileIO(), root) == compute_model_rows(scenario, applied=False)


# --------------------------------------------------------------------------------------------
# Crash points
# --------------------------------------------------------------------------------------------


def test_the_checks_see_a_commit_applied_twice(
    fast_dir: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With recovery switched off (commit rule 12: an identifier the user already committed is
    skipped), the retry after a kill at the LATEST hint, or after a lost response to the
    snapshot create, commits the data again: the checks must say so."""
    monkeypatch.setattr(
        commit_module, "filter_committed", lambda _io, _root, _user, ids, _branch="": list(ids)
    )
    scenario = SCENARIOS_BY_NAME["append-file-index"]
    base = f"{fast_dir}/base"
    create_base(LocalFileIO(), base, scenario)
    before = read_snapshot_rows(LocalFileIO(), base)
    steps = record_steps(LocalFileIO(), base, f"{fast_dir}/recording", scenario)
    roles = {step.role: step for step in steps}
    for role, fault in [(FileRole.HINT, FaultKind.KILL), (FileRole.SNAPSHOT, FaultKind.AMBIGUOUS)]:
        work = f"{fast_dir}/{role.name}"
        report = run_case(
            LocalFileIO(),
            scenario,
            roles[role],
            fault,
            base_root=base,
            work_root=work,
            before=before,
        )
        assert any("applied twice" in problem for problem in report.problems), report


@pytest.mark.parametrize("name", [scenario.name for scenario in SCENARIOS])
def test_crash_points_quick(fast_dir: str, name: str) -> None:
    reports = run_scenario(
        LocalFileIO(), fast_dir, SCENARIOS_BY_NAME[name], list(FaultKind), False, rotate=True
    )
    assert reports
    assert all(r.result is not CaseResult.NOT_REACHED for r in reports)
    assert not any(r.problems for r in reports), describe(reports)


@pytest.mark.slow
@pytest.mark.parametrize("name", [scenario.name for scenario in SCENARIOS])
def test_crash_points_exhaustive(fast_dir: str, name: str) -> None:
    reports = run_scenario(
        LocalFileIO(), fast_dir, SCENARIOS_BY_NAME[name], list(FaultKind), exhaustive=True
    )
    assert all(r.result is not CaseResult.NOT_REACHED for r in reports)
    assert not any(r.problems for r in reports), describe(reports)


@pytest.mark.s3
def test_crash_points_on_s3(s3_store: S3Store) -> None:
    """The same checks on S3; KILL and TEAR are simulated in process (no fork with the S3
    client's threads), a torn write there being a partial object."""
    root = f"{s3_store.uri}/crash-{uuid.uuid4().hex[:8]}"
    scenario = SCENARIOS_BY_NAME["append-file-index"]
    reports = run_scenario(
        s3_store.file_io(), root, scenario, list(FaultKind), False, fork=False, rotate=True
    )
    assert not any(r.problems for r in reports), describe(reports)


@pytest.mark.s3
@pytest.mark.slow
@pytest.mark.parametrize("name", ["pk-lookup-dv", "pk-expire"])
def test_crash_points_on_s3_every_fault(s3_store: S3Store, name: str) -> None:
    root = f"{s3_store.uri}/crash-{uuid.uuid4().hex[:8]}"
    reports = run_scenario(
        s3_store.file_io(), root, SCENARIOS_BY_NAME[name], list(FaultKind), False, fork=False
    )
    assert not any(r.problems for r in reports), describe(reports)
