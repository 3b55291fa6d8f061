"""spark_impl's planner and split reader against the reference reader, without Spark: every
Java-written table of paimon-cpp at every snapshot, rows compared as multisets."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.spark_impl.conftest import ReferenceReader, snapshot_ids, table_roots
from reference.io import LocalFileIO
from reference.spec.file_format import arrow_to_rows
from reference.spec.schema import decode_schema
from spark_impl.plan import ReadPlan, TimeTravel, plan_read
from spark_impl.read import read_split


def plan_rows(plan: ReadPlan) -> list[tuple[Any, ...]]:
    """Every row of a planned read, as internal values."""
    schema = plan.schema
    file_schemas = {i: decode_schema(text) for i, text in plan.file_schema_jsons.items()}
    rows: list[tuple[Any, ...]] = []
    for split in plan.splits:
        table = read_split(LocalFileIO(), split, schema, file_schemas)
        rows += arrow_to_rows(table, list(schema.fields))
    return rows


def read_rows(root: Path, travel: TimeTravel) -> Counter[tuple[Any, ...]]:
    return Counter(plan_rows(plan_read(LocalFileIO(), str(root), travel)))


def test_every_table_at_every_snapshot(
    third_party: Path, reference_reader: ReferenceReader
) -> None:
    checked = 0
    for root in table_roots(third_party):
        for snapshot_id in snapshot_ids(root):
            expected = reference_reader(root, snapshot_id=snapshot_id)
            assert read_rows(root, TimeTravel(snapshot_id=snapshot_id)) == expected, (
                root.name,
                snapshot_id,
            )
            checked += 1
    assert checked >= 28


@pytest.mark.parametrize(
    "name",
    [
        "append_09",
        "append_table_with_alter_table",
        "append_with_bitmap",
        "append_with_bsi",
        "pk_09",
        "pk_table_partial_update",
        "pk_table_scan_and_read_dv",
        "pk_table_with_mor",
    ],
)
def test_latest(third_party: Path, reference_reader: ReferenceReader, name: str) -> None:
    root = third_party / "paimon-cpp" / "parquet" / f"{name}.db" / name
    expected = reference_reader(root)
    assert read_rows(root, TimeTravel()) == expected
