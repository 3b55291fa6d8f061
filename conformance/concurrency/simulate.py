"""N writer processes x M commits on one table, and the invariants their logs must satisfy.

Each writer is a separate OS process (``python -m conformance.concurrency.simulate worker``)
with its own commit user. It runs a deterministic plan of operations (appends, upserts on a
primary-key table, compactions, overwrites, expirations), each committed with the writer's
user and an increasing commit identifier, and appends one JSON line per operation to its own
log: the operation and its rows, the outcome, the exception class (and whether the commit
error was retryable), and every attempt to create a snapshot file (id, created or lost to
another writer, the snapshot's kind).

After all writers exit, :func:`check_simulation` verifies:

1. *Contiguous.* The snapshot files on the store have contiguous ids, and every id from 1 to
   the latest was created by exactly one attempt of one writer.
2. *No commit lost.* Every attempt that reported creating snapshot N is the one whose user,
   identifier and kind snapshot N holds (checked for the snapshots that were not expired;
   for expired ones, no two attempts may claim the same id).
3. *None applied twice.* No user and identifier appears in two snapshots of the same kind.
4. *Classified.* Every failed attempt has a known class: a lost snapshot race (snapshot
   conflict) is retried by the committer; a file conflict fails the operation
   (``CommitConflictError(retryable=False)``); retries running out, or a file removed by a
   concurrent expiration while an operation read it, fail it too; an operation whose data
   snapshot landed and whose compaction lost fails with ``PartialCommitError`` naming what
   landed. Anything else is a violation.
5. *Serializable.* Replaying the committed operations serially, in snapshot order, on a
   fresh local table through the reference gives the same rows as the real table. A
   compaction snapshot replays as nothing (it does not change rows); the data part of an
   operation whose compaction part failed replays as the data part.

Workload: writer ``w`` only writes keys ``i * KEY_STRIDE + w``, so the rows of a primary-key
table never depend on the order of two writers' upserts, yet the key ranges of different
writers' files interleave (two compactions that move files of different writers to one level
of a bucket at the same time make an LSM key-range conflict); an overwrite replaces partition
``p = 0`` of every writer, so its position in the snapshot order matters.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path

from conformance.faults.faulty_io import DelegatingFileIO, FileRole, RacyFileIO, classify_path
from reference.errors import (
    CommitConflictError,
    FileMissingError,
    PaimonKitError,
    PartialCommitError,
    SnapshotNotFoundError,
)
from reference.io import FileIO, LocalFileIO, file_io_for
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.spec.snapshot import CommitKind, decode_snapshot
from reference.store import metadata
from reference.store.compact import compact_after_write, compact_table
from reference.table import Table

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
KEY_STRIDE = 100
"""More than the writers of any simulation: key ``i * KEY_STRIDE + w`` belongs to writer ``w``."""
KEYS_PER_WRITER = 12
ROWS_PER_WRITE = 3
PARTITIONS = (0, 1)
OVERWRITTEN_PARTITION = 0
WORKER_TIMEOUT_SECONDS = 600.0
START_DELAY_SECONDS = 2.0
LOG_NAME = "writer-{}.jsonl"
CONFIG_NAME = "simulation.json"

TABLE_FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(nullable=True, length=t.MAX_LENGTH)),
    t.DataField(2, "p", t.IntType(nullable=False)),
)
COMMON_OPTIONS = {
    "snapshot.num-retained.min": "3",
    "snapshot.num-retained.max": "6",
    "snapshot.time-retained": "1 ms",
    "commit.max-retries": "30",
    "commit.min-retry-wait": "5 ms",
    "commit.max-retry-wait": "200 ms",
}


class StoreKind(Enum):
    LOCAL = "local"
    S3 = "s3"


class TableKind(Enum):
    APPEND = "append"
    PRIMARY_KEY = "primary-key"


class OperationKind(Enum):
    APPEND = "append"
    UPSERT = "upsert"
    COMPACT = "compact"
    OVERWRITE = "overwrite"
    EXPIRE = "expire"


class Outcome(Enum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class FailureClass(Enum):
    """Why an attempt or an operation failed (rule 4 of the module docstring). A file
    conflict (``reference.store.commit`` rule 10) is split by its reason: a file the commit
    deletes is no longer live, a file is added twice, or two files of one LSM sorted run
    would overlap in key range."""

    SNAPSHOT_CONFLICT = "snapshot id taken (retried)"
    FILE_DELETED_CONFLICT = "file deleted meanwhile (failed)"
    FILE_ADDED_TWICE_CONFLICT = "file added twice (failed)"
    KEY_RANGE_CONFLICT = "key-range overlap (failed)"
    RETRIES_EXHAUSTED = "retries exhausted (failed)"
    CONCURRENT_EXPIRATION = "file expired meanwhile (failed)"
    PARTIAL_COMMIT = "compaction lost after the data landed (partial)"
    UNCLASSIFIED = "unclassified"


FILE_CONFLICT_REASONS = (
    ("is deleted but not live", FailureClass.FILE_DELETED_CONFLICT),
    ("is added twice", FailureClass.FILE_ADDED_TWICE_CONFLICT),
    ("key ranges of", FailureClass.KEY_RANGE_CONFLICT),
)
"""The reasons ``reference.store.commit.compute_conflicts`` gives, and their class (the first
reason of a message decides)."""


OPERATION_WEIGHTS: dict[TableKind, dict[OperationKind, int]] = {
    TableKind.APPEND: {
        OperationKind.APPEND: 6,
        OperationKind.OVERWRITE: 2,
        OperationKind.EXPIRE: 2,
    },
    TableKind.PRIMARY_KEY: {
        OperationKind.UPSERT: 5,
        OperationKind.COMPACT: 3,
        OperationKind.OVERWRITE: 1,
        OperationKind.EXPIRE: 1,
    },
}
FIRST_OPERATION = {
    TableKind.APPEND: OperationKind.APPEND,
    TableKind.PRIMARY_KEY: OperationKind.UPSERT,
}


# --------------------------------------------------------------------------------------------
# Configuration and plans
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimulationConfig:
    """One simulation run. ``s3_endpoint`` is set for an S3 table (credentials come from the
    environment, never from this file); ``racy`` turns the conditional put off."""

    table_uri: str
    table_kind: TableKind
    writers: int
    commits: int
    work_dir: str
    seed: int = 0
    racy: bool = False
    race_window_seconds: float = 0.3
    s3_endpoint: str | None = None
    s3_region: str = "us-east-1"
    start_at: float = 0.0

    @property
    def store(self) -> StoreKind:
        return StoreKind.S3 if self.s3_endpoint else StoreKind.LOCAL

    def to_json(self) -> str:
        members = asdict(self)
        members["table_kind"] = self.table_kind.value
        return json.dumps(members)

    @staticmethod
    def from_json(text: str) -> SimulationConfig:
        members = json.loads(text)
        members["table_kind"] = TableKind(members["table_kind"])
        return SimulationConfig(**members)


@dataclass(frozen=True)
class Operation:
    """One planned operation of one writer."""

    kind: OperationKind
    identifier: int
    rows: tuple[Row, ...] = ()
    kinds: tuple[RowKind, ...] = ()
    full: bool = False


def compute_table_options(kind: TableKind) -> dict[str, str]:
    if kind is TableKind.APPEND:
        return {**COMMON_OPTIONS, "bucket": "-1"}
    return {**COMMON_OPTIONS, "bucket": "2"}


def create_simulation_table(file_io: FileIO, config: SimulationConfig) -> Table:
    is_pk = config.table_kind is TableKind.PRIMARY_KEY
    return Table.create(
        file_io,
        config.table_uri,
        TABLE_FIELDS,
        partition_keys=["p"],
        primary_keys=["k", "p"] if is_pk else [],
        options=compute_table_options(config.table_kind),
    )


def compute_rows(
    rng: random.Random, writer: int, identifier: int, partitions: Sequence[int]
) -> tuple[Row, ...]:
    keys = rng.sample(range(KEYS_PER_WRITER), ROWS_PER_WRITE)
    return tuple(
        (key * KEY_STRIDE + writer, f"w{writer}-c{identifier}-{key}", rng.choice(partitions))
        for key in keys
    )


def compute_row_kinds(rng: random.Random, kind: OperationKind, count: int) -> tuple[RowKind, ...]:
    """Upserts delete now and then; everything else inserts."""
    if kind is not OperationKind.UPSERT:
        return (RowKind.INSERT,) * count
    return tuple(RowKind.DELETE if rng.random() < 0.25 else RowKind.INSERT for _ in range(count))


def plan_operations(config: SimulationConfig, writer: int) -> list[Operation]:
    """The writer's deterministic plan: identifiers 1..commits, a write first."""
    rng = random.Random(f"{config.seed}/{writer}")
    weights = OPERATION_WEIGHTS[config.table_kind]
    plan = []
    for identifier in range(1, config.commits + 1):
        kind = (
            FIRST_OPERATION[config.table_kind]
            if identifier == 1
            else rng.choices(list(weights), list(weights.values()))[0]
        )
        partitions = (OVERWRITTEN_PARTITION,) if kind is OperationKind.OVERWRITE else PARTITIONS
        rows: tuple[Row, ...] = ()
        if kind in (OperationKind.APPEND, OperationKind.UPSERT, OperationKind.OVERWRITE):
            rows = compute_rows(rng, writer, identifier, partitions)
        kinds = compute_row_kinds(rng, kind, len(rows))
        plan.append(Operation(kind, identifier, rows, kinds, full=rng.random() < 0.5))
    return plan


# --------------------------------------------------------------------------------------------
# The writer process
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    """One ``create_exclusive`` of a snapshot file, and the record it tried to commit."""

    snapshot_id: int
    created: bool
    commit_kind: str
    commit_user: str
    commit_identifier: int


class AttemptLog(DelegatingFileIO):
    """Notes every attempt to create a snapshot file."""

    def __init__(self, inner: FileIO) -> None:
        super().__init__(inner)
        self.attempts: list[Attempt] = []

    def create_exclusive(self, path: str, data: bytes) -> bool:
        created = self.inner.create_exclusive(path, data)
        if classify_path(path) is FileRole.SNAPSHOT:
            snapshot = decode_snapshot(data)
            self.attempts.append(
                Attempt(
                    snapshot.id,
                    created,
                    snapshot.commit_kind.value,
                    snapshot.commit_user,
                    snapshot.commit_identifier,
                )
            )
        return created


def open_store(config: SimulationConfig, env: Mapping[str, str] | None = None) -> FileIO:
    """The file IO for the table (credentials from ``env`` over the process environment);
    racy when asked."""
    options = {}
    if config.s3_endpoint is not None:
        options = {
            "s3.endpoint": config.s3_endpoint,
            "s3.region": config.s3_region,
            "s3.path-style-access": "true",
        }
    file_io = file_io_for(config.table_uri, options, env={**os.environ, **(env or {})})
    if config.racy:
        return RacyFileIO(file_io, config.race_window_seconds)
    return file_io


def apply_operation(table: Table, operation: Operation, user: str) -> list[int]:
    """Run one operation; the ids of the snapshots it committed (none for an expiration)."""
    if operation.kind is OperationKind.EXPIRE:
        table.expire()
        return []
    if operation.kind is OperationKind.COMPACT:
        messages = compact_table(table.file_io, table.root, full=operation.full)
    else:
        is_overwrite = operation.kind is OperationKind.OVERWRITE
        written = table.write(list(operation.rows), list(operation.kinds))
        messages = compact_after_write(table.file_io, table.root, written, overwrite=is_overwrite)
    snapshots = table.commit(
        messages,
        commit_user=user,
        identifier=operation.identifier,
        overwrite={} if operation.kind is OperationKind.OVERWRITE else None,
    )
    return [snapshot.id for snapshot in snapshots]


def encode_operation_record(
    writer: int,
    user: str,
    operation: Operation,
    attempts: Sequence[Attempt],
    *,
    error: BaseException | None,
    seconds: float,
) -> str:
    return json.dumps(
        {
            "writer": writer,
            "user": user,
            "identifier": operation.identifier,
            "kind": operation.kind.value,
            "rows": [list(row) for row in operation.rows],
            "kinds": [kind.short_string for kind in operation.kinds],
            "full": operation.full,
            "outcome": (Outcome.SUCCEEDED if error is None else Outcome.FAILED).value,
            "error": None if error is None else type(error).__name__,
            "message": None if error is None else str(error)[:500],
            "retryable": getattr(error, "retryable", None),
            "retried": any(not attempt.created for attempt in attempts),
            "attempts": [asdict(attempt) for attempt in attempts],
            "seconds": round(seconds, 3),
        }
    )


def run_worker(config: SimulationConfig, writer: int) -> None:
    """The body of one writer process."""
    store = AttemptLog(open_store(config))
    table = Table.open(store, config.table_uri)
    user = f"writer-{writer}-{uuid.uuid4()}"
    plan = plan_operations(config, writer)
    log_path = os.path.join(config.work_dir, LOG_NAME.format(writer))
    time.sleep(max(0.0, config.start_at - time.time()))
    with open(log_path, "a", encoding="utf-8") as log:
        for operation in plan:
            first = len(store.attempts)
            started = time.monotonic()
            error: BaseException | None = None
            try:
                apply_operation(table, operation, user)
            except Exception as raised:
                error = raised
            elapsed = time.monotonic() - started
            attempts = store.attempts[first:]
            log.write(
                encode_operation_record(
                    writer, user, operation, attempts, error=error, seconds=elapsed
                )
            )
            log.write("\n")
            log.flush()


# --------------------------------------------------------------------------------------------
# The driver
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OperationRecord:
    """One line of a writer log."""

    writer: int
    user: str
    identifier: int
    kind: OperationKind
    rows: tuple[Row, ...]
    kinds: tuple[RowKind, ...]
    outcome: Outcome
    error: str | None
    message: str | None
    retryable: bool | None
    retried: bool
    attempts: tuple[Attempt, ...]


def decode_operation_record(line: str) -> OperationRecord:
    members = json.loads(line)
    kinds_by_string = {kind.short_string: kind for kind in RowKind}
    return OperationRecord(
        writer=members["writer"],
        user=members["user"],
        identifier=members["identifier"],
        kind=OperationKind(members["kind"]),
        rows=tuple(tuple(row) for row in members["rows"]),
        kinds=tuple(kinds_by_string[kind] for kind in members["kinds"]),
        outcome=Outcome(members["outcome"]),
        error=members["error"],
        message=members["message"],
        retryable=members["retryable"],
        retried=members["retried"],
        attempts=tuple(Attempt(**attempt) for attempt in members["attempts"]),
    )


def read_logs(work_dir: str, writers: int) -> list[OperationRecord]:
    records = []
    for writer in range(writers):
        path = os.path.join(work_dir, LOG_NAME.format(writer))
        if os.path.exists(path):
            with open(path, encoding="utf-8") as log:
                records += [decode_operation_record(line) for line in log if line.strip()]
    return records


def launch_writers(config: SimulationConfig, env: Mapping[str, str]) -> list[str]:
    """Start the writer processes, wait for them; problems (exit codes, stderr) found."""
    config_path = os.path.join(config.work_dir, CONFIG_NAME)
    with open(config_path, "w", encoding="utf-8") as handle:
        handle.write(config.to_json())
    processes = []
    for writer in range(config.writers):
        stderr = open(os.path.join(config.work_dir, f"writer-{writer}.stderr"), "wb")  # noqa: SIM115
        command = [sys.executable, "-m", "conformance.concurrency.simulate", "worker"]
        process = subprocess.Popen(
            [*command, config_path, str(writer)],
            cwd=PROJECT_ROOT,
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        processes.append((writer, process, stderr))
    problems = []
    deadline = time.monotonic() + WORKER_TIMEOUT_SECONDS
    for writer, process, stderr in processes:
        try:
            code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
            problems.append(f"writer {writer} timed out")
        stderr.close()
        if code != 0:
            tail = Path(stderr.name).read_text(errors="replace")[-2000:]
            problems.append(f"writer {writer} exited with {code}: {tail}")
    return problems


# --------------------------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------------------------


@dataclass
class SimulationReport:
    """What a simulation found; :attr:`violations` must be empty for a correct store."""

    store: str
    table_kind: str
    writers: int
    commits: int
    operations: int = 0
    succeeded: int = 0
    snapshots: int = 0
    lost: int = 0
    applied_twice: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)

    @property
    def is_clean(self) -> bool:
        return not self.violations and self.lost == 0 and self.applied_twice == 0


def classify_file_conflict(message: str) -> FailureClass:
    """The class of a non-retryable commit conflict, by the first reason its message gives."""
    found = [
        (message.find(reason), failure)
        for reason, failure in FILE_CONFLICT_REASONS
        if reason in message
    ]
    return min(found, key=lambda pair: pair[0])[1] if found else FailureClass.UNCLASSIFIED


def classify_failure(record: OperationRecord) -> FailureClass:
    """Rule 4: the class of a failed operation."""
    if record.error == PartialCommitError.__name__:
        return FailureClass.PARTIAL_COMMIT
    if record.error == CommitConflictError.__name__:
        if record.retryable:
            return FailureClass.RETRIES_EXHAUSTED
        return classify_file_conflict(record.message or "")
    if record.error in (FileMissingError.__name__, SnapshotNotFoundError.__name__):
        return FailureClass.CONCURRENT_EXPIRATION
    return FailureClass.UNCLASSIFIED


def check_classified(records: Sequence[OperationRecord], report: SimulationReport) -> None:
    """Rule 4. A lost snapshot race is retried: the operation makes another attempt, or the
    retry's conflict check fails it, or the retries run out; it never reports success."""
    for record in records:
        lost_races = sum(not attempt.created for attempt in record.attempts)
        report.failures[FailureClass.SNAPSHOT_CONFLICT.value] += lost_races
        if record.attempts and not record.attempts[-1].created and record.error is None:
            report.violations.append(
                f"writer {record.writer} op {record.identifier}: lost its last snapshot race "
                "but reported success"
            )
        if record.outcome is Outcome.FAILED:
            failure = classify_failure(record)
            report.failures[failure.value] += 1
            if failure is FailureClass.UNCLASSIFIED:
                report.violations.append(
                    f"writer {record.writer} op {record.identifier} ({record.kind.value}) "
                    f"failed with {record.error}: {record.message}"
                )


def read_surviving_snapshots(file_io: FileIO, root: str) -> dict[int, tuple[str, int, str]]:
    """``id -> (user, identifier, kind)`` of every snapshot file on the store."""
    found = {}
    for snapshot_id in metadata.list_snapshot_ids(file_io, root):
        with contextlib.suppress(SnapshotNotFoundError):
            snapshot = metadata.read_snapshot(file_io, root, snapshot_id)
            found[snapshot_id] = (
                snapshot.commit_user,
                snapshot.commit_identifier,
                snapshot.commit_kind.value,
            )
    return found


def compute_claims(records: Sequence[OperationRecord]) -> dict[int, list[Attempt]]:
    claims: dict[int, list[Attempt]] = {}
    for record in records:
        for attempt in record.attempts:
            if attempt.created:
                claims.setdefault(attempt.snapshot_id, []).append(attempt)
    return claims


def check_history(
    claims: Mapping[int, list[Attempt]],
    surviving: Mapping[int, tuple[str, int, str]],
    report: SimulationReport,
) -> dict[int, Attempt]:
    """Rules 1-3; returns the honoured claim of each snapshot id."""
    ids = sorted(surviving)
    if ids and ids != list(range(ids[0], ids[-1] + 1)):
        report.violations.append(f"snapshot ids on the store are not contiguous: {ids}")
    latest = max([*ids, *claims], default=0)
    missing = [i for i in range(1, latest + 1) if i not in claims]
    if missing:
        report.violations.append(f"snapshots created by no writer: {missing}")
    honoured: dict[int, Attempt] = {}
    for snapshot_id, attempts in sorted(claims.items()):
        on_store = surviving.get(snapshot_id)
        winners = [
            a
            for a in attempts
            if on_store is None or (a.commit_user, a.commit_identifier, a.commit_kind) == on_store
        ]
        if on_store is not None and not winners:
            report.violations.append(f"snapshot {snapshot_id} holds a commit nobody claims")
        kept = winners[:1]
        report.lost += len(attempts) - len(kept)
        if kept:
            honoured[snapshot_id] = kept[0]
    applied = Counter(
        (a.commit_user, a.commit_identifier, a.commit_kind) for a in honoured.values()
    )
    report.applied_twice += sum(count - 1 for count in applied.values() if count > 1)
    report.snapshots = len(honoured)
    return honoured


def compute_canonical_rows(rows: Sequence[Row]) -> list[Row]:
    return sorted(rows, key=repr)


def replay_serially(
    honoured: Mapping[int, Attempt],
    records: Sequence[OperationRecord],
    table_kind: TableKind,
    directory: str,
) -> list[Row]:
    """Rule 5: the rows of a fresh local table after the committed operations, in order."""
    by_commit = {(r.user, r.identifier): r for r in records}
    config = SimulationConfig(os.path.join(directory, "replay"), table_kind, 0, 0, directory)
    table = create_simulation_table(LocalFileIO(), config)
    for snapshot_id in sorted(honoured):
        attempt = honoured[snapshot_id]
        if attempt.commit_kind == CommitKind.COMPACT.value:
            continue
        record = by_commit[(attempt.commit_user, attempt.commit_identifier)]
        is_overwrite = attempt.commit_kind == CommitKind.OVERWRITE.value
        table.write_and_commit(
            list(record.rows), list(record.kinds), overwrite={} if is_overwrite else None
        )
    return compute_canonical_rows([row for _, row in table.read().rows])


def check_simulation(config: SimulationConfig, file_io: FileIO) -> SimulationReport:
    """Rules 1-5 over the logs in ``config.work_dir`` and the table on the store."""
    report = SimulationReport(
        config.store.value, config.table_kind.value, config.writers, config.commits
    )
    records = read_logs(config.work_dir, config.writers)
    report.operations = len(records)
    report.succeeded = sum(r.outcome is Outcome.SUCCEEDED for r in records)
    expected = config.writers * config.commits
    if len(records) != expected:
        report.violations.append(f"{len(records)} operations logged, {expected} planned")
    check_classified(records, report)
    try:
        surviving = read_surviving_snapshots(file_io, config.table_uri)
        honoured = check_history(compute_claims(records), surviving, report)
        actual = compute_canonical_rows(
            [row for _, row in Table(file_io, config.table_uri).read().rows]
        )
    except PaimonKitError as error:
        report.violations.append(f"the table cannot be read: {type(error).__name__}: {error}")
        return report
    with tempfile.TemporaryDirectory(prefix="paimon-kit-replay-") as directory:
        replayed = replay_serially(honoured, records, config.table_kind, directory)
    if actual != replayed:
        missing = [row for row in replayed if row not in actual]
        extra = [row for row in actual if row not in replayed]
        report.violations.append(
            f"the table differs from a serial replay: {len(missing)} rows missing "
            f"(e.g. {missing[:3]}), {len(extra)} extra (e.g. {extra[:3]})"
        )
    return report


def run_simulation(
    config: SimulationConfig, env: Mapping[str, str] | None = None
) -> SimulationReport:
    """Create the table, run the writer processes, check what they did."""
    if config.writers > KEY_STRIDE:
        raise ValueError(f"at most {KEY_STRIDE} writers (their keys would mix)")
    os.makedirs(config.work_dir, exist_ok=True)
    file_io = open_store(config, env)
    inner = file_io.inner if isinstance(file_io, RacyFileIO) else file_io
    create_simulation_table(inner, config)
    started = SimulationConfig(**{**asdict(config), "start_at": time.time() + START_DELAY_SECONDS})
    problems = launch_writers(started, env or {})
    report = check_simulation(started, inner)
    report.violations += problems
    return report


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------

REPORT_COLUMNS = ("store", "table", "writers x commits", "ops ok", "snapshots", "lost", "twice")


def format_reports(reports: Sequence[SimulationReport]) -> str:
    """A Markdown table of reports, with the failures by class."""
    classes = [c.value for c in FailureClass]
    header = [*REPORT_COLUMNS, *classes, "violations"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in reports:
        cells = [
            r.store,
            r.table_kind,
            f"{r.writers} x {r.commits}",
            f"{r.succeeded}/{r.operations}",
            str(r.snapshots),
            str(r.lost),
            str(r.applied_twice),
            *(str(r.failures.get(c, 0)) for c in classes),
            str(len(r.violations)),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    worker = sub.add_parser("worker", help="run one writer (used by the driver)")
    worker.add_argument("config")
    worker.add_argument("writer", type=int)
    arguments = parser.parse_args(argv)
    config = SimulationConfig.from_json(Path(arguments.config).read_text(encoding="utf-8"))
    run_worker(config, arguments.writer)
    return 0


def exit_without_teardown(code: int) -> None:
    """Leave at once: pyarrow 19 sometimes aborts ("terminate called without an active
    exception") while the interpreter shuts down, which would turn a finished writer into a
    failed one. The log is flushed and closed by then."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    try:
        status = main()
    except BaseException:
        traceback.print_exc()
        status = 1
    exit_without_teardown(status)
