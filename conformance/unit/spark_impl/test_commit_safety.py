"""Issue 18 item 2: a Spark write whose APPEND landed must never lose its files.

The write protocol is driven here as Spark drives it (``write`` in the tasks, then ``commit``
on the driver, and ``abort`` when ``commit`` raised), in this process, so that another commit
can be injected at an exact moment. The outcome designed (see ``PaimonWriter``): a write whose
APPEND (or OVERWRITE) snapshot landed succeeded; its compaction, if it loses a conflict, is
dropped with a warning and its output files deleted; ``abort`` deletes only files no snapshot
references; a retry with the same ``commit.user`` / ``commit.identifier`` commits nothing twice.
"""

from __future__ import annotations

import datetime
import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from conformance.faults.faulty_io import DelegatingFileIO
from reference.errors import PartialCommitError, StorageError
from reference.io import FileIO, LocalFileIO
from reference.spec import types as t
from reference.spec.snapshot import CommitKind
from reference.store import metadata, query
from reference.store.orphans import find_orphans
from reference.table import Table
from reference.validate import runner as validate_runner
from reference.validate.report import is_failing
from spark_impl import batch_source, compact, jobs
from spark_impl import commit as committer
from spark_impl.batch_source import PaimonCommitMessage, PaimonWriter

IO = LocalFileIO()
FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
)
PK_OPTIONS = {"bucket": "1", "num-sorted-run.compaction-trigger": "2"}
BASE = 4
"""The snapshots of :func:`create_pk_table`: three appends and a compaction (two runs left,
so that every write compacts)."""


def batch(keys: range, value: str) -> pa.RecordBatch:
    return pa.RecordBatch.from_pydict(
        {"k": pa.array(list(keys), pa.int32()), "v": pa.array([value] * len(keys), pa.string())}
    )


def create_pk_table(root: str) -> None:
    table = Table.create(IO, root, FIELDS, primary_keys=["k"], options=PK_OPTIONS)
    table.write_and_commit([(k, "base") for k in range(0, 10)])
    table.write_and_commit([(k, "base") for k in range(10, 20)])
    table.write_and_commit([(k, "base") for k in range(20, 30)])
    assert metadata.find_latest_snapshot_id(IO, root) == BASE


def written(writer: PaimonWriter, keys: range, value: str) -> list[Any]:
    """The task side of a Spark write: one task, its commit message."""
    return [writer.write(iter([batch(keys, value)]))]


def spark_commit(writer: PaimonWriter, messages: list[Any]) -> None:
    """What Spark's V2 write does on the driver: commit, and abort when the commit raised."""
    try:
        writer.commit(messages)
    except BaseException:
        writer.abort(messages)
        raise


def rows(root: str, snapshot_id: int | None = None) -> dict[int, str]:
    travel = query.TimeTravel(snapshot_id=snapshot_id)
    return {row[0]: row[1] for _, row in query.read_table(IO, root, travel).rows}


def assert_every_snapshot_reads(root: str) -> None:
    for snapshot_id in metadata.list_snapshot_ids(IO, root):
        rows(root, snapshot_id)
    options = validate_runner.ValidateOptions(all_snapshots=True)
    report = validate_runner.validate_table(IO, root, options)
    assert report.unreadable is None and not is_failing(report), report


class AfterFirstSnapshot(DelegatingFileIO):
    """Runs ``meanwhile`` once, right after this IO created its first snapshot file: another
    writer commits between the APPEND and the COMPACT snapshot of one commit."""

    def __init__(self, inner: FileIO, meanwhile: Callable[[], None]) -> None:
        super().__init__(inner)
        self.meanwhile: Callable[[], None] | None = meanwhile

    def create_exclusive(self, path: str, data: bytes) -> bool:
        created = self.inner.create_exclusive(path, data)
        if created and "/snapshot/snapshot-" in path and self.meanwhile is not None:
            meanwhile, self.meanwhile = self.meanwhile, None
            meanwhile()
        return created


@pytest.fixture
def rival_between_append_and_compact(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Callable[[Callable[[], None]], None]]:
    """Install ``meanwhile`` into the next file IO the writer opens for its commit."""

    def install(meanwhile: Callable[[], None]) -> None:
        plain = batch_source.open_file_io

        def opened(options: Any) -> FileIO:
            monkeypatch.setattr(batch_source, "open_file_io", plain)
            return AfterFirstSnapshot(plain(options), meanwhile)

        monkeypatch.setattr(batch_source, "open_file_io", opened)

    yield install


def test_a_compaction_losing_after_the_append_landed_keeps_the_write(
    tmp_path: Path, rival_between_append_and_compact: Callable[[Callable[[], None]], None]
) -> None:
    """The lost write of issue 18: A's APPEND lands, B commits (its compaction deletes the
    base files A's compaction also deletes), A's COMPACT conflicts. Before the fix, A raised
    and Spark's abort deleted the files of A's landed APPEND snapshot."""
    root = str(tmp_path / "t")
    create_pk_table(root)
    options = {"path": root}
    first, second = PaimonWriter(options, False), PaimonWriter(options, False)
    first_messages = written(first, range(100, 110), "a")
    second_messages = written(second, range(200, 210), "b")
    rival_between_append_and_compact(lambda: spark_commit(second, second_messages))
    spark_commit(first, first_messages)  # succeeds: the APPEND landed
    kinds = [metadata.read_snapshot(IO, root, i).commit_kind for i in range(BASE + 1, BASE + 4)]
    assert kinds == [CommitKind.APPEND, CommitKind.APPEND, CommitKind.COMPACT]
    assert metadata.find_latest_snapshot_id(IO, root) == BASE + 3
    assert {k for k, v in rows(root).items() if v == "a"} == set(range(100, 110))
    assert {k for k, v in rows(root).items() if v == "b"} == set(range(200, 210))
    assert_every_snapshot_reads(root)
    assert find_orphans(IO, root, older_than=datetime.timedelta(0)) == []


def test_abort_after_the_commit_landed_deletes_nothing_a_snapshot_references(
    tmp_path: Path,
) -> None:
    """Spark may call abort with the messages of a commit that landed (commit raised later):
    abort checks the published snapshots, not what the writer believes."""
    root = str(tmp_path / "t")
    create_pk_table(root)
    writer = PaimonWriter({"path": root}, False)
    messages = written(writer, range(100, 110), "a")
    writer.commit(messages)
    writer.abort(messages)
    assert {k for k, v in rows(root).items() if v == "a"} == set(range(100, 110))
    assert_every_snapshot_reads(root)


def test_abort_of_a_write_that_never_committed_deletes_its_files(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    create_pk_table(root)
    before = {p.name for p in Path(root).rglob("data-*")}
    writer = PaimonWriter({"path": root}, False)
    messages = written(writer, range(100, 110), "a")
    assert {p.name for p in Path(root).rglob("data-*")} != before
    writer.abort(messages)
    assert {p.name for p in Path(root).rglob("data-*")} == before


def test_a_retry_with_the_same_commit_identifier_commits_nothing_twice(tmp_path: Path) -> None:
    """An append table shows duplicates: the second run of the same job (same commit user and
    identifier, e.g. after the driver died once the snapshot was written) commits nothing
    and deletes the files it wrote."""
    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, options={"bucket": "-1"})
    options = {"path": root, "commit.user": "job-7", "commit.identifier": "3"}
    before = {p.name for p in Path(root).rglob("data-*")}
    for _ in range(2):
        writer = PaimonWriter(options, False)
        spark_commit(writer, written(writer, range(0, 10), "a"))
    assert metadata.list_snapshot_ids(IO, root) == [1]
    assert sorted(rows(root)) == list(range(10))
    assert len({p.name for p in Path(root).rglob("data-*")} - before) == 1
    writer = PaimonWriter({**options, "commit.identifier": "4"}, False)
    spark_commit(writer, written(writer, range(10, 20), "b"))
    assert metadata.list_snapshot_ids(IO, root) == [1, 2]


def test_a_retry_after_a_partial_commit_skips_what_landed(
    tmp_path: Path, rival_between_append_and_compact: Callable[[Callable[[], None]], None]
) -> None:
    """The APPEND landed, the compaction lost: a retry of the same job commits nothing."""
    root = str(tmp_path / "t")
    create_pk_table(root)
    options = {"path": root, "commit.user": "job-9", "commit.identifier": "1"}
    first, second = PaimonWriter(options, False), PaimonWriter({"path": root}, False)
    first_messages = written(first, range(100, 110), "a")
    second_messages = written(second, range(200, 210), "b")
    rival_between_append_and_compact(lambda: spark_commit(second, second_messages))
    spark_commit(first, first_messages)
    latest = metadata.find_latest_snapshot_id(IO, root)
    retry = PaimonWriter(options, False)
    spark_commit(retry, written(retry, range(100, 110), "a"))
    assert metadata.find_latest_snapshot_id(IO, root) == latest
    mine = [
        s
        for s in (metadata.read_snapshot(IO, root, i) for i in range(1, latest + 1))
        if s.commit_user == "job-9"
    ]
    assert [s.commit_kind for s in mine] == [CommitKind.APPEND]
    assert_every_snapshot_reads(root)


class SnapshotWriteThenFail(DelegatingFileIO):
    """The first snapshot file is created, then the call fails (the response was lost)."""

    def __init__(self, inner: FileIO) -> None:
        super().__init__(inner)
        self.failed = False

    def create_exclusive(self, path: str, data: bytes) -> bool:
        created = self.inner.create_exclusive(path, data)
        if not self.failed and "/snapshot/snapshot-" in path:
            self.failed = True
            raise StorageError("connection reset after the request was sent", path=path)
        return created


def test_an_unknown_snapshot_outcome_is_resolved_from_the_store(tmp_path: Path) -> None:
    """The snapshot was written but the call failed: the committer finds its own snapshot and
    keeps its manifests (discarding them would break the snapshot), and commits once."""
    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, options={"bucket": "-1"})
    writer = PaimonWriter({"path": root}, False)
    messages = written(writer, range(0, 10), "a")
    flaky = SnapshotWriteThenFail(IO)
    snapshots = committer.commit(
        flaky, root, [m for p in messages for m in p.messages], commit_user="u"
    )
    assert flaky.failed and [s.id for s in snapshots] == [1]
    assert metadata.list_snapshot_ids(IO, root) == [1]
    assert sorted(rows(root)) == list(range(10))
    assert_every_snapshot_reads(root)


def test_the_dropped_compaction_is_logged(
    tmp_path: Path,
    rival_between_append_and_compact: Callable[[Callable[[], None]], None],
    caplog: pytest.LogCaptureFixture,
) -> None:
    root = str(tmp_path / "t")
    create_pk_table(root)
    first, second = PaimonWriter({"path": root}, False), PaimonWriter({"path": root}, False)
    first_messages = written(first, range(100, 110), "a")
    second_messages = written(second, range(200, 210), "b")
    rival_between_append_and_compact(lambda: spark_commit(second, second_messages))
    with caplog.at_level(logging.WARNING, logger="spark_impl"):
        spark_commit(first, first_messages)
    assert any(
        "compaction" in r.getMessage() and "dropped" in r.getMessage() for r in caplog.records
    )
    assert isinstance(first_messages[0], PaimonCommitMessage)


# --------------------------------------------------------------------------------------------
# Tables whose batch reads skip level 0: a lost compaction is retried, else the write raises
# --------------------------------------------------------------------------------------------

DV_OPTIONS = {**PK_OPTIONS, "deletion-vectors.enabled": "true"}
DV_BASE = 6
"""The snapshots of :func:`create_dv_table`: three appends, each compacted (level 0 forced
up), leaving files on two levels above 0."""


def create_dv_table(root: str, options: dict[str, str] | None = None) -> None:
    table = Table.create(
        IO, root, FIELDS, primary_keys=["k"], options={**DV_OPTIONS, **(options or {})}
    )
    for low in (0, 10, 20):
        table.write_and_commit([(k, "base") for k in range(low, low + 10)])
    assert metadata.find_latest_snapshot_id(IO, root) == DV_BASE


@pytest.mark.parametrize(
    ("primary_keys", "options", "hidden"),
    [
        (["k"], {"deletion-vectors.enabled": "true"}, True),
        (["k"], {"merge-engine": "first-row"}, True),
        (["k"], {"changelog-producer": "lookup"}, False),
        (["k"], {"merge-engine": "partial-update"}, False),
        (["k"], {}, False),
        ([], {"deletion-vectors.enabled": "true", "bucket": "-1"}, False),
    ],
)
def test_which_tables_hide_level_zero_until_compacted(
    tmp_path: Path, primary_keys: list[str], options: dict[str, str], hidden: bool
) -> None:
    """Java 0.9 ``DataTableBatchScan``: a batch scan filters ``level > 0`` exactly for
    primary-key tables with deletion vectors or the first-row merge engine."""
    root = str(tmp_path / "t")
    table = Table.create(IO, root, FIELDS, primary_keys=primary_keys, options=options)
    assert compact.is_hidden_until_compacted(IO, root, table.schema()) is hidden


def prepared_compaction(root: str) -> Callable[[], None]:
    """A compaction job (``jobs.compact``, full) planned now and committed when called: a
    rival that takes every file above level 0 the write's compaction also reads."""
    jobs = compact.plan_bucket_jobs(IO, root, full=True)
    messages = [m for m in (compact.compact_bucket(IO, job) for job in jobs) if m is not None]
    assert messages

    def commit_it() -> None:
        committer.commit(IO, root, messages)

    return commit_it


def spark_rows(spark: Any, root: str) -> dict[int, str]:
    return {r["k"]: r["v"] for r in spark.read.format("paimon").load(root).collect()}


@pytest.mark.spark
def test_a_lost_compaction_of_a_deletion_vector_table_is_retried(
    spark: Any,
    tmp_path: Path,
    rival_between_append_and_compact: Callable[[Callable[[], None]], None],
) -> None:
    """Batch reads of a primary-key table with deletion vectors skip level 0: when the
    write's compaction loses to a rival compaction, the rows of its landed APPEND are
    invisible, so the write compacts its buckets again on the new latest snapshot."""
    root = str(tmp_path / "t")
    create_dv_table(root)
    writer = PaimonWriter({"path": root}, False)
    messages = written(writer, range(100, 110), "a")
    rival_between_append_and_compact(prepared_compaction(root))
    spark_commit(writer, messages)
    expected = {**{k: "base" for k in range(30)}, **{k: "a" for k in range(100, 110)}}
    assert rows(root) == expected
    assert spark_rows(spark, root) == expected
    latest = metadata.find_latest_snapshot_id(IO, root)
    kinds = [
        metadata.read_snapshot(IO, root, i).commit_kind for i in range(DV_BASE + 1, latest + 1)
    ]
    assert kinds == [CommitKind.APPEND, CommitKind.COMPACT, CommitKind.COMPACT]
    assert_every_snapshot_reads(root)
    assert find_orphans(IO, root, older_than=datetime.timedelta(0)) == []


class BeforeEveryCompactSnapshot(DelegatingFileIO):
    """Runs ``meanwhile`` right before this IO creates each COMPACT snapshot file: another
    writer commits first, every time the write's compaction is about to land."""

    def __init__(self, inner: FileIO, meanwhile: Callable[[], None]) -> None:
        super().__init__(inner)
        self.meanwhile = meanwhile

    def create_exclusive(self, path: str, data: bytes) -> bool:
        if "/snapshot/snapshot-" in path and json.loads(data)["commitKind"] == "COMPACT":
            self.meanwhile()
        return self.inner.create_exclusive(path, data)


class RivalAppends:
    """Each call: another writer that does not compact (as a ``write-only`` one) appends rows
    of its own, keys 200 on."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.calls = 0

    def __call__(self) -> None:
        keys = range(200 + 10 * self.calls, 210 + 10 * self.calls)
        self.calls += 1
        writer = PaimonWriter({"path": self.root}, False)
        committer.commit(IO, self.root, [m for p in written(writer, keys, "r") for m in p.messages])


@pytest.mark.spark
def test_a_write_whose_every_compaction_loses_raises_a_partial_commit_error(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every compaction of the write (its own, then each retry) loses the race to a rival
    commit (``commit.max-retries`` 0: the first lost race fails the attempt): ``save()``
    raises ``PartialCommitError`` naming the landed APPEND, ``abort`` keeps its files, and
    the rows appear after the next compaction job."""
    root = str(tmp_path / "t")
    create_dv_table(root, {"commit.max-retries": "0"})
    writer = PaimonWriter({"path": root}, False)
    messages = written(writer, range(100, 110), "a")
    ours = [f.file_name for p in messages for m in p.messages for f in m.data.new_files]
    rival = RivalAppends(root)
    plain = batch_source.open_file_io
    monkeypatch.setattr(
        batch_source, "open_file_io", lambda o: BeforeEveryCompactSnapshot(plain(o), rival)
    )
    with pytest.raises(PartialCommitError) as raised:
        spark_commit(writer, messages)
    monkeypatch.setattr(batch_source, "open_file_io", plain)
    appended = DV_BASE + 1
    assert raised.value.landed == (appended,)
    assert metadata.read_snapshot(IO, root, appended).commit_kind is CommitKind.APPEND
    assert rival.calls == 1 + compact.WRITE_RECOMPACTION_ATTEMPTS
    assert root in str(raised.value) and f"snapshot {appended} (APPEND)" in str(raised.value)
    assert "spark_impl.jobs.compact" in str(raised.value)
    assert all(Path(root, "bucket-0", name).exists() for name in ours)
    base = {k: "base" for k in range(30)}
    assert rows(root) == base and spark_rows(spark, root) == base
    assert_every_snapshot_reads(root)
    assert find_orphans(IO, root, older_than=datetime.timedelta(0)) == []
    jobs.compact(spark, root)
    rivals = {k: "r" for k in range(200, 200 + 10 * rival.calls)}
    visible = {**base, **rivals, **{k: "a" for k in range(100, 110)}}
    assert rows(root) == visible and spark_rows(spark, root) == visible
    assert_every_snapshot_reads(root)


def test_a_lost_compaction_of_a_first_row_table_is_retried(
    tmp_path: Path, rival_between_append_and_compact: Callable[[Callable[[], None]], None]
) -> None:
    """First-row tables hide level 0 from batch reads too: the same retry (reference reads)."""
    root = str(tmp_path / "t")
    options = {**PK_OPTIONS, "merge-engine": "first-row"}
    table = Table.create(IO, root, FIELDS, primary_keys=["k"], options=options)
    for low in (0, 10, 20):
        table.write_and_commit([(k, "base") for k in range(low, low + 10)])
    base = metadata.find_latest_snapshot_id(IO, root)
    assert base is not None
    writer = PaimonWriter({"path": root}, False)
    messages = written(writer, range(100, 110), "a")
    rival_between_append_and_compact(prepared_compaction(root))
    spark_commit(writer, messages)
    assert rows(root) == {**{k: "base" for k in range(30)}, **{k: "a" for k in range(100, 110)}}
    latest = metadata.find_latest_snapshot_id(IO, root)
    assert latest is not None
    kinds = [metadata.read_snapshot(IO, root, i).commit_kind for i in range(base + 1, latest + 1)]
    assert kinds == [CommitKind.APPEND, CommitKind.COMPACT, CommitKind.COMPACT]
    assert_every_snapshot_reads(root)
    assert find_orphans(IO, root, older_than=datetime.timedelta(0)) == []
