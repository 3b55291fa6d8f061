"""spark_impl's driver-side planning: live files against the reference planner, time travel
(snapshot id, tag, timestamp), hint fallbacks, and pruning by pushed predicates."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from conformance.unit.spark_impl.conftest import ReferenceReader, snapshot_ids, table_roots
from conformance.unit.spark_impl.test_read import plan_rows, read_rows
from reference.errors import SnapshotNotFoundError
from reference.io import LocalFileIO
from reference.spec.predicate import And, Leaf, Predicate, PredicateOp, equal, is_row_matching
from spark_impl.metadata import find_latest_snapshot_id
from spark_impl.plan import TimeTravel, plan_read


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
