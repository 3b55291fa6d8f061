"""spark_impl.placement: buckets reach the Spark task chosen for them, one bucket per task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reference.io import LocalFileIO
from reference.spec import types as t
from reference.table import Table
from spark_impl.placement import (
    compute_spark_int_partitions,
    compute_task_keys,
    task_key_column,
)

SPARK_PARTITIONS_OF_SMALL_INTS = {2: [1, 1, 0, 1], 4: [3, 3, 2, 3]}
"""Where Spark's ``repartition(n, <int>)`` sends the ints 0..3 (Murmur3 x86_32, seed 42): by
hash, three of four buckets share one task."""


@pytest.mark.parametrize(("tasks", "expected"), sorted(SPARK_PARTITIONS_OF_SMALL_INTS.items()))
def test_spark_int_partitions(tasks: int, expected: list[int]) -> None:
    assert compute_spark_int_partitions(np.arange(4), tasks).tolist() == expected


@pytest.mark.parametrize("tasks", [1, 2, 3, 4, 40, 256])
def test_task_keys_reach_every_task(tasks: int) -> None:
    keys = compute_task_keys(tasks)
    assert compute_spark_int_partitions(np.array(keys), tasks).tolist() == list(range(tasks))


def test_task_count_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        compute_task_keys(0)


@pytest.mark.spark
@pytest.mark.parametrize("tasks", [2, 4, 7])
def test_spark_places_bucket_on_its_task(spark: Any, tasks: int) -> None:
    from pyspark.sql import functions as F  # noqa: PLC0415

    frame = spark.range(200).selectExpr("cast(id % 16 as int) as bucket")
    placed = frame.repartition(tasks, task_key_column("bucket", tasks))
    rows = placed.select("bucket", F.spark_partition_id().alias("task")).distinct().collect()
    assert {(r.bucket, r.task) for r in rows} == {(b, b % tasks) for b in range(16)}


@pytest.mark.spark
@pytest.mark.parametrize("buckets", [1, 4, 5])
def test_placed_write_reads_back(spark: Any, tmp_path: Path, buckets: int) -> None:
    """Writes shuffled with one task per bucket keep every row, one level-0 run per bucket."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "t")
    fields = [t.DataField(0, "k", t.BigIntType(nullable=False)), t.DataField(1, "v", t.IntType())]
    options = {"bucket": str(buckets), "write-only": "true"}
    Table.create(LocalFileIO(), root, fields, primary_keys=["k"], options=options)
    spark_impl.write_table(spark.range(1000).selectExpr("id as k", "cast(id as int) as v"), root)
    result = Table.open(LocalFileIO(), root).read()
    assert sorted(row for _, row in result.rows) == [(i, i) for i in range(1000)]
    assert result.plan is not None
    assert sorted(len(split.files) for split in result.plan.splits) == [1] * buckets
