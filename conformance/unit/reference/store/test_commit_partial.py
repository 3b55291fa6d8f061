"""Issue 18 item 4: a commit whose APPEND snapshot landed and whose COMPACT snapshot failed.

``Table.write_and_commit`` commits a write as an APPEND snapshot followed by the COMPACT
snapshot of the buckets it wrote (``reference.store.commit`` rule 3). When the APPEND lands and
the COMPACT then fails (another writer's compaction landed in between and took its files, or
the store failed), the caller must learn exactly what landed: a
:class:`PartialCommitError` names the landed snapshot ids and the part that failed, the landed
files stay on storage, and a retry of the same batch under the same commit user and identifier
is skipped (Java ``FileStoreCommitImpl.filterCommitted``) instead of writing the rows twice.

The conflicts are real: a second writer commits through the reference's own API at the moment
the first writer's APPEND snapshot exists (a FileIO wrapper lets it in); nothing of the store
is mocked.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.faults.faulty_io import DelegatingFileIO, InjectedFault
from conformance.unit.reference.store.commit_helpers import (
    APPEND_FIELDS,
    create_table,
    pk_table,
)
from reference import layout
from reference.errors import CommitConflictError, PartialCommitError
from reference.io import LocalFileIO
from reference.spec.data import Row
from reference.spec.snapshot import CommitKind
from reference.store import metadata
from reference.table import Table
from reference.validate import Severity, ValidateOptions, validate_table

IO = LocalFileIO()
DEEP_ALL = ValidateOptions(all_snapshots=True, deep=True)


class AfterSnapshotFileIO(DelegatingFileIO):
    """Runs ``action`` once, right after ``snapshot-<snapshot_id>`` was created through this
    FileIO; with ``fail_create_of`` the create of that snapshot id raises (before, or with
    ``ambiguous`` after, reaching the store)."""

    def __init__(
        self,
        snapshot_id: int,
        action: Callable[[], object] = lambda: None,
        *,
        fail_create_of: int | None = None,
        ambiguous: bool = False,
    ) -> None:
        super().__init__(IO)
        self.suffix = f"/{layout.SNAPSHOT_DIR}/{layout.SNAPSHOT_PREFIX}{snapshot_id}"
        self.action: Callable[[], object] | None = action
        self.failing = (
            None
            if fail_create_of is None
            else f"/{layout.SNAPSHOT_DIR}/{layout.SNAPSHOT_PREFIX}{fail_create_of}"
        )
        self.ambiguous = ambiguous

    def create_exclusive(self, path: str, data: bytes) -> bool:
        if self.failing is not None and path.endswith(self.failing):
            if self.ambiguous:
                super().create_exclusive(path, data)
            raise InjectedFault("injected store failure", path=path)
        created = super().create_exclusive(path, data)
        if created and path.endswith(self.suffix) and self.action is not None:
            action, self.action = self.action, None
            action()
        return created


def append_table(root: Path) -> Table:
    """One bucket: the fifth small file of the bucket makes a write compact it."""
    return create_table(str(root), APPEND_FIELDS, options={"bucket": "1", "bucket-key": "id"})


def batch(number: int) -> list[Row]:
    return [(number * 10 + i, f"b{number}") for i in range(3)]


def values(table: Table) -> list[Row]:
    return sorted((row for _, row in table.read().rows), key=repr)


def files_below(root: Path, directory: str) -> set[str]:
    return {p.name for p in (root / directory).iterdir() if p.is_file()}


def assert_no_errors(table: Table) -> None:
    """Every file a snapshot or tag names exists and reads (a LATEST hint left behind by the
    interleaved commit is only a warning: hints are advisory)."""
    report = validate_table(IO, table.root, DEEP_ALL)
    errors = [v for v in report.violations if v.rule.severity is Severity.ERROR]
    assert errors == [], [(v.rule.code, v.file, v.reason) for v in errors]


def append_with_four_files(root: Path) -> Table:
    table = append_table(root)
    for number in range(4):
        table.write_and_commit(batch(number))
    assert [s.commit_kind for s in [table.latest_snapshot()] if s] == [CommitKind.APPEND]
    return table


def racing_full_compaction(table: Table, landed_id: int) -> Table:
    """The table seen through a FileIO that lets another writer fully compact the table as
    soon as our ``snapshot-<landed_id>`` (the APPEND) exists."""
    return Table(AfterSnapshotFileIO(landed_id, lambda: table.compact(full=True)), table.root)


def test_append_landed_compaction_lost_raises_partial_commit_error(tmp_path: Path) -> None:
    """Failed before the fix: a plain CommitConflictError, the caller could not tell that
    snapshot 5 (its rows) had landed."""
    table = append_with_four_files(tmp_path / "t")
    racing = racing_full_compaction(table, 5)
    with pytest.raises(PartialCommitError) as raised:
        racing.write_and_commit(batch(4))
    error = raised.value
    assert error.landed == (5,)
    assert isinstance(error.cause, CommitConflictError) and not error.cause.retryable
    assert not error.retryable
    message = str(error)
    assert "snapshot 5 (APPEND)" in message and "COMPACT" in message
    assert metadata.read_snapshot(IO, table.root, 5).commit_kind is CommitKind.APPEND
    # the other writer's full compaction is snapshot 6; ours made none
    assert metadata.list_snapshot_ids(IO, table.root) == [1, 2, 3, 4, 5, 6]
    assert values(table) == sorted((r for n in range(5) for r in batch(n)), key=repr)


def test_a_retry_under_the_same_identifier_writes_nothing(tmp_path: Path) -> None:
    table = append_with_four_files(tmp_path / "t")
    racing = racing_full_compaction(table, 5)
    with pytest.raises(PartialCommitError):
        racing.write_and_commit(batch(4), commit_user="loader", identifier=7)
    bucket = tmp_path / "t" / "bucket-0"
    files = files_below(tmp_path / "t", "bucket-0")
    assert table.write_and_commit(batch(4), commit_user="loader", identifier=7) == []
    assert files_below(tmp_path / "t", "bucket-0") == files, bucket
    assert values(table) == sorted((r for n in range(5) for r in batch(n)), key=repr)
    # the next identifier of that user commits again
    [snapshot] = table.write_and_commit(batch(5), commit_user="loader", identifier=8)
    assert snapshot.commit_identifier == 8


def test_the_landed_files_survive_the_failed_compaction(tmp_path: Path) -> None:
    """A failed COMPACT deletes only its own meta files: every file a snapshot names exists."""
    table = append_with_four_files(tmp_path / "t")
    with pytest.raises(PartialCommitError):
        racing_full_compaction(table, 5).write_and_commit(batch(4))
    assert_no_errors(table)


def test_primary_key_write_whose_compaction_loses(tmp_path: Path) -> None:
    """The fifth sorted run of the bucket makes the write compact it."""
    table = pk_table(str(tmp_path / "t"))
    for number in range(4):
        table.write_and_commit([(k, f"r{number}") for k in range(number, number + 4)])
    latest = table.latest_snapshot()
    assert latest is not None
    append_id = latest.id + 1
    racing = Table(AfterSnapshotFileIO(append_id, lambda: table.compact(full=True)), table.root)
    with pytest.raises(PartialCommitError) as raised:
        racing.write_and_commit([(k, "new") for k in range(2)])
    assert raised.value.landed == (append_id,)
    assert dict(row for _, row in table.read().rows)[0] == "new"
    assert_no_errors(table)


def test_a_store_failure_creating_the_compact_snapshot_names_the_landed_append(
    tmp_path: Path,
) -> None:
    table = append_with_four_files(tmp_path / "t")
    failing = Table(AfterSnapshotFileIO(5, fail_create_of=6), table.root)
    with pytest.raises(PartialCommitError) as raised:
        failing.write_and_commit(batch(4))
    assert raised.value.landed == (5,)
    assert isinstance(raised.value.__cause__, InjectedFault)
    assert metadata.list_snapshot_ids(IO, table.root) == [1, 2, 3, 4, 5]
    assert_no_errors(table)


def test_a_lost_response_for_a_compact_snapshot_that_landed_is_a_success(tmp_path: Path) -> None:
    """The store created snapshot 6 but answered with an error: both snapshots landed, so the
    commit returns them (read back by commit user and identifier)."""
    table = append_with_four_files(tmp_path / "t")
    failing = Table(AfterSnapshotFileIO(5, fail_create_of=6, ambiguous=True), table.root)
    snapshots = failing.write_and_commit(batch(4))
    assert [(s.id, s.commit_kind) for s in snapshots] == [
        (5, CommitKind.APPEND),
        (6, CommitKind.COMPACT),
    ]


def test_nothing_landed_is_the_plain_error(tmp_path: Path) -> None:
    table = append_with_four_files(tmp_path / "t")
    failing = Table(AfterSnapshotFileIO(0, fail_create_of=5), table.root)
    with pytest.raises(InjectedFault):
        failing.write_and_commit(batch(4))
    assert metadata.list_snapshot_ids(IO, table.root) == [1, 2, 3, 4]
