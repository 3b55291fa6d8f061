"""Consumers (``reference/store/consumers.py``): files, progress, idle expiration."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.java.harness import JavaHarness
from conformance.unit.reference.store.maintenance_helpers import snapshot_ids
from conformance.unit.reference.store.test_expire import compacted_history
from reference import layout
from reference.errors import SpecViolation
from reference.store import consumers


def test_a_consumer_file_is_the_next_snapshot_as_json(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    table.reset_consumer("reader", 3)
    path = Path(layout.consumer_path(table.root, "reader"))
    assert path.read_text() == '{\n  "nextSnapshot" : 3\n}'
    table.reset_consumer("reader", 1)
    assert consumers.read_consumers(table.file_io, table.root) == {"reader": 1}


def test_the_slowest_consumer_counts(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    assert consumers.find_min_next_snapshot(table.file_io, table.root) is None
    table.reset_consumer("a", 4)
    table.reset_consumer("b", 2)
    assert consumers.find_min_next_snapshot(table.file_io, table.root) == 2
    assert consumers.delete_consumer(table.file_io, table.root, "b")
    assert consumers.find_min_next_snapshot(table.file_io, table.root) == 4


def test_idle_consumers_expire_by_their_last_write(tmp_path: Path) -> None:
    table, _, _ = compacted_history(tmp_path)
    table.reset_consumer("idle", 1)
    table.reset_consumer("busy", 2)
    idle = Path(layout.consumer_path(table.root, "idle"))
    os.utime(idle, (1_000, 1_000))  # written at 1000 s after the epoch
    expired = consumers.expire_consumers(table.file_io, table.root, 1_000_001)
    assert expired == ["idle"]
    assert consumers.read_consumers(table.file_io, table.root) == {"busy": 2}
    assert consumers.expire_consumers(table.file_io, table.root, 999_999) == []


@pytest.mark.parametrize(("consumer_id", "next_snapshot"), [("", 1), ("a/b", 1), ("ok", 0)])
def test_invalid_consumers_are_refused(
    tmp_path: Path, consumer_id: str, next_snapshot: int
) -> None:
    table, _, _ = compacted_history(tmp_path)
    with pytest.raises(SpecViolation):
        table.reset_consumer(consumer_id, next_snapshot)


@pytest.mark.java
def test_java_expiration_honours_our_consumer(tmp_path: Path, java_harness: JavaHarness) -> None:
    table, _, _ = compacted_history(tmp_path)
    table.reset_consumer("reader", 2)
    expired = java_harness.expire_snapshots(
        Path(table.root), retain_min=1, retain_max=1, time_retained="1 ms"
    )
    assert expired == 1
    assert snapshot_ids(table) == [2, 3, 4]
