"""spark_impl reads the Paimon 1.x tables of ``../shared/third-party`` (issue 22 items 4-6) to the
rows their READMEs state (the same expectations as the reference's
``test_read_1x_tables``): through the planner and split reader, and through the ``paimon`` data
source at the latest snapshot; the BLOB table's values are the ``.bin`` files its README names."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conformance.unit.reference.store.test_read_1x_tables import (
    CASES,
    README_ROWS,
    blob_table_root,
    blob_table_rows,
    table_root,
)
from conformance.unit.spark_impl.test_read import read_rows
from reference.errors import UnsupportedFeature
from reference.io import LocalFileIO
from reference.spec import types as t
from spark_impl.plan import LATEST, TimeTravel
from spark_impl.read_files import read_data_file


@pytest.mark.parametrize(("name", "snapshot_id"), CASES)
def test_split_reader_reads_the_readme_rows(
    third_party: Path, name: str, snapshot_id: int | None
) -> None:
    travel = LATEST if snapshot_id is None else TimeTravel(snapshot_id=snapshot_id)
    rows = read_rows(table_root(third_party, name), travel)
    assert rows == Counter(README_ROWS[name, snapshot_id])


def test_split_reader_reads_the_blob_table(third_party: Path) -> None:
    rows = read_rows(blob_table_root(third_party), LATEST)
    assert rows == Counter(blob_table_rows(third_party))


@pytest.mark.spark
def test_data_source_reads_the_readme_rows(spark: Any, third_party: Path) -> None:
    for name in sorted({name for name, _ in README_ROWS}):
        rows = spark.read.format("paimon").load(str(table_root(third_party, name))).collect()
        assert Counter(tuple(row) for row in rows) == Counter(README_ROWS[name, None]), name


@pytest.mark.spark
def test_data_source_reads_blob_as_binary(spark: Any, third_party: Path) -> None:
    frame = spark.read.format("paimon").load(str(blob_table_root(third_party)))
    assert frame.schema["f5"].dataType.simpleString() == "binary"
    rows = frame.orderBy("f1", "f2").collect()
    expected = sorted(blob_table_rows(third_party), key=lambda row: (row[1], row[2]))
    assert [tuple(bytes(v) if isinstance(v, bytearray) else v for v in r) for r in rows] == expected


def test_a_blob_column_inside_a_parquet_file_is_refused(tmp_path: Path) -> None:
    """``reference.spec.blob`` rule 5: descriptors or views, not bytes: refused, naming options."""
    path = tmp_path / "data-0.parquet"
    pq.write_table(pa.table({"f5": pa.array([b"descriptor"], pa.binary())}), path)
    field = t.DataField(5, "f5", t.BlobType())
    with pytest.raises(UnsupportedFeature, match="blob-descriptor-field"):
        read_data_file(LocalFileIO(), str(path), [field])
