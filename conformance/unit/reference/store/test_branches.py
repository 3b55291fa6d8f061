"""Branches (``reference/store/branches.py``) and reads, writes and commits on a branch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from conformance.java.harness import JavaHarness
from conformance.unit.reference.store.maintenance_helpers import (
    list_table_files,
    read_values,
    snapshot_ids,
    sorted_rows,
)
from conformance.unit.reference.store.test_expire import (
    FAR_FUTURE,
    compacted_history,
    data_files,
    java_rows,
    keep,
    run_expire,
)
from reference import layout
from reference.errors import SnapshotNotFoundError, SpecViolation, TableNotFoundError
from reference.spec.data import Row
from reference.spec.snapshot import Snapshot
from reference.store import branches, metadata, orphans
from reference.store.commit import BATCH_COMMIT_IDENTIFIER, commit
from reference.store.expire import expire_snapshots
from reference.store.query import TimeTravel
from reference.store.write import write_batch
from reference.table import Table, new_commit_user


def write_on_branch(table: Table, branch: str, rows: Sequence[Row]) -> list[Snapshot]:
    schema = metadata.read_latest_schema(table.file_io, table.root, branch)
    latest = metadata.read_latest_snapshot(table.file_io, table.root, branch)
    messages = write_batch(table.file_io, table.root, schema, latest, rows, None)
    return commit(
        table.file_io,
        table.root,
        messages,
        commit_user=new_commit_user(),
        commit_identifier=BATCH_COMMIT_IDENTIFIER,
        branch=branch,
    )


def test_an_empty_branch_has_main_schemas_and_no_snapshot(tmp_path: Path) -> None:
    table, model, _ = compacted_history(tmp_path)
    table.create_branch("dev")
    assert branches.list_branches(table.file_io, table.root) == ["dev"]
    assert metadata.list_schema_ids(table.file_io, table.root, "dev") == [0]
    assert snapshot_ids(table, "dev") == []
    assert read_values(table, TimeTravel(), "dev") == []
    write_on_branch(table, "dev", [(42, "dev")])
    assert snapshot_ids(table, "dev") == [1]
    assert read_values(table, TimeTravel(), "dev") == [(42, "dev")]
    assert read_values(table, TimeTravel()) == sorted_rows(model[4])


def test_a_branch_from_a_tag_starts_at_the_tag_and_goes_its_own_way(tmp_path: Path) -> None:
    table, model, _ = compacted_history(tmp_path)
    table.create_tag("two", 2)
    table.create_branch("b", from_tag="two")
    root = Path(table.root)
    assert (root / "branch" / "branch-b" / "snapshot" / "snapshot-2").read_bytes() == (
        root / "snapshot" / "snapshot-2"
    ).read_bytes()
    assert metadata.list_tag_names(table.file_io, table.root, "b") == ["two"]
    assert read_values(table, TimeTravel(), "b") == sorted_rows(model[2])
    [snapshot] = write_on_branch(table, "b", [(9, "b")])
    assert snapshot.id == 3
    assert read_values(table, TimeTravel(), "b") == sorted_rows([*model[2], (9, "b")])
    assert read_values(table, TimeTravel()) == sorted_rows(model[4])
    assert read_values(table, TimeTravel(snapshot_id=3)) == sorted_rows(model[3])


@pytest.mark.parametrize("name", ["main", "", "   ", "123"])
def test_invalid_branch_names_are_refused(tmp_path: Path, name: str) -> None:
    table, _, _ = compacted_history(tmp_path)
    with pytest.raises(SpecViolation):
        table.create_branch(name)


def test_creating_twice_or_from_a_missing_tag_fails(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    table.create_branch("b")
    with pytest.raises(SpecViolation):
        table.create_branch("b")
    with pytest.raises(SnapshotNotFoundError):
        table.create_branch("c", from_tag="nope")
    with pytest.raises(TableNotFoundError):
        table.delete_branch("nope")


def test_main_expiration_keeps_what_a_branch_uses_even_without_the_tag(tmp_path: Path) -> None:
    table, model, names = compacted_history(tmp_path)
    table.create_tag("two", 2)
    table.create_branch("b", from_tag="two")
    table.delete_tag("two")  # main's tag is gone; the branch's copy of it stays
    run_expire(table, keep(1))
    assert {names["A"], names["B"]} <= data_files(table)
    assert read_values(table, TimeTravel(), "b") == sorted_rows(model[2])
    # the branch's own expiration keeps what main uses
    write_on_branch(table, "b", [(9, "b")])
    Path(layout.tag_path(table.root, "two", "b")).unlink()
    expire_snapshots(table.file_io, table.root, keep(1), branch="b", now_millis=FAR_FUTURE)
    assert snapshot_ids(table, "b") == [3]
    assert read_values(table, TimeTravel()) == sorted_rows(model[4])
    assert read_values(table, TimeTravel(), "b") == sorted_rows([*model[2], (9, "b")])


def test_deleting_a_branch_leaves_its_data_to_orphan_cleaning(tmp_path: Path) -> None:
    table, model, _ = compacted_history(tmp_path)
    table.create_branch("b")
    write_on_branch(table, "b", [(9, "b")])
    before = list_table_files(table.root)
    table.delete_branch("b")
    assert not Path(layout.branch_path(table.root, "b")).exists()
    removed = orphans.remove_orphan_files(table.file_io, table.root, now_millis=FAR_FUTURE)
    names = {Path(p).name for p in removed}
    assert len([n for n in names if n.startswith("data-")]) == 1
    assert read_values(table, TimeTravel()) == sorted_rows(model[4])
    assert all(not f.startswith("branch/") for f in list_table_files(table.root))
    assert len(before) > len(list_table_files(table.root))


def test_fast_forward_makes_main_the_branch(tmp_path: Path) -> None:
    table, model, _ = compacted_history(tmp_path)
    table.create_tag("two", 2)
    table.create_branch("b", from_tag="two")
    write_on_branch(table, "b", [(9, "b")])
    table.fast_forward("b")
    assert snapshot_ids(table) == [1, 2, 3]
    assert read_values(table, TimeTravel()) == sorted_rows([*model[2], (9, "b")])
    assert metadata.list_tag_names(table.file_io, table.root) == ["two"]
    write_on_branch(table, "main", [(10, "m")])
    assert snapshot_ids(table) == [1, 2, 3, 4]


def test_fast_forward_needs_a_branch_with_snapshots(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    table.create_branch("empty")
    with pytest.raises(SnapshotNotFoundError):
        table.fast_forward("empty")


@pytest.mark.java
def test_java_reads_our_branch(tmp_path: Path, java_harness: JavaHarness) -> None:
    table, model, _ = compacted_history(tmp_path)
    table.create_tag("two", 2)
    table.create_branch("b", from_tag="two")
    write_on_branch(table, "b", [(9, "b")])
    root = Path(table.root)
    assert java_rows(java_harness, root, options={"branch": "b"}) == sorted_rows(
        [*model[2], (9, "b")]
    )
    assert java_rows(java_harness, root) == sorted_rows(model[4])
