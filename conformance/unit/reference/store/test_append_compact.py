"""Tests of ``reference.store.append_compact``: picking (bucket-unaware packing, the bucketed
sliding window and full compaction), rewriting, deletion vectors, file indexes on outputs, and
the ordered streaming read of compacted append tables.

Expected picks are worked out by hand from the rules of the module docstring (Java 0.9's
``UnawareAppendTableCompactionCoordinator`` / ``BucketedAppendCompactManager``). Java 0.9
itself (the ``java_harness``) is the oracle for a fixed-bucket writer's compaction (its batch
writer compacts the same files at the same write) and reads every compacted table.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from conformance.java.harness import Change, JavaHarness
from conformance.unit.reference.store.commit_helpers import APPEND_FIELDS, PARTITIONED_FIELDS
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.deletion_vector import BitmapKind
from reference.spec.file_index.container import decode_file_index
from reference.spec.manifest import DeletionVectorMeta, IndexFileMeta
from reference.spec.predicate import Leaf, PredicateOp
from reference.spec.schema import AddColumn
from reference.spec.snapshot import CommitKind
from reference.spec.stats import EMPTY_STATS
from reference.store import metadata
from reference.store.append_compact import (
    AppendCompactionOptions,
    compact_append_table,
    compute_append_compaction_options,
    create_rewrite_context,
    pack_small_files,
    pack_unaware_partition,
    pick_bucketed_files,
    pick_bucketed_full,
)
from reference.store.bucket_state import BucketState, create_job_context, read_bucket_states
from reference.store.write import read_live_entries
from reference.table import Table

MB = 1024 * 1024
INSERT = RowKind.INSERT


def meta(name: str, size: int, first: int = 0, last: int = 0) -> DataFileMeta:
    """A file meta with only what picking reads: name, size and sequence numbers."""
    return DataFileMeta(
        file_name=name,
        file_size=size,
        row_count=1,
        min_key=b"",
        max_key=b"",
        key_stats=EMPTY_STATS,
        value_stats=EMPTY_STATS,
        min_sequence_number=first,
        max_sequence_number=last,
        schema_id=0,
        level=0,
        extra_files=(),
        creation_time=None,
    )


def options(
    *,
    target: int = 100,
    min_num: int = 5,
    max_num: int = 50,
    unaware: bool = True,
    dv: bool = False,
) -> AppendCompactionOptions:
    return AppendCompactionOptions(
        bucket_unaware=unaware,
        target_file_size=target,
        compaction_file_size=target // 10 * 7,
        min_file_num=min_num,
        max_file_num=max_num,
        deletion_vectors=dv,
        bitmap_kind=BitmapKind.BITMAP32,
        write_only=False,
    )


def names(tasks: Sequence[Sequence[DataFileMeta]] | Sequence[DataFileMeta] | None) -> object:
    if tasks is None:
        return None
    if tasks and isinstance(tasks[0], DataFileMeta):
        return [m.file_name for m in tasks]  # type: ignore[union-attr]
    return [[m.file_name for m in task] for task in tasks]  # type: ignore[union-attr]


def table_of(root: Path, fields: Sequence[t.DataField] = APPEND_FIELDS, **opts: str) -> Table:
    partition_keys = ["dt"] if fields == PARTITIONED_FIELDS else []
    return Table.create(
        LocalFileIO(), str(root), fields, partition_keys=partition_keys, options=dict(opts)
    )


def values(table: Table) -> list[Row]:
    return sorted((row for _, row in table.read().rows), key=repr)


def kinds(table: Table) -> list[CommitKind]:
    ids = metadata.list_snapshot_ids(table.file_io, table.root)
    return [metadata.read_snapshot(table.file_io, table.root, i).commit_kind for i in ids]


def live_files(table: Table) -> list[DataFileMeta]:
    return [e.file for e in read_live_entries(table.file_io, table.root, table.latest_snapshot())]


def sequence_ranges(table: Table) -> list[tuple[int, int]]:
    return sorted((m.min_sequence_number, m.max_sequence_number) for m in live_files(table))


# --------------------------------------------------------------------------------------------
# Options (rule 1)
# --------------------------------------------------------------------------------------------


def test_option_defaults_differ_by_bucket_mode(tmp_path: Path) -> None:
    unaware = compute_append_compaction_options(table_of(tmp_path / "u", bucket="-1").schema())
    bucketed = compute_append_compaction_options(
        table_of(tmp_path / "b", bucket="2", **{"bucket-key": "id"}).schema()
    )
    assert (unaware.max_file_num, bucketed.max_file_num) == (50, 5)
    assert unaware.min_file_num == bucketed.min_file_num == 5
    assert unaware.target_file_size == 256 * MB
    assert unaware.compaction_file_size == 256 * MB // 10 * 7
    fallback = table_of(tmp_path / "f", **{"compaction.early-max.file-num": "7"})
    assert compute_append_compaction_options(fallback.schema()).max_file_num == 7


# --------------------------------------------------------------------------------------------
# Bucket-unaware packing (rules 2-4)
# --------------------------------------------------------------------------------------------


def test_packing_waits_for_enough_size_and_files() -> None:
    files = [meta(f"f{i}", 30) for i in range(6)]
    # 30, 60, 90, 120 >= 100 but only 4 files; the fifth (150) makes the first bin
    assert names(pack_small_files(files, options())) == [["f0", "f1", "f2", "f3", "f4"]]
    assert pack_small_files(files[:4], options()) == []


def test_packing_by_file_count_and_smallest_first() -> None:
    files = [meta("big", 60), meta("a", 10), meta("b", 5), meta("c", 10)]
    # sorted by size, ties in the given order: b(5), a(10), c(10), big(60); max 3 per bin
    assert names(pack_small_files(files, options(max_num=3))) == [["b", "a", "c"]]
    assert names(pack_small_files(files, options(max_num=2))) == [["b", "a"], ["c", "big"]]
    # a tie keeps the snapshot's order, not the names' order
    tied = [meta("c", 10), meta("a", 10)]
    assert names(pack_small_files(tied, options(max_num=2))) == [["c", "a"]]


def test_only_files_below_the_compaction_size_are_candidates() -> None:
    # compaction file size of target 100 is 70
    bucket = BucketState((), b"", 0, (meta("small", 69), meta("edge", 70), meta("s2", 1)))
    assert names(pack_unaware_partition(bucket, options(max_num=2))) == [["s2", "small"]]


def vector_file(name: str, *data_files: str) -> IndexFileMeta:
    ranges = tuple(DeletionVectorMeta(f, 1 + 10 * i, 10) for i, f in enumerate(data_files))
    return IndexFileMeta("DELETION_VECTORS", name, 10, len(data_files), ranges)


def test_files_with_vectors_are_grouped_by_index_file() -> None:
    files = (meta("a", 500), meta("b", 1), meta("c", 2), meta("d", 3), meta("e", 900))
    vectors = (vector_file("index-2", "e"), vector_file("index-1", "a", "c"))
    deleted = {name: frozenset({0}) for name in "ace"}
    bucket = BucketState((), b"", 0, files, deleted, vectors)
    # a and e are large but have vectors; b and d are two plain small files (max 2 per bin)
    packed = pack_unaware_partition(bucket, options(dv=True, max_num=2))
    assert names(packed) == [["a", "c"], ["e"], ["b", "d"]]
    # a single plain small file is left alone
    lone = BucketState(
        (), b"", 0, (meta("a", 500), meta("b", 1)), {"a": frozenset({0})}, vectors[1:]
    )
    assert names(pack_unaware_partition(lone, options(dv=True, max_num=2))) == [["a"]]


# --------------------------------------------------------------------------------------------
# Fixed buckets (rules 6 and 7)
# --------------------------------------------------------------------------------------------


def test_the_window_takes_enough_files_in_sequence_order() -> None:
    files = [meta(f"f{i}", 10, first=i) for i in (3, 1, 2, 0, 4)]
    picked = pick_bucketed_files(files, options(unaware=False, max_num=5))
    assert names(picked) == ["f0", "f1", "f2", "f3", "f4"]
    assert pick_bucketed_files(files[:4], options(unaware=False, max_num=5)) is None


def test_the_window_drops_its_oldest_file_when_full_of_size() -> None:
    sizes = [90, 20, 10, 10, 10, 10]
    files = [meta(f"f{i}", s, first=i) for i, s in enumerate(sizes)]
    # f0+f1 = 110 >= 100 with 2 files: f0 leaves; then f1..f5 = 60 < 100, 5 files: max 5
    picked = pick_bucketed_files(files, options(unaware=False, max_num=5))
    assert names(picked) == ["f1", "f2", "f3", "f4", "f5"]
    # with min 2, the first window reaching 100 bytes is taken
    picked = pick_bucketed_files(files, options(unaware=False, min_num=2, max_num=5))
    assert names(picked) == ["f0", "f1"]


def test_full_compaction_rules() -> None:
    plain = options(unaware=False)
    small = [meta(f"s{i}", 10, first=i) for i in range(3)]
    assert pick_bucketed_full(small[:2], plain, {}) is None
    assert names(pick_bucketed_full(small, plain, {})) == ["s0", "s1", "s2"]
    big = [meta("b0", 200, first=10), meta("b1", 300, first=11)]
    # leading big files are skipped; then big files outnumber the small ones
    assert pick_bucketed_full(big + small[:1], plain, {}) is None
    mixed = [meta("b0", 200, first=0), meta("s1", 10, first=1), meta("b2", 300, first=2)]
    mixed += [meta("s3", 10, first=3), meta("s4", 10, first=4)]
    assert names(pick_bucketed_full(mixed, plain, {})) == ["s1", "b2", "s3", "s4"]
    with_dv = options(unaware=False, dv=True)
    # with deletion vectors one file is enough, and a big file with a vector is not skipped
    assert names(pick_bucketed_full(big, with_dv, {"b0": frozenset({1})})) == ["b0", "b1"]
    assert names(pick_bucketed_full(big, with_dv, {})) is None


# --------------------------------------------------------------------------------------------
# Real tables: bucket-unaware
# --------------------------------------------------------------------------------------------


def test_unaware_compaction_merges_small_files_per_partition(tmp_path: Path) -> None:
    table = table_of(
        tmp_path / "t", PARTITIONED_FIELDS, bucket="-1", **{"compaction.max.file-num": "3"}
    )
    for i in range(4):
        table.write_and_commit([("a", i, f"a{i}"), ("b", i, f"b{i}")] if i < 2 else [("a", i, "x")])
    assert kinds(table) == [CommitKind.APPEND] * 4
    before = values(table)
    assert table.compact() and kinds(table)[-1] is CommitKind.COMPACT
    assert values(table) == before
    by_partition: dict[str, list[DataFileMeta]] = {}
    for bucket in read_bucket_states(
        table.file_io, table.root, table.schema(), table.latest_snapshot()
    ):
        by_partition[bucket.partition[0]] = list(bucket.files)
    # partition a had four files: the three smallest were packed (max 3), partition b two
    assert len(by_partition["a"]) == 2 and len(by_partition["b"]) == 2
    compacted = [m for m in by_partition["a"] if m.file_source is FileSource.COMPACT]
    assert len(compacted) == 1 and compacted[0].row_count == 3
    assert compacted[0].level == 0 and compacted[0].schema_id == 0


def test_unaware_compaction_of_too_few_files_does_nothing(tmp_path: Path) -> None:
    table = table_of(tmp_path / "t", bucket="-1")
    table.write_and_commit([(1, "a")])
    table.write_and_commit([(2, "b")])
    assert table.compact() == []
    assert table.compact(full=True) == []


def test_a_batch_writer_of_an_unaware_table_never_compacts(tmp_path: Path) -> None:
    table = table_of(tmp_path / "t", bucket="-1", **{"compaction.max.file-num": "2"})
    for i in range(4):
        assert [s.commit_kind for s in table.write_and_commit([(i, "v")])] == [CommitKind.APPEND]


def test_compacted_files_carry_the_file_index(tmp_path: Path) -> None:
    table = table_of(
        tmp_path / "t",
        bucket="-1",
        **{
            "compaction.max.file-num": "3",
            "file-index.bitmap.columns": "id",
            "file-index.in-manifest-threshold": "1 mb",
        },
    )
    for i in range(3):
        table.write_and_commit([(i, str(i))])
    table.compact()
    [output] = live_files(table)
    assert output.file_source is FileSource.COMPACT
    assert output.embedded_index is not None
    assert [c.column for c in decode_file_index(output.embedded_index).columns] == ["id"]
    hit = Leaf(PredicateOp.EQUAL, "id", (1,))
    assert [row for _, row in table.read(predicate=hit).rows] == [(1, "1")]


def test_compaction_moves_old_files_to_the_current_schema(tmp_path: Path) -> None:
    table = table_of(tmp_path / "t", bucket="-1", **{"compaction.max.file-num": "2"})
    table.write_and_commit([(1, "a")])
    table.alter([AddColumn(("w",), t.BigIntType())])
    table.write_and_commit([(2, "b", 20)])
    table.compact()
    [output] = live_files(table)
    assert output.schema_id == 1
    assert values(table) == [(1, "a", None), (2, "b", 20)]


# --------------------------------------------------------------------------------------------
# Real tables: fixed buckets
# --------------------------------------------------------------------------------------------


def test_a_fixed_bucket_batch_writer_compacts_at_the_fifth_file(tmp_path: Path) -> None:
    """Seed 003 (overview): append-only tables compact small files automatically."""
    table = table_of(tmp_path / "t", bucket="1", **{"bucket-key": "id"})
    for i in range(6):
        table.write_and_commit([(i, str(i))])
    assert kinds(table) == [CommitKind.APPEND] * 5 + [CommitKind.COMPACT, CommitKind.APPEND]
    assert sequence_ranges(table) == [(0, 4), (5, 5)]
    assert [m.file_source for m in live_files(table)].count(FileSource.COMPACT) == 1
    assert values(table) == [(i, str(i)) for i in range(6)]


def test_write_only_and_overwrite(tmp_path: Path) -> None:
    """Seed 003 (Compaction): writers compact as needed by default, or leave all compaction
    to a dedicated job (``write-only``)."""
    quiet = table_of(tmp_path / "w", bucket="1", **{"bucket-key": "id", "write-only": "true"})
    for i in range(6):
        quiet.write_and_commit([(i, str(i))])
    assert CommitKind.COMPACT not in kinds(quiet)
    assert [s.commit_kind for s in quiet.compact()] == [CommitKind.COMPACT]
    table = table_of(tmp_path / "o", bucket="1", **{"bucket-key": "id"})
    for i in range(4):
        table.write_and_commit([(i, str(i))])
    # an overwrite starts from an empty bucket: one new file, nothing to compact
    table.write_and_commit([(9, "9")], overwrite={})
    assert kinds(table)[-1] is CommitKind.OVERWRITE
    assert values(table) == [(9, "9")]


def test_full_compaction_of_a_bucket(tmp_path: Path) -> None:
    table = table_of(tmp_path / "t", bucket="2", **{"bucket-key": "id", "write-only": "true"})
    for i in range(3):
        table.write_and_commit([(k, f"{k}-{i}") for k in range(10)])
    before = values(table)
    snapshots = table.compact(full=True)
    assert [s.commit_kind for s in snapshots] == [CommitKind.COMPACT]
    assert len(live_files(table)) == 2
    assert values(table) == before
    # the bucket's rewrite keeps the sequence numbers of its first file on
    assert sequence_ranges(table)[0][0] == 0


def test_deletion_vectors_are_dropped_by_compaction(tmp_path: Path) -> None:
    table = table_of(
        tmp_path / "t",
        bucket="1",
        **{"bucket-key": "id", "deletion-vectors.enabled": "true", "write-only": "true"},
    )
    for i in range(3):
        table.write_and_commit([(i * 10 + k, str(k)) for k in range(3)])
    table.delete(Leaf(PredicateOp.IN, "id", (1, 12)))
    [bucket] = read_bucket_states(
        table.file_io, table.root, table.schema(), table.latest_snapshot()
    )
    assert sorted(map(sorted, bucket.vectors.values())) == [[1], [2]]
    table.compact(full=True)
    [bucket] = read_bucket_states(
        table.file_io, table.root, table.schema(), table.latest_snapshot()
    )
    assert bucket.vectors == {}
    assert len(bucket.files) == 1 and bucket.files[0].row_count == 7
    assert values(table) == sorted([(k, str(k % 10)) for k in (0, 2, 10, 11, 20, 21, 22)], key=repr)


def test_unaware_compaction_groups_files_of_an_index_file(tmp_path: Path) -> None:
    table = table_of(tmp_path / "t", bucket="-1", **{"deletion-vectors.enabled": "true"})
    for i in range(3):
        table.write_and_commit([(i * 10 + k, "v") for k in range(4)])
    table.delete(Leaf(PredicateOp.IN, "id", (0, 21)))
    # one index file holds both vectors: its two data files form one task
    ctx = create_rewrite_context(create_job_context(table.file_io, table.root, table.schema()))
    [message] = compact_append_table(ctx)
    assert len(message.compaction.compact_before) == 2
    assert message.index.new_index_files == ()
    assert len(message.index.deleted_index_files) == 1
    table.commit([message])
    assert sorted(r[0] for r in values(table)) == [1, 2, 3, 10, 11, 12, 13, 20, 22, 23]


# --------------------------------------------------------------------------------------------
# Ordered streaming read
# --------------------------------------------------------------------------------------------


def test_a_stream_reads_a_compacted_bucket_in_sequence_order(tmp_path: Path) -> None:
    """Seed 003 (overview): append-only tables give ordered streaming reads (a bucket's rows
    in write order, also across a compaction), so they can replace a message queue."""
    table = table_of(
        tmp_path / "t",
        bucket="1",
        **{"bucket-key": "id", "write-only": "true", "compaction.max.file-num": "3"},
    )
    for i in range(4):
        table.write_and_commit([(i, str(i))])
    table.compact()  # the window takes the first three files; the fourth stays before it
    assert sequence_ranges(table) == [(0, 2), (3, 3)]
    reader = table.stream()
    plans = list(reader.iterate())
    assert [row for _, row in plans[0][1]] == [(0, "0"), (1, "1"), (2, "2"), (3, "3")]
    table.write_and_commit([(9, "9"), (8, "8")])
    _, changes = next(reader.iterate())
    assert [row for _, row in changes] == [(9, "9"), (8, "8")]


# --------------------------------------------------------------------------------------------
# Java 0.9
# --------------------------------------------------------------------------------------------


@pytest.mark.java
def test_java_writer_compacts_the_same_files(tmp_path: Path, java_harness: JavaHarness) -> None:
    reference = table_of(tmp_path / "r", bucket="2", **{"bucket-key": "id"})
    java_root = tmp_path / "j"
    java_harness.create_table(java_root, APPEND_FIELDS, options={"bucket": "2", "bucket-key": "id"})
    batches = [[(k, f"{k}-{i}") for k in range(i, i + 3)] for i in range(7)]
    for batch in batches:
        reference.write_and_commit(batch)
        java_harness.write(java_root, batch, commit=True)
    java_table = Table.open(LocalFileIO(), str(java_root))
    assert kinds(reference) == kinds(java_table)
    assert sequence_ranges(reference) == sequence_ranges(java_table)
    assert sorted(java_harness.read(reference.root).values(), key=repr) == values(java_table)


@pytest.mark.java
def test_java_reads_compacted_tables(tmp_path: Path, java_harness: JavaHarness) -> None:
    unaware = table_of(
        tmp_path / "u",
        PARTITIONED_FIELDS,
        bucket="-1",
        **{"compaction.max.file-num": "2", "deletion-vectors.enabled": "true"},
    )
    for i in range(3):
        unaware.write_and_commit([("a", i, "x"), ("b", i, "y")])
    unaware.delete(Leaf(PredicateOp.EQUAL, "id", (1,)))
    unaware.compact()
    assert CommitKind.COMPACT in kinds(unaware)
    assert sorted(java_harness.read(unaware.root).values(), key=repr) == values(unaware)
    bucketed = table_of(tmp_path / "b", bucket="1", **{"bucket-key": "id", "write-only": "true"})
    for i in range(3):
        bucketed.write_and_commit([(i, "a"), (i + 10, "b")])
    bucketed.compact(full=True)
    assert sorted(java_harness.read(bucketed.root).values(), key=repr) == values(bucketed)
    # and Java goes on writing and compacting the reference's bucket (Java refuses to compact a
    # write-only table; its compaction jobs switch the option off)
    java_harness.alter_table(bucketed.root, [Change.remove_option("write-only")])
    java_harness.write(bucketed.root, [(99, "j")], commit=True)
    java_harness.compact(bucketed.root, full=True, commit=True)
    assert sorted(java_harness.read(bucketed.root).values(), key=repr) == values(bucketed)
    assert (99, "j") in values(bucketed)
