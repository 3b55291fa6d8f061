"""The ``paimon`` reader's planning is a function of the table and the options, never of the
filters a query pushed (issue 18: Spark 4.3 keeps the partitions planned during one query's
filter pushdown on the relation and reuses them for later queries that push no filter)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reference.io import LocalFileIO
from reference.spec import types as t
from reference.table import Table
from spark_impl.batch_source import SplitPartition
from spark_impl.datasource import PaimonDataSource

pytestmark = pytest.mark.spark

IO = LocalFileIO()
FIELDS = [
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.IntType()),
    t.DataField(2, "dt", t.VarCharType(t.MAX_LENGTH, nullable=False)),
]
DAYS = ("2024-01-01", "2024-01-02", "2024-01-03")


def make_table(root: Path) -> str:
    """An append table over three partitions, two commits with their own value ranges."""
    table = Table.create(IO, str(root), FIELDS, partition_keys=["dt"], options={"bucket": "-1"})
    for commit in range(2):
        table.write_and_commit([(i, 50 * commit + i, DAYS[i % 3]) for i in range(30)])
    return str(root)


def planned(root: str, filters: list[Any]) -> tuple[list[SplitPartition], list[Any]]:
    """The partitions a fresh reader plans after ``pushFilters(filters)``, and what it
    handed back."""
    source = PaimonDataSource({"path": root})
    reader = source.reader(source.schema())
    returned = list(reader.pushFilters(filters))
    return [p for p in reader.partitions() if isinstance(p, SplitPartition)], returned


def test_pushed_filters_are_handed_back_and_leave_the_plan_whole(tmp_path: Path) -> None:
    from pyspark.sql.datasource import EqualTo, GreaterThan, In, IsNull  # noqa: PLC0415

    root = make_table(tmp_path / "t")
    whole, _ = planned(root, [])
    assert len(whole) == len(DAYS)
    for filters in (
        [EqualTo(("dt",), DAYS[0])],
        [GreaterThan(("v",), 60)],
        [In(("dt",), (DAYS[1],)), IsNull(("v",))],
    ):
        partitions, returned = planned(root, filters)
        assert returned == filters
        assert partitions == whole


def test_partitions_are_self_contained(tmp_path: Path) -> None:
    """What a task reads is in its partition: no pruning predicate rides along."""
    root = make_table(tmp_path / "t")
    partitions, _ = planned(root, [])
    assert all(not hasattr(p, "predicate") for p in partitions)
    assert sum(f.row_count for p in partitions for f in p.split.files) == 60
