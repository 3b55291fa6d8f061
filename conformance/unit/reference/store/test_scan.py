"""reference.store.scan: pruning by statistics keeps every file that may match."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.predicate import equal
from reference.table import Table

FIELDS = (
    t.DataField(0, "k", t.BigIntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
)


def test_columns_outside_value_stats_cols_are_not_pruned(tmp_path: Path) -> None:
    """pypaimon 2.1 writes ``_VALUE_STATS_COLS = []`` (statistics of no column). A column the
    file has but whose statistics are absent may hold any value: a filter on it must not prune
    the file (it once did, as if the column were missing from the file, i.e. all null)."""
    catalog = pytest.importorskip("pypaimon").CatalogFactory
    root = tmp_path / "db.db" / "t"
    Table.create(LocalFileIO(), str(root), FIELDS, options={"bucket": "-1"})
    table = catalog.create({"warehouse": str(tmp_path)}).get_table("db.t")
    builder = table.new_batch_write_builder()
    writer = builder.new_write()
    writer.write_arrow(pa.table({"k": pa.array([1, 2], pa.int64()), "v": ["a", "b"]}))
    builder.new_commit().commit(writer.prepare_commit())
    result = Table.open(LocalFileIO(), str(root)).read(predicate=equal("v", "b"))
    assert result.plan is not None
    assert [meta.value_stats_cols for s in result.plan.splits for meta in s.files] == [()]
    assert [row for _, row in result.rows] == [(2, "b")]
