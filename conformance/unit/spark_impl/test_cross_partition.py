"""Cross-partition-update tables written through spark_impl (``spark_impl/cross_partition.py``):
the same workloads written by ``spark_impl.write_table`` and by the reference must read alike
(reference reader and paimon source), equal the rows stated here, and read so in Java 0.9."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.java.harness import JavaHarness
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.table import Table

pytestmark = pytest.mark.spark

FIELDS = (
    t.DataField(0, "pt", t.IntType(nullable=False)),
    t.DataField(1, "k", t.IntType(nullable=False)),
    t.DataField(2, "v", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(3, "w", t.VarCharType(t.MAX_LENGTH)),
)
SPARK_SCHEMA = "pt INT, k INT, v STRING, w STRING, _ROW_KIND STRING"

Batch = Sequence[tuple[RowKind, Row]]
INSERT = RowKind.INSERT
WORKLOAD: tuple[Batch, ...] = (
    # a first batch (bulk load): key 1 twice in two partitions, the later row wins
    ((INSERT, (1, 1, "a", "x")), (INSERT, (1, 2, "b", "x")), (INSERT, (2, 1, "c", "x"))),
    # key 2 moves from partition 1 to 2, key 3 is new
    ((INSERT, (2, 2, "d", "y")), (INSERT, (3, 3, "e", "y"))),
    # key 3 deleted, key 1 moves to partition 3 and back to 1 in one batch
    ((RowKind.DELETE, (3, 3, None, None)), (INSERT, (3, 1, "f", None)), (INSERT, (1, 1, "g", "z"))),
)
EXPECTED_DEDUPLICATE = [(1, 1, "g", "z"), (2, 2, "d", "y")]
"""deduplicate moves a key to the partition of its latest row (deleting it where it was)."""
PARTIAL_UPDATE_WORKLOAD: tuple[Batch, ...] = (
    *WORKLOAD[:2],
    ((INSERT, (3, 1, "f", None)), (INSERT, (1, 1, None, "z"))),
)
EXPECTED_PARTIAL_UPDATE = [(1, 1, "f", "z"), (1, 2, "d", "y"), (3, 3, "e", "y")]
"""partial-update keeps a key in the partition it was first written to, merging non-nulls
(partial-update refuses deletes by default, so this workload has none)."""


def create(root: Path, merge_engine: str = "deduplicate") -> Table:
    return Table.create(
        LocalFileIO(),
        str(root),
        FIELDS,
        partition_keys=["pt"],
        primary_keys=["k"],
        options={"merge-engine": merge_engine},
    )


def write_spark(spark: Any, root: Path, batch: Batch) -> None:
    import spark_impl  # noqa: PLC0415

    rows = [(*row, kind.short_string) for kind, row in batch]
    spark_impl.write_table(spark.createDataFrame(rows, SPARK_SCHEMA), str(root))


def reference_rows(root: Path) -> list[Row]:
    return sorted(row for _, row in Table.open(LocalFileIO(), str(root)).read().rows)


def spark_rows(spark: Any, root: Path) -> list[Row]:
    return sorted(tuple(r) for r in spark.read.format("paimon").load(str(root)).collect())


def write_both(spark: Any, ours: Table, theirs: Table, workload: tuple[Batch, ...]) -> None:
    """Each batch through spark_impl and through the reference; after each, the reference
    reads both tables alike."""
    for batch in workload:
        write_spark(spark, Path(ours.root), batch)
        theirs.write_and_commit([row for _, row in batch], [kind for kind, _ in batch])
        assert reference_rows(Path(ours.root)) == reference_rows(Path(theirs.root))


@pytest.mark.java
def test_spark_moves_and_deletes_keys_across_partitions(
    spark: Any, tmp_path: Path, java_harness: JavaHarness
) -> None:
    ours, theirs = create(tmp_path / "spark"), create(tmp_path / "ref")
    write_both(spark, ours, theirs, WORKLOAD)
    assert reference_rows(Path(ours.root)) == EXPECTED_DEDUPLICATE
    assert spark_rows(spark, Path(ours.root)) == EXPECTED_DEDUPLICATE
    assert sorted(java_harness.read(ours.root).values()) == EXPECTED_DEDUPLICATE


@pytest.mark.slow
def test_partial_update_keeps_keys_in_their_first_partition(spark: Any, tmp_path: Path) -> None:
    engine = "partial-update"
    ours, theirs = create(tmp_path / "spark", engine), create(tmp_path / "ref", engine)
    write_both(spark, ours, theirs, PARTIAL_UPDATE_WORKLOAD)
    assert reference_rows(Path(ours.root)) == EXPECTED_PARTIAL_UPDATE
    assert spark_rows(spark, Path(ours.root)) == EXPECTED_PARTIAL_UPDATE
