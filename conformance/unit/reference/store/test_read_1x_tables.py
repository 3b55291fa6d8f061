"""The reference reads the Paimon 1.x tables of ``../shared/third-party`` (issue 22 items 4-6) to
the rows their READMEs (from paimon-cpp) state, snapshot by snapshot.

- ``pk_dv_index_in_data_no_external``: deletion-vector index files in the bucket directories
  (``index-file-in-data-file-dir``). Its README states the table after snapshots 1-2 and after
  3-4; snapshots 1 and 3 are the level-0 writes before each compaction, which a batch read of a
  deletion-vector table skips (checked against Java 0.9 in ``test_read_third_party``).
- ``append_table_row_tracking_with_compact``: row tracking across a compaction (the compacted
  file keeps the row ids in a physical ``_ROW_ID`` column).
- ``data_evolution_with_dense_stats``: a second file rewrites columns f2, f3 of row ids 0-1.
- ``db_with_blob.db/table_with_blob``: BLOB data in ``.blob`` files. Its README names, for
  each of the four ``.blob`` files, the ``blob_<row>_*.bin`` files holding the values of its rows
  (3 + 2 + 4 + 1 = 10 rows); the other columns are checked against pyarrow's read of the one
  Parquet file (an independent decoder).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from reference.io import LocalFileIO
from reference.spec.row_tracking import ROW_ID_FIELD, compute_row_id_groups
from reference.store import metadata, scan
from reference.store.query import LATEST, TimeTravel, read_table

PARQUET = ("paimon-cpp", "parquet")
BLOB_TABLE = ("paimon-cpp", "db_with_blob.db", "table_with_blob")

_DV_BEFORE = [
    ("Two roads diverged in a wood, and I took the one less traveled by, And that has made all "
     "the difference.", 10, 1, 11.0),
    ("Alice", 10, 1, 11.1),
    ("Bob", 10, 0, 12.1),
    ("Emily", 10, 0, 13.1),
    ("Tony", 10, 0, 14.1),
    ("Alex", 10, 0, 16.1),
    ("David", 10, 0, 17.1),
    ("Lucy", 20, 1, 14.1),
    ("Paul", 20, 1, 18.1),
]  # fmt: skip
_DV_AFTER = [
    ("Alice", 10, 1, 19.1) if row[0] == "Alice" else row for row in _DV_BEFORE if row[0] != "Tony"
]
_TRACKED_1 = [("Lily", 2, 12, 2.1), ("Alice", 3, 13, 3.1)]
_TRACKED_2 = [*_TRACKED_1, ("Bob", 4, 14, 4.1), ("David", 5, 15, 5.1)]

README_ROWS: dict[tuple[str, int | None], list[tuple[Any, ...]]] = {
    ("pk_dv_index_in_data_no_external", 2): _DV_BEFORE,
    ("pk_dv_index_in_data_no_external", 4): _DV_AFTER,
    ("pk_dv_index_in_data_no_external", None): _DV_AFTER,
    ("append_table_row_tracking_with_compact", 1): _TRACKED_1,
    ("append_table_row_tracking_with_compact", 2): _TRACKED_2,
    ("append_table_row_tracking_with_compact", 3): _TRACKED_2,
    ("append_table_row_tracking_with_compact", 4): _TRACKED_2,
    ("append_table_row_tracking_with_compact", None): _TRACKED_2,
    ("data_evolution_with_dense_stats", 1): [("Lily", 2, 12, None), ("Alice", 4, 14, None)],
    ("data_evolution_with_dense_stats", 2): [("Lily", 2, 102, 2.1), ("Alice", 4, 104, 3.1)],
    ("data_evolution_with_dense_stats", None): [("Lily", 2, 102, 2.1), ("Alice", 4, 104, 3.1)],
}
"""(table, snapshot id or None for the latest) -> the rows the table's README states."""

CASES = [pytest.param(name, sid, id=f"{name}@{sid or 'latest'}") for name, sid in README_ROWS]


def table_root(third_party: Path, name: str) -> Path:
    return third_party.joinpath(*PARQUET, f"{name}.db", name)


def blob_table_root(third_party: Path) -> Path:
    return third_party.joinpath(*BLOB_TABLE)


@pytest.mark.parametrize(("name", "snapshot_id"), CASES)
def test_reference_reads_the_readme_rows(
    third_party: Path, name: str, snapshot_id: int | None
) -> None:
    travel = LATEST if snapshot_id is None else TimeTravel(snapshot_id=snapshot_id)
    result = read_table(LocalFileIO(), str(table_root(third_party, name)), travel)
    assert all(kind.is_add for kind, _ in result.rows)
    assert Counter(row for _, row in result.rows) == Counter(README_ROWS[name, snapshot_id])


def blob_table_rows(third_party: Path) -> list[tuple[Any, ...]]:
    """The BLOB table's rows: f0-f4 as pyarrow reads its Parquet file, f5 the bytes of the
    ``blob_<row>_*.bin`` file its README names for that row."""
    root = blob_table_root(third_party)
    [parquet] = sorted(root.glob("bucket-0/*.parquet"))
    columns = pq.read_table(parquet).to_pylist()
    readme = (root / "README").read_text()
    bins = {int(m.group(1)): m.group(0) for m in re.finditer(r"blob_(\d+)_\w+\.bin", readme)}
    assert sorted(bins) == list(range(len(columns))) == list(range(10))
    return [(*row.values(), (root / bins[i]).read_bytes()) for i, row in enumerate(columns)]


def test_the_blob_table_reads_its_readme_blobs(third_party: Path) -> None:
    result = read_table(LocalFileIO(), str(blob_table_root(third_party)), LATEST)
    assert [f.name for f in result.schema.fields] == ["f0", "f1", "f2", "f3", "f4", "f5"]
    assert [row for _, row in result.rows] == blob_table_rows(third_party)


def test_compacted_file_keeps_the_row_ids_of_its_inputs(third_party: Path) -> None:
    """Row tracking rule 1: row i of an APPEND file has row id first_row_id + i; the compaction
    writes each row's id into its ``_ROW_ID`` column (and takes no first row id itself)."""
    io, root = LocalFileIO(), str(table_root(third_party, "append_table_row_tracking_with_compact"))

    def live_files(snapshot_id: int) -> list[Any]:
        snapshot = metadata.read_snapshot(io, root, snapshot_id)
        entries = [
            e
            for m in scan.list_snapshot_manifests(io, root, snapshot)
            for e in scan.read_manifest(io, root, m.file_name)
        ]
        return [e.file for e in scan.compute_live_entries(entries).live]

    before: dict[tuple[Any, ...], int] = {}
    for meta in live_files(3):
        rows = pq.read_table(f"{root}/bucket-0/{meta.file_name}").to_pylist()
        before.update({tuple(r.values()): meta.first_row_id + i for i, r in enumerate(rows)})
    [compacted] = live_files(4)
    assert compacted.first_row_id is None
    assert compacted.write_cols is not None and ROW_ID_FIELD.name in compacted.write_cols
    table = pq.read_table(f"{root}/bucket-0/{compacted.file_name}")
    after = {(r["f0"], r["f1"], r["f2"], r["f3"]): r[ROW_ID_FIELD.name] for r in table.to_pylist()}
    assert after == before == {row: i for i, row in enumerate(_TRACKED_2)}


def test_data_evolution_groups_newest_file_first(third_party: Path) -> None:
    io, root = LocalFileIO(), str(table_root(third_party, "data_evolution_with_dense_stats"))
    snapshot = metadata.read_snapshot(io, root, 2)
    entries = [
        e
        for m in scan.list_snapshot_manifests(io, root, snapshot)
        for e in scan.read_manifest(io, root, m.file_name)
    ]
    [group] = compute_row_id_groups([e.file for e in scan.compute_live_entries(entries).live])
    assert [f.write_cols for f in group] == [("f2", "f3"), ("f0", "f1", "f2")]
