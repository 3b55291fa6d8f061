"""spark_impl reading format tables (``spark_impl.format_table``, the ``paimon`` source with
``type = format-table``) and object tables, against the reference's readers.

The format tables are written by pyarrow as plain files (CSV with doubled quotes, Parquet, ORC;
partitioned with ``key=value`` directories, a default-partition directory and hidden files
that must be skipped), so neither side reads what it wrote itself.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.orc as pa_orc
import pyarrow.parquet as pq
import pytest

from reference import format_table as ref
from reference.errors import InvalidOptionError
from reference.io import LocalFileIO
from reference.object_table import OBJECT_FIELDS, refresh_object_table
from reference.spec import types as t
from reference.table import Table
from spark_impl import format_table as mine

IO = LocalFileIO()
FIELDS = (
    t.DataField(0, "id", t.IntType()),
    t.DataField(1, "s", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(2, "x", t.DoubleType()),
    t.DataField(3, "dt", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(4, "hr", t.IntType()),
)
PARTITIONS = {
    ("2024-01-01", "1"): [(1, 'say "hi"', 1.5), (2, "a,b", None)],
    ("2024-01-01", "2"): [(3, None, 2.0)],
    ("__DEFAULT_PARTITION__", "3"): [(4, "plain", -1.0)],
}


def write_files(root: Path, fmt: str) -> None:
    """One pyarrow file per partition, plus files Paimon must skip."""
    for (dt, hr), rows in PARTITIONS.items():
        directory = root / f"dt={dt}" / f"hr={hr}"
        directory.mkdir(parents=True)
        table = pa.table(
            {
                "id": pa.array([r[0] for r in rows], pa.int32()),
                "s": pa.array([r[1] for r in rows], pa.string()),
                "x": pa.array([r[2] for r in rows], pa.float64()),
            }
        )
        path = directory / f"part-0.{fmt}"
        if fmt == "csv":
            options = pa_csv.WriteOptions(include_header=False, quoting_style="needed")
            pa_csv.write_csv(table, path, options)
        elif fmt == "parquet":
            pq.write_table(table, path)
        else:
            pa_orc.write_table(table, path)
        (directory / "_SUCCESS").write_bytes(b"")
    (root / ".staging").mkdir()
    (root / ".staging" / "junk").write_bytes(b"not data")


def format_table(root: Path, fmt: str, **options: str) -> ref.FormatTable:
    return ref.FormatTable(
        location=str(root),
        fields=FIELDS,
        partition_keys=("dt", "hr"),
        format=ref.parse_format(fmt),
        options={"file.format": fmt, **options},
    )


def spark_rows(frame: Any) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(row) for row in frame.collect())


@pytest.mark.parametrize("fmt", ["csv", "parquet", "orc"])
def test_a_format_table_reads_as_the_reference_reads_it(
    spark: Any, tmp_path: Path, fmt: str
) -> None:
    write_files(tmp_path, fmt)
    table = format_table(tmp_path, fmt)
    expected = Counter(ref.read_format_table(IO, table))
    assert sum(expected.values()) == 4
    assert (1, 'say "hi"', 1.5, "2024-01-01", 1) in expected  # one quote, as Paimon's parser
    assert (4, "plain", -1.0, None, 3) in expected  # the default partition name is null
    assert spark_rows(mine.read_format_table(spark, table)) == expected


def test_the_paimon_source_reads_a_format_table_with_a_spark_schema(
    spark: Any, tmp_path: Path
) -> None:
    write_files(tmp_path, "csv")
    frame = (
        spark.read.format("paimon")
        .schema("id INT, s STRING, x DOUBLE, dt STRING, hr INT")
        .option("type", "format-table")
        .option("file.format", "csv")
        .option("partition-keys", "dt,hr")
        .load(str(tmp_path))
    )
    expected = Counter(ref.read_format_table(IO, format_table(tmp_path, "csv")))
    assert spark_rows(frame) == expected


def test_the_paimon_source_takes_the_catalog_fields(spark: Any, tmp_path: Path) -> None:
    write_files(tmp_path, "parquet")
    options = mine.compute_source_options(format_table(tmp_path, "parquet"))
    frame = spark.read.format("paimon").options(**options).load(str(tmp_path))
    assert [f.name for f in frame.schema.fields] == [f.name for f in FIELDS]
    assert sum(spark_rows(frame).values()) == 4


def test_the_engine_implementation_reads_with_spark_s_own_sources(
    spark: Any, tmp_path: Path
) -> None:
    write_files(tmp_path, "parquet")
    table = format_table(tmp_path, "parquet", **{"format-table.implementation": "engine"})
    frame = mine.read_format_table(spark, table)
    assert "paimon" not in frame._jdf.queryExecution().toString().lower()
    ids = sorted(row.id for row in frame.collect())
    assert ids == [1, 2, 3, 4]


def test_an_unknown_implementation_is_refused(tmp_path: Path) -> None:
    table = format_table(tmp_path, "csv", **{"format-table.implementation": "hive"})
    with pytest.raises(InvalidOptionError, match=r"format-table\.implementation"):
        mine.implementation_of(table)


def test_an_empty_format_table_reads_no_rows(spark: Any, tmp_path: Path) -> None:
    assert mine.read_format_table(spark, format_table(tmp_path, "orc")).count() == 0


def test_an_object_table_reads_through_the_paimon_source(spark: Any, tmp_path: Path) -> None:
    location = tmp_path / "objects"
    (location / "sub").mkdir(parents=True)
    (location / "a.txt").write_bytes(b"hello")
    (location / "sub" / "b.bin").write_bytes(b"12")
    root = str(tmp_path / "t")
    options = {"type": "object-table", "object-location": str(location)}
    Table.create(IO, root, OBJECT_FIELDS, options=options)
    refresh_object_table(IO, root)
    frame = spark.read.format("paimon").load(root).select("name", "length", "parent_path")
    assert spark_rows(frame) == Counter(
        {("a.txt", 5, f"file:{location}"): 1, ("b.bin", 2, f"file:{location / 'sub'}"): 1}
    )
    assert os.path.exists(location / "a.txt")


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

ROWS = [
    (1, 'say "hi"', 1.5, "2024-01-01", 1),
    (2, "a,b", None, "2024-01-01", 1),
    (3, None, 2.0, "2024-01-02", 2),
    (4, "plain", -1.0, None, 3),
]


def rows_frame(spark: Any, rows: list[tuple[Any, ...]]) -> Any:
    return spark.createDataFrame(rows, "id INT, s STRING, x DOUBLE, dt STRING, hr INT")


@pytest.mark.parametrize("fmt", ["csv", "parquet", "orc"])
def test_spark_impl_writes_plain_files_pyarrow_and_the_reference_read(
    spark: Any, tmp_path: Path, fmt: str
) -> None:
    table = format_table(tmp_path, fmt)
    written = mine.write_format_table(rows_frame(spark, ROWS), table)
    assert len(written) == 3  # one file per partition
    assert Counter(ref.read_format_table(IO, table)) == Counter(ROWS)
    for path in written:
        assert Path(path).name.startswith("data-") and path.endswith(f".{fmt}")
    default_partition = tmp_path / "dt=__DEFAULT_PARTITION__" / "hr=3"
    [plain] = list(default_partition.iterdir())
    if fmt == "parquet":
        assert pq.ParquetFile(plain).read().to_pylist() == [{"id": 4, "s": "plain", "x": -1.0}]
    elif fmt == "orc":
        assert pa_orc.read_table(plain).to_pylist() == [{"id": 4, "s": "plain", "x": -1.0}]
    else:
        assert plain.read_text() == "4,plain,-1.0\n"


def test_overwrites_replace_what_the_reference_replaces(spark: Any, tmp_path: Path) -> None:
    ours, theirs = tmp_path / "spark", tmp_path / "reference"
    for root in (ours, theirs):
        ref.write_format_table(IO, format_table(root, "parquet"), ROWS)
    new = [(9, "n", 0.0, "2024-01-01", 1)]
    mine.write_format_table(rows_frame(spark, new), format_table(ours, "parquet"), overwrite=True)
    ref.write_format_table(IO, format_table(theirs, "parquet"), new, overwrite=True)
    assert Counter(ref.read_format_table(IO, format_table(ours, "parquet"))) == Counter(
        ref.read_format_table(IO, format_table(theirs, "parquet"))
    )
    static = {"dt": "2024-01-02"}
    other = [(8, "m", 1.0, "2024-01-02", 5)]
    mine.write_format_table(
        rows_frame(spark, other),
        format_table(ours, "parquet"),
        overwrite=True,
        static_partition=static,
    )
    ref.write_format_table(
        IO, format_table(theirs, "parquet"), other, overwrite=True, static_partition=static
    )
    assert Counter(ref.read_format_table(IO, format_table(ours, "parquet"))) == Counter(
        ref.read_format_table(IO, format_table(theirs, "parquet"))
    )


def test_a_row_outside_the_static_partition_is_refused(spark: Any, tmp_path: Path) -> None:
    table = format_table(tmp_path, "csv")
    with pytest.raises(Exception, match="outside the static partition"):
        mine.write_format_table(
            rows_frame(spark, ROWS[:1]), table, overwrite=True, static_partition={"dt": "x"}
        )
