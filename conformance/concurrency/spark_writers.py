"""Spark applications appending to one primary-key table at once, and what their users saw.

Issue 18 item 2: a Spark write told FAILED whose APPEND snapshot had landed, then Spark's
``abort`` deleted its files. This simulation runs N Spark applications (separate processes,
each its own ``local[1]`` SparkSession, ``python -m conformance.concurrency.spark_writers
app``) and, with ``--reference``, one process writing through the reference API, into one
primary-key table that compacts after every write with a low trigger, so that compactions
conflict often. Writer ``w``'s write ``i`` holds keys ``w * 1000 + i * 100 .. + 99`` with the
value ``"w<w>i<i>"`` and commits under the writer's commit user with identifier ``i + 1``
(``commit.user`` / ``commit.identifier``), so a restarted writer retries a write safely.
Every writer logs, per write, whether ``save()`` returned (acknowledged) or raised (the
error class, message, and the snapshot ids an error names as landed).

With ``--kills K`` the harness SIGKILLs a random Spark writer (its process group: the
driver, its JVM and Python workers) K times at random moments and restarts it; it resumes at
its first write not acknowledged. Afterwards the reference's orphan-file cleaner runs.

The checks (:func:`check_run`), on the table read by the *reference* reader:

* every acknowledged write's rows are in the latest snapshot (else *lost*);
* no commit user and identifier has two APPEND snapshots (else *duplicated*);
* a write told FAILED has no snapshot of its own unless its error names it as landed;
* every snapshot reads; ``validate --all-snapshots`` reports no error;
* after the orphan cleaner (kill runs), every snapshot still reads.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reference.io import FileIO, file_io_for
from reference.spec import types as t
from reference.store import metadata, orphans, query
from reference.store.compact import compact_after_write
from reference.table import Table
from reference.validate import runner as validate_runner
from reference.validate.report import Severity

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
KEY_BLOCK = 1000
ROWS_PER_WRITE = 100
APP_TIMEOUT_SECONDS = 900.0
LOG_NAME = "writer-{}.jsonl"
CONFIG_NAME = "spark-writers.json"
DROPPED_MARK = "its compaction was dropped"
ERROR_CLASSES = (
    "PartialCommitError",
    "CommitConflictError",
    "FileMissingError",
    "StorageError",
    "SnapshotNotFoundError",
)
FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
)
TABLE_OPTIONS = {
    "bucket": "2",
    "num-sorted-run.compaction-trigger": "2",
    "commit.max-retries": "60",
    "commit.min-retry-wait": "10 ms",
    "commit.max-retry-wait": "500 ms",
}
SESSION_CONFIG = {
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "1",
    "spark.default.parallelism": "1",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": "512m",
    "spark.python.worker.reuse": "true",
}


@dataclass(frozen=True)
class RunConfig:
    """One simulation run (written to JSON for the writer processes)."""

    table_uri: str
    work_dir: str
    apps: int
    writes: int
    reference: bool = True
    token: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    s3_options: Mapping[str, str] = field(default_factory=dict)

    def user(self, writer: int) -> str:
        return f"writer-{writer}-{self.token}"

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @staticmethod
    def from_json(text: str) -> RunConfig:
        return RunConfig(**json.loads(text))


def compute_rows(writer: int, write: int) -> list[tuple[int, str]]:
    first = writer * KEY_BLOCK + write * ROWS_PER_WRITE
    return [(k, f"w{writer}i{write}") for k in range(first, first + ROWS_PER_WRITE)]


def open_store(config: RunConfig) -> FileIO:
    return file_io_for(config.table_uri, dict(config.s3_options), env=dict(os.environ))


# --------------------------------------------------------------------------------------------
# The writers
# --------------------------------------------------------------------------------------------


def named_landed(message: str) -> list[int]:
    """The snapshot ids an error message names as landed (``landed=(5,)`` or ``snapshot 5
    ... landed``)."""
    found = re.search(r"landed=\(([\d, ]*)\)", message)
    if found:
        return [int(x) for x in found.group(1).replace(" ", "").split(",") if x]
    found = re.search(r"snapshot (\d+) \(\w+\) landed", message)
    return [int(found.group(1))] if found else []


def classify_error(error: BaseException) -> str:
    """The kit error class inside a (possibly Py4J-wrapped) exception."""
    text = f"{type(error).__name__}: {error}"
    return next((name for name in ERROR_CLASSES if name in text), type(error).__name__)


def append_record(config: RunConfig, writer: int, record: Mapping[str, Any]) -> None:
    path = os.path.join(config.work_dir, LOG_NAME.format(writer))
    with open(path, "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")
        log.flush()
        os.fsync(log.fileno())


def acknowledged_writes(config: RunConfig, writer: int) -> set[int]:
    return {r["write"] for r in read_records(config, writer) if r["outcome"] in ("ok", "failed")}


def run_writes(config: RunConfig, writer: int, write_one: Any) -> None:
    """Each write not yet settled (a restarted writer resumes), logged when it returned."""
    done = acknowledged_writes(config, writer)
    for write in range(config.writes):
        if write in done:
            continue
        started = time.monotonic()
        try:
            write_one(write)
            record: dict[str, Any] = {"outcome": "ok"}
        except Exception as error:  # what the user of save() sees
            message = str(error)[-3000:]
            record = {
                "outcome": "failed",
                "error": classify_error(error),
                "message": message,
                "landed": getattr(error, "landed", None) or named_landed(message),
            }
        record.update({"write": write, "seconds": round(time.monotonic() - started, 2)})
        append_record(config, writer, record)


def run_spark_app(config: RunConfig, writer: int) -> None:
    from pyspark.sql import SparkSession  # noqa: PLC0415 (optional dependency)

    import spark_impl  # noqa: PLC0415

    builder = SparkSession.builder.master("local[1]").appName(f"spark-writer-{writer}")
    for key, value in SESSION_CONFIG.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark_impl.register(spark)

    def write_one(write: int) -> None:
        frame = spark.createDataFrame(compute_rows(writer, write), "k INT, v STRING")
        writing = frame.write.format("paimon").mode("append")
        options = {
            **config.s3_options,
            "commit.user": config.user(writer),
            "commit.identifier": str(write + 1),
        }
        for key, value in options.items():
            writing = writing.option(key, value)
        writing.save(config.table_uri)

    run_writes(config, writer, write_one)
    spark.stop()


def run_reference_app(config: RunConfig, writer: int) -> None:
    table = Table(open_store(config), config.table_uri)

    def write_one(write: int) -> None:
        messages = compact_after_write(
            table.file_io, table.root, table.write(compute_rows(writer, write)), overwrite=False
        )
        table.commit(messages, commit_user=config.user(writer), identifier=write + 1)

    run_writes(config, writer, write_one)


# --------------------------------------------------------------------------------------------
# The harness
# --------------------------------------------------------------------------------------------


def app_command(config_path: str, writer: int, kind: str) -> list[str]:
    module = "conformance.concurrency.spark_writers"
    return [sys.executable, "-m", module, "app", config_path, str(writer), kind]


def start_app(config: RunConfig, config_path: str, writer: int, kind: str) -> subprocess.Popen[Any]:
    stderr = open(  # noqa: SIM115 (closed by the harness when the process ends)
        os.path.join(config.work_dir, f"writer-{writer}.stderr"), "ab"
    )
    return subprocess.Popen(
        app_command(config_path, writer, kind),
        cwd=PROJECT_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        start_new_session=True,  # its own process group: a kill takes the JVM and workers too
    )


def kill_group(process: subprocess.Popen[Any]) -> None:
    """SIGKILL the writer's process group (the driver, its JVM, its Python workers)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def wait_all(processes: Mapping[int, subprocess.Popen[Any]], deadline: float) -> list[str]:
    problems = []
    for writer, process in processes.items():
        try:
            code = process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            kill_group(process)
            problems.append(f"writer {writer} timed out")
            continue
        if code != 0:
            problems.append(f"writer {writer} exited with {code}")
    return problems


def wait_for_progress(config: RunConfig, writer: int, process: subprocess.Popen[Any]) -> bool:
    """Wait until ``writer`` settles one more write (it is then in the middle of writing)."""
    settled = len(read_records(config, writer))
    deadline = time.monotonic() + APP_TIMEOUT_SECONDS
    while time.monotonic() < deadline and process.poll() is None:
        if len(read_records(config, writer)) > settled:
            return True
        time.sleep(0.2)
    return False


def run_kills(
    config: RunConfig,
    config_path: str,
    processes: dict[int, subprocess.Popen[Any]],
    kills: int,
    rng: random.Random,
) -> int:
    """``kills`` times: once a random Spark writer settled a write, SIGKILL it a random
    moment (0-4 s) into its next write or commit, and restart it."""
    done = 0
    while done < kills:
        running = [w for w, p in processes.items() if w < config.apps and p.poll() is None]
        if not running:
            break
        writer = rng.choice(running)
        if not wait_for_progress(config, writer, processes[writer]):
            continue
        time.sleep(rng.uniform(0.0, 4.0))
        kill_group(processes[writer])
        append_record(config, writer, {"outcome": "killed", "write": -1})
        processes[writer] = start_app(config, config_path, writer, "spark")
        done += 1
    return done


def create_table(config: RunConfig) -> None:
    Table.create(
        open_store(config), config.table_uri, FIELDS, primary_keys=["k"], options=TABLE_OPTIONS
    )


def launch(config: RunConfig, kills: int, seed: int) -> tuple[list[str], int]:
    os.makedirs(config.work_dir, exist_ok=True)
    config_path = os.path.join(config.work_dir, CONFIG_NAME)
    Path(config_path).write_text(config.to_json(), encoding="utf-8")
    processes = {w: start_app(config, config_path, w, "spark") for w in range(config.apps)}
    if config.reference:
        processes[config.apps] = start_app(config, config_path, config.apps, "reference")
    killed = run_kills(config, config_path, processes, kills, random.Random(seed)) if kills else 0
    return wait_all(processes, time.monotonic() + APP_TIMEOUT_SECONDS), killed


# --------------------------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------------------------


def read_records(config: RunConfig, writer: int) -> list[dict[str, Any]]:
    path = os.path.join(config.work_dir, LOG_NAME.format(writer))
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as log:
        return [json.loads(line) for line in log if line.strip()]


@dataclass
class RunReport:
    """What one run found; ``violations`` must be empty."""

    store: str
    writers: str
    acknowledged: int = 0
    failed: int = 0
    lost: int = 0
    duplicated: int = 0
    failed_but_visible: int = 0
    conflicts: Counter[str] = field(default_factory=Counter)
    snapshots: int = 0
    snapshots_read: int = 0
    validate_errors: int = -1
    kills: int = 0
    orphans_removed: int = 0
    snapshots_read_after_clean: int = 0
    seconds: float = 0.0
    violations: list[str] = field(default_factory=list)


def read_rows(file_io: FileIO, root: str, snapshot_id: int | None = None) -> list[tuple[Any, ...]]:
    travel = query.TimeTravel(snapshot_id=snapshot_id)
    return [row for _, row in query.read_table(file_io, root, travel).rows]


def read_every_snapshot(file_io: FileIO, root: str, report: RunReport, what: str) -> int:
    readable = 0
    for snapshot_id in metadata.list_snapshot_ids(file_io, root):
        try:
            read_rows(file_io, root, snapshot_id)
            readable += 1
        except Exception as error:
            report.violations.append(f"{what}: snapshot {snapshot_id} unreadable: {error}")
    return readable


def snapshots_by_commit(file_io: FileIO, root: str) -> dict[tuple[str, int], list[tuple[int, str]]]:
    found: dict[tuple[str, int], list[tuple[int, str]]] = {}
    for snapshot_id in metadata.list_snapshot_ids(file_io, root):
        snapshot = metadata.read_snapshot(file_io, root, snapshot_id)
        key = (snapshot.commit_user, snapshot.commit_identifier)
        found.setdefault(key, []).append((snapshot_id, snapshot.commit_kind.value))
    return found


def check_writer(
    config: RunConfig,
    writer: int,
    rows: Mapping[int, str],
    commits: Mapping[tuple[str, int], list[tuple[int, str]]],
    report: RunReport,
) -> None:
    settled: dict[int, dict[str, Any]] = {}
    for record in read_records(config, writer):
        if record["outcome"] in ("ok", "failed"):
            settled[record["write"]] = record
    for write in range(config.writes):
        record = settled.get(write)
        expected = compute_rows(writer, write)
        visible = sum(rows.get(k) == v for k, v in expected)
        own = commits.get((config.user(writer), write + 1), [])
        if record is None:
            report.violations.append(f"writer {writer} write {write}: never settled")
        elif record["outcome"] == "ok":
            report.acknowledged += 1
            if visible != len(expected):
                report.lost += 1
                report.violations.append(f"writer {writer} write {write}: acknowledged, lost")
        else:
            report.failed += 1
            report.conflicts[record["error"]] += 1
            named = record.get("landed") or []
            unnamed = [s for s, _ in own if s not in named]
            if unnamed or (visible and not named):
                report.failed_but_visible += 1
                report.violations.append(
                    f"writer {writer} write {write}: told {record['error']} but snapshots "
                    f"{unnamed} landed ({visible} rows visible): {record['message'][:300]}"
                )


def count_dropped_compactions(config: RunConfig) -> int:
    total = 0
    for writer in range(config.apps):
        path = os.path.join(config.work_dir, f"writer-{writer}.stderr")
        if os.path.exists(path):
            total += Path(path).read_text(errors="replace").count(DROPPED_MARK)
    return total


def check_run(config: RunConfig, report: RunReport, *, clean_orphans: bool) -> RunReport:
    file_io = open_store(config)
    root = config.table_uri
    report.snapshots = len(metadata.list_snapshot_ids(file_io, root))
    report.snapshots_read = read_every_snapshot(file_io, root, report, "before cleaning")
    latest = read_rows(file_io, root)
    twice = [k for k, n in Counter(row[0] for row in latest).items() if n > 1]
    rows = {row[0]: row[1] for row in latest}
    commits = snapshots_by_commit(file_io, root)
    appends = [k for k, v in commits.items() if [kind for _, kind in v].count("APPEND") > 1]
    report.duplicated = len(appends) + len(twice)
    if report.duplicated:
        report.violations.append(f"duplicated commits {appends[:5]}, keys {twice[:5]}")
    writers = config.apps + (1 if config.reference else 0)
    for writer in range(writers):
        check_writer(config, writer, rows, commits, report)
    report.conflicts["compaction dropped (write ok)"] = count_dropped_compactions(config)
    options = validate_runner.ValidateOptions(all_snapshots=True)
    validation = validate_runner.validate_table(file_io, root, options)
    errors = [v for v in validation.violations if v.severity is Severity.ERROR]
    report.validate_errors = len(errors) + (validation.unreadable is not None)
    if report.validate_errors:
        report.violations.append(f"validate: {validation.unreadable} {errors[:5]}")
    if clean_orphans:
        removed = orphans.remove_orphan_files(
            file_io, root, older_than=datetime.timedelta(seconds=1)
        )
        report.orphans_removed = len(removed)
        report.snapshots_read_after_clean = read_every_snapshot(
            file_io, root, report, "after cleaning orphans"
        )
        if read_rows(file_io, root) != latest:
            report.violations.append("the orphan cleaner changed the latest rows")
    return report


def run_once(config: RunConfig, store: str, *, kills: int = 0, seed: int = 0) -> RunReport:
    """Create the table, run the writers (and the kills), check."""
    started = time.monotonic()
    create_table(config)
    problems, killed = launch(config, kills, seed)
    if kills:
        time.sleep(1.5)  # the orphan cleaner only takes files older than a second
    writers = f"{config.apps} spark" + (" + 1 reference" if config.reference else "")
    report = RunReport(store, f"{writers} x {config.writes}", kills=killed)
    report.violations += problems
    check_run(config, report, clean_orphans=kills > 0)
    report.seconds = round(time.monotonic() - started, 1)
    return report


# --------------------------------------------------------------------------------------------
# Reporting and the command line
# --------------------------------------------------------------------------------------------

COLUMNS = (
    "store",
    "writers x writes",
    "acknowledged",
    "failed",
    "lost",
    "duplicated",
    "failed but visible",
    "conflicts by class",
    "snapshots read",
    "validate errors",
    "kills",
    "orphans removed",
    "read after clean",
    "seconds",
    "violations",
)


def format_reports(reports: Sequence[RunReport]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in reports:
        conflicts = ", ".join(f"{k}: {v}" for k, v in sorted(r.conflicts.items())) or "-"
        cells = [
            r.store,
            r.writers,
            str(r.acknowledged),
            str(r.failed),
            str(r.lost),
            str(r.duplicated),
            str(r.failed_but_visible),
            conflicts,
            f"{r.snapshots_read}/{r.snapshots}",
            str(r.validate_errors),
            str(r.kills),
            str(r.orphans_removed),
            str(r.snapshots_read_after_clean) if r.kills else "-",
            str(r.seconds),
            str(len(r.violations)),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def s3_target() -> tuple[str, dict[str, str]]:
    """A fresh bucket on the project's S3 server (``conformance.objectstore``)."""
    from conformance.objectstore.pytest_fixtures import _shared_store  # noqa: PLC0415

    store = _shared_store()
    return f"{store.uri}/spark-writers-{uuid.uuid4().hex[:8]}", store.options


def make_config(store: str, apps: int, writes: int, reference: bool) -> RunConfig:
    work_dir = tempfile.mkdtemp(prefix="paimon-kit-spark-writers-")
    if store == "s3":
        uri, options = s3_target()
        return RunConfig(uri, work_dir, apps, writes, reference, s3_options=options)
    return RunConfig(f"{work_dir}/table", work_dir, apps, writes, reference)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    app = sub.add_parser("app", help="one writer (started by the harness)")
    app.add_argument("config")
    app.add_argument("writer", type=int)
    app.add_argument("kind", choices=("spark", "reference"))
    run = sub.add_parser("run", help="run the simulation and print the figures")
    run.add_argument("--store", choices=("local", "s3"), default="local")
    run.add_argument("--apps", type=int, default=4)
    run.add_argument("--writes", type=int, default=6)
    run.add_argument("--runs", type=int, default=3)
    run.add_argument("--kills", type=int, default=0)
    run.add_argument("--no-reference", action="store_true")
    run.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args(argv)
    if arguments.command == "app":
        config = RunConfig.from_json(Path(arguments.config).read_text(encoding="utf-8"))
        runner = run_spark_app if arguments.kind == "spark" else run_reference_app
        runner(config, arguments.writer)
        return 0
    reports = []
    for number in range(arguments.runs):
        config = make_config(
            arguments.store, arguments.apps, arguments.writes, not arguments.no_reference
        )
        report = run_once(
            config, arguments.store, kills=arguments.kills, seed=arguments.seed + number
        )
        reports.append(report)
        print(format_reports([report]), flush=True)
        for violation in report.violations[:20]:
            print("  violation:", violation, flush=True)
    print(format_reports(reports))
    return 0 if all(not r.violations for r in reports) else 1


if __name__ == "__main__":
    try:
        status = main()
    except BaseException:
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
