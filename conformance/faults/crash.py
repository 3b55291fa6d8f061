"""Crash injection at every IO step of one operation, and the checks that must hold after.

A :class:`Scenario` is a table (its options), a base state (batches committed first) and one
operation (a write, an overwrite, a full compaction or an expiration). Its crash points are
found automatically: the operation runs once on a copy of the base through a
:class:`RecordingFileIO`, and every recorded step is a crash point. For each point and fault
kind the operation runs again on a fresh copy through a :class:`FaultyFileIO`; ``KILL`` and
``TEAR`` run it in a forked child process that SIGKILLs itself at that step.

After each case (:func:`run_case`):

1. *Atomic.* Every snapshot that existed before still reads as it did (one an interrupted
   expiration was removing may have lost files: the next expiration removes it first).
   Every new snapshot reads as the rows before the operation or the rows after it, never
   anything in between, and once one reads "after" no later one reads "before". The latest
   read is "before" when no data snapshot of the operation landed, and "after" when one did,
   except on tables whose batch reads skip level 0 (deletion vectors): there new rows become
   visible with the commit's COMPACT snapshot. Expected rows come from a model of the
   operation, not from the reference.
2. *Exactly once.* After any fault the writer retries with the same commit user and
   identifier: after a RAISE or AMBIGUOUS fault the same writer, after a KILL or TEAR the
   restarted one, with the commit messages its write phase checkpointed (a pickle outside
   the table, as an engine's checkpoint), or new ones when the fault came before the
   checkpoint. Its data snapshot then exists, the table reads "after" (same exception for
   level-0-skipping tables: a retry after the APPEND snapshot landed is skipped whole,
   commit rule 12, compaction included), and no user and identifier appears in two
   snapshots of the same kind. An interrupted expiration simply runs again.
3. *Clean-up.* The orphan cleaner (``older_than = 0``) leaves exactly the files the
   remaining snapshots reference (plus schemas, snapshot files and hints), and nothing any
   snapshot uses is deleted.
4. *Recovery.* A new writer then commits a batch (after a killed expiration, the expiration
   runs again first), and the table reads as the model says: the batch on top of "after" if
   the operation's data landed (the new writer's compaction makes hidden rows visible), else
   on top of "before".
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import pickle
import signal
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from conformance.faults.faulty_io import (
    FaultKind,
    FaultyFileIO,
    FileRole,
    InjectedFault,
    IOStep,
    RecordingFileIO,
    SimulatedCrash,
    StepKind,
)
from reference import layout
from reference.errors import FileMissingError, PaimonKitError, PartialCommitError
from reference.io import FileIO, LocalFileIO
from reference.spec import types as t
from reference.spec.commit_message import CommitMessage
from reference.spec.data import Row, Value
from reference.spec.manifest import (
    FileKind,
    decode_index_manifest,
    decode_manifest_entries,
    decode_manifest_list,
    parse_manifest_format,
)
from reference.spec.snapshot import CommitKind, Snapshot
from reference.store import metadata, orphans
from reference.store.compact import compact_after_write, compact_table
from reference.store.query import TimeTravel
from reference.store.scan import is_level_zero_skipped
from reference.table import Table

CHILD_TIMEOUT_SECONDS = 120.0
CHILD_POLL_SECONDS = 0.01
CHILD_EXIT_COMPLETED = 0
CHILD_EXIT_FAILED = 3
ORPHAN_AGE_PAUSE_SECONDS = 0.01
COMMIT_IDENTIFIER = 7

FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(nullable=True, length=t.MAX_LENGTH)),
)


class OperationKind(Enum):
    WRITE = "write"
    OVERWRITE = "overwrite"
    COMPACT = "full compaction"
    EXPIRE = "expire"


def compute_batch(number: int, keys: int = 40, stride: int = 3) -> tuple[Row, ...]:
    """Rows ``(k, "b<number>-<k>")`` for every ``stride``-th key from ``number``."""
    return tuple((k, f"b{number}-{k}") for k in range(number, keys, stride))


@dataclass(frozen=True)
class Scenario:
    """A table, its base batches, and the operation whose IO steps are crash points."""

    name: str
    primary_key: bool
    options: tuple[tuple[str, str], ...]
    base: tuple[tuple[Row, ...], ...]
    operation: OperationKind
    rows: tuple[Row, ...] = ()


LOOKUP_DV = (
    ("bucket", "1"),
    ("changelog-producer", "lookup"),
    ("deletion-vectors.enabled", "true"),
)
EXPIRING = (
    ("bucket", "1"),
    ("changelog-producer", "lookup"),
    ("snapshot.num-retained.min", "1"),
    ("snapshot.num-retained.max", "1"),
    ("snapshot.time-retained", "1 ms"),
)
FILE_INDEX = (
    ("bucket", "-1"),
    ("file-index.bloom-filter.columns", "v"),
    ("file-index.in-manifest-threshold", "1 B"),
)

SCENARIOS = (
    Scenario(
        "pk-lookup-dv",
        True,
        LOOKUP_DV,
        (compute_batch(0), compute_batch(1), compute_batch(2)),
        OperationKind.WRITE,
        compute_batch(3),
    ),
    Scenario("pk-first-commit", True, LOOKUP_DV, (), OperationKind.WRITE, compute_batch(0)),
    Scenario(
        "pk-dynamic-bucket",
        True,
        (("bucket", "-1"),),
        (compute_batch(0),),
        OperationKind.WRITE,
        compute_batch(1),
    ),
    Scenario(
        "append-file-index",
        False,
        FILE_INDEX,
        (compute_batch(0),),
        OperationKind.WRITE,
        compute_batch(1),
    ),
    Scenario(
        "append-overwrite",
        False,
        (("bucket", "-1"),),
        (compute_batch(0), compute_batch(1)),
        OperationKind.OVERWRITE,
        compute_batch(2),
    ),
    Scenario(
        "pk-full-compaction",
        True,
        LOOKUP_DV,
        (compute_batch(0), compute_batch(1), compute_batch(2), compute_batch(3)),
        OperationKind.COMPACT,
    ),
    Scenario(
        "pk-expire",
        True,
        EXPIRING,
        (compute_batch(0), compute_batch(1), compute_batch(2), compute_batch(3)),
        OperationKind.EXPIRE,
    ),
)
SCENARIOS_BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}
RECOVERY_BATCH = tuple((k, f"recovery-{k}") for k in range(0, 50, 7))


# --------------------------------------------------------------------------------------------
# The model (expected rows, independent of the reference)
# --------------------------------------------------------------------------------------------


def compute_canonical(rows: Sequence[Row]) -> list[Row]:
    return sorted((tuple(row) for row in rows), key=repr)


def apply_batch(state: Sequence[Row], rows: Sequence[Row], primary_key: bool) -> list[Row]:
    """A write: an upsert by key for a primary-key table, an append otherwise."""
    if not primary_key:
        return compute_canonical([*state, *rows])
    by_key = {row[0]: row for row in state}
    by_key.update({row[0]: row for row in rows})
    return compute_canonical(list(by_key.values()))


def compute_model_rows(scenario: Scenario, *, applied: bool) -> list[Row]:
    state: list[Row] = []
    for batch in scenario.base:
        state = apply_batch(state, batch, scenario.primary_key)
    if applied and scenario.operation is OperationKind.WRITE:
        state = apply_batch(state, scenario.rows, scenario.primary_key)
    if applied and scenario.operation is OperationKind.OVERWRITE:
        state = compute_canonical(scenario.rows)
    return state


# --------------------------------------------------------------------------------------------
# Running the operation
# --------------------------------------------------------------------------------------------


def create_base(file_io: FileIO, root: str, scenario: Scenario) -> None:
    table = Table.create(
        file_io,
        root,
        FIELDS,
        primary_keys=["k"] if scenario.primary_key else [],
        options=dict(scenario.options),
    )
    for batch in scenario.base:
        table.write_and_commit(list(batch))


def copy_table(file_io: FileIO, source: str, target: str) -> None:
    """Copy every file of a table, byte for byte (works on any store)."""
    for path in file_io.list_files_recursive(source):
        file_io.write_bytes(target + path[len(source.rstrip("/")) :], file_io.read_bytes(path))


def prepare_messages(file_io: FileIO, root: str, scenario: Scenario) -> list[CommitMessage]:
    """The write phase: data, changelog and index files, described in commit messages."""
    if scenario.operation is OperationKind.COMPACT:
        return compact_table(file_io, root, full=True)
    is_overwrite = scenario.operation is OperationKind.OVERWRITE
    written = Table(file_io, root).write(list(scenario.rows))
    return compact_after_write(file_io, root, written, overwrite=is_overwrite)


def commit_messages(
    file_io: FileIO, root: str, scenario: Scenario, messages: Sequence[CommitMessage], user: str
) -> list[Snapshot]:
    """The commit phase, with a fixed commit user and identifier (so a retry is recognised)."""
    overwrite: dict[str, Value] | None = (
        {} if scenario.operation is OperationKind.OVERWRITE else None
    )
    return Table(file_io, root).commit(
        messages, commit_user=user, identifier=COMMIT_IDENTIFIER, overwrite=overwrite
    )


Checkpoint = Callable[[list[CommitMessage]], None]
"""Where a writer saves its commit messages between the write and the commit phase (an
engine's checkpoint: durable, and outside the table)."""


def run_operation(
    file_io: FileIO, root: str, scenario: Scenario, user: str, checkpoint: Checkpoint | None = None
) -> None:
    """The operation: an expiration, or the write phase, its checkpoint, then the commit."""
    if scenario.operation is OperationKind.EXPIRE:
        Table(file_io, root).expire()
        return
    messages = prepare_messages(file_io, root, scenario)
    if checkpoint is not None:
        checkpoint(messages)
    commit_messages(file_io, root, scenario, messages, user)


def record_steps(
    file_io: FileIO, base_root: str, work_root: str, scenario: Scenario
) -> list[IOStep]:
    """The crash points: the steps of one clean run of the operation on a copy of the base."""
    copy_table(file_io, base_root, work_root)
    recorder = RecordingFileIO(file_io)
    run_operation(recorder, work_root, scenario, "recording-" + uuid.uuid4().hex)
    return list(recorder.steps)


# --------------------------------------------------------------------------------------------
# Faults
# --------------------------------------------------------------------------------------------


class CaseResult(Enum):
    """What happened to the operation at the injected fault."""

    FAILED = "failed"
    SUCCEEDED = "succeeded"  # the fault was absorbed (a hint, or a best-effort delete)
    KILLED = "killed"
    NOT_REACHED = "not reached"


@dataclass(frozen=True)
class InterruptedRun:
    """A run of the operation with a fault, and the commit messages its write phase
    checkpointed (None when the fault came first)."""

    result: CaseResult
    messages: list[CommitMessage] | None


def run_raising(
    file_io: FileIO, root: str, scenario: Scenario, step: int, fault: FaultKind, *, user: str
) -> InterruptedRun:
    """Run the operation here with a RAISE or AMBIGUOUS fault at ``step``."""
    faulty = FaultyFileIO(file_io, step, fault)
    saved: list[list[CommitMessage]] = []
    try:
        run_operation(faulty, root, scenario, user, saved.append)
    except (InjectedFault, PartialCommitError):  # the latter: data landed, compaction did not
        return InterruptedRun(CaseResult.FAILED, saved[0] if saved else None)
    result = CaseResult.NOT_REACHED if faulty.fired is None else CaseResult.SUCCEEDED
    return InterruptedRun(result, saved[0] if saved else None)


def run_crashed_in_process(
    file_io: FileIO, root: str, scenario: Scenario, step: int, fault: FaultKind, *, user: str
) -> InterruptedRun:
    """Run the operation here; the faulty IO "dies" at ``step`` (``SimulatedCrash``)."""
    faulty = FaultyFileIO(file_io, step, fault, in_process=True)
    saved: list[list[CommitMessage]] = []
    try:
        run_operation(faulty, root, scenario, user, saved.append)
    except SimulatedCrash:
        return InterruptedRun(CaseResult.KILLED, saved[0] if saved else None)
    return InterruptedRun(CaseResult.NOT_REACHED, saved[0] if saved else None)


def save_checkpoint(path: str) -> Checkpoint:
    """Pickle the messages to a local file (written whole, then renamed into place)."""

    def save(messages: list[CommitMessage]) -> None:
        with open(path + ".part", "wb") as handle:
            pickle.dump(messages, handle)
        os.replace(path + ".part", path)

    return save


def load_checkpoint(path: str) -> list[CommitMessage] | None:
    if not os.path.exists(path):
        return None
    with open(path, "rb") as handle:
        messages: list[CommitMessage] = pickle.load(handle)
    os.remove(path)
    return messages


def wait_for_child(pid: int, step: int) -> int:
    """The wait status of the crash child ``pid`` (killed if it hangs)."""
    deadline = time.monotonic() + CHILD_TIMEOUT_SECONDS
    while True:
        finished, status = os.waitpid(pid, os.WNOHANG)
        if finished:
            return status
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError(f"crash child for step {step} hung")
        time.sleep(CHILD_POLL_SECONDS)


def run_killed(
    file_io: FileIO, root: str, scenario: Scenario, step: int, fault: FaultKind, *, user: str
) -> InterruptedRun:
    """Run the operation in a forked child that SIGKILLs itself at ``step``; its checkpoint
    goes to a local temporary file (whatever the store)."""
    checkpoint = os.path.join(tempfile.gettempdir(), f"paimon-kit-checkpoint-{uuid.uuid4().hex}")
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        code = CHILD_EXIT_FAILED
        try:
            faulty = FaultyFileIO(file_io, step, fault)
            run_operation(faulty, root, scenario, user, save_checkpoint(checkpoint))
            code = CHILD_EXIT_COMPLETED
        finally:
            os._exit(code)
    status = wait_for_child(pid, step)
    messages = load_checkpoint(checkpoint)
    if os.WIFSIGNALED(status):
        return InterruptedRun(CaseResult.KILLED, messages)
    if os.WEXITSTATUS(status) == CHILD_EXIT_COMPLETED:
        return InterruptedRun(CaseResult.NOT_REACHED, messages)
    raise AssertionError(f"crash child for step {step} failed before the step (exit {status})")


def retry_with_same_identifier(
    file_io: FileIO, root: str, scenario: Scenario, run: InterruptedRun, user: str
) -> None:
    """Rule 2: the writer (restarted after a kill) tries again with the same commit user and
    identifier: it commits its checkpointed messages, or writes anew when it had none."""
    if scenario.operation is OperationKind.EXPIRE:
        run_operation(file_io, root, scenario, user)
        return
    messages = (
        run.messages if run.messages is not None else prepare_messages(file_io, root, scenario)
    )
    commit_messages(file_io, root, scenario, messages, user)


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def read_rows(file_io: FileIO, root: str, snapshot_id: int | None = None) -> list[Row]:
    travel = TimeTravel(snapshot_id=snapshot_id)
    return compute_canonical([row for _, row in Table(file_io, root).read(travel).rows])


def read_snapshot_rows(
    file_io: FileIO, root: str, doomed: frozenset[int] = frozenset()
) -> dict[int, list[Row]]:
    """The rows of every snapshot on the store, by id. A ``doomed`` snapshot (one the
    operation expires) may have lost files to an interrupted expiration: it is skipped when
    it cannot be read (expiration rule 4: the next expiration removes it first)."""
    found = {}
    for snapshot_id in metadata.list_snapshot_ids(file_io, root):
        try:
            found[snapshot_id] = read_rows(file_io, root, snapshot_id)
        except FileMissingError:
            if snapshot_id not in doomed:
                raise
    return found


DATA_KINDS = frozenset({CommitKind.APPEND, CommitKind.OVERWRITE})


def find_new_data_snapshots(file_io: FileIO, root: str, base_latest: int) -> list[Snapshot]:
    """The APPEND and OVERWRITE snapshots committed after ``base_latest``."""
    found = []
    for snapshot_id in metadata.list_snapshot_ids(file_io, root):
        if snapshot_id > base_latest:
            snapshot = metadata.read_snapshot(file_io, root, snapshot_id)
            if snapshot.commit_kind in DATA_KINDS:
                found.append(snapshot)
    return found


def is_new_data_hidden(file_io: FileIO, root: str) -> bool:
    """Batch reads of this table skip level 0 (deletion vectors), so written rows become
    visible with the compaction snapshot, not the data snapshot."""
    return is_level_zero_skipped(metadata.read_latest_schema(file_io, root))


def check_atomic(
    file_io: FileIO,
    root: str,
    scenario: Scenario,
    before: dict[int, list[Row]],
    *,
    doomed: frozenset[int],
    problems: list[str],
) -> bool:
    """Rule 1; returns whether the operation's data snapshot landed."""
    old_rows = compute_model_rows(scenario, applied=False)
    new_rows = compute_model_rows(scenario, applied=True)
    base_latest = max(before, default=0)
    now = read_snapshot_rows(file_io, root, doomed)
    for snapshot_id, rows in now.items():
        if snapshot_id in before and rows != before[snapshot_id]:
            problems.append(f"snapshot {snapshot_id} changed: it reads {len(rows)} rows")
    states = [now[i] for i in sorted(now) if i > base_latest]
    if any(rows not in (old_rows, new_rows) for rows in states):
        problems.append("a new snapshot reads neither as before nor as after")
    if old_rows != new_rows and new_rows in states and states[-1] != new_rows:
        problems.append("a later snapshot went back to 'before'")
    landed = bool(find_new_data_snapshots(file_io, root, base_latest))
    latest = read_rows(file_io, root)
    if not landed and latest != old_rows:
        problems.append(f"nothing was committed but the table reads {len(latest)} other rows")
    if landed and latest != new_rows and not is_new_data_hidden(file_io, root):
        problems.append("the data snapshot landed but the table does not read as 'after'")
    return landed


def check_exactly_once(
    file_io: FileIO, root: str, scenario: Scenario, base_latest: int, problems: list[str]
) -> None:
    """Rule 2 (after the retry)."""
    seen: Counter[tuple[str, int, str]] = Counter()
    for snapshot_id in metadata.list_snapshot_ids(file_io, root):
        snapshot = metadata.read_snapshot(file_io, root, snapshot_id)
        seen[(snapshot.commit_user, snapshot.commit_identifier, snapshot.commit_kind.value)] += 1
    twice = [key for key, count in seen.items() if count > 1]
    if twice:
        problems.append(f"commits applied twice: {twice}")
    if scenario.operation not in (OperationKind.WRITE, OperationKind.OVERWRITE):
        return
    if not find_new_data_snapshots(file_io, root, base_latest):
        problems.append("the retry did not commit the data")
    elif read_rows(file_io, root) != compute_model_rows(
        scenario, applied=True
    ) and not is_new_data_hidden(file_io, root):
        problems.append("after the retry the table does not read as 'after'")


def compute_name(path: str) -> str:
    return path.rstrip("/").rpartition("/")[2]


def read_referenced_names(file_io: FileIO, root: str) -> tuple[set[str], set[str]]:
    """``(mentioned, live)``: names any remaining snapshot's metadata mentions, and the names
    it needs (meta files, index files, live data and changelog files). Read with the codecs
    directly, not with the orphan cleaner's own walk."""
    schema = metadata.read_latest_schema(file_io, root)
    fmt = parse_manifest_format(schema.core_options.manifest_format)
    mentioned: set[str] = set()
    live: set[str] = set()
    for snapshot_id in metadata.list_snapshot_ids(file_io, root):
        snapshot = metadata.read_snapshot(file_io, root, snapshot_id)
        lists = [snapshot.base_manifest_list, snapshot.delta_manifest_list]
        lists += [snapshot.changelog_manifest_list] if snapshot.changelog_manifest_list else []
        added: dict[tuple[bytes, int, str], list[str]] = {}
        for list_name in lists:
            live.add(list_name)
            list_bytes = file_io.read_bytes(layout.manifest_path(root, list_name))
            for meta in decode_manifest_list(list_bytes, fmt):
                live.add(meta.file_name)
                data = file_io.read_bytes(layout.manifest_path(root, meta.file_name))
                for entry in decode_manifest_entries(data, fmt):
                    names = [entry.file.file_name, *entry.file.extra_files]
                    mentioned.update(names)
                    key = (entry.partition, entry.bucket, entry.file.file_name)
                    if entry.kind is FileKind.ADD:
                        added[key] = names
                    else:
                        added.pop(key, None)
        live.update(name for names in added.values() for name in names)
        if snapshot.index_manifest is not None:
            live.add(snapshot.index_manifest)
            data = file_io.read_bytes(layout.manifest_path(root, snapshot.index_manifest))
            live.update(e.index_file.file_name for e in decode_index_manifest(data, fmt))
    return mentioned | live, live


def is_always_kept(path: str, root: str) -> bool:
    """Schema files, snapshot files and hints are never orphans."""
    relative = path[len(root.rstrip("/")) + 1 :]
    directory, _, name = relative.rpartition("/")
    if directory == layout.SCHEMA_DIR:
        return layout.parse_schema_id(name) is not None
    if directory == layout.SNAPSHOT_DIR:
        hints = {hint.value for hint in layout.HintFile}
        return name in hints or layout.parse_snapshot_id(name) is not None
    return False


def check_orphans_cleaned(file_io: FileIO, root: str, problems: list[str]) -> list[str]:
    """Rule 3; returns the files the cleaner removed."""
    rows_before = read_rows(file_io, root)
    time.sleep(ORPHAN_AGE_PAUSE_SECONDS)
    removed = orphans.remove_orphan_files(file_io, root, older_than=dt.timedelta(0))
    referenced, live = read_referenced_names(file_io, root)
    present = [p for p in file_io.list_files_recursive(root) if not is_always_kept(p, root)]
    left = sorted(compute_name(p) for p in present if compute_name(p) not in referenced)
    if left:
        problems.append(f"the orphan cleaner left {left}")
    names_present = {compute_name(p) for p in present}
    gone = sorted(live - names_present)
    if gone:
        problems.append(f"files in use are missing after cleaning: {gone}")
    if read_rows(file_io, root) != rows_before:
        problems.append("cleaning orphans changed what the table reads")
    return removed


def check_next_writer(
    file_io: FileIO, root: str, scenario: Scenario, landed: bool, problems: list[str]
) -> None:
    """Rule 4: the new batch on top of "after" if the operation's data landed (its
    compaction makes hidden level-0 rows visible), else on top of "before"."""
    Table(file_io, root).write_and_commit(list(RECOVERY_BATCH))
    current = compute_model_rows(scenario, applied=landed)
    expected = apply_batch(current, RECOVERY_BATCH, scenario.primary_key)
    if read_rows(file_io, root) != expected:
        problems.append("the next writer's batch does not read as expected")


# --------------------------------------------------------------------------------------------
# One case
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseReport:
    scenario: str
    step: IOStep
    fault: FaultKind
    result: CaseResult
    orphans_removed: int
    problems: tuple[str, ...]


def run_case(
    file_io: FileIO,
    scenario: Scenario,
    step: IOStep,
    fault: FaultKind,
    *,
    base_root: str,
    work_root: str,
    before: dict[int, list[Row]],
    doomed: frozenset[int] = frozenset(),
    fork: bool = True,
) -> CaseReport:
    """Rules 1-4 for one crash point and fault kind, on a fresh copy of the base whose
    snapshots read as ``before`` (``doomed``: those the operation expires). A KILL or TEAR
    forks a child that SIGKILLs itself, or (``fork=False``) simulates the death in this
    process; an interrupted expiration is then run again, as the next maintenance run."""
    copy_table(file_io, base_root, work_root)
    user = "crashing-" + uuid.uuid4().hex
    problems: list[str] = []
    removed: list[str] = []
    try:
        if fault in (FaultKind.KILL, FaultKind.TEAR):
            crash = run_killed if fork else run_crashed_in_process
            run = crash(file_io, work_root, scenario, step.index, fault, user=user)
        else:
            run = run_raising(file_io, work_root, scenario, step.index, fault, user=user)
        result = run.result
        if result is CaseResult.NOT_REACHED:
            problems.append("the crash point was not reached (the IO sequence changed)")
        landed = check_atomic(
            file_io, work_root, scenario, before, doomed=doomed, problems=problems
        )
        retry_with_same_identifier(file_io, work_root, scenario, run, user)
        check_exactly_once(file_io, work_root, scenario, max(before, default=0), problems)
        landed = landed or scenario.operation in (OperationKind.WRITE, OperationKind.OVERWRITE)
        removed = check_orphans_cleaned(file_io, work_root, problems)
        check_next_writer(file_io, work_root, scenario, landed, problems)
    except PaimonKitError as error:
        problems.append(f"{type(error).__name__}: {error}")
        result = CaseResult.FAILED
    return CaseReport(scenario.name, step, fault, result, len(removed), tuple(problems))


def select_steps(steps: Sequence[IOStep], exhaustive: bool) -> list[IOStep]:
    """Every step, or (the quick tier) the first step of each role plus every snapshot
    create (so that a crash between the two snapshots of a commit is always covered)."""
    if exhaustive:
        return list(steps)
    seen: set[FileRole] = set()
    chosen = []
    for step in steps:
        if step.role not in seen or (step.role, step.kind) == (FileRole.SNAPSHOT, StepKind.CREATE):
            seen.add(step.role)
            chosen.append(step)
    return chosen


def run_scenario(
    file_io: FileIO,
    directory: str,
    scenario: Scenario,
    faults: Sequence[FaultKind],
    exhaustive: bool,
    *,
    fork: bool = True,
    rotate: bool = False,
    progress: Callable[[CaseReport], None] | None = None,
) -> list[CaseReport]:
    """The selected crash points of ``scenario`` with every fault kind (``rotate``: one fault
    kind per point, taken in turn)."""
    base_root = f"{directory}/{scenario.name}/base"
    create_base(file_io, base_root, scenario)
    before = read_snapshot_rows(file_io, base_root)
    recording_root = f"{directory}/{scenario.name}/recording"
    steps = record_steps(file_io, base_root, recording_root, scenario)
    doomed = frozenset(before) - set(metadata.list_snapshot_ids(file_io, recording_root))
    reports = []
    for number, step in enumerate(select_steps(steps, exhaustive)):
        chosen = [faults[number % len(faults)]] if rotate else faults
        for fault in chosen:
            work_root = f"{directory}/{scenario.name}/case-{number}-{fault.value}"
            report = run_case(
                file_io,
                scenario,
                step,
                fault,
                base_root=base_root,
                work_root=work_root,
                before=before,
                doomed=doomed,
                fork=fork,
            )
            reports.append(report)
            if progress is not None:
                progress(report)
    return reports


def format_case_table(reports: Sequence[CaseReport]) -> str:
    """A Markdown table: one row per scenario and step, one column per fault kind, each cell
    the operation's result, its orphans removed, and ``OK`` or the number of problems."""
    faults = sorted({r.fault for r in reports}, key=lambda f: list(FaultKind).index(f))
    rows: dict[tuple[str, int], dict[FaultKind, CaseReport]] = {}
    for report in reports:
        rows.setdefault((report.scenario, report.step.index), {})[report.fault] = report
    header = ["scenario", "step", "call", "file", *(f.value for f in faults)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for (scenario, index), by_fault in rows.items():
        step = next(iter(by_fault.values())).step
        cells = [scenario, str(index), step.kind.value, step.role.value]
        for fault in faults:
            found = by_fault.get(fault)
            if found is None:
                cells.append("")
                continue
            verdict = "OK" if not found.problems else f"{len(found.problems)} PROBLEMS"
            cells.append(f"{found.result.value}, {found.orphans_removed} orphans, {verdict}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_case_summary(reports: Sequence[CaseReport]) -> str:
    """A Markdown table per scenario and fault kind: crash points, what the operation did
    (failed / absorbed the fault / killed), orphans the cleaner removed, and problems."""
    header = ["scenario", "fault", "points", "failed", "absorbed", "killed", "orphans", "problems"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    groups: dict[tuple[str, FaultKind], list[CaseReport]] = {}
    for report in reports:
        groups.setdefault((report.scenario, report.fault), []).append(report)
    for (scenario, fault), group in groups.items():
        results = Counter(report.result for report in group)
        cells = [
            scenario,
            fault.value,
            str(len(group)),
            str(results[CaseResult.FAILED]),
            str(results[CaseResult.SUCCEEDED]),
            str(results[CaseResult.KILLED]),
            str(sum(report.orphans_removed for report in group)),
            str(sum(len(report.problems) for report in group)),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_point_summary(reports: Sequence[CaseReport]) -> str:
    """A Markdown table of crash points by IO step (call and file role, over all scenarios)
    and fault kind: cases, and how many broke a rule (all must read ``0``)."""
    faults = sorted({r.fault for r in reports}, key=lambda f: list(FaultKind).index(f))
    groups: dict[tuple[str, str], dict[FaultKind, list[CaseReport]]] = {}
    for report in reports:
        point = (report.step.kind.value, report.step.role.value)
        groups.setdefault(point, {}).setdefault(report.fault, []).append(report)
    header = ["crash point", *(f"{f.value}: cases / broken" for f in faults)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for (call, role), by_fault in groups.items():
        cells = [f"{call} {role}"]
        for fault in faults:
            group = by_fault.get(fault, [])
            cells.append(f"{len(group)} / {sum(bool(r.problems) for r in group)}")
        lines.append("| " + " | ".join(cells) + " |")
    broken = sum(bool(r.problems) for r in reports)
    lines.append(
        f"| **total** | {len(reports)} cases, {broken} broken |" + " |" * (len(faults) - 1)
    )
    return "\n".join(lines)


def open_store(use_s3: bool) -> tuple[FileIO, str | None]:
    """The local store, or (``use_s3``) a bucket on the suite's S3 server and its URI."""
    if not use_s3:
        return LocalFileIO(), None
    from conformance.objectstore.pytest_fixtures import _shared_store  # noqa: PLC0415

    store = _shared_store()
    return store.file_io(), f"{store.uri}/crash-{uuid.uuid4().hex[:8]}"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the crash-point tables (local store, or S3 with ``--s3``)."""
    parser = argparse.ArgumentParser(description="crash injection at every IO step")
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS_BY_NAME))
    parser.add_argument("--quick", action="store_true", help="one step per file role")
    parser.add_argument("--s3", action="store_true", help="on S3 (deaths simulated in process)")
    arguments = parser.parse_args(argv)
    names = arguments.scenario or [scenario.name for scenario in SCENARIOS]
    file_io, s3_root = open_store(arguments.s3)
    reports: list[CaseReport] = []
    with tempfile.TemporaryDirectory(prefix="paimon-kit-crash-") as directory:
        for name in names:
            reports += run_scenario(
                file_io,
                s3_root or directory,
                SCENARIOS_BY_NAME[name],
                list(FaultKind),
                exhaustive=not arguments.quick,
                fork=s3_root is None,
            )
    print(format_case_table(reports))
    print()
    print(format_case_summary(reports))
    print()
    print(format_point_summary(reports))
    for report in reports:
        for problem in report.problems:
            print(f"- {report.scenario} step {report.step.index} {report.fault.value}: {problem}")
    return 0 if all(not report.problems for report in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
