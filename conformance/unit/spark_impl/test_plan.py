"""spark_impl's driver-side planning: live files against the reference planner, time travel
(snapshot id, tag, timestamp), hint fallbacks, and pruning by pushed predicates."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from conformance.unit.spark_impl.conftest import ReferenceReader, snapshot_ids, table_roots
from conformance.unit.spark_impl.test_read import plan_rows, read_rows
from reference.errors import SnapshotNotFoundError
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.predicate import And, Leaf, Predicate, PredicateOp, equal, is_row_matching
from reference.table import Table
from spark_impl.metadata import find_latest_snapshot_id
from spark_impl.plan import (
    DataFileRef,
    TimeTravel,
    compute_read_splits,
    pack_files,
    plan_read,
)


def table(third_party: Path, name: str) -> Path:
    return third_party / "paimon-cpp" / "parquet" / f"{name}.db" / name


def planned_files(root: Path, snapshot_id: int) -> set[str]:
    plan = plan_read(LocalFileIO(), str(root), TimeTravel(snapshot_id=snapshot_id))
    return {f.path for split in plan.splits for f in split.files}


def test_live_files_match_the_reference_planner(
    third_party: Path, reference_store: SimpleNamespace
) -> None:
    file_io = LocalFileIO()
    for root in table_roots(third_party):
        schemas = reference_store.query.load_schemas(file_io, str(root))
        for snapshot_id in snapshot_ids(root):
            snapshot = reference_store.metadata.read_snapshot(file_io, str(root), snapshot_id)
            plan = reference_store.scan.plan_scan(
                file_io, str(root), snapshot, schemas[snapshot.schema_id], schemas
            )
            expected = {
                f"{split.bucket_path}/{meta.file_name}"
                for split in plan.splits
                for meta in split.files
            }
            assert planned_files(root, snapshot_id) == expected, (root.name, snapshot_id)


def test_level_zero_files_are_skipped_with_deletion_vectors(third_party: Path) -> None:
    plan = plan_read(LocalFileIO(), str(table(third_party, "pk_table_scan_and_read_dv")))
    assert plan.skipped_files > 0
    assert all(f.level > 0 for split in plan.splits for f in split.files)
    assert any(f.deletion is not None for split in plan.splits for f in split.files)


def copy_table(third_party: Path, name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(table(third_party, name), target)
    return target


def test_tag_reads_the_tagged_snapshot(
    third_party: Path, tmp_path: Path, reference_reader: ReferenceReader
) -> None:
    root = copy_table(third_party, "pk_09", tmp_path)
    (root / "tag").mkdir()
    shutil.copy(root / "snapshot" / "snapshot-4", root / "tag" / "tag-before")
    assert read_rows(root, TimeTravel(tag_name="before")) == reference_reader(root, snapshot_id=4)
    with pytest.raises(SnapshotNotFoundError):
        plan_read(LocalFileIO(), str(root), TimeTravel(tag_name="missing"))


def snapshot_time(root: Path, snapshot_id: int) -> int:
    return int(
        json.loads((root / "snapshot" / f"snapshot-{snapshot_id}").read_text())["timeMillis"]
    )


def test_timestamp_picks_the_latest_snapshot_at_or_before(third_party: Path) -> None:
    root = table(third_party, "pk_09")
    file_io = LocalFileIO()
    for snapshot_id in snapshot_ids(root):
        at = snapshot_time(root, snapshot_id)
        plan = plan_read(file_io, str(root), TimeTravel(timestamp_millis=at))
        assert plan.snapshot_id == snapshot_id
    with pytest.raises(SnapshotNotFoundError):
        plan_read(file_io, str(root), TimeTravel(timestamp_millis=snapshot_time(root, 1) - 1))


def test_time_travel_uses_the_snapshot_schema(third_party: Path) -> None:
    root = table(third_party, "append_table_with_alter_table")
    old = plan_read(LocalFileIO(), str(root), TimeTravel(snapshot_id=1)).schema
    latest = plan_read(LocalFileIO(), str(root)).schema
    assert old.id == 0
    assert latest.id == 1
    assert old.field_names != latest.field_names


def test_wrong_latest_hint_falls_back_to_listing(third_party: Path, tmp_path: Path) -> None:
    root = copy_table(third_party, "pk_09", tmp_path)
    (root / "snapshot" / "LATEST").write_text("3")
    assert find_latest_snapshot_id(LocalFileIO(), str(root)) == 8
    (root / "snapshot" / "LATEST").unlink()
    (root / "snapshot" / "EARLIEST").unlink()
    assert find_latest_snapshot_id(LocalFileIO(), str(root)) == 8
    assert plan_read(LocalFileIO(), str(root)).snapshot_id == 8


def test_no_snapshot_means_no_splits(third_party: Path, tmp_path: Path) -> None:
    root = copy_table(third_party, "append_09", tmp_path)
    shutil.rmtree(root / "snapshot")
    plan = plan_read(LocalFileIO(), str(root))
    assert plan.snapshot_id is None
    assert plan.splits == ()


@pytest.mark.parametrize(
    ("name", "predicate"),
    [
        ("append_09", equal("f1", 20)),
        ("pk_09", equal("f1", 20)),
        ("append_09", Leaf(PredicateOp.GREATER_THAN, "f2", (100,))),
        ("pk_09", And((equal("f1", 10), Leaf(PredicateOp.IS_NULL, "f0")))),
        ("pk_table_scan_and_read_dv", Leaf(PredicateOp.IN, "f1", (20, 30))),
    ],
)
def test_pruning_skips_files_without_changing_rows(
    third_party: Path, reference_reader: ReferenceReader, name: str, predicate: Predicate
) -> None:
    """Pruned plans read fewer files; filtering their rows gives the reference's answer."""
    root = table(third_party, name)
    file_io = LocalFileIO()
    unpruned = plan_read(file_io, str(root))
    pruned = plan_read(file_io, str(root), predicate=predicate)
    assert pruned.file_count < unpruned.file_count
    assert pruned.skipped_files + pruned.skipped_manifests > unpruned.skipped_files
    schema = pruned.schema
    types = {f.name: f.type for f in schema.fields}
    kept = Counter(
        row
        for row in plan_rows(pruned)
        if is_row_matching(predicate, dict(zip(schema.field_names, row, strict=True)), types)
    )
    assert kept == reference_reader(root, predicate=predicate)


STRING = t.VarCharType(t.MAX_LENGTH)
INDEX_FIELDS = (t.DataField(0, "k", t.BigIntType()), t.DataField(1, "v", STRING))
BLOOM_ON_V = {"file-index.bloom-filter.columns": "v", "file-index.bloom-filter.v.items": "100"}
INDEX_OPTIONS = {"bucket": "-1", "file-index.in-manifest-threshold": "64kb", **BLOOM_ON_V}


class CountingIO(LocalFileIO):
    """The local file system, counting the metadata files read."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: Counter[str] = Counter()

    def read_bytes(self, path: str) -> bytes:
        self.reads[Path(path).parent.name] += 1
        return super().read_bytes(path)


def indexed_table(tmp_path: Path, commits: int = 4) -> str:
    """An append table, a bloom filter on ``v`` embedded in the manifests, one file and one
    manifest per commit."""
    root = str(tmp_path / "indexed")
    table = Table.create(LocalFileIO(), root, INDEX_FIELDS, options=INDEX_OPTIONS)
    for commit in range(commits):
        table.write_and_commit([(k, f"value-{k}") for k in range(commit * 50, commit * 50 + 50)])
    return root


def test_index_bytes_ship_only_with_a_predicate(tmp_path: Path) -> None:
    """A plan without a predicate reads every row, so its files carry no index; a point
    predicate keeps the one file its bloom filters allow, with that file's index."""
    root = indexed_table(tmp_path)
    unpruned = plan_read(LocalFileIO(), root)
    assert unpruned.file_count == 4
    assert all(f.index is None for s in unpruned.splits for f in s.files)
    pruned = plan_read(LocalFileIO(), root, predicate=equal("v", "value-120"))
    assert pruned.file_count == 1 and pruned.skipped_by_index >= 1
    assert pruned.skipped_by_index + pruned.skipped_files == 3
    assert all(isinstance(f.index, bytes) for s in pruned.splits for f in s.files)
    assert Counter(r[0] for r in plan_rows(pruned)) == Counter(range(100, 150))


def test_manifests_are_read_once_across_plans(tmp_path: Path) -> None:
    """Manifest files are immutable: a second plan of the same snapshot (another query)
    decodes none again, only the snapshot and schema files; a new snapshot reads only its new
    manifests."""
    root = indexed_table(tmp_path)
    file_io = CountingIO()
    first = plan_read(file_io, root)
    assert file_io.reads["manifest"] >= 5  # the lists and the four data manifests
    file_io.reads.clear()
    assert plan_read(file_io, root) == first
    assert file_io.reads["manifest"] == 0
    Table.open(LocalFileIO(), root).write_and_commit([(1000, "value-1000")])
    file_io.reads.clear()
    assert plan_read(file_io, root).file_count == first.file_count + 1
    assert 0 < file_io.reads["manifest"] <= 3  # the new lists and the new data manifest


def test_append_buckets_are_packed_into_read_splits(tmp_path: Path) -> None:
    """Java ``AppendOnlySplitGenerator``: a bucket's files in sequence order, packed to
    ``source.split.target-size`` with each file weighing at least the open-file cost (here
    4 mb of 8 mb: two small files a split); every file is read exactly once."""
    root = indexed_table(tmp_path)  # the default target (128 mb) keeps the bucket whole
    plan = plan_read(LocalFileIO(), root)
    assert [len(s.files) for s in compute_read_splits(plan)] == [4]
    small = tmp_path / "small"
    shutil.copytree(root, small)
    schema_file = small / "schema" / "schema-0"
    schema = json.loads(schema_file.read_text())
    schema["options"]["source.split.target-size"] = "8 mb"
    schema_file.write_text(json.dumps(schema))
    plan = plan_read(LocalFileIO(), str(small))
    splits = compute_read_splits(plan)
    assert [len(s.files) for s in splits] == [2, 2]
    ordered = [f.min_sequence_number for s in splits for f in s.files]
    assert ordered == sorted(ordered)
    assert Counter(f.path for s in splits for f in s.files) == Counter(
        f.path for s in plan.splits for f in s.files
    )


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [([1, 1, 1], [2, 1]), ([9, 1, 1], [1, 2]), ([5, 5, 3], [1, 1, 1]), ([], [])],
)
def test_pack_files_is_ordered_bin_packing(sizes: list[int], expected: list[int]) -> None:
    """Target 8, open-file cost 4: a bin closes when the next file would take it past 8."""
    refs = [DataFileRef(f"f{i}", 0, 0, 1, i, file_size=size) for i, size in enumerate(sizes)]
    assert [len(b) for b in pack_files(refs, 8, 4)] == expected


@pytest.mark.spark
def test_the_paimon_source_reads_packed_splits_as_tasks(spark: Any, tmp_path: Path) -> None:
    """Through ``format("paimon")``: an append bucket of four files packed two to a split is
    read by two tasks, and the rows are the ones written (each file read once)."""
    root = str(tmp_path / "packed")
    options = {**INDEX_OPTIONS, "source.split.target-size": "8 mb"}
    table = Table.create(LocalFileIO(), root, INDEX_FIELDS, options=options)
    for commit in range(4):
        table.write_and_commit([(k, f"value-{k}") for k in range(commit * 50, commit * 50 + 50)])
    frame = spark.read.format("paimon").load(root)
    assert frame.rdd.getNumPartitions() == 2
    assert Counter(tuple(r) for r in frame.collect()) == Counter(
        (k, f"value-{k}") for k in range(200)
    )
