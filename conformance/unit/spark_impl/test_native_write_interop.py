"""Java Paimon 0.9 reads every kind of file spark_impl's native writer produces: every column
type the native route takes (in one table, nulls included), bucket-unaware and fixed-bucket
(JVM-hashed) layouts, partitions, several files per bucket, and an overwrite; the reference
reads the same rows (the oracle for what was written)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.spark_impl.test_native_write import FIELDS, SQL, expected_row
from reference.io import LocalFileIO
from reference.table import Table

pytestmark = [pytest.mark.java, pytest.mark.spark]

IO = LocalFileIO()
LAYOUTS = {
    "unaware": {"bucket": "-1"},
    "fixed-bucket": {"bucket": "3", "bucket-key": "k"},
    "uncompressed": {"bucket": "-1", "file.compression": "none"},
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_java_reads_native_files(
    spark: Any, java_harness: Any, tmp_path: Path, layout: str
) -> None:
    from spark_impl.native_write import native_write_refusal, write_table  # noqa: PLC0415

    root = str(tmp_path / layout)
    Table.create(IO, root, FIELDS, partition_keys=["dt"], options=LAYOUTS[layout])
    assert native_write_refusal(Table.open(IO, root).schema(), root) is None
    frame = spark.sql(SQL.format(start=0, end=200)).repartition(4)  # several files per bucket
    assert write_table(frame, root) is not None
    assert write_table(spark.sql(SQL.format(start=200, end=230)), root) is not None
    expected = Counter(expected_row(i) for i in range(230))
    assert Counter(tuple(r) for _, r in Table.open(IO, root).read().rows) == expected
    assert Counter(java_harness.read(root).values()) == expected
    write_table(spark.sql(SQL.format(start=500, end=510)), root, mode="overwrite")
    expected = Counter(expected_row(i) for i in range(500, 510))
    assert Counter(java_harness.read(root).values()) == expected
    assert Counter(java_harness.read(root, snapshot_id=2).values()) == Counter(
        expected_row(i) for i in range(230)
    )
