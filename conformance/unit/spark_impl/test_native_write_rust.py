"""pypaimon-rust 0.4 (a second reader, independent of Java and of this repository) reads every
kind of file spark_impl's native writer produces: unpartitioned, partitioned and fixed-bucket
(JVM-hashed) layouts, each Parquet codec the native route takes (``zstd``, ``snappy``,
``gzip``, ``none``) and each column type it writes natively (BOOLEAN, TINYINT..BIGINT, FLOAT,
DOUBLE, DECIMAL in its three Parquet encodings, STRING, BYTES, DATE, TIMESTAMP(4..6)), nulls
included. The oracle of what was written is the rows put in (:func:`expected_row`) and the
reference's read; spark_impl never reads its own files here.

Java 0.9 reading the same kinds is ``test_native_write_interop.py``."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from conformance.unit.spark_impl.test_native_write import FIELDS, SQL, expected_row
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.file_format import arrow_to_rows
from reference.table import Table

pytestmark = [pytest.mark.spark]

IO = LocalFileIO()
DATABASE = "db"
KINDS: dict[str, tuple[dict[str, str], list[str]]] = {
    "partitioned": ({"bucket": "-1"}, ["dt"]),
    "unpartitioned": ({"bucket": "-1"}, []),
    "fixed-bucket": ({"bucket": "3", "bucket-key": "k"}, ["dt"]),
    "unpartitioned-fixed-bucket": ({"bucket": "2", "bucket-key": "k"}, []),
    **{
        f"codec-{codec}": ({"bucket": "-1", "file.compression": codec}, ["dt"])
        for codec in ("zstd", "snappy", "gzip", "none")
    },
}
"""Table kind -> (options, partition keys); every kind holds every column of ``FIELDS``."""
DEFAULT_TIER = "partitioned"
"""The one kind in the default tier; the others are ``slow`` (a Spark write each)."""
OTHER_FIELDS = (
    t.DataField(0, "k", t.BigIntType(nullable=False)),
    t.DataField(1, "small", t.SmallIntType()),
    t.DataField(2, "i", t.IntType()),
    t.DataField(3, "r", t.FloatType()),
    t.DataField(4, "d9", t.DecimalType(9, 2)),
    t.DataField(5, "ts4", t.TimestampType(4)),
    t.DataField(6, "ts5", t.TimestampType(5)),
    t.DataField(7, "s", t.VarCharType(t.MAX_LENGTH)),
)
"""The natively written types ``FIELDS`` lacks (DECIMAL(9, 2) is Parquet's INT32 encoding)."""
OTHER_SQL = """
SELECT id AS k, CAST(id - 100 AS SMALLINT) AS small,
       IF(id % 3 = 0, NULL, CAST(id * 7 - 500 AS INT)) AS i, CAST(id AS FLOAT) / 4 AS r,
       CAST(id / 8 - 3 AS DECIMAL(9, 2)) AS d9,
       TIMESTAMP_NTZ'2024-02-29 12:00:00' + make_interval(0, 0, 0, 0, 0, 0, id * 0.0001) AS ts4,
       IF(id % 4 = 1, NULL, TIMESTAMP_NTZ'1969-12-31 23:59:59'
          + make_interval(0, 0, 0, 0, 0, 0, id * 0.00001)) AS ts5,
       concat('v', id) AS s
FROM range(0, 240)
"""


def _warehouse_root(tmp_path: Path, name: str) -> str:
    """A table root pypaimon-rust's filesystem catalog finds (``<warehouse>/<db>.db/<name>``)."""
    return str(tmp_path / "warehouse" / f"{DATABASE}.db" / name)


def rust_rows(root: str, fields: Any) -> Counter[tuple[Any, ...]]:
    """The latest snapshot's rows as pypaimon-rust reads them, in the reference's internal form."""
    datafusion = pytest.importorskip("pypaimon_rust.datafusion")
    table_dir = Path(root)
    catalog = datafusion.PaimonCatalog({"warehouse": str(table_dir.parent.parent)})
    table = catalog.get_table((DATABASE, table_dir.name))
    builder = table.new_read_builder()
    batches = builder.new_read().read(builder.new_scan().plan().splits())
    if not batches:
        return Counter()
    return Counter(arrow_to_rows(pa.Table.from_batches(batches), fields))


def reference_rows(root: str) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(r) for _, r in Table.open(IO, root).read().rows)


@pytest.mark.parametrize(
    "kind",
    [k if k == DEFAULT_TIER else pytest.param(k, marks=pytest.mark.slow) for k in sorted(KINDS)],
)
def test_rust_reads_native_files(spark: Any, tmp_path: Path, kind: str) -> None:
    """Two appends (several files per bucket) then an overwrite: pypaimon-rust reads the rows
    put in, at each state."""
    from spark_impl.native_write import native_write_refusal, write_table  # noqa: PLC0415

    options, partition_keys = KINDS[kind]
    root = _warehouse_root(tmp_path, kind.replace("-", "_"))
    Table.create(IO, root, FIELDS, partition_keys=partition_keys, options=options)
    assert native_write_refusal(Table.open(IO, root).schema(), root) is None
    assert write_table(spark.sql(SQL.format(start=0, end=200)).repartition(3), root) is not None
    assert write_table(spark.sql(SQL.format(start=200, end=230)), root) is not None
    expected = Counter(expected_row(i) for i in range(230))
    assert reference_rows(root) == expected
    assert rust_rows(root, FIELDS) == expected
    write_table(spark.sql(SQL.format(start=500, end=510)), root, mode="overwrite")
    assert rust_rows(root, FIELDS) == Counter(expected_row(i) for i in range(500, 510))


@pytest.mark.slow
def test_rust_reads_every_native_type(spark: Any, tmp_path: Path) -> None:
    """SMALLINT, INT, FLOAT, DECIMAL(9, 2), TIMESTAMP(4) and TIMESTAMP(5) (the rest are in
    ``FIELDS``): pypaimon-rust and the reference read the same 240 rows."""
    from spark_impl.native_write import native_write_refusal, write_table  # noqa: PLC0415

    root = _warehouse_root(tmp_path, "types")
    Table.create(IO, root, OTHER_FIELDS, options={"bucket": "-1"})
    assert native_write_refusal(Table.open(IO, root).schema(), root) is None
    assert write_table(spark.sql(OTHER_SQL).repartition(2), root) is not None
    expected = reference_rows(root)
    assert sorted(row[0] for row in expected.elements()) == list(range(240))
    by_key = {row[0]: row for row in expected}
    assert by_key[8][1:5] == (-92, -444, 2.0, Decimal("-2.00"))
    assert by_key[9][2] is None and by_key[5][6] is None
    assert rust_rows(root, OTHER_FIELDS) == expected
