"""Rollback (``reference/store/rollback.py``); Java 0.9 rolls back copies of the same tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.java.harness import JavaHarness
from conformance.unit.reference.store.maintenance_helpers import (
    copy_table,
    list_table_files,
    read_values,
    snapshot_ids,
    sorted_rows,
)
from conformance.unit.reference.store.test_expire import (
    compacted_history,
    data_files,
    java_history,
    java_rows,
    keep,
    run_expire,
)
from reference import layout
from reference.errors import SnapshotNotFoundError
from reference.io import LocalFileIO
from reference.store import metadata, rollback
from reference.store.query import TimeTravel
from reference.table import Table


def hint(table: Table, which: layout.HintFile) -> int | None:
    return layout.read_hint(table.file_io, layout.snapshot_dir(table.root), which)


def test_rolling_back_to_a_snapshot_drops_later_snapshots_and_their_files(
    tmp_path: Path,
) -> None:
    table, model, names = compacted_history(tmp_path)
    table.create_tag("four", 4)
    table.create_tag("one", 1)
    deleted = [Path(p).name for p in table.rollback_to(2)]
    assert deleted[:3] == ["snapshot-4", "snapshot-3", "tag-four"]
    assert snapshot_ids(table) == [1, 2]
    assert metadata.list_tag_names(table.file_io, table.root) == ["one"]
    assert hint(table, layout.HintFile.LATEST) == 2
    assert data_files(table) == {names["A"], names["B"]}
    assert read_values(table, TimeTravel()) == sorted_rows(model[2])
    [snapshot] = table.write_and_commit([(5, "e")])
    assert snapshot.id == 3
    assert read_values(table, TimeTravel()) == sorted_rows([*model[2], (5, "e")])


def test_rolling_back_to_a_tag_of_an_expired_snapshot_restores_it(tmp_path: Path) -> None:
    table, model, names = compacted_history(tmp_path)
    table.create_tag("two", 2)
    run_expire(table, keep(1))
    table.rollback_to(tag="two")
    assert snapshot_ids(table) == [2]
    assert hint(table, layout.HintFile.EARLIEST) == 2
    assert hint(table, layout.HintFile.LATEST) == 2
    assert data_files(table) == {names["A"], names["B"]}
    assert read_values(table, TimeTravel()) == sorted_rows(model[2])


def test_rolling_back_to_nothing_fails(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    with pytest.raises(SnapshotNotFoundError):
        table.rollback_to(9)
    with pytest.raises(SnapshotNotFoundError):
        table.rollback_to(tag="nope")
    with pytest.raises(ValueError):
        table.rollback_to()
    assert rollback.rollback_to_snapshot(table.file_io, table.root, 4) == []


@pytest.mark.java
@pytest.mark.parametrize("target", [2, 4, "first"])
def test_rolling_back_deletes_the_files_java_deletes(
    tmp_path: Path, java_harness: JavaHarness, target: int | str
) -> None:
    source = tmp_path / "source"
    java_history(java_harness, source)
    by_java = copy_table(source, tmp_path / "java")
    by_us = copy_table(source, tmp_path / "us")
    ours = Table(LocalFileIO(), str(by_us))
    if isinstance(target, str):
        java_harness.rollback(by_java, tag=target)
        ours.rollback_to(tag=target)
    else:
        java_harness.rollback(by_java, snapshot_id=target)
        ours.rollback_to(target)
    assert list_table_files(by_us) == list_table_files(by_java)
    assert java_rows(java_harness, by_us) == read_values(ours, TimeTravel())
    assert (by_us / "snapshot" / "LATEST").read_text() == (
        by_java / "snapshot" / "LATEST"
    ).read_text()


@pytest.mark.java
def test_java_reads_after_our_rollback_to_an_expired_tag(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    table, model, _ = compacted_history(tmp_path)
    table.create_tag("two", 2)
    run_expire(table, keep(1))
    table.rollback_to(tag="two")
    root = Path(table.root)
    assert java_rows(java_harness, root) == sorted_rows(model[2])
    java_harness.write(root, [(8, "j")], commit=True)
    assert read_values(table, TimeTravel()) == sorted_rows([*model[2], (8, "j")])
