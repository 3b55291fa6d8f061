"""Tests of ``reference.store.dml``: DELETE, UPDATE and MERGE INTO on append tables (truncate,
dropped partitions, copy-on-write, deletion vectors) and on primary-key tables.

Expected rows, snapshots, manifest entries and deletion-vector positions are worked out by hand
from the module's rules (which follow Spark's Paimon 0.9 commands); the docs' row-level example
(``docs/append-table/row-tracking.md``) is reproduced. Java 0.9 (``java_harness``) reads every
table the commands leave behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from conformance.java.harness import JavaHarness
from conformance.unit.reference.store.commit_helpers import (
    APPEND_FIELDS,
    PARTITIONED_FIELDS,
    PK_FIELDS,
)
from reference.errors import SpecViolation, UnsupportedFeature
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.spec.manifest import FileKind, ManifestEntry
from reference.spec.predicate import And, Leaf, PredicateOp
from reference.spec.snapshot import CommitKind, Snapshot
from reference.store import metadata
from reference.store.bucket_state import read_bucket_states
from reference.store.dml import (
    MatchedAction,
    MergeConflictError,
    MergeStatement,
    NotMatchedAction,
    NotMatchedBySourceAction,
    compute_merge,
    compute_upsert_statement,
)
from reference.store.incremental import read_list_entries
from reference.store.query import TimeTravel
from reference.store.write import read_live_entries
from reference.table import Table

COW_UNAWARE = {"bucket": "-1"}
DV_UNAWARE = {"bucket": "-1", "deletion-vectors.enabled": "true"}
COW_BUCKETED = {"bucket": "2", "bucket-key": "id"}
DV_BUCKETED = {"bucket": "2", "bucket-key": "id", "deletion-vectors.enabled": "true"}
MODES = [COW_UNAWARE, DV_UNAWARE, COW_BUCKETED, DV_BUCKETED]
MODE_IDS = ["cow-unaware", "dv-unaware", "cow-bucketed", "dv-bucketed"]


def lt(field: str, value: object) -> Leaf:
    return Leaf(PredicateOp.LESS_THAN, field, (value,))


def eq(field: str, value: object) -> Leaf:
    return Leaf(PredicateOp.EQUAL, field, (value,))


def table_of(
    root: Path, options: dict[str, str], fields: Sequence[t.DataField] = APPEND_FIELDS
) -> Table:
    keys = ["dt"] if fields == PARTITIONED_FIELDS else []
    return Table.create(LocalFileIO(), str(root), fields, partition_keys=keys, options=options)


def two_files(root: Path, options: dict[str, str]) -> Table:
    """ids 0-4 in the first commit, 5-9 in the second (``v`` = str(id))."""
    table = table_of(root, {**options, "write-only": "true"})
    table.write_and_commit([(i, str(i)) for i in range(5)])
    table.write_and_commit([(i, str(i)) for i in range(5, 10)])
    return table


def values(table: Table, snapshot_id: int | None = None) -> list[Row]:
    travel = TimeTravel(snapshot_id=snapshot_id) if snapshot_id else TimeTravel()
    return sorted((row for _, row in table.read(travel).rows), key=repr)


def kinds_of(snapshots: Sequence[Snapshot]) -> list[CommitKind]:
    return [s.commit_kind for s in snapshots]


def delta(table: Table, snapshot: Snapshot) -> list[ManifestEntry]:
    return read_list_entries(table.file_io, table.root, snapshot.delta_manifest_list)


def live_names(table: Table) -> set[str]:
    entries = read_live_entries(table.file_io, table.root, table.latest_snapshot())
    return {e.file.file_name for e in entries}


def vectors(table: Table) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for bucket in read_bucket_states(
        table.file_io, table.root, table.schema(), table.latest_snapshot()
    ):
        found.update({name: sorted(p) for name, p in bucket.vectors.items()})
    return found


def index_file_count(table: Table) -> int:
    buckets = read_bucket_states(table.file_io, table.root, table.schema(), table.latest_snapshot())
    return sum(len(b.vector_files) for b in buckets)


# --------------------------------------------------------------------------------------------
# The seed's append table (section 3.6.2)
# --------------------------------------------------------------------------------------------


def test_the_seed_append_table_takes_delete_update_and_merge(tmp_path: Path) -> None:
    """Seed 3.6.2: CREATE TABLE my_table (a INT, b STRING) is an append table; it accepts
    batch DELETE, UPDATE and MERGE INTO."""
    fields = (t.DataField(0, "a", t.IntType()), t.DataField(1, "b", t.VarCharType(t.MAX_LENGTH)))
    table = Table.create(LocalFileIO(), str(tmp_path / "my_table"), fields)
    table.write_and_commit([(1, "UNKNOWN"), (2, "EUR"), (3, "UNKNOWN")])
    assert kinds_of(table.delete(eq("b", "UNKNOWN"))) == [CommitKind.APPEND]
    assert kinds_of(table.update(None, {"b": lambda row: row[1].lower()})) == [CommitKind.APPEND]
    table.merge_into(compute_upsert_statement(((2, "usd"), (4, "gbp")), key_index=0))
    assert values(table) == [(2, "usd"), (4, "gbp")]


# --------------------------------------------------------------------------------------------
# DELETE: truncate and dropped partitions (rules 1 and 2)
# --------------------------------------------------------------------------------------------


def test_delete_without_condition_truncates(tmp_path: Path) -> None:
    table = two_files(tmp_path / "t", DV_UNAWARE)
    table.delete(eq("id", 1))
    [snapshot] = table.delete()
    assert snapshot.commit_kind is CommitKind.OVERWRITE
    assert values(table) == [] and live_names(table) == set()
    assert index_file_count(table) == 0
    empty = table_of(tmp_path / "e", COW_UNAWARE)
    assert kinds_of(empty.delete()) == [CommitKind.OVERWRITE]


def test_delete_on_partition_keys_drops_partitions(tmp_path: Path) -> None:
    table = table_of(tmp_path / "t", COW_UNAWARE, PARTITIONED_FIELDS)
    table.write_and_commit([("a", 1, "x"), ("b", 2, "y"), ("c", 3, "z")])
    [snapshot] = table.delete(Leaf(PredicateOp.IN, "dt", ("a", "c", "zz")))
    assert snapshot.commit_kind is CommitKind.OVERWRITE
    assert values(table) == [("b", 2, "y")]
    assert {e.kind for e in delta(table, snapshot)} == {FileKind.DELETE}
    assert table.delete(eq("dt", "nothing")) == []
    forced = table_of(
        tmp_path / "f",
        {**COW_UNAWARE, "delete.force-produce-changelog": "true"},
        PARTITIONED_FIELDS,
    )
    forced.write_and_commit([("a", 1, "x"), ("b", 2, "y")])
    assert kinds_of(forced.delete(eq("dt", "a"))) == [CommitKind.APPEND]
    assert values(forced) == [("b", 2, "y")]


# --------------------------------------------------------------------------------------------
# Copy-on-write (rule 4)
# --------------------------------------------------------------------------------------------


def test_copy_on_write_delete_rewrites_touched_files_only(tmp_path: Path) -> None:
    table = two_files(tmp_path / "t", COW_UNAWARE)
    first, second = sorted(live_names(table))
    [snapshot] = table.delete(lt("id", 2))
    assert snapshot.commit_kind is CommitKind.APPEND
    changes = sorted((e.kind.name, e.file.row_count) for e in delta(table, snapshot))
    assert changes == [("ADD", 3), ("DELETE", 5)]
    assert values(table) == [(i, str(i)) for i in range(2, 10)]
    assert len(live_names(table)) == 2
    # deleting every row of a file only deletes it
    [snapshot] = table.delete(Leaf(PredicateOp.GREATER_OR_EQUAL, "id", (5,)))
    assert [(e.kind, e.file.row_count) for e in delta(table, snapshot)] == [(FileKind.DELETE, 5)]
    assert values(table) == [(i, str(i)) for i in range(2, 5)]
    assert first not in live_names(table) or second not in live_names(table)


def test_copy_on_write_update_keeps_row_order(tmp_path: Path) -> None:
    table = two_files(tmp_path / "t", COW_UNAWARE)
    [snapshot] = table.update(Leaf(PredicateOp.IN, "id", (1, 3)), {"v": lambda r: r[1] * 2})
    assert snapshot.commit_kind is CommitKind.APPEND
    [added] = [e for e in delta(table, snapshot) if e.kind is FileKind.ADD]
    assert added.file.row_count == 5
    rows = [row for _, row in table.read().rows if row[0] < 5]
    assert rows == [(0, "0"), (1, "11"), (2, "2"), (3, "33"), (4, "4")]


def test_nothing_matching_commits_nothing(tmp_path: Path) -> None:
    for options in MODES:
        table = two_files(tmp_path / str(len(list(tmp_path.iterdir()))), options)
        assert table.delete(eq("id", 42)) == []
        assert table.update(eq("id", 42), {"v": lambda r: "x"}) == []


# --------------------------------------------------------------------------------------------
# Deletion vectors (rule 5)
# --------------------------------------------------------------------------------------------


def test_deletion_vector_delete_marks_positions(tmp_path: Path) -> None:
    table = two_files(tmp_path / "t", DV_UNAWARE)
    names = live_names(table)
    [snapshot] = table.delete(Leaf(PredicateOp.IN, "id", (0, 1, 7)))
    assert snapshot.commit_kind is CommitKind.COMPACT
    assert delta(table, snapshot) == [] and live_names(table) == names
    assert sorted(vectors(table).values()) == [[0, 1], [2]]
    assert index_file_count(table) == 1
    # a second delete merges into the file's vector; the untouched vector moves to a new file
    [snapshot] = table.delete(eq("id", 4))
    assert sorted(vectors(table).values()) == [[0, 1, 4], [2]]
    assert index_file_count(table) == 2
    assert values(table) == [(i, str(i)) for i in (2, 3, 5, 6, 8, 9)]
    assert values(table, 3) == [(i, str(i)) for i in (2, 3, 4, 5, 6, 8, 9)]


def test_bucketed_deletion_vectors_live_in_one_file_per_bucket(tmp_path: Path) -> None:
    table = table_of(tmp_path / "t", {**DV_BUCKETED, "bucket": "1", "write-only": "true"})
    table.write_and_commit([(i, str(i)) for i in range(5)])
    table.write_and_commit([(i, str(i)) for i in range(5, 10)])
    table.delete(eq("id", 1))
    table.delete(eq("id", 8))
    assert sorted(vectors(table).values()) == [[1], [3]]
    assert index_file_count(table) == 1


def test_deletion_vector_update_appends_the_new_rows(tmp_path: Path) -> None:
    table = two_files(tmp_path / "t", DV_BUCKETED)
    snapshots = table.update(eq("id", 6), {"v": lambda r: "six"})
    assert kinds_of(snapshots) == [CommitKind.APPEND, CommitKind.COMPACT]
    [added] = delta(table, snapshots[0])
    assert added.kind is FileKind.ADD and added.file.row_count == 1
    assert (6, "six") in values(table) and (6, "6") not in values(table)
    assert sum(len(v) for v in vectors(table).values()) == 1


# --------------------------------------------------------------------------------------------
# MERGE INTO (rules 8 and 9)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("options", MODES, ids=MODE_IDS)
def test_the_docs_row_level_example(tmp_path: Path, options: dict[str, str]) -> None:
    """``docs/append-table/row-tracking.md``: INSERT, UPDATE, MERGE INTO, DELETE."""
    table = table_of(tmp_path / "t", options)
    table.write_and_commit([(11, "a"), (22, "b")])
    table.update(eq("id", 11), {"v": lambda r: "new-data-update"})
    assert values(table) == [(11, "new-data-update"), (22, "b")]
    merge = MergeStatement(
        source=((22, "new-data-merge"), (33, "c")),
        on=lambda target, source: target[0] == source[0],
        matched=(MatchedAction(update=lambda target, source: (target[0], source[1])),),
        not_matched=(NotMatchedAction(insert=lambda source: source),),
    )
    table.merge_into(merge)
    assert values(table) == [(11, "new-data-update"), (22, "new-data-merge"), (33, "c")]
    table.delete(eq("id", 11))
    assert values(table) == [(22, "new-data-merge"), (33, "c")]


def test_merge_rules_without_a_table() -> None:
    statement = MergeStatement(
        source=((1, "s1"), (2, None), (5, "s5"), (6, "s6")),
        on=lambda target, source: target[0] == source[0],
        matched=(
            MatchedAction(condition=lambda target, source: source[1] is None),
            MatchedAction(update=lambda target, source: (target[0], source[1])),
        ),
        not_matched=(NotMatchedAction(insert=lambda s: s, condition=lambda s: s[0] != 6),),
        not_matched_by_source=(NotMatchedBySourceAction(condition=lambda target: target[0] == 3),),
    )
    result = compute_merge([(1, "a"), (2, "b"), (3, "c"), (4, "d")], statement)
    assert result.matched == (True, True, False, False)
    changes = [None if c is None else (c.change.value, c.row) for c in result.changes]
    assert changes == [("update", (1, "s1")), ("delete", (2, "b")), ("delete", (3, "c")), None]
    assert result.inserts == ((5, "s5"),)
    twice = MergeStatement(source=((1, "x"), (1, "y")), on=statement.on, matched=statement.matched)
    with pytest.raises(MergeConflictError):
        compute_merge([(1, "a")], twice)
    # without a matched action, several matches are allowed
    assert compute_merge([(1, "a")], MergeStatement(twice.source, twice.on)).matched == (True,)


def test_copy_on_write_merge_rewrites_every_matched_file(tmp_path: Path) -> None:
    table = two_files(tmp_path / "t", COW_UNAWARE)
    # id 7 matches but its action's condition is false: its file is still rewritten (rule 9)
    statement = MergeStatement(
        source=((2, "x"), (7, "y")),
        on=lambda target, source: target[0] == source[0],
        matched=(MatchedAction(condition=lambda target, source: source[1] == "x"),),
    )
    [snapshot] = table.merge_into(statement)
    entries = sorted((e.kind.name, e.file.row_count) for e in delta(table, snapshot))
    assert entries == [("ADD", 9), ("DELETE", 5), ("DELETE", 5)]
    assert values(table) == [(i, str(i)) for i in range(10) if i != 2]


def test_merge_not_matched_by_source_delete(tmp_path: Path) -> None:
    table = two_files(tmp_path / "t", DV_UNAWARE)
    statement = MergeStatement(
        source=((1, "one"),),
        on=lambda target, source: target[0] == source[0],
        not_matched_by_source=(NotMatchedBySourceAction(condition=lambda r: r[0] > 7),),
    )
    assert kinds_of(table.merge_into(statement)) == [CommitKind.COMPACT]
    assert values(table) == [(i, str(i)) for i in range(8)]


# --------------------------------------------------------------------------------------------
# Primary-key tables (rule 6)
# --------------------------------------------------------------------------------------------


def test_primary_key_tables_write_row_kinds(tmp_path: Path) -> None:
    table = Table.create(
        LocalFileIO(), str(tmp_path / "t"), PK_FIELDS, primary_keys=["k"], options={"bucket": "1"}
    )
    table.write_and_commit([(k, str(k)) for k in range(5)])
    table.delete(lt("k", 2))
    table.update(eq("k", 3), {"v": lambda r: "three"})
    merge = MergeStatement(
        source=((4, None), (9, "nine")),
        on=lambda target, source: target[0] == source[0],
        matched=(MatchedAction(),),
        not_matched=(NotMatchedAction(insert=lambda s: s),),
    )
    table.merge_into(merge)
    assert values(table) == [(2, "2"), (3, "three"), (9, "nine")]
    changes = table.read_changes({"incremental-between": "1,2"}).changes
    assert [kind for kind, _ in changes] == [RowKind.DELETE, RowKind.DELETE]
    with pytest.raises(SpecViolation):
        table.update(None, {"k": lambda r: 0})
    partial = Table.create(
        LocalFileIO(),
        str(tmp_path / "p"),
        PK_FIELDS,
        primary_keys=["k"],
        options={"bucket": "1", "merge-engine": "partial-update"},
    )
    partial.write_and_commit([(1, "a")])
    with pytest.raises(UnsupportedFeature):
        partial.delete(eq("k", 1))


# --------------------------------------------------------------------------------------------
# Java 0.9 reads what the commands leave
# --------------------------------------------------------------------------------------------


@pytest.mark.java
@pytest.mark.parametrize("options", MODES, ids=MODE_IDS)
def test_java_reads_after_every_command(
    tmp_path: Path, java_harness: JavaHarness, options: dict[str, str]
) -> None:
    table = table_of(tmp_path / "t", {**options, "compaction.max.file-num": "3"})
    table.write_and_commit([(i, str(i)) for i in range(5)])
    table.write_and_commit([(i, str(i)) for i in range(5, 10)])
    table.delete(lt("id", 2))
    table.update(Leaf(PredicateOp.GREATER_THAN, "id", (7,)), {"v": lambda r: r[1] + "!"})
    table.merge_into(
        MergeStatement(
            source=((3, "m3"), (20, "m20"), (4, None)),
            on=lambda target, source: target[0] == source[0],
            matched=(
                MatchedAction(condition=lambda target, source: source[1] is None),
                MatchedAction(update=lambda target, source: (target[0], source[1])),
            ),
            not_matched=(NotMatchedAction(insert=lambda source: source),),
        )
    )
    expected = [(2, "2"), (3, "m3"), (5, "5"), (6, "6"), (7, "7"), (8, "8!"), (9, "9!")]
    expected = sorted([*expected, (20, "m20")], key=repr)
    assert values(table) == expected
    for snapshot_id in metadata.list_snapshot_ids(table.file_io, table.root):
        java = java_harness.read(table.root, snapshot_id=snapshot_id).values()
        assert sorted(java, key=repr) == values(table, snapshot_id)
    table.compact(full=True)
    assert sorted(java_harness.read(table.root).values(), key=repr) == expected
    java_harness.write(table.root, [(99, "java")], commit=True)
    assert values(table) == sorted([*expected, (99, "java")], key=repr)


@pytest.mark.java
def test_java_reads_dropped_partitions_and_truncation(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    table = table_of(tmp_path / "t", DV_UNAWARE, PARTITIONED_FIELDS)
    table.write_and_commit([("a", 1, "x"), ("b", 2, "y"), ("b", 3, "z")])
    table.delete(And((eq("dt", "b"), eq("id", 3))))
    table.delete(eq("dt", "a"))
    assert sorted(java_harness.read(table.root).values()) == [("b", 2, "y")]
    table.delete()
    assert java_harness.read(table.root).values() == []
