"""Orphan cleaning (``reference/store/orphans.py``)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from conformance.unit.reference.store.maintenance_helpers import (
    list_table_files,
    read_values,
    sorted_rows,
)
from conformance.unit.reference.store.test_branches import write_on_branch
from conformance.unit.reference.store.test_expire import (
    FAR_FUTURE,
    compacted_history,
    keep,
    run_expire,
)
from reference import layout
from reference.errors import FileMissingError, SpecViolation
from reference.store import orphans
from reference.store.query import TimeTravel
from reference.table import Table


def relative(table: Table, paths: list[str]) -> list[str]:
    return sorted(str(Path(p).relative_to(table.root)) for p in paths)


def test_files_of_a_failed_commit_are_orphans_once_old_enough(tmp_path: Path) -> None:
    table, model, _ = compacted_history(tmp_path)
    messages = table.write([(7, "lost")])  # written, never committed
    lost = [f.file_name for m in messages for f in m.data.new_files]
    junk_manifest = Path(layout.manifest_path(table.root, "manifest-leftover-0"))
    junk_manifest.write_bytes(b"x")
    temp = Path(layout.snapshot_dir(table.root)) / ".snapshot-5.abc.tmp"
    temp.write_bytes(b"{}")
    assert table.remove_orphan_files() == []  # everything is younger than a day
    expected = sorted(
        [f"bucket-0/{name}" for name in lost]
        + ["manifest/manifest-leftover-0", "snapshot/.snapshot-5.abc.tmp"]
    )
    found = orphans.remove_orphan_files(
        table.file_io, table.root, dry_run=True, now_millis=FAR_FUTURE
    )
    assert relative(table, found) == expected
    assert junk_manifest.exists()
    orphans.remove_orphan_files(table.file_io, table.root, now_millis=FAR_FUTURE)
    assert not junk_manifest.exists() and not temp.exists()
    assert read_values(table, TimeTravel()) == sorted_rows(model[4])


def test_older_than_is_a_parameter(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    messages = table.write([(7, "lost")])
    lost = messages[0].data.new_files[0].file_name
    second_ago = dt.datetime.now().timestamp() - 1  # an orphan is strictly older than the limit
    os.utime(Path(table.root) / "bucket-0" / lost, (second_ago, second_ago))
    assert len(table.remove_orphan_files(older_than=dt.timedelta(0), dry_run=True)) == 1


def test_nothing_referenced_is_ever_an_orphan(tmp_path: Path) -> None:
    table, model, _ = compacted_history(tmp_path)
    table.create_tag("one", 1)
    table.create_branch("b", from_tag="one")
    write_on_branch(table, "b", [(9, "b")])
    run_expire(table, keep(2))
    table.reset_consumer("c", 3)
    before = list_table_files(table.root)
    assert orphans.find_orphans(table.file_io, table.root, now_millis=FAR_FUTURE) == []
    assert list_table_files(table.root) == before
    assert read_values(table, TimeTravel(tag="one")) == sorted_rows(model[1])
    assert read_values(table, TimeTravel(), "b") == sorted_rows([*model[1], (9, "b")])


def test_expired_files_left_by_a_crash_are_found(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    stale = Path(table.root) / "bucket-0" / "data-stale-0.parquet"
    stale.write_bytes(b"PAR1")
    found = orphans.find_orphans(table.file_io, table.root, now_millis=FAR_FUTURE)
    assert relative(table, found) == ["bucket-0/data-stale-0.parquet"]


def test_a_branch_without_schema_stops_the_clean(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    (Path(table.root) / "branch" / "branch-broken" / "snapshot").mkdir(parents=True)
    with pytest.raises(SpecViolation):
        orphans.find_orphans(table.file_io, table.root, now_millis=FAR_FUTURE)


def test_a_damaged_live_snapshot_stops_the_clean(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    latest = table.latest_snapshot()
    assert latest is not None
    Path(layout.manifest_path(table.root, latest.delta_manifest_list)).unlink()
    with pytest.raises(FileMissingError):
        orphans.find_orphans(table.file_io, table.root, now_millis=FAR_FUTURE)
