"""``scan.fallback-branch`` through the paimon source (``spark_impl/fallback.py``): what Spark
users read from a table whose main branch lacks partitions, against the rows the scenario
states, the reference's read and Java 0.9's read (``fallback_helpers``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import spark_impl
from conformance.java.harness import JavaHarness
from conformance.unit.reference.store.fallback_helpers import (
    BRANCH,
    EXPECTED_AT_MAIN_FIRST,
    EXPECTED_AT_MAIN_SECOND,
    EXPECTED_LATEST,
    alter_branch,
    write_java_table,
    write_reference_table,
)
from conformance.unit.spark_impl.conftest import ReferenceReader
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row
from reference.spec.schema import AddColumn
from reference.table import Table

pytestmark = pytest.mark.spark


def spark_rows(spark: Any, root: Path, **options: str) -> list[Row]:
    frame = spark.read.format("paimon").options(**options).load(str(root))
    return sorted(tuple(row) for row in frame.collect())


def hybrid_rows(spark: Any, root: Path, **options: str) -> list[Row]:
    """The same read through ``spark_impl.read_table`` (Spark's own reader where no merge)."""
    frame = spark_impl.read_table(spark, str(root), **options)
    return sorted(tuple(row) for row in frame.collect())


@pytest.mark.slow
def test_spark_reads_partitions_main_lacks_from_the_fallback_branch(
    spark: Any, tmp_path: Path, reference_reader: ReferenceReader
) -> None:
    table = write_reference_table(tmp_path / "t")
    first, second = table.main_snapshots
    assert spark_rows(spark, table.root) == EXPECTED_LATEST
    assert Counter(EXPECTED_LATEST) == reference_reader(table.root)
    at_second = spark_rows(spark, table.root, **{"scan.snapshot-id": str(second)})
    assert at_second == EXPECTED_AT_MAIN_SECOND
    at_first = spark_rows(spark, table.root, **{"scan.snapshot-id": str(first)})
    assert at_first == EXPECTED_AT_MAIN_FIRST
    frame = spark.read.format("paimon").load(str(table.root))
    assert sorted(tuple(r) for r in frame.where("pt = 2").select("v").collect()) == [
        ("lion",),
        ("wolf",),
    ]


def test_spark_refuses_a_fallback_branch_of_another_row_type(spark: Any, tmp_path: Path) -> None:
    root = write_reference_table(tmp_path / "t").root
    alter_branch(Table.open(LocalFileIO(), str(root)), BRANCH, [AddColumn(("v2",), t.IntType())])
    with pytest.raises(Exception, match=r"scan\.fallback-branch.*row type"):
        spark_rows(spark, root)


@pytest.mark.java
@pytest.mark.parametrize("rows", [spark_rows, hybrid_rows], ids=["source", "read_table"])
def test_spark_reads_a_java_written_table_as_java_does(
    spark: Any, tmp_path: Path, java_harness: JavaHarness, rows: Callable[..., list[Row]]
) -> None:
    table = write_java_table(java_harness, tmp_path / "t")
    first, second = table.main_snapshots
    assert rows(spark, table.root) == sorted(java_harness.read(table.root).values())
    assert rows(spark, table.root) == EXPECTED_LATEST
    for snapshot_id in (first, second):
        java = sorted(java_harness.read(table.root, snapshot_id=snapshot_id).values())
        assert rows(spark, table.root, **{"scan.snapshot-id": str(snapshot_id)}) == java
