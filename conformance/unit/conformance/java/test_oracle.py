"""The Java 0.9 oracle over the Java-written third-party tables (``paimon-cpp/parquet``).

Every table is read at every snapshot. The tables were written by Paimon 0.9 up to 1.x; the
outcome Java 0.9 gives for each one is recorded here, so a change shows up as a failure. Where
pypaimon-rust (an independent reader) can read the same snapshot, both must give the same rows.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from conformance.java.harness import JavaHarness, JavaHarnessError
from conformance.java.oracle import (
    find_newer_than_0_9,
    read_table_with_java,
    snapshot_ids_with_java,
)
from reference.spec.data import Row, RowKind

pytestmark = pytest.mark.java

TABLES_DIR = Path("paimon-cpp") / "parquet"

UNREADABLE_BY_JAVA_09 = {
    # f4 TIMESTAMP(9) is Parquet INT96; its pre-1970 values carry a negative nanos-of-day,
    # which 0.9's reader turns into a Timestamp with negative nanos (checkArgument fails).
    "append_with_bsi": "java.lang.IllegalArgumentException",
}
"""Table -> the error Java 0.9 raises on every snapshot of it."""

NEWER_THAN_0_9 = {
    "data_evolution_with_dense_stats": [1, 2],
    "pk_dv_index_in_data_no_external": [4],
}
"""Table -> the snapshots that use a Paimon 1.x feature Java 0.9 does not know (see
``find_newer_than_0_9``): not read with 0.9, since its answer is no oracle there."""

SNAPSHOTS = {
    "append_09": [1, 2, 3, 4, 5],
    "append_table_row_tracking_with_compact": [1, 2, 3, 4],
    "data_evolution_with_dense_stats": [1, 2],
    "pk_dv_index_in_data_no_external": [1, 2, 3, 4],
    "append_table_with_alter_table": [1, 2],
    "append_with_bitmap": [1],
    "append_with_bsi": [1],
    "pk_09": [1, 2, 3, 4, 5, 6, 7, 8],
    "pk_table_partial_update": [1, 2],
    "pk_table_scan_and_read_dv": [1, 2, 3, 4, 5, 6],
    "pk_table_with_mor": [1, 2, 3],
}


def table_dirs(root: Path) -> list[Path]:
    return sorted(path for path in root.glob("*.db/*") if (path / "schema").is_dir())


def tree_state(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and modification time."""
    state = {}
    for directory, _, files in os.walk(root):
        for name in files:
            stat = os.stat(os.path.join(directory, name))
            state[os.path.join(directory, name)] = (stat.st_size, stat.st_mtime_ns)
    return state


@pytest.fixture(scope="module")
def tables(third_party: Path, java_harness: JavaHarness) -> Iterator[list[Path]]:
    """The table directories; afterwards, checks that reading changed no file."""
    root = third_party / TABLES_DIR
    before = tree_state(root)
    yield table_dirs(root)
    assert tree_state(root) == before, "reading with Java modified the third-party tables"


def read_outcome(
    table: Path, snapshot_id: int, java: JavaHarness
) -> list[tuple[RowKind, Row]] | str:
    try:
        return read_table_with_java(table, snapshot_id, harness=java)
    except JavaHarnessError as error:
        return error.error.split(":")[0]


def test_java_09_reads_every_snapshot_it_can(tables: list[Path], java_harness: JavaHarness) -> None:
    assert {table.name for table in tables} == set(SNAPSHOTS)
    outcomes: dict[str, dict[int, Any]] = {}
    for table in tables:
        ids = snapshot_ids_with_java(table, harness=java_harness)
        assert ids == SNAPSHOTS[table.name]
        newer = [i for i in ids if find_newer_than_0_9(table, i) is not None]
        assert newer == NEWER_THAN_0_9.get(table.name, []), table.name
        outcomes[table.name] = {
            i: read_outcome(table, i, java_harness) for i in ids if i not in newer
        }
    failures = {
        name: {error for error in by_id.values() if isinstance(error, str)}
        for name, by_id in outcomes.items()
    }
    assert {name: errors for name, errors in failures.items() if errors} == {
        name: {error} for name, error in UNREADABLE_BY_JAVA_09.items()
    }


def test_append_tables_read_every_counted_record(
    tables: list[Path], java_harness: JavaHarness
) -> None:
    """For an append table the snapshot's totalRecordCount is the number of rows."""
    for table in tables:
        if table.name in UNREADABLE_BY_JAVA_09 or not table.name.startswith("append"):
            continue
        for snapshot in java_harness.list_snapshots(table):
            rows = read_table_with_java(table, snapshot["id"], harness=java_harness)
            assert len(rows) == snapshot["totalRecordCount"], (table.name, snapshot["id"])
            assert {kind for kind, _ in rows} <= {RowKind.INSERT}


def test_the_unreadable_column_is_the_int96_one(
    tables: list[Path], java_harness: JavaHarness
) -> None:
    [table] = [t for t in tables if t.name == "append_with_bsi"]
    read = java_harness.read(table, projection=["f0", "f1", "f2", "f3"])
    assert len(read.rows) == 8


def canonical(value: Any) -> Any:
    """A value comparable across readers (NaN equal to NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, Decimal):
        return ("decimal", str(value))
    return value


def test_java_09_agrees_with_pypaimon_rust(tables: list[Path], java_harness: JavaHarness) -> None:
    catalog_module = pytest.importorskip("pypaimon_rust.datafusion")
    compared = 0
    for table in tables:
        if table.name in UNREADABLE_BY_JAVA_09:
            continue
        catalog = catalog_module.PaimonCatalog({"warehouse": str(table.parent.parent)})
        rust_table = catalog.get_table((table.parent.name.removesuffix(".db"), table.name))
        for snapshot_id in SNAPSHOTS[table.name]:
            if snapshot_id in NEWER_THAN_0_9.get(table.name, []):
                continue  # Java 0.9 is no oracle there (see NEWER_THAN_0_9)
            builder = rust_table.new_read_builder({"scan.snapshot-id": str(snapshot_id)})
            builder = builder.with_include_row_kind(True)
            try:
                batches = builder.new_read().read(builder.new_scan().plan().splits())
            except Exception:  # pypaimon-rust 0.4 cannot read ORC manifests (append_09)
                continue
            java = java_harness.read(table, snapshot_id=snapshot_id)
            names = [f.name for f in java.fields]
            rust_rows = sorted(
                repr((row["rowkind"], *(canonical(row[n]) for n in names)))
                for batch in batches
                for row in batch.to_pylist()
            )
            java_rows = sorted(
                repr((kind.short_string, *map(canonical, values))) for kind, values in java.rows
            )
            assert java_rows == rust_rows, (table.name, snapshot_id)
            compared += 1
    assert compared >= 20
