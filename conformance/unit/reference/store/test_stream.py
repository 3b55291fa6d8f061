"""Tests of ``reference.store.stream``: a stream driven plan by plan while commits happen, every
start mode, consumers, overwrite changes and errors on reference-written tables (expectations
from the spec by hand), and, with the Java harness, Paimon 0.9's ``StreamTableScan`` plans for
the same histories (reference- and Java-written, every changelog producer).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from conformance.java.harness import JavaHarness
from conformance.unit.reference.store.change_helpers import (
    HISTORY,
    KEY_VALUE,
    PRODUCERS,
    as_short,
    sorted_changes,
    write_java_history,
    write_reference_history,
)
from reference import layout
from reference.errors import InvalidOptionError, SnapshotNotFoundError
from reference.io import LocalFileIO
from reference.spec.data import RowKind
from reference.store import metadata
from reference.store.stream import PlanKind, StreamPlan, StreamReader, find_next_snapshot
from reference.table import Table


def create(tmp_path: Path, **options: str) -> Table:
    return Table.create(
        LocalFileIO(),
        str(tmp_path / "t"),
        KEY_VALUE,
        primary_keys=["k"],
        options={"bucket": "1", **options},
    )


def short(plan: StreamPlan) -> list[tuple[str, tuple[object, ...]]]:
    return sorted_changes(as_short(plan.changes))


def consumer_next(table: Table, consumer_id: str) -> int:
    return metadata.read_consumer(table.file_io, table.root, consumer_id).next_snapshot


# --------------------------------------------------------------------------------------------
# Plans, step by step
# --------------------------------------------------------------------------------------------


def test_latest_full_then_follow_up(tmp_path: Path) -> None:
    table = create(tmp_path)
    reader = table.stream()
    first = reader.plan()
    assert (first.kind, first.next_snapshot_id) == (PlanKind.NOTHING, None)
    table.write_and_commit([(1, "a"), (2, "b")])
    full = reader.plan()
    assert (full.kind, full.snapshot_id, full.next_snapshot_id) == (PlanKind.FULL, 1, 2)
    assert short(full) == [("+I", (1, "a")), ("+I", (2, "b"))]
    assert reader.plan().kind is PlanKind.NOTHING
    table.write_and_commit([(1, "a2"), (2, "b")], [RowKind.UPDATE_AFTER, RowKind.DELETE])
    delta = reader.plan()
    assert (delta.kind, delta.snapshot_id, reader.checkpoint()) == (PlanKind.DELTA, 2, 3)
    assert short(delta) == [("+U", (1, "a2")), ("-D", (2, "b"))]


def test_full_read_of_an_existing_table(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "input", buckets=1)
    plan = table.stream().plan()
    assert (plan.kind, plan.snapshot_id) == (PlanKind.FULL, 3)
    assert short(plan) == [
        ("+I", (1, "a3")),
        ("+I", (3, "c")),
        ("+I", (4, "d")),
        ("+I", (5, "e")),
    ]


def test_input_producer_streams_the_input(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "input", buckets=1)
    reader = table.stream({"scan.mode": "from-snapshot", "scan.snapshot-id": "1"})
    assert reader.plan().kind is PlanKind.NOTHING
    plans = [reader.plan() for _ in HISTORY]
    assert [p.kind for p in plans] == [PlanKind.CHANGELOG] * 3
    assert [short(p) for p in plans] == [sorted_changes(as_short(c)) for c in HISTORY]
    assert reader.plan().kind is PlanKind.NOTHING


def test_iterate_waits_for_new_snapshots(tmp_path: Path) -> None:
    table = create(tmp_path)
    table.write_and_commit([(1, "a")])

    def later() -> None:
        time.sleep(0.2)
        table.write_and_commit([(2, "b")])

    writer = threading.Thread(target=later)
    writer.start()
    stream = table.stream().iterate(max_empty_plans=None, poll_interval_seconds=0.02)
    seen = [next(stream), next(stream)]
    writer.join()
    assert [(i, as_short(c)) for i, c in seen] == [
        (1, [("+I", (1, "a"))]),
        (2, [("+I", (2, "b"))]),
    ]


def test_latest_skips_what_exists(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "none", buckets=1)
    reader = table.stream({"scan.mode": "latest"})
    assert (reader.plan().kind, reader.checkpoint()) == (PlanKind.NOTHING, 4)
    table.write_and_commit([(9, "z")])
    assert short(reader.plan()) == [("+I", (9, "z"))]


def test_latest_on_a_table_created_empty_starts_at_one(tmp_path: Path) -> None:
    table = create(tmp_path)
    reader = table.stream({"scan.mode": "latest"})
    table.write_and_commit([(1, "a")])
    assert (reader.plan().kind, reader.checkpoint()) == (PlanKind.NOTHING, 1)
    assert short(reader.plan()) == [("+I", (1, "a"))]


def test_from_snapshot_full(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "none", buckets=1)
    reader = table.stream({"scan.mode": "from-snapshot-full", "scan.snapshot-id": "2"})
    full = reader.plan()
    assert (full.kind, full.snapshot_id) == (PlanKind.FULL, 2)
    assert short(full) == sorted_changes([("+U", (1, "a2")), ("+I", (4, "d"))])
    assert short(reader.plan()) == [("+I", (1, "a3")), ("+I", (3, "c")), ("+I", (5, "e"))]


def test_from_timestamp_starts_at_the_first_later_snapshot(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "none", buckets=1)
    second = metadata.read_snapshot(table.file_io, table.root, 2)
    reader = table.stream({"scan.timestamp-millis": str(second.time_millis)})
    assert (reader.plan().kind, reader.checkpoint()) == (PlanKind.NOTHING, 2)
    assert reader.plan().snapshot_id == 2


def test_compacted_full_reads_the_latest_compaction(tmp_path: Path) -> None:
    table = create(tmp_path)
    table.write_and_commit([(1, "a")])
    table.compact(full=True)
    table.write_and_commit([(2, "b")])
    reader = table.stream({"scan.mode": "compacted-full"})
    full = reader.plan()
    assert (full.kind, full.snapshot_id) == (PlanKind.FULL, 2)
    assert short(full) == [("+I", (1, "a"))]
    assert short(reader.plan()) == [("+I", (2, "b"))]


def test_overwrite_is_skipped_unless_asked(tmp_path: Path) -> None:
    table = create(tmp_path)
    table.write_and_commit([(1, "a")])
    table.write_and_commit([(2, "b")], overwrite={})
    table.write_and_commit([(3, "c")])
    options = {"scan.mode": "from-snapshot", "scan.snapshot-id": "1"}
    skipping = table.stream(options)
    snapshots = [snapshot_id for snapshot_id, _ in skipping.iterate()]
    assert snapshots == [1, 3]
    reading = table.stream({**options, "streaming-read-overwrite": "true"})
    changes = dict(reading.iterate())
    assert as_short(changes[2]) == [("-D", (1, "a")), ("+I", (2, "b"))]


def test_invalid_starts(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "none", buckets=1)
    with pytest.raises(InvalidOptionError, match="batch read"):
        table.stream({"incremental-between": "1,2"}).plan()
    with pytest.raises(InvalidOptionError, match="not a tag"):
        table.stream({"scan.tag-name": "t1"}).plan()


def test_an_expired_next_snapshot_fails(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "none", buckets=1)
    assert find_next_snapshot(table.file_io, table.root, 5) is None
    table.file_io.delete(layout.snapshot_path(table.root, 1))
    table.file_io.delete(
        layout.hint_path(layout.snapshot_dir(table.root), layout.HintFile.EARLIEST)
    )
    with pytest.raises(SnapshotNotFoundError, match="expired"):
        find_next_snapshot(table.file_io, table.root, 1)
    assert find_next_snapshot(table.file_io, table.root, 9) is None  # waits, as Java does


# --------------------------------------------------------------------------------------------
# Consumers
# --------------------------------------------------------------------------------------------


def test_consumer_progress_and_resume(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "none", buckets=1)
    options = {"scan.mode": "from-snapshot", "scan.snapshot-id": "1", "consumer-id": "me"}
    stream = table.stream(options).iterate()
    assert next(stream)[0] == 1
    assert "me" not in metadata.list_consumer_ids(table.file_io, table.root)
    assert next(stream)[0] == 2  # asking for more means snapshot 1 was processed
    assert consumer_next(table, "me") == 2
    assert [snapshot_id for snapshot_id, _ in stream] == [3]
    assert consumer_next(table, "me") == 4
    table.write_and_commit([(7, "x")])
    # A new reader with the same consumer resumes without a full read, whatever its scan mode.
    resumed = list(table.stream({"consumer-id": "me"}).iterate())
    assert [(i, as_short(c)) for i, c in resumed] == [(4, [("+I", (7, "x"))])]
    fresh = table.stream({"consumer-id": "me", "consumer.ignore-progress": "true"}).plan()
    assert fresh.kind is PlanKind.FULL


def test_at_least_once_records_the_snapshot_being_read(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "none", buckets=1)
    options = {
        "scan.mode": "from-snapshot",
        "scan.snapshot-id": "2",
        "consumer-id": "c",
        "consumer.mode": "at-least-once",
    }
    stream = table.stream(options).iterate()
    assert next(stream)[0] == 2
    assert consumer_next(table, "c") == 2  # a restart now reads snapshot 2 again
    list(stream)
    assert consumer_next(table, "c") == 4


def test_exactly_once_records_only_at_checkpoints(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "none", buckets=1)
    reader = table.stream(
        {"scan.mode": "from-snapshot", "scan.snapshot-id": "1", "consumer-id": "x"}
    )
    reader.plan()
    reader.plan()
    checkpoint = reader.checkpoint()
    assert "x" not in metadata.list_consumer_ids(table.file_io, table.root)
    reader.notify_checkpoint_complete(checkpoint)
    assert consumer_next(table, "x") == 2


# --------------------------------------------------------------------------------------------
# Java 0.9
# --------------------------------------------------------------------------------------------

START_OPTIONS = (
    {},
    {"scan.mode": "latest"},
    {"scan.mode": "from-snapshot", "scan.snapshot-id": "1"},
    {"scan.mode": "from-snapshot", "scan.snapshot-id": "2"},
    {"scan.mode": "from-snapshot-full", "scan.snapshot-id": "2"},
    {"scan.mode": "compacted-full"},
)


def reference_plans(root: Path, options: dict[str, str], count: int) -> list[object]:
    reader = StreamReader(LocalFileIO(), str(root), options)
    plans = [reader.plan() for _ in range(count)]
    return [(short(p), p.next_snapshot_id) for p in plans]


@pytest.mark.java
@pytest.mark.parametrize("producer", PRODUCERS)
@pytest.mark.parametrize("writer", ["reference", "java"])
def test_plans_match_java(
    java_harness: JavaHarness, tmp_path: Path, producer: str, writer: str
) -> None:
    root = tmp_path / "t"
    if writer == "java":
        write_java_history(java_harness, root, producer)
    else:
        write_reference_history(root, producer)
    snapshots = java_harness.list_snapshots(root)
    second_time = {
        "scan.mode": "from-timestamp",
        "scan.timestamp-millis": str(snapshots[1]["timeMillis"]),
    }
    for options in (*START_OPTIONS, second_time):
        stream = java_harness.read_stream(root, options=options)
        expected = [
            (sorted_changes(as_short(batch.rows)), batch.next_snapshot_id)
            for batch in stream.batches
        ]
        assert reference_plans(root, options, len(expected)) == expected, options


@pytest.mark.java
def test_deletion_vector_stream_rereads_the_full_snapshot_delta(
    java_harness: JavaHarness, tmp_path: Path
) -> None:
    """With deletion vectors but no lookup producer, Java reads level > 0 in full and then the
    same snapshot's level-0 files as changes."""
    root = tmp_path / "t"
    java_harness.create_table(
        root,
        KEY_VALUE,
        primary_keys=["k"],
        options={"bucket": "1", "deletion-vectors.enabled": "true"},
    )
    java_harness.write(root, [(1, "a")], commit=True)
    java_harness.compact(root, full=True, commit=True)
    java_harness.write(root, [(2, "b")], commit=True)
    stream = java_harness.read_stream(root, options={})
    expected = [(sorted_changes(as_short(b.rows)), b.next_snapshot_id) for b in stream.batches]
    assert reference_plans(root, {}, len(expected)) == expected
