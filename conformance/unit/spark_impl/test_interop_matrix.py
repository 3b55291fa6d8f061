"""spark_impl reads what Java 0.9 and the reference write, one table per layout: a primary-key
table with each merge engine, deletion vectors, dynamic buckets, append tables (bucket-unaware
and fixed), all partitioned. Each writer's own read is the oracle; spark_impl reads through
``spark.read.format("paimon")`` (the latest snapshot and the first one)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.spark_impl.write_helpers import INT_FIELDS, reference_rows
from reference.io import LocalFileIO
from reference.spec.data import Row, RowKind
from reference.table import Table

pytestmark = [pytest.mark.java, pytest.mark.spark]

IO = LocalFileIO()
FIELDS = list(INT_FIELDS)
PK = ["k", "dt"]
ALL_KINDS = (RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE)
UPSERTS = (RowKind.INSERT, RowKind.UPDATE_AFTER)
INSERTS = (RowKind.INSERT,)
LAYOUTS: dict[str, tuple[list[str], dict[str, str], tuple[RowKind, ...]]] = {
    "deduplicate": (PK, {"bucket": "2"}, ALL_KINDS),
    "partial-update": (PK, {"bucket": "2", "merge-engine": "partial-update"}, UPSERTS),
    "aggregation": (
        PK,
        {"bucket": "2", "merge-engine": "aggregation", "fields.v.aggregate-function": "sum"},
        UPSERTS,
    ),
    "first-row": (PK, {"bucket": "1", "merge-engine": "first-row"}, INSERTS),
    "deletion-vectors": (PK, {"bucket": "2", "deletion-vectors.enabled": "true"}, ALL_KINDS),
    "dynamic-bucket": (PK, {"bucket": "-1", "dynamic-bucket.target-row-num": "5"}, ALL_KINDS),
    "append-unaware": ([], {"bucket": "-1"}, INSERTS),
    "append-fixed": ([], {"bucket": "3", "bucket-key": "k"}, INSERTS),
}
ROUNDS = 3
ROWS_PER_ROUND = 24

Change = tuple[RowKind, Row]


def workload(kinds: tuple[RowKind, ...]) -> list[list[Change]]:
    """Three commits over few keys with nulls, every row kind the layout takes."""
    return [
        [
            (
                kinds[(i + round_) % len(kinds)],
                (i % 9, None if i % 4 == 0 else round_ * 100 + i, "xy"[i % 2]),
            )
            for i in range(ROWS_PER_ROUND)
        ]
        for round_ in range(ROUNDS)
    ]


def spark_rows(spark: Any, root: str, **options: str) -> Counter[Row]:
    reader = spark.read.format("paimon")
    for key, value in options.items():
        reader = reader.option(key, value)
    return Counter(tuple(row) for row in reader.load(root).collect())


def write_with_java(harness: Any) -> Callable[[str, list[str], dict[str, str]], Any]:
    def write(root: str, primary_keys: list[str], options: dict[str, str]) -> Any:
        harness.create_table(
            root, FIELDS, partition_keys=["dt"], primary_keys=primary_keys, options=options
        )
        return lambda changes: harness.write(root, changes, commit=True)

    return write


def write_with_reference(root: str, primary_keys: list[str], options: dict[str, str]) -> Any:
    table = Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=primary_keys, options=options
    )

    def commit(changes: list[Change]) -> None:
        table.write_and_commit([row for _, row in changes], [kind for kind, _ in changes])

    return commit


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_spark_impl_reads_java_tables(
    spark: Any, java_harness: Any, tmp_path: Path, layout: str
) -> None:
    primary_keys, options, kinds = LAYOUTS[layout]
    root = str(tmp_path / layout)
    commit = write_with_java(java_harness)(root, primary_keys, options)
    for changes in workload(kinds):
        commit(changes)
    for snapshot_id in (1, None):
        travel = {} if snapshot_id is None else {"snapshot_id": snapshot_id}
        java = Counter(java_harness.read(root, **travel).values())
        option = {} if snapshot_id is None else {"snapshot-id": str(snapshot_id)}
        assert spark_rows(spark, root, **option) == java, snapshot_id
        assert reference_rows(IO, root, **travel) == java, snapshot_id


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_spark_impl_reads_reference_tables(spark: Any, tmp_path: Path, layout: str) -> None:
    primary_keys, options, kinds = LAYOUTS[layout]
    root = str(tmp_path / layout)
    commit = write_with_reference(root, primary_keys, options)
    for changes in workload(kinds):
        commit(changes)
    assert spark_rows(spark, root) == reference_rows(IO, root)
    first = reference_rows(IO, root, snapshot_id=1)
    assert spark_rows(spark, root, **{"snapshot-id": "1"}) == first
