"""The commit protocol: snapshots from hand-made commit messages, read back with ``read_table``.

Expected rows, entries and counts are written by hand from the rules of
``reference/store/commit.py`` (and the spec pages it cites); the snapshot JSON layout is
compared with a snapshot written by Java 0.9; Java 0.9 itself reads what we commit.
"""

from __future__ import annotations

import json
import multiprocessing
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.java.harness import JavaHarness
from conformance.objectstore.pytest_fixtures import S3Store
from conformance.unit.reference.store.commit_helpers import (
    Record,
    append_file,
    append_table,
    inserts,
    message,
    partitioned_table,
    pk_file,
    pk_table,
    rows_of,
    snapshot_ids,
    values_of,
)
from reference import layout
from reference.errors import CommitConflictError, SpecViolation, StorageError
from reference.io import LocalFileIO, S3FileIO
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.commit_message import CommitMessage
from reference.spec.data import RowKind
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.manifest import (
    DELETION_VECTORS_INDEX_TYPE,
    HASH_INDEX_TYPE,
    FieldSet,
    FileKind,
    IndexFileMeta,
    IndexManifestEntry,
    ManifestEntry,
    ManifestFileMeta,
)
from reference.spec.snapshot import CommitKind, Snapshot
from reference.spec.stats import EMPTY_STATS
from reference.spec.types import MAX_LENGTH, VarCharType
from reference.store import metadata
from reference.store.commit import (
    RetryPolicy,
    commit,
    compute_conflicts,
    compute_index_by_bucket,
    compute_index_by_file_name,
    compute_retry_wait,
    filter_committed,
)
from reference.store.scan import (
    compute_live_entries,
    list_snapshot_manifests,
    read_index_manifest,
    read_manifest,
    read_manifest_list,
)
from reference.table import Table

INSERT = RowKind.INSERT
USER = "committer"


def do_commit(table: Table, *messages: Any, identifier: int = 1, **kwargs: Any) -> list[Snapshot]:
    return commit(
        table.file_io,
        table.root,
        list(messages),
        commit_user=kwargs.pop("commit_user", USER),
        commit_identifier=identifier,
        **kwargs,
    )


def manifest_list(table: Table, name: str) -> list[ManifestFileMeta]:
    return read_manifest_list(table.file_io, table.root, name)


def entries_of(table: Table, name: str) -> list[ManifestEntry]:
    """The entries of every manifest of a manifest list."""
    return [
        entry
        for meta in manifest_list(table, name)
        for entry in read_manifest(table.file_io, table.root, meta.file_name)
    ]


def kinds_and_names(entries: list[ManifestEntry]) -> list[tuple[FileKind, str]]:
    return [(entry.kind, entry.file.file_name) for entry in entries]


def snapshot_json(table: Table, snapshot_id: int) -> dict[str, Any]:
    path = layout.snapshot_path(table.root, snapshot_id)
    parsed: dict[str, Any] = json.loads(table.file_io.read_bytes(path))
    return parsed


def hint(table: Table, which: layout.HintFile) -> str:
    path = layout.hint_path(layout.snapshot_dir(table.root), which)
    return table.file_io.read_bytes(path).decode()


def manifest_files(table: Table) -> set[str]:
    return set(table.file_io.list_dir(layout.manifest_dir(table.root)))


# --------------------------------------------------------------------------------------------
# One APPEND snapshot
# --------------------------------------------------------------------------------------------


def test_first_commit_makes_snapshot_1_in_java_09_layout(tmp_path: Path, third_party: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    file = append_file(table, [(1, "a"), (2, "b")])
    [snapshot] = do_commit(table, message(table, new=[file]), identifier=7)

    assert snapshot.id == 1 and snapshot.commit_kind is CommitKind.APPEND
    written = snapshot_json(table, 1)
    java = json.loads(
        (third_party / "paimon-cpp/parquet/append_09.db/append_09/snapshot/snapshot-1").read_text()
    )
    assert list(written) == list(java)  # same members, same order as Java 0.9 writes
    assert written["changelogManifestList"] is None
    assert written["logOffsets"] == {}
    assert (written["commitUser"], written["commitIdentifier"]) == (USER, 7)
    assert (written["totalRecordCount"], written["deltaRecordCount"]) == (2, 2)
    assert written["changelogRecordCount"] == 0
    assert hint(table, layout.HintFile.LATEST) == "1"
    assert hint(table, layout.HintFile.EARLIEST) == "1"

    assert manifest_list(table, snapshot.base_manifest_list) == []
    [entry] = entries_of(table, snapshot.delta_manifest_list)
    assert entry.kind is FileKind.ADD and entry.file == file
    assert (entry.bucket, entry.total_buckets) == (0, -1)
    assert values_of(table) == [(1, "a"), (2, "b")]


def test_second_commit_moves_the_delta_into_the_base(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    first = append_file(table, [(1, "a")])
    second = append_file(table, [(2, "b"), (3, "c")])
    do_commit(table, message(table, new=[first]), identifier=1)
    [snapshot] = do_commit(table, message(table, new=[second]), identifier=2)

    assert snapshot.id == 2
    assert kinds_and_names(entries_of(table, snapshot.base_manifest_list)) == [
        (FileKind.ADD, first.file_name)
    ]
    assert kinds_and_names(entries_of(table, snapshot.delta_manifest_list)) == [
        (FileKind.ADD, second.file_name)
    ]
    assert (snapshot.total_record_count, snapshot.delta_record_count) == (3, 2)
    assert hint(table, layout.HintFile.LATEST) == "2"
    assert hint(table, layout.HintFile.EARLIEST) == "1"
    assert values_of(table) == [(1, "a"), (2, "b"), (3, "c")]


def test_nothing_to_commit_makes_no_snapshot(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    assert do_commit(table) == []
    assert do_commit(table, message(table)) == []
    assert snapshot_ids(table) == []


def test_manifests_are_written_in_the_manifest_format(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"), **{"manifest.format": "orc"})
    [snapshot] = do_commit(table, message(table, new=[append_file(table, [(1, "a")])]))
    [meta] = manifest_list(table, snapshot.delta_manifest_list)
    data = table.file_io.read_bytes(layout.manifest_path(table.root, meta.file_name))
    assert data.startswith(b"ORC")
    assert values_of(table) == [(1, "a")]


def test_partition_statistics_of_a_manifest(tmp_path: Path) -> None:
    table = partitioned_table(str(tmp_path / "t"))
    files = [
        message(
            table, partition=("b",), new=[append_file(table, [("b", 1, "x")], partition=("b",))]
        ),
        message(
            table, partition=("a",), new=[append_file(table, [("a", 2, "y")], partition=("a",))]
        ),
    ]
    [snapshot] = do_commit(table, *files)
    [meta] = manifest_list(table, snapshot.delta_manifest_list)
    assert (meta.num_added_files, meta.num_deleted_files, meta.schema_id) == (2, 0, 0)
    string = [VarCharType(MAX_LENGTH)]
    assert deserialize_binary_row(meta.partition_stats.min_values, string) == ("a",)
    assert deserialize_binary_row(meta.partition_stats.max_values, string) == ("b",)
    assert meta.partition_stats.null_counts == (0,)


# --------------------------------------------------------------------------------------------
# Data and compaction: two snapshots; record counts; changelog
# --------------------------------------------------------------------------------------------


def test_data_and_compaction_make_two_snapshots(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    a = pk_file(table, inserts([(1, "a"), (2, "b"), (3, "c")]))
    do_commit(table, message(table, new=[a]), identifier=1)

    b = pk_file(table, [Record((2, "B"), 3), Record((4, "d"), 4)])
    c = pk_file(table, inserts([(1, "a"), (2, "b"), (3, "c")]), level=5, source=FileSource.COMPACT)
    data, compaction = do_commit(
        table, message(table, new=[b], before=[a], after=[c]), identifier=2
    )

    assert (data.id, data.commit_kind) == (2, CommitKind.APPEND)
    assert (compaction.id, compaction.commit_kind) == (3, CommitKind.COMPACT)
    assert (data.commit_identifier, compaction.commit_identifier) == (2, 2)
    assert (data.total_record_count, data.delta_record_count) == (5, 2)
    assert (compaction.total_record_count, compaction.delta_record_count) == (5, 0)
    assert kinds_and_names(entries_of(table, data.delta_manifest_list)) == [
        (FileKind.ADD, b.file_name)
    ]
    assert kinds_and_names(entries_of(table, compaction.delta_manifest_list)) == [
        (FileKind.DELETE, a.file_name),
        (FileKind.ADD, c.file_name),
    ]
    assert rows_of(table) == [
        (INSERT, (1, "a")),
        (INSERT, (2, "B")),
        (INSERT, (3, "c")),
        (INSERT, (4, "d")),
    ]


def test_compaction_alone_makes_one_compact_snapshot(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    a = pk_file(table, inserts([(1, "a"), (2, "b")]))
    b = pk_file(table, [Record((2, None), 2, RowKind.DELETE)])
    do_commit(table, message(table, new=[a, b]), identifier=1)
    merged = pk_file(table, inserts([(1, "a")]), level=5, source=FileSource.COMPACT)
    [snapshot] = do_commit(table, message(table, before=[a, b], after=[merged]), identifier=2)

    assert snapshot.commit_kind is CommitKind.COMPACT
    # rows added minus rows deleted: 1 - (2 + 1)
    assert (snapshot.total_record_count, snapshot.delta_record_count) == (1, -2)
    assert rows_of(table) == [(INSERT, (1, "a"))]


def test_changelog_files_go_to_the_changelog_list(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    a = pk_file(table, inserts([(1, "a")]))
    log = pk_file(table, inserts([(1, "a")]))
    compact_log = pk_file(table, [Record((1, "a"), 0), Record((1, "a"), 0, RowKind.UPDATE_BEFORE)])
    c = pk_file(table, inserts([(1, "a")]), level=5)
    data, compaction = do_commit(
        table,
        message(table, new=[a], changelog=[log]),
        message(table, before=[a], after=[c], compact_changelog=[compact_log]),
    )
    assert data.changelog_manifest_list is not None
    assert kinds_and_names(entries_of(table, data.changelog_manifest_list)) == [
        (FileKind.ADD, log.file_name)
    ]
    assert (data.changelog_record_count, compaction.changelog_record_count) == (1, 2)
    assert compaction.changelog_manifest_list is not None
    assert snapshot_json(table, data.id)["changelogManifestList"] == data.changelog_manifest_list
    # changelog files are not table files
    assert rows_of(table) == [(INSERT, (1, "a"))]


def test_deleted_data_files_are_removed_by_the_append_snapshot(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    a = append_file(table, [(1, "a"), (2, "b")])
    do_commit(table, message(table, new=[a]), identifier=1)
    b = append_file(table, [(2, "b")])
    [snapshot] = do_commit(table, message(table, new=[b], deleted=[a]), identifier=2)
    assert snapshot.commit_kind is CommitKind.APPEND
    assert (snapshot.total_record_count, snapshot.delta_record_count) == (1, -1)
    assert values_of(table) == [(2, "b")]


# --------------------------------------------------------------------------------------------
# Index manifest
# --------------------------------------------------------------------------------------------


def index_file(name: str, index_type: str = HASH_INDEX_TYPE) -> IndexFileMeta:
    return IndexFileMeta(index_type, name, 10, 1)


def test_index_files_go_to_the_snapshot_of_their_kind(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    a = pk_file(table, inserts([(1, "a")]))
    c = pk_file(table, inserts([(1, "a")]), level=5)
    hash_file = index_file("index-h-0")
    vectors = index_file("index-dv-0", DELETION_VECTORS_INDEX_TYPE)
    data, compaction = do_commit(
        table, message(table, new=[a], before=[a], after=[c], new_index=[hash_file, vectors])
    )
    assert data.index_manifest is not None and compaction.index_manifest is not None
    in_data = read_index_manifest(table.file_io, table.root, data.index_manifest)
    assert [(e.kind, e.index_file) for e in in_data] == [(FileKind.ADD, hash_file)]
    in_compaction = read_index_manifest(table.file_io, table.root, compaction.index_manifest)
    assert [e.index_file for e in in_compaction] == [hash_file, vectors]

    # a new hash index file of the same bucket replaces the old one; no index change keeps
    # the index manifest of the previous snapshot
    newer = index_file("index-h-1")
    [replaced] = do_commit(
        table,
        message(table, new=[pk_file(table, inserts([(2, "b")], 9))], new_index=[newer]),
        identifier=2,
    )
    assert replaced.index_manifest is not None
    assert [
        e.index_file
        for e in read_index_manifest(table.file_io, table.root, replaced.index_manifest)
    ] == [newer, vectors]
    [kept] = do_commit(
        table, message(table, new=[pk_file(table, inserts([(3, "c")], 10))]), identifier=3
    )
    assert kept.index_manifest == replaced.index_manifest


def test_index_entries_delete_before_they_add() -> None:
    old = IndexManifestEntry(FileKind.ADD, b"p", 0, index_file("old", DELETION_VECTORS_INDEX_TYPE))
    new = IndexManifestEntry(FileKind.ADD, b"p", 0, index_file("new", DELETION_VECTORS_INDEX_TYPE))
    gone = IndexManifestEntry(FileKind.DELETE, b"p", 0, old.index_file)
    # the DELETE of the old file comes after the ADD of its replacement and must not remove it
    assert compute_index_by_bucket([old], [new, gone]) == [new]


# --------------------------------------------------------------------------------------------
# Manifest merging
# --------------------------------------------------------------------------------------------


def test_small_manifests_merge_once_there_are_enough(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"), **{"manifest.merge-min-count": "3"})
    files = [append_file(table, [(i, str(i))]) for i in range(4)]
    snapshots = [
        do_commit(table, message(table, new=[file]), identifier=i + 1)[0]
        for i, file in enumerate(files)
    ]
    base_sizes = [len(manifest_list(table, s.base_manifest_list)) for s in snapshots]
    # snapshot n's base holds the n - 1 earlier delta manifests, until there are 3: merged
    assert base_sizes == [0, 1, 2, 1]
    [merged] = manifest_list(table, snapshots[3].base_manifest_list)
    assert (merged.num_added_files, merged.num_deleted_files) == (3, 0)
    assert kinds_and_names(entries_of(table, snapshots[3].base_manifest_list)) == [
        (FileKind.ADD, f.file_name) for f in files[:3]
    ]
    assert values_of(table) == [(i, str(i)) for i in range(4)]


def test_merging_cancels_an_add_and_its_delete(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"), **{"manifest.merge-min-count": "2"})
    a = append_file(table, [(1, "a")])
    b = append_file(table, [(2, "b")])
    do_commit(table, message(table, new=[a]), identifier=1)
    do_commit(table, message(table, new=[b], deleted=[a]), identifier=2)
    [third] = do_commit(table, message(table, new=[append_file(table, [(3, "c")])]), identifier=3)
    # the base merges [ADD a] and [ADD b, DELETE a] into one manifest holding only ADD b
    assert kinds_and_names(entries_of(table, third.base_manifest_list)) == [
        (FileKind.ADD, b.file_name)
    ]
    assert values_of(table) == [(2, "b"), (3, "c")]


def test_full_compaction_rewrites_base_manifests_from_the_first_deleted_file(
    tmp_path: Path,
) -> None:
    table = pk_table(
        str(tmp_path / "t"),
        **{"manifest.target-file-size": "1 b", "manifest.full-compaction-threshold-size": "1 b"},
    )
    a = pk_file(table, inserts([(1, "a")]))
    b = pk_file(table, inserts([(2, "b")], 1))
    c = pk_file(table, inserts([(1, "a")]), level=5)
    d = pk_file(table, inserts([(3, "d")], 2))
    do_commit(table, message(table, new=[a]), identifier=1)
    do_commit(table, message(table, new=[b]), identifier=2)
    [compacted] = do_commit(table, message(table, before=[a], after=[c]), identifier=3)
    # every manifest reaches the 1-byte target, so nothing merges before the DELETE appears
    assert len(manifest_list(table, compacted.base_manifest_list)) == 2
    [fourth] = do_commit(table, message(table, new=[d]), identifier=4)
    # base [a] [b] and delta [-a +c]: the first base manifest holds a deleted file, so it and
    # all later ones are rewritten without it, then the delta's ADD entries follow
    [rewritten] = manifest_list(table, fourth.base_manifest_list)
    assert (rewritten.num_added_files, rewritten.num_deleted_files) == (2, 0)
    assert kinds_and_names(entries_of(table, fourth.base_manifest_list)) == [
        (FileKind.ADD, b.file_name),
        (FileKind.ADD, c.file_name),
    ]
    assert rows_of(table) == [(INSERT, (1, "a")), (INSERT, (2, "b")), (INSERT, (3, "d"))]


# --------------------------------------------------------------------------------------------
# Recovery by commit identifier
# --------------------------------------------------------------------------------------------


def test_a_commit_identifier_is_committed_once(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    first = message(table, new=[append_file(table, [(1, "a")])])
    assert len(do_commit(table, first, identifier=5)) == 1
    assert do_commit(table, first, identifier=5) == []  # a retried commit after a crash
    assert do_commit(table, first, identifier=4) == []  # older than what was committed
    others = message(table, new=[append_file(table, [(1, "z")])])
    assert len(do_commit(table, others, identifier=5, commit_user="other")) == 1
    second = message(table, new=[append_file(table, [(2, "b")])])
    assert len(do_commit(table, second, identifier=6)) == 1
    assert snapshot_ids(table) == [1, 2, 3]
    assert values_of(table) == [(1, "a"), (1, "z"), (2, "b")]
    assert filter_committed(table.file_io, table.root, USER, [5, 6, 7, 8]) == [7, 8]
    assert filter_committed(table.file_io, table.root, "nobody", [1]) == [1]


def test_both_snapshots_of_a_commit_carry_its_identifier(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    a = pk_file(table, inserts([(1, "a")]))
    c = pk_file(table, inserts([(1, "a")]), level=5)
    both = message(table, new=[a], before=[a], after=[c])
    assert len(do_commit(table, both, identifier=3)) == 2
    assert do_commit(table, both, identifier=3) == []
    assert snapshot_ids(table) == [1, 2]


# --------------------------------------------------------------------------------------------
# Overwrite
# --------------------------------------------------------------------------------------------


def two_partitions(table: Table) -> None:
    do_commit(
        table,
        message(
            table,
            partition=("p1",),
            new=[append_file(table, [("p1", 1, "old")], partition=("p1",))],
        ),
        message(
            table,
            partition=("p2",),
            new=[append_file(table, [("p2", 2, "old")], partition=("p2",))],
        ),
        identifier=1,
    )


def test_dynamic_overwrite_replaces_only_partitions_with_new_data(tmp_path: Path) -> None:
    table = partitioned_table(str(tmp_path / "t"))
    two_partitions(table)
    new = append_file(table, [("p1", 3, "new")], partition=("p1",))
    [snapshot] = do_commit(
        table, message(table, partition=("p1",), new=[new]), identifier=2, overwrite={}
    )
    assert snapshot.commit_kind is CommitKind.OVERWRITE
    assert (snapshot.total_record_count, snapshot.delta_record_count) == (2, 0)
    assert values_of(table) == [("p1", 3, "new"), ("p2", 2, "old")]
    # nothing written: a dynamic overwrite replaces nothing and makes no snapshot
    assert do_commit(table, identifier=3, overwrite={}) == []


def test_static_overwrite_replaces_the_given_partition(tmp_path: Path) -> None:
    table = partitioned_table(str(tmp_path / "t"), **{"dynamic-partition-overwrite": "false"})
    two_partitions(table)
    new = append_file(table, [("p1", 3, "new")], partition=("p1",))
    [snapshot] = do_commit(
        table, message(table, partition=("p1",), new=[new]), identifier=2, overwrite={"dt": "p1"}
    )
    assert snapshot.commit_kind is CommitKind.OVERWRITE
    assert values_of(table) == [("p1", 3, "new"), ("p2", 2, "old")]
    # without new data a static overwrite empties the partition
    [emptied] = do_commit(table, identifier=3, overwrite={"dt": "p2"})
    assert (emptied.total_record_count, emptied.delta_record_count) == (1, -1)
    assert values_of(table) == [("p1", 3, "new")]


def test_static_overwrite_refuses_files_of_other_partitions(tmp_path: Path) -> None:
    table = partitioned_table(str(tmp_path / "t"), **{"dynamic-partition-overwrite": "false"})
    two_partitions(table)
    stray = append_file(table, [("p2", 3, "new")], partition=("p2",))
    with pytest.raises(SpecViolation) as error:
        do_commit(
            table,
            message(table, partition=("p2",), new=[stray]),
            identifier=2,
            overwrite={"dt": "p1"},
        )
    assert error.value.code == "OVERWRITE_OUTSIDE_PARTITION"
    with pytest.raises(SpecViolation):
        do_commit(table, identifier=2, overwrite={"nope": "x"})
    assert snapshot_ids(table) == [1]


def test_whole_table_overwrite(tmp_path: Path) -> None:
    table = partitioned_table(str(tmp_path / "t"), **{"dynamic-partition-overwrite": "false"})
    two_partitions(table)
    new = append_file(table, [("p3", 9, "only")], partition=("p3",))
    [snapshot] = do_commit(
        table, message(table, partition=("p3",), new=[new]), identifier=2, overwrite={}
    )
    assert snapshot.commit_kind is CommitKind.OVERWRITE
    deleted = [
        e for e in entries_of(table, snapshot.delta_manifest_list) if e.kind is FileKind.DELETE
    ]
    assert len(deleted) == 2
    assert values_of(table) == [("p3", 9, "only")]


def test_overwrite_of_an_unpartitioned_table_replaces_everything(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    do_commit(table, message(table, new=[append_file(table, [(1, "a")])]), identifier=1)
    new = append_file(table, [(2, "b")])
    [snapshot] = do_commit(table, message(table, new=[new]), identifier=2, overwrite={})
    assert snapshot.commit_kind is CommitKind.OVERWRITE
    assert values_of(table) == [(2, "b")]


# --------------------------------------------------------------------------------------------
# Conflicts
# --------------------------------------------------------------------------------------------


def test_compacting_a_file_that_is_gone_is_a_file_conflict(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    a = pk_file(table, inserts([(1, "a"), (2, "b")]))
    do_commit(table, message(table, new=[a]), identifier=1)
    first = pk_file(table, inserts([(1, "a"), (2, "b")]), level=5)
    second = pk_file(table, inserts([(1, "a"), (2, "b")]), level=4)
    do_commit(table, message(table, before=[a], after=[first]), commit_user="one")
    with pytest.raises(CommitConflictError) as error:
        do_commit(table, message(table, before=[a], after=[second]), commit_user="two")
    assert not error.value.retryable
    assert a.file_name in str(error.value)
    assert snapshot_ids(table) == [1, 2]
    assert rows_of(table) == [(INSERT, (1, "a")), (INSERT, (2, "b"))]


def test_a_conflicting_compaction_leaves_its_data_uncommitted(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    gone = pk_file(table, inserts([(1, "a")]))
    new = pk_file(table, inserts([(2, "b")], 5))
    with pytest.raises(CommitConflictError):
        do_commit(table, message(table, new=[new], before=[gone], after=[gone]))
    assert snapshot_ids(table) == []


def test_overlapping_key_ranges_in_a_level_are_a_conflict(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    a = pk_file(table, inserts([(1, "a"), (5, "e")]))
    b = pk_file(table, inserts([(3, "c"), (8, "h")], 2))
    do_commit(table, message(table, new=[a, b]), identifier=1)
    a_up = pk_file(table, inserts([(1, "a"), (5, "e")]), level=3)
    b_up = pk_file(table, inserts([(3, "c"), (8, "h")], 2), level=3)
    do_commit(table, message(table, before=[a], after=[a_up]), commit_user="one")
    with pytest.raises(CommitConflictError) as error:
        do_commit(table, message(table, before=[b], after=[b_up]), commit_user="two")
    assert not error.value.retryable
    assert "overlap" in str(error.value)
    # the same run at another level does not overlap anything
    b_other = pk_file(table, inserts([(3, "c"), (8, "h")], 2), level=2)
    assert (
        len(do_commit(table, message(table, before=[b], after=[b_other]), commit_user="two")) == 1
    )


def test_deleting_a_file_that_is_not_live_is_a_conflict(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    never = append_file(table, [(1, "a")])
    with pytest.raises(CommitConflictError) as error:
        do_commit(table, message(table, deleted=[never]))
    assert not error.value.retryable


def test_conflicts_only_look_at_changed_partitions() -> None:
    meta = _meta("f")
    live = ManifestEntry(FileKind.ADD, b"p1", 0, 1, meta)
    delete_other = ManifestEntry(FileKind.DELETE, b"p2", 0, 1, meta)
    assert compute_conflicts([live], [delete_other], None) == [
        "f (bucket 0, level 0) is deleted but not live"
    ]
    assert (
        compute_conflicts([live], [ManifestEntry(FileKind.DELETE, b"p1", 0, 1, meta)], None) == []
    )
    assert compute_conflicts([live], [live], None) == ["f (bucket 0, level 0) is added twice"]


def _meta(name: str) -> DataFileMeta:
    return DataFileMeta(name, 1, 1, b"", b"", EMPTY_STATS, EMPTY_STATS, 0, 0, 0, 0, (), None)


# --------------------------------------------------------------------------------------------
# Racing committers
# --------------------------------------------------------------------------------------------


class InterleavingFileIO(LocalFileIO):
    """Runs ``before_snapshot`` once, right before the first exclusive create of a snapshot,
    so that another committer gets there first."""

    def __init__(self, before_snapshot: Callable[[], object]) -> None:
        self.before_snapshot: Callable[[], object] | None = before_snapshot

    def create_exclusive(self, path: str, data: bytes) -> bool:
        if "/snapshot/snapshot-" in path and self.before_snapshot is not None:
            hook, self.before_snapshot = self.before_snapshot, None
            hook()
        return super().create_exclusive(path, data)


def test_an_append_that_loses_the_race_retries_on_the_new_snapshot(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    ours = message(table, new=[append_file(table, [(1, "ours")])])
    theirs = message(table, new=[append_file(table, [(2, "theirs")])])
    racing = Table(
        InterleavingFileIO(lambda: do_commit(table, theirs, commit_user="them")), table.root
    )
    before = manifest_files(table)

    [snapshot] = do_commit(racing, ours)
    assert snapshot.id == 2  # snapshot 1 was taken by the other committer
    assert snapshot_json(table, 1)["commitUser"] == "them"
    assert kinds_and_names(entries_of(table, snapshot.base_manifest_list)) == [
        (FileKind.ADD, theirs.data.new_files[0].file_name)
    ]
    assert values_of(table) == [(1, "ours"), (2, "theirs")]
    # the metadata of the lost attempt was deleted: only two snapshots' worth remains
    lists = {name for name in manifest_files(table) - before if "manifest-list-" in name}
    assert len(lists) == 4


def test_a_compaction_that_loses_the_race_to_another_compaction_fails(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    a = pk_file(table, inserts([(1, "a")]))
    do_commit(table, message(table, new=[a]), identifier=1)
    theirs = message(table, before=[a], after=[pk_file(table, inserts([(1, "a")]), level=5)])
    ours = message(table, before=[a], after=[pk_file(table, inserts([(1, "a")]), level=4)])
    racing = Table(
        InterleavingFileIO(lambda: do_commit(table, theirs, commit_user="them")), table.root
    )
    with pytest.raises(CommitConflictError) as error:
        do_commit(racing, ours, identifier=2)
    assert not error.value.retryable
    assert snapshot_ids(table) == [1, 2]
    assert snapshot_json(table, 2)["commitUser"] == "them"


def test_retries_are_bounded(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    theirs = message(table, new=[append_file(table, [(2, "theirs")])])
    racing = Table(
        InterleavingFileIO(lambda: do_commit(table, theirs, commit_user="them")), table.root
    )
    with pytest.raises(CommitConflictError) as error:
        do_commit(racing, message(table, new=[append_file(table, [(1, "a")])]), max_retries=0)
    assert error.value.retryable
    assert snapshot_ids(table) == [1]


def test_retry_waits_grow_and_are_capped() -> None:
    policy = RetryPolicy(max_retries=10, min_wait_seconds=0.01, max_wait_seconds=0.05)
    waits = [compute_retry_wait(policy, n) for n in range(5)]
    for wait, base in zip(waits, [0.01, 0.02, 0.04, 0.05, 0.05], strict=True):
        assert base <= wait <= base * 1.2


RACERS = 6


def test_threads_appending_at_once_all_commit_with_contiguous_ids(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    messages = [message(table, new=[append_file(table, [(i, "x")])]) for i in range(RACERS)]
    barrier = threading.Barrier(RACERS)
    results: dict[int, list[Snapshot]] = {}

    def race(index: int) -> None:
        barrier.wait()
        results[index] = do_commit(table, messages[index], commit_user=f"user-{index}")

    threads = [threading.Thread(target=race, args=(i,)) for i in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(s.id for r in results.values() for s in r) == list(range(1, RACERS + 1))
    assert snapshot_ids(table) == list(range(1, RACERS + 1))
    users = sorted(snapshot_json(table, i)["commitUser"] for i in range(1, RACERS + 1))
    assert users == sorted(f"user-{i}" for i in range(RACERS))
    assert values_of(table) == [(i, "x") for i in range(RACERS)]
    assert table.latest_snapshot() is not None
    assert table.latest_snapshot().total_record_count == RACERS  # type: ignore[union-attr]


def test_threads_compacting_the_same_file_one_wins(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    a = pk_file(table, inserts([(1, "a"), (2, "b")]))
    do_commit(table, message(table, new=[a]), identifier=1)
    compactions = [
        message(table, before=[a], after=[pk_file(table, inserts([(1, "a"), (2, "b")]), level=5)])
        for _ in range(2)
    ]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def race(index: int) -> None:
        barrier.wait()
        try:
            do_commit(table, compactions[index], commit_user=f"compactor-{index}")
            outcomes.append("committed")
        except CommitConflictError as error:
            outcomes.append("retryable" if error.retryable else "conflict")

    threads = [threading.Thread(target=race, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["committed", "conflict"]
    assert snapshot_ids(table) == [1, 2]
    assert rows_of(table) == [(INSERT, (1, "a")), (INSERT, (2, "b"))]


def _process_append(root: str, index: int, barrier: Any, results: Any) -> None:
    """One committing process: write a file, wait for the others, commit it."""
    table = Table.open(LocalFileIO(), root)
    new = message(table, new=[append_file(table, [(index, "p")])])
    barrier.wait()
    snapshots = do_commit(table, new, commit_user=f"process-{index}")
    results.put([s.id for s in snapshots])


def test_processes_appending_at_once_all_commit(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    context = multiprocessing.get_context("spawn")
    processes_count = 3
    barrier = context.Barrier(processes_count)
    results = context.Queue()
    processes = [
        context.Process(target=_process_append, args=(table.root, i, barrier, results))
        for i in range(processes_count)
    ]
    for process in processes:
        process.start()
    ids = sorted(i for _ in processes for i in results.get(timeout=120))
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert ids == [1, 2, 3]
    assert snapshot_ids(table) == [1, 2, 3]
    assert values_of(table) == [(i, "p") for i in range(processes_count)]


# --------------------------------------------------------------------------------------------
# Failures
# --------------------------------------------------------------------------------------------


class FailingFileIO(LocalFileIO):
    """Fails every write whose path contains ``marker``."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def create_exclusive(self, path: str, data: bytes) -> bool:
        if self.marker in path:
            raise StorageError("injected failure", path=path)
        return super().create_exclusive(path, data)

    def write_bytes(self, path: str, data: bytes) -> None:
        if self.marker in path:
            raise StorageError("injected failure", path=path)
        super().write_bytes(path, data)


def test_a_failed_snapshot_write_leaves_the_table_as_it_was(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    do_commit(table, message(table, new=[append_file(table, [(1, "a")])]), identifier=1)
    failing = Table(FailingFileIO("/snapshot/snapshot-"), table.root)
    with pytest.raises(StorageError):
        do_commit(failing, message(table, new=[append_file(table, [(2, "b")])]), identifier=2)
    assert snapshot_ids(table) == [1]
    assert hint(table, layout.HintFile.LATEST) == "1"
    assert values_of(table) == [(1, "a")]
    # the manifests of the failed attempt stay behind (orphans) and harm nobody
    later = do_commit(table, message(table, new=[append_file(table, [(3, "c")])]), identifier=3)
    assert [s.id for s in later] == [2]
    assert values_of(table) == [(1, "a"), (3, "c")]


def test_a_failure_while_writing_manifests_cleans_up(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    do_commit(table, message(table, new=[append_file(table, [(1, "a")])]), identifier=1)
    before = manifest_files(table)
    failing = Table(FailingFileIO("/manifest/manifest-list-"), table.root)
    with pytest.raises(StorageError):
        do_commit(failing, message(table, new=[append_file(table, [(2, "b")])]), identifier=2)
    assert manifest_files(table) == before
    assert snapshot_ids(table) == [1]


def test_a_failed_hint_does_not_fail_the_commit(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    failing = Table(FailingFileIO("/snapshot/LATEST"), table.root)
    [snapshot] = do_commit(failing, message(table, new=[append_file(table, [(1, "a")])]))
    assert snapshot.id == 1
    assert metadata.find_latest_snapshot_id(table.file_io, table.root) == 1
    assert values_of(table) == [(1, "a")]


# --------------------------------------------------------------------------------------------
# Java 0.9 reads what we commit
# --------------------------------------------------------------------------------------------


@pytest.mark.java
def test_java_09_reads_and_extends_our_snapshots(tmp_path: Path, java_harness: JavaHarness) -> None:
    table = pk_table(str(tmp_path / "pk"))
    a = pk_file(table, inserts([(1, "a"), (2, "b"), (3, "c")]))
    do_commit(table, message(table, new=[a]), identifier=1)
    b = pk_file(table, [Record((2, "B"), 3), Record((3, None), 4, RowKind.DELETE)])
    c = pk_file(table, inserts([(1, "a"), (2, "b"), (3, "c")]), level=5)
    do_commit(table, message(table, new=[b], before=[a], after=[c]), identifier=2)

    expected = [(INSERT, (1, "a")), (INSERT, (2, "B"))]
    assert sorted(java_harness.read(table.root).rows, key=repr) == sorted(expected, key=repr)
    assert sorted(java_harness.read(table.root, snapshot_id=1).rows, key=repr) == [
        (INSERT, (1, "a")),
        (INSERT, (2, "b")),
        (INSERT, (3, "c")),
    ]
    java_snapshots = java_harness.list_snapshots(table.root)
    assert [(s["id"], s["commitKind"]) for s in java_snapshots] == [
        (1, "APPEND"),
        (2, "APPEND"),
        (3, "COMPACT"),
    ]
    # Java commits on top of our manifests, and we read its snapshot
    java_harness.write(table.root, [(4, "d")], commit=True)
    assert rows_of(table) == [*expected, (INSERT, (4, "d"))]
    latest = table.latest_snapshot()
    assert latest is not None and latest.id == 4
    assert latest.total_record_count == 3 + 2 + 1


@pytest.mark.java
def test_java_09_reads_our_overwrites(tmp_path: Path, java_harness: JavaHarness) -> None:
    table = partitioned_table(str(tmp_path / "parts"), **{"manifest.merge-min-count": "2"})
    two_partitions(table)
    new = append_file(table, [("p1", 3, "new")], partition=("p1",))
    do_commit(table, message(table, partition=("p1",), new=[new]), identifier=2, overwrite={})
    do_commit(
        table,
        message(
            table,
            partition=("p2",),
            new=[append_file(table, [("p2", 4, "more")], partition=("p2",))],
        ),
        identifier=3,
    )
    java_rows = sorted(row for _, row in java_harness.read(table.root).rows)
    assert java_rows == [("p1", 3, "new"), ("p2", 2, "old"), ("p2", 4, "more")]


# --------------------------------------------------------------------------------------------
# Rolling, field sets, and a model of manifest merging
# --------------------------------------------------------------------------------------------


def fake_entries(table: Table, count: int, prefix: str) -> CommitMessage:
    """A message of ``count`` new files that exist only as metadata (commit never reads them)."""
    return message(table, new=[_meta(f"{prefix}-{i}") for i in range(count)])


def test_manifests_roll_over_at_the_target_size(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"), **{"manifest.target-file-size": "1 kb"})
    [snapshot] = do_commit(table, fake_entries(table, 2100, "f"))
    metas = manifest_list(table, snapshot.delta_manifest_list)
    # the size is measured after every 1000th entry; each measure exceeds 1 kb
    assert [m.num_added_files for m in metas] == [1000, 1000, 100]


def test_a_newer_field_set_records_bucket_and_level_ranges(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    a = pk_file(table, inserts([(1, "a")]))
    [snapshot] = do_commit(table, message(table, new=[a]), field_set=FieldSet.PAIMON_1_1)
    [meta] = manifest_list(table, snapshot.delta_manifest_list)
    assert (meta.min_bucket, meta.max_bucket, meta.min_level, meta.max_level) == (0, 0, 0, 0)
    [later] = do_commit(
        table, message(table, new=[pk_file(table, inserts([(2, "b")], 1))]), identifier=2
    )
    # the default (0.9) field set drops them again when the manifest is listed in a base
    assert [m.min_bucket for m in manifest_list(table, later.base_manifest_list)] == [None]
    assert rows_of(table) == [(INSERT, (1, "a")), (INSERT, (2, "b"))]


def test_overwrite_drops_changelog(tmp_path: Path) -> None:
    table = pk_table(str(tmp_path / "t"))
    new = pk_file(table, inserts([(1, "a")]))
    log = pk_file(table, inserts([(1, "a")]))
    [snapshot] = do_commit(table, message(table, new=[new], changelog=[log]), overwrite={})
    assert snapshot.changelog_manifest_list is None
    assert snapshot.changelog_record_count == 0


def test_deletion_vectors_of_unaware_buckets_are_kept_by_file_name() -> None:
    def entry(kind: FileKind, name: str) -> IndexManifestEntry:
        return IndexManifestEntry(kind, b"p", 0, index_file(name, DELETION_VECTORS_INDEX_TYPE))

    previous = [entry(FileKind.ADD, "a"), entry(FileKind.ADD, "b")]
    changes = [entry(FileKind.ADD, "c"), entry(FileKind.DELETE, "a")]
    assert compute_index_by_file_name(previous, changes) == [
        entry(FileKind.ADD, "b"),
        entry(FileKind.ADD, "c"),
    ]
    # with buckets, one file per bucket: the newest wins
    assert compute_index_by_bucket(previous, changes) == [entry(FileKind.ADD, "c")]


SIZES = st.sampled_from(["1 b", "2 kb", "8 mb"])


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    min_count=st.integers(1, 4),
    target=SIZES,
    threshold=SIZES,
    steps=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=7),
)
def test_merging_never_changes_the_live_files(
    tmp_path_factory: pytest.TempPathFactory,
    min_count: int,
    target: str,
    threshold: str,
    steps: list[tuple[int, int]],
) -> None:
    """Model: a set of live file names. Each step adds some files and deletes some live ones;
    whatever the merge options, replaying the snapshot's manifests gives the model's set."""
    table = append_table(
        str(tmp_path_factory.mktemp("merge") / "t"),
        **{
            "manifest.merge-min-count": str(min_count),
            "manifest.target-file-size": target,
            "manifest.full-compaction-threshold-size": threshold,
        },
    )
    live: dict[str, DataFileMeta] = {}
    for step, (added, deleted) in enumerate(steps):
        new = [_meta(f"s{step}-{i}") for i in range(added)]
        gone = sorted(live)[:deleted]
        do_commit(
            table, message(table, new=new, deleted=[live[n] for n in gone]), identifier=step + 1
        )
        for name in gone:
            del live[name]
        live.update((meta.file_name, meta) for meta in new)
        snapshot = table.latest_snapshot()
        if snapshot is None:
            assert not live
            continue
        entries = [
            entry
            for meta in list_snapshot_manifests(table.file_io, table.root, snapshot)
            for entry in read_manifest(table.file_io, table.root, meta.file_name)
        ]
        replayed = compute_live_entries(entries)
        assert sorted(e.file.file_name for e in replayed.live) == sorted(live)
        assert replayed.unmatched_deletes == []
        assert snapshot.total_record_count == len(live)


# --------------------------------------------------------------------------------------------
# On an object store
# --------------------------------------------------------------------------------------------


@pytest.mark.s3
def test_commits_race_on_s3(s3_store: S3Store) -> None:
    """Conditional puts decide the race: both appends land, in snapshots 1 and 2."""
    root = f"{s3_store.uri}/commit-race-{uuid.uuid4().hex}/t"
    table = append_table(root, file_io=s3_store.file_io())
    ours = message(table, new=[append_file(table, [(1, "ours")])])
    theirs = message(table, new=[append_file(table, [(2, "theirs")])])
    competitor = Table(s3_store.file_io(), root)

    class Racing(S3FileIO):
        raced = False

        def create_exclusive(self, path: str, data: bytes) -> bool:
            if "/snapshot/snapshot-" in path and not self.raced:
                self.raced = True
                do_commit(competitor, theirs, commit_user="them")
            return super().create_exclusive(path, data)

    [snapshot] = do_commit(Table(Racing(s3_store.config()), root), ours)
    assert snapshot.id == 2
    assert values_of(table) == [(1, "ours"), (2, "theirs")]
