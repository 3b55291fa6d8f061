"""Tests of ``reference.store.incremental``: option parsing, Java's sections, priority queue and
loser-tree merge rounds on hand-made inputs, incremental reads of reference-written tables with
hand-computed expectations, and, with the Java harness, Paimon 0.9's batch read and
``audit_log`` of the same histories (reference- and Java-written, every changelog producer).

Expected merge rounds were worked out by hand from Java 0.9's ``LoserTree`` (the tie rule: of
two records of one key with the same sequence number, the one already waiting in the tree is
taken first); the Java tests then confirm them on real files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.java.harness import JavaHarness
from conformance.unit.reference.store.change_helpers import (
    AFTER,
    BEFORE,
    DELETE,
    HISTORY,
    INSERT,
    KEY_VALUE,
    PRODUCERS,
    as_short,
    random_history,
    sorted_changes,
    write_java_history,
    write_reference_history,
)
from reference.errors import InvalidOptionError, SnapshotNotFoundError
from reference.io import LocalFileIO
from reference.merge.engine import compute_merge_setup
from reference.spec import types as t
from reference.spec.binary_row import serialize_binary_row
from reference.spec.data import RowKind
from reference.spec.data_file import DataFileMeta
from reference.spec.key_value import KeyValue
from reference.spec.options import ChangelogProducer, IncrementalBetweenScanMode
from reference.spec.snapshot import Snapshot
from reference.spec.stats import EMPTY_STATS
from reference.store import incremental as inc
from reference.store import metadata
from reference.store.incremental import ChangeView, ScanMode
from reference.table import Table

KEY_TYPES = [t.IntType(nullable=False)]
SETUP = compute_merge_setup({}, t.RowType(KEY_VALUE), ["k"])


def kv(kind: RowKind, key: int, value: str, sequence: int) -> KeyValue:
    return KeyValue((key,), sequence, kind, (key, value))


def meta(name: str, low: int, high: int) -> DataFileMeta:
    return DataFileMeta(
        file_name=name,
        file_size=1,
        row_count=1,
        min_key=serialize_binary_row([low], KEY_TYPES),
        max_key=serialize_binary_row([high], KEY_TYPES),
        key_stats=EMPTY_STATS,
        value_stats=EMPTY_STATS,
        min_sequence_number=0,
        max_sequence_number=0,
        schema_id=0,
        level=0,
        extra_files=(),
        creation_time=None,
    )


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------


def test_parse_range_text() -> None:
    assert inc.parse_range_text("incremental-between", " 3 , 7") == ("3", "7")
    assert inc.parse_range_text("incremental-between", "t1,t2") == ("t1", "t2")
    for bad in ("3", "3,", ",4", "1,2,3"):
        with pytest.raises(InvalidOptionError):
            inc.parse_range_text("incremental-between", bad)


def test_parse_snapshot_id_text() -> None:
    assert inc.parse_snapshot_id_text("12") == 12
    assert inc.parse_snapshot_id_text("-1") == -1
    assert inc.parse_snapshot_id_text("tag-1") is None
    assert inc.parse_snapshot_id_text("١") is None  # a non-ASCII digit is no Java long


@pytest.mark.parametrize(
    ("mode", "producer", "expected"),
    [
        (IncrementalBetweenScanMode.AUTO, ChangelogProducer.NONE, ScanMode.DELTA),
        (IncrementalBetweenScanMode.AUTO, ChangelogProducer.INPUT, ScanMode.CHANGELOG),
        (IncrementalBetweenScanMode.AUTO, ChangelogProducer.LOOKUP, ScanMode.CHANGELOG),
        (IncrementalBetweenScanMode.AUTO, ChangelogProducer.FULL_COMPACTION, ScanMode.CHANGELOG),
        (IncrementalBetweenScanMode.DELTA, ChangelogProducer.INPUT, ScanMode.DELTA),
        (IncrementalBetweenScanMode.CHANGELOG, ChangelogProducer.NONE, ScanMode.CHANGELOG),
        (IncrementalBetweenScanMode.DIFF, ChangelogProducer.NONE, ScanMode.DIFF),
    ],
)
def test_resolve_scan_mode(
    mode: IncrementalBetweenScanMode, producer: ChangelogProducer, expected: ScanMode
) -> None:
    assert inc.resolve_scan_mode(mode, producer) is expected


# --------------------------------------------------------------------------------------------
# Sections, runs, the priority queue and the loser tree (hand-computed)
# --------------------------------------------------------------------------------------------


def test_heap_matches_java_priority_queue() -> None:
    def compare(a: int, b: int) -> int:
        return (a > b) - (a < b)

    heap: list[int] = []
    for item in (5, 3, 4, 1):
        inc.heap_push(heap, item, compare)
    assert heap == [1, 3, 4, 5]  # Java's array after offer(5), offer(3), offer(4), offer(1)
    assert inc.heap_poll(heap, compare) == 1
    assert heap == [3, 5, 4]


def test_sections_and_sorted_runs() -> None:
    a, b, c, d, e = (
        meta("a", 1, 3),
        meta("b", 2, 5),
        meta("c", 6, 8),
        meta("d", 4, 4),
        meta("e", 7, 9),
    )
    sections = inc.compute_sections([c, e, a, b, d], KEY_TYPES)
    names = [[[f.file_name for f in run] for run in section] for section in sections]
    # a..d overlap (bound 5), c starts after it; in the first section d follows a (a ends
    # first and d starts after a's end), b opens its own run.
    assert names == [[["a", "d"], ["b"]], [["c"], ["e"]]]


def test_merge_rounds_without_ties_are_by_sequence() -> None:
    runs = [
        [kv(INSERT, 1, "x", 7), kv(INSERT, 2, "y", 3)],
        [kv(INSERT, 1, "z", 2), kv(INSERT, 3, "w", 9)],
    ]
    rounds = inc.compute_merge_rounds(runs, KEY_TYPES, SETUP)
    assert [[r.sequence_number for r in group] for group in rounds] == [[2, 7], [3], [9]]


def test_merge_rounds_ties_follow_the_loser_tree() -> None:
    # Changelog files of two full compactions of one bucket: the second repeats the old
    # records' sequence numbers on -U and -D. Run 0 is the older file.
    runs = [
        [kv(INSERT, 1, "a", 0), kv(INSERT, 2, "b", 1), kv(INSERT, 4, "d", 2)],
        [kv(BEFORE, 1, "a", 0), kv(AFTER, 1, "a2", 4), kv(DELETE, 2, "b", 1)],
    ]
    rounds = inc.compute_merge_rounds(runs, KEY_TYPES, SETUP)
    assert [[(r.kind, r.value) for r in group] for group in rounds] == [
        [(BEFORE, (1, "a")), (INSERT, (1, "a"))],  # the newcomer (run 0's head) goes last
        [(AFTER, (1, "a2"))],
        [(INSERT, (2, "b")), (DELETE, (2, "b"))],  # run 1 advanced last: its record goes last
        [(INSERT, (4, "d"))],
    ]
    merged = [inc.merge_round(group, SETUP) for group in rounds]
    assert [(r.kind, r.value) for r in merged if r is not None] == [
        (INSERT, (1, "a")),
        (AFTER, (1, "a2")),
        (DELETE, (2, "b")),
        (INSERT, (4, "d")),
    ]


def test_a_single_run_is_not_merged() -> None:
    run = [kv(BEFORE, 1, "a", 5), kv(AFTER, 1, "b", 6), kv(DELETE, 2, "c", 7)]
    rounds = inc.compute_merge_rounds([run], KEY_TYPES, SETUP)
    assert rounds == [[record] for record in run]


def test_diff_of_two_states() -> None:
    before = [kv(INSERT, 1, "a", 1), kv(INSERT, 2, "b", 2), kv(INSERT, 3, "c", 3)]
    after = [kv(INSERT, 1, "a", 1), kv(AFTER, 2, "B", 5), kv(INSERT, 4, "d", 6)]
    kept = inc.compute_diff(before, after, KEY_TYPES, SETUP, keep_retractions=True)
    assert [(r.kind, r.value) for r in kept] == [
        (AFTER, (2, "B")),
        (DELETE, (3, "c")),
        (INSERT, (4, "d")),
    ]
    dropped = inc.compute_diff(before, after, KEY_TYPES, SETUP, keep_retractions=False)
    assert [(r.kind, r.value) for r in dropped] == [(AFTER, (2, "B")), (INSERT, (4, "d"))]


# --------------------------------------------------------------------------------------------
# Reference-written tables (expectations from the spec)
# --------------------------------------------------------------------------------------------


def read(table: Table, between: str, mode: str = "auto", **kwargs: object) -> list[object]:
    options = {"incremental-between": between, "incremental-between-scan-mode": mode}
    return as_short(table.read_changes(options, **kwargs).changes)  # type: ignore[arg-type]


def test_raw_changelog_is_the_input(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "input", buckets=1)
    every = [change for commit in HISTORY for change in commit]
    assert sorted_changes(read(table, "0,3")) == sorted_changes(as_short(every))
    assert sorted_changes(read(table, "1,2")) == sorted_changes(as_short(HISTORY[1]))
    assert read(table, "2,2") == []


def test_raw_delta_is_the_written_files(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "input", buckets=1)
    # The writer merges the -U/+U of key 1 into one record: the delta has the +U only.
    assert sorted_changes(read(table, "1,2", "delta")) == sorted_changes(
        [("+U", (1, "a2")), ("-D", (2, "b"))]
    )


def test_merged_view_drops_or_keeps_retractions(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "input", buckets=1)
    # Changelog files: snapshot 2 [-U 1:a, +U 1:a2, -D 2:b], snapshot 3 [+I 1:a3, +I 3:c,
    # +I 5:e]. Round 1 merges -U 1:a with +I 1:a3 (newer); +U 1:a2 is the next record of the
    # first run and comes alone in round 2: Java 0.9 returns key 1 twice.
    merged = read(table, "1,3", view=ChangeView.MERGED, keep_retractions=False)
    assert sorted_changes(merged) == sorted_changes(
        [("+I", (1, "a3")), ("+U", (1, "a2")), ("+I", (3, "c")), ("+I", (5, "e"))]
    )
    # A single changelog file is one run: nothing is merged.
    audit = read(table, "1,2", view=ChangeView.MERGED)
    assert sorted_changes(audit) == sorted_changes(
        [("-U", (1, "a")), ("+U", (1, "a2")), ("-D", (2, "b"))]
    )


def test_tags_read_a_diff(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "none", buckets=1)
    # t1 = {1:a, 2:b, 4:d}; t2 = {1:a3, 3:c, 4:d, 5:e}. Only t2's new files are read (the
    # shared file is set aside), so the delete of key 2 comes from the merged new files.
    kept = read(table, "t1,t2", view=ChangeView.MERGED)
    assert sorted_changes(kept) == sorted_changes(
        [("+I", (1, "a3")), ("-D", (2, "b")), ("+I", (3, "c")), ("+I", (5, "e"))]
    )
    dropped = read(table, "t1,t2", view=ChangeView.MERGED, keep_retractions=False)
    assert ("-D", (2, "b")) not in dropped


def test_diff_mode_between_snapshot_ids(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "full-compaction", buckets=1)
    # Full compaction rewrites everything: the states of snapshots 2 and 6 are compared.
    diff = read(table, "2,6", "diff", view=ChangeView.RAW)
    assert sorted_changes(diff) == sorted_changes(
        [("+I", (1, "a3")), ("-D", (2, "b")), ("+I", (3, "c")), ("+I", (5, "e"))]
    )


def test_timestamps_select_the_same_snapshots(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "input", buckets=1)
    times = [s.time_millis for s in snapshots_of(table)]
    by_time = table.read_changes({"incremental-between-timestamp": f"{times[0]},{times[2]}"})
    assert sorted_changes(by_time.changes) == sorted_changes(
        table.read_changes({"incremental-between": "1,3"}).changes
    )
    before_all = table.read_changes({"incremental-between-timestamp": f"0,{times[0]}"})
    assert (before_all.change_range.start_id, before_all.change_range.end_id) == (0, 1)
    after_all = table.read_changes(
        {"incremental-between-timestamp": f"{times[2] + 1},{times[2] + 9}"}
    )
    assert after_all.records == []


def snapshots_of(table: Table) -> list[Snapshot]:
    return [
        metadata.read_snapshot(table.file_io, table.root, i)
        for i in metadata.list_snapshot_ids(table.file_io, table.root)
    ]


def test_range_errors(tmp_path: Path) -> None:
    table = write_reference_history(tmp_path / "t", "none", buckets=1)
    with pytest.raises(InvalidOptionError, match="must not exceed"):
        table.read_changes({"incremental-between": "3,1"})
    with pytest.raises(SnapshotNotFoundError, match="outside"):
        table.read_changes({"incremental-between": "1,9"})
    with pytest.raises(InvalidOptionError, match="neither two tags"):
        table.read_changes({"incremental-between": "t1,nope"})
    with pytest.raises(InvalidOptionError):
        table.read_changes({})


def test_overwrite_and_compact_snapshots_are_skipped(tmp_path: Path) -> None:
    table = Table.create(
        LocalFileIO(), str(tmp_path / "t"), KEY_VALUE, primary_keys=["k"], options={"bucket": "1"}
    )
    table.write_and_commit([(1, "a")])
    table.write_and_commit([(2, "b")], overwrite={})
    table.write_and_commit([(3, "c")])
    table.compact(full=True)
    assert [s.commit_kind.value for s in snapshots_of(table)] == [
        "APPEND",
        "OVERWRITE",
        "APPEND",
        "COMPACT",
    ]
    assert sorted_changes(read(table, "0,4", "delta")) == [("+I", (1, "a")), ("+I", (3, "c"))]
    assert read(table, "0,4", "changelog") == []


def test_append_table_changes_are_inserts(tmp_path: Path) -> None:
    table = Table.create(LocalFileIO(), str(tmp_path / "t"), KEY_VALUE)
    table.write_and_commit([(1, "a"), (1, "a")])
    table.write_and_commit([(2, "b")])
    assert sorted_changes(read(table, "1,2")) == [("+I", (2, "b"))]
    assert sorted_changes(read(table, "0,2", view=ChangeView.MERGED)) == [
        ("+I", (1, "a")),
        ("+I", (1, "a")),
        ("+I", (2, "b")),
    ]


# --------------------------------------------------------------------------------------------
# Java 0.9 (batch read and audit_log of the same files)
# --------------------------------------------------------------------------------------------


def java_changes(java: JavaHarness, root: Path, options: dict[str, str]) -> tuple[list, list]:
    batch = java.read(root, options=options).rows
    audit = java.system_table(root, "audit_log", options=options).values()
    return sorted_changes(batch), sorted_changes(audit)


def reference_changes(root: Path, options: dict[str, str]) -> tuple[list, list]:
    file_io = LocalFileIO()
    batch = inc.read_changes(
        file_io, str(root), options, view=ChangeView.MERGED, keep_retractions=False
    )
    audit = inc.read_changes(file_io, str(root), options, view=ChangeView.MERGED)
    return (
        sorted_changes(batch.changes),
        sorted_changes((kind.short_string, *row) for kind, row in audit.changes),
    )


def compare_with_java(java: JavaHarness, root: Path, ranges: list[str]) -> None:
    for between in ranges:
        for mode in ("auto", "delta", "changelog"):
            options = {"incremental-between": between, "incremental-between-scan-mode": mode}
            assert reference_changes(root, options) == java_changes(java, root, options), options


@pytest.mark.java
@pytest.mark.parametrize("producer", PRODUCERS)
@pytest.mark.parametrize("writer", ["reference", "java"])
def test_merged_view_matches_java(
    java_harness: JavaHarness, tmp_path: Path, producer: str, writer: str
) -> None:
    root = tmp_path / "t"
    if writer == "java":
        write_java_history(java_harness, root, producer)
    else:
        write_reference_history(root, producer)
    last = len(java_harness.list_snapshots(root))
    compare_with_java(java_harness, root, [f"0,{last}", f"1,{last}", f"2,{last - 1}", "t1,t2"])


@pytest.mark.java
@pytest.mark.parametrize("producer", PRODUCERS)
def test_raw_view_matches_java_streaming_plans(
    java_harness: JavaHarness, tmp_path: Path, producer: str
) -> None:
    """Main's raw changes of (0, n] are what a Java stream from snapshot 1 reads."""
    root = tmp_path / "t"
    write_java_history(java_harness, root, producer)
    stream = java_harness.read_stream(root, snapshot_id=1)
    assert stream.complete
    last = len(java_harness.list_snapshots(root))
    raw = inc.read_changes(LocalFileIO(), str(root), {"incremental-between": f"0,{last}"})
    assert sorted_changes(raw.changes) == sorted_changes(stream.rows)


@pytest.mark.java
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("producer", ["none", "input", "full-compaction"])
def test_random_histories_match_java(
    java_harness: JavaHarness, tmp_path: Path, producer: str, seed: int
) -> None:
    root = tmp_path / "t"
    write_java_history(java_harness, root, producer, random_history(seed), buckets=2, tags=False)
    last = len(java_harness.list_snapshots(root))
    compare_with_java(java_harness, root, [f"0,{last}", f"1,{last}", f"{last // 2},{last}"])
