"""spark_impl.native_write: Spark's own Parquet writer into Paimon's layout.

The rules that choose the native route are checked without Spark; the writes are checked from
the user's side (a DataFrame in, ``write_table``) against the rows put in, read back by the
reference, and the table validated by ``paimon-kit validate --deep``."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from reference.errors import InvalidOptionError, SpecViolation
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.column_stats import ColumnStats
from reference.spec.data import Timestamp
from reference.spec.schema import compute_table_schema
from reference.table import Table
from spark_impl.native_write import (
    is_type_writable,
    java_read_bounds,
    native_input_refusal,
    native_write_refusal,
    parquet_write_options,
)

IO = LocalFileIO()
ROOT = Path(__file__).resolve().parents[3]
FIELDS = (
    t.DataField(0, "k", t.BigIntType(nullable=False)),
    t.DataField(1, "d", t.DecimalType(12, 3)),
    t.DataField(2, "big", t.DecimalType(30, 4)),
    t.DataField(3, "ts", t.TimestampType(6)),
    t.DataField(4, "day", t.DateType()),
    t.DataField(5, "f", t.DoubleType()),
    t.DataField(6, "b", t.VarBinaryType(t.MAX_LENGTH)),
    t.DataField(7, "s", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(8, "tiny", t.TinyIntType()),
    t.DataField(9, "flag", t.BooleanType()),
    t.DataField(10, "dt", t.VarCharType(t.MAX_LENGTH)),
)
SQL = """
SELECT id AS k, CAST(id / 7 AS DECIMAL(12, 3)) AS d,
       IF(id % 4 = 0, NULL, CAST(id * 1000003 AS DECIMAL(30, 4)) - 5) AS big,
       TIMESTAMP_NTZ'1969-12-31 23:59:59.999999' + make_interval(0, 0, 0, 0, 0, 0, id) AS ts,
       DATE'1960-01-01' + CAST(id AS INT) AS day, CAST(id AS DOUBLE) / 3 AS f,
       CAST(CAST(id AS STRING) AS BINARY) AS b, IF(id % 5 = 0, NULL, concat('s', id)) AS s,
       CAST(id % 100 - 50 AS TINYINT) AS tiny, id % 3 = 0 AS flag,
       IF(id % 2 = 0, 'a', 'b') AS dt
FROM range({start}, {end})
"""


def expected_row(i: int) -> tuple[Any, ...]:
    """Row ``i`` of :data:`SQL` as the reference holds it."""
    micros = -1 + i * 1_000_000
    millis, micro = divmod(micros, 1000)
    return (
        i,
        (Decimal(i) / 7).quantize(Decimal("0.001")),
        None if i % 4 == 0 else Decimal(i * 1000003 - 5).quantize(Decimal("0.0001")),
        Timestamp(millis, micro * 1000),
        -3653 + i,
        i / 3.0,
        str(i).encode(),
        None if i % 5 == 0 else f"s{i}",
        i % 100 - 50,
        i % 3 == 0,
        "ab"[i % 2],
    )


def schema_of(fields: Any, options: dict[str, str], primary_keys: tuple[str, ...] = ()) -> Any:
    """Schema 0 of a table created with ``fields``, ``options`` and ``primary_keys``."""
    return compute_table_schema(
        0,
        fields,
        partition_keys=(),
        primary_keys=primary_keys,
        options=options,
        comment=None,
        time_millis=0,
    )


@pytest.mark.parametrize(
    ("data_type", "writable"),
    [
        (t.BigIntType(), True),
        (t.DecimalType(38, 10), True),
        (t.VarCharType(t.MAX_LENGTH), True),
        (t.VarCharType(10), False),
        (t.CharType(3), False),
        (t.TimestampType(6), True),
        (t.TimestampType(3), False),
        (t.TimestampType(9), False),
        (t.LocalZonedTimestampType(6), False),
        (t.ArrayType(t.IntType()), False),
    ],
)
def test_which_types_spark_writes_as_java(data_type: t.DataType, writable: bool) -> None:
    assert is_type_writable(data_type) is writable


def test_which_tables_are_written_natively(tmp_path: Path) -> None:
    root = str(tmp_path)
    plain = [t.DataField(0, "k", t.IntType()), t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH))]
    assert native_write_refusal(schema_of(plain, {"bucket": "-1"}), root) is None
    assert native_write_refusal(schema_of(plain, {"bucket": "2", "bucket-key": "k"}), root) is None
    refused = {
        "a primary-key table": schema_of(plain, {"bucket": "1"}, ("k",)),
        "file.format is not parquet": schema_of(plain, {"bucket": "-1", "file.format": "orc"}),
        "file.compression": schema_of(plain, {"bucket": "-1", "file.compression": "lz4"}),
        "file indexes": schema_of(plain, {"bucket": "-1", "file-index.bloom-filter.columns": "v"}),
        "bucket key": schema_of(plain, {"bucket": "2", "bucket-key": "v"}),
    }
    for reason, schema in refused.items():
        assert native_write_refusal(schema, root) == reason
    assert native_write_refusal(schema_of(plain, {"bucket": "-1"}), "s3://b/t") == (
        "not a local table"
    )


def test_float_bounds_as_java_reads_them() -> None:
    """Spark's footer keeps +0.0 for a zero bound; Java (parquet-mr, PARQUET-1222) reads a zero
    min as -0.0 and a NaN bound as no bounds: both native routes record what Java would."""
    zero = java_read_bounds(ColumnStats(0.0, 0.0, 1), t.DoubleType())
    assert (str(zero.min), str(zero.max), zero.null_count) == ("-0.0", "0.0", 1)
    assert java_read_bounds(ColumnStats(float("nan"), 2.0, 0), t.FloatType()) == ColumnStats(
        None, None, 0
    )
    assert java_read_bounds(ColumnStats(0, 5, 0), t.IntType()) == ColumnStats(0, 5, 0)


def test_zstd_level_as_java_hands_it_to_parquet() -> None:
    """Java 0.9's ``ParquetFileFormat`` gives parquet-mr ``file.compression.zstd-level``
    (default 1) unless the table sets ``parquet.compression.codec.zstd.level`` itself; Spark's
    writer, left alone, would compress at parquet-mr's 3."""
    plain = [t.DataField(0, "k", t.IntType())]
    level = "parquet.compression.codec.zstd.level"

    def options_of(options: dict[str, str]) -> dict[str, str]:
        return parquet_write_options(schema_of(plain, {"bucket": "-1", **options}))

    assert options_of({}) == {"compression": "zstd", level: "1"}
    assert options_of({"file.compression.zstd-level": "9"})[level] == "9"
    assert options_of({"file.compression.zstd-level": "9", level: "5"})[level] == "5"
    assert options_of({"file.compression": "SNAPPY"})["compression"] == "snappy"
    with pytest.raises(InvalidOptionError, match=level):
        options_of({level: "high"})


def test_which_calls_are_written_natively() -> None:
    """Only a plain append or overwrite goes native: write options and row kinds are the
    Python writer's (a static-partition overwrite must not replace the whole table)."""
    assert native_input_refusal(["k", "v"], "append", {}) is None
    assert native_input_refusal(["k", "v"], "overwrite", {}) is None
    assert native_input_refusal(["k"], "ignore", {}) == "mode 'ignore'"
    static = {"static-partition": '{"dt": "a"}'}
    assert native_input_refusal(["k"], "overwrite", static) == "write options ['static-partition']"
    assert native_input_refusal(["k", "_ROW_KIND"], "append", {}) == "a _ROW_KIND column"
    plain = [t.DataField(0, "k", t.IntType()), t.DataField(1, "rk", t.VarCharType(2))]
    by_field = schema_of(plain, {"bucket": "-1", "rowkind.field": "rk"})
    assert native_write_refusal(by_field, "/tmp/t") == "rowkind.field"


@pytest.mark.spark
def test_row_kinds_go_to_the_python_writer(spark: Any, tmp_path: Path) -> None:
    """A ``_ROW_KIND`` column holding a retraction is refused by an append table as the
    Python writer refuses it (it was written as an insert), and nothing is committed."""
    from spark_impl.native_write import write_table  # noqa: PLC0415

    root = str(tmp_path / "t")
    plain = [t.DataField(0, "k", t.IntType()), t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH))]
    Table.create(IO, root, plain, options={"bucket": "-1"})
    frame = spark.createDataFrame(
        [(1, "a", "+I"), (2, "b", "-D")], "k INT, v STRING, _ROW_KIND STRING"
    )
    with pytest.raises(Exception, match="append table accepts only"):
        write_table(frame, root)
    assert Table.open(IO, root).latest_snapshot() is None


def validate_deep(root: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "paimon_kit.cli", "validate", "--deep", "--all-snapshots"]
    return subprocess.run([*command, root], capture_output=True, text=True, cwd=ROOT, check=False)


@pytest.mark.spark
@pytest.mark.parametrize("options", [{"bucket": "-1"}, {"bucket": "3", "bucket-key": "k"}])
def test_native_append_and_overwrite(spark: Any, tmp_path: Path, options: dict[str, str]) -> None:
    """Two appends and an overwrite: the reference reads exactly the rows written, the files
    sit in Paimon's bucket directories with Paimon's names, and the table validates."""
    from spark_impl.native_write import write_table  # noqa: PLC0415

    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, partition_keys=["dt"], options=options)
    assert write_table(spark.sql(SQL.format(start=0, end=300)), root) is not None
    assert write_table(spark.sql(SQL.format(start=300, end=310)), root) is not None
    rows = Counter(tuple(r) for _, r in Table.open(IO, root).read().rows)
    assert rows == Counter(expected_row(i) for i in range(310))
    names = [p.name for p in Path(root).glob("dt=*/bucket-*/*")]
    assert names and all(n.startswith("data-") and n.endswith(".parquet") for n in names)
    assert not list(Path(root).glob("_native-write-*")), "the staging directory is removed"
    outcome = write_table(spark.sql(SQL.format(start=1000, end=1004)), root, mode="overwrite")
    assert outcome is not None and outcome.snapshots[0].commit_kind.value == "OVERWRITE"
    rows = Counter(tuple(r) for _, r in Table.open(IO, root).read().rows)
    assert rows == Counter(expected_row(i) for i in range(1000, 1004))
    result = validate_deep(root)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.spark
def test_not_null_and_fallback(spark: Any, tmp_path: Path) -> None:
    """A null in a NOT NULL column fails the write naming the column and commits nothing; a
    primary-key table is written by the Python writer (``None`` returned)."""
    from spark_impl.native_write import write_table  # noqa: PLC0415

    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, partition_keys=["dt"], options={"bucket": "-1"})
    bad = spark.sql(SQL.format(start=0, end=5)).selectExpr(
        "IF(k = 3, NULL, k) AS k", *[f.name for f in FIELDS[1:]]
    )
    with pytest.raises(SpecViolation, match="column 'k' is NOT NULL") as error:
        write_table(bad, root)
    assert error.value.code == "NULL_IN_NOT_NULL_COLUMN"
    # A non-nullable STRING whose cast to BIGINT makes a null (ANSI mode off) is checked too.
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        cast_null = spark.sql(SQL.format(start=0, end=5)).selectExpr(
            "IF(k = 3, 'x', CAST(k AS STRING)) AS k", *[f.name for f in FIELDS[1:]]
        )
        assert not cast_null.schema["k"].nullable
        with pytest.raises(SpecViolation, match="column 'k' is NOT NULL"):
            write_table(cast_null, root)
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")
    assert Table.open(IO, root).latest_snapshot() is None
    assert not [p for p in Path(root).rglob("*.parquet")]
    pk_root = str(tmp_path / "pk")
    Table.create(
        IO,
        pk_root,
        FIELDS,
        partition_keys=["dt"],
        primary_keys=["k", "dt"],
        options={"bucket": "1"},
    )
    assert write_table(spark.sql(SQL.format(start=0, end=20)), pk_root) is None
    rows = Counter(tuple(r) for _, r in Table.open(IO, pk_root).read().rows)
    assert rows == Counter(expected_row(i) for i in range(20))


@pytest.mark.spark
def test_frames_in_other_types_and_orders(spark: Any, tmp_path: Path) -> None:
    """Columns are taken by the table's names whatever their order, extra columns are left
    out, a column of another type is cast to the table's (an INT key into BIGINT, a DOUBLE
    into DECIMAL), and a nullable key column without nulls passes the NOT NULL check; a frame
    that already is the table's columns (types, order, a non-nullable key) is written as it
    is. The reference reads the rows as written."""
    from spark_impl.native_write import prepare_frame, write_table  # noqa: PLC0415

    root = str(tmp_path / "t")
    fields = (
        t.DataField(0, "k", t.BigIntType(nullable=False)),
        t.DataField(1, "d", t.DecimalType(12, 3)),
        t.DataField(2, "s", t.VarCharType(t.MAX_LENGTH)),
    )
    Table.create(IO, root, fields, options={"bucket": "-1"})
    frame = spark.sql(
        "SELECT concat('s', id) AS s, 'extra' AS unused, CAST(id / 4 AS DOUBLE) AS d,"
        " IF(id < 0, NULL, CAST(id AS INT)) AS k FROM range(6)"
    )
    assert write_table(frame, root) is not None
    as_is = spark.range(6, 9).selectExpr(
        "id AS k", "CAST(id / 4 AS DECIMAL(12, 3)) AS d", "concat('s', id) AS s"
    )
    schema = Table.open(IO, root).schema()
    assert prepare_frame(as_is, schema, bucket_column=False) is as_is, "no projection needed"
    assert write_table(as_is, root) is not None
    rows = Counter(tuple(r) for _, r in Table.open(IO, root).read().rows)
    assert rows == Counter((i, Decimal(i) / 4, f"s{i}") for i in range(9))


@pytest.mark.spark
def test_zstd_level_reaches_the_files(spark: Any, tmp_path: Path) -> None:
    """The table's zstd level is the one the files are compressed at: the same rows make a
    smaller file at ``file.compression.zstd-level`` 19 than at the default 1, and both read
    back as written."""
    from spark_impl.native_write import write_table  # noqa: PLC0415

    sizes = {}
    fields = (t.DataField(0, "k", t.BigIntType()), t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)))
    for level in ("1", "19"):
        root = str(tmp_path / f"level-{level}")
        options = {"bucket": "-1", "file.compression.zstd-level": level}
        Table.create(IO, root, fields, options=options)
        frame = spark.range(0, 20000, 1, 1).selectExpr("id AS k", "concat('v-', id % 997) AS v")
        assert write_table(frame, root) is not None
        rows = Counter(tuple(r) for _, r in Table.open(IO, root).read().rows)
        assert rows == Counter((i, f"v-{i % 997}") for i in range(20000))
        sizes[level] = sum(p.stat().st_size for p in Path(root).glob("bucket-0/*.parquet"))
    assert sizes["19"] < sizes["1"], sizes
