"""spark_impl through Spark: ``format("paimon")`` writes (append, overwrite), ``write_table``,
streaming reads, the compaction and expiration jobs, S3, and Java 0.9 as the other engine (it
reads what spark_impl writes; spark_impl reads what it writes)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.objectstore.pytest_fixtures import S3Store
from conformance.unit.spark_impl.write_helpers import reference_rows
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.store import query
from reference.table import Table
from spark_impl.jobs import compact, expire, read_stream, write_table

pytestmark = pytest.mark.spark

IO = LocalFileIO()
FIELDS = [
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(2, "dt", t.VarCharType(t.MAX_LENGTH, nullable=False)),
]
SPARK_SCHEMA = "k int, v string, dt string, _ROW_KIND string"


def frame(spark: Any, rows: list[tuple[Any, ...]]) -> Any:
    """A DataFrame of ``(k, v, dt[, kind])`` rows (kind ``+I`` when left out)."""
    full = [(*row, "+I") if len(row) == 3 else row for row in rows]
    return spark.createDataFrame(full, SPARK_SCHEMA)


def spark_rows(spark: Any, root: str, **options: str) -> Counter[Row]:
    reader = spark.read.format("paimon")
    for key, value in options.items():
        reader = reader.option(key, value)
    return Counter(tuple(row) for row in reader.load(root).collect())


def create(root: str, primary_keys: list[str], options: dict[str, str]) -> None:
    Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=primary_keys, options=options
    )


def test_write_append_and_overwrite(spark: Any, tmp_path: Path) -> None:
    root = str(tmp_path / "pk")
    create(root, ["k", "dt"], {"bucket": "2"})
    first = [(i, f"v{i}", "a" if i % 3 else "b") for i in range(40)]
    write_table(frame(spark, first), root)
    updates = [(1, "new", "a", "+U"), (2, "gone", "a", "-D"), (100, "x", "b", "+I")]
    frame(spark, updates).write.format("paimon").mode("append").save(root)
    expected = Counter(first)
    expected.update({(100, "x", "b"): 1})
    del expected[(1, "v1", "a")], expected[(2, "v2", "a")]
    expected[(1, "new", "a")] = 1
    assert spark_rows(spark, root) == reference_rows(IO, root) == expected
    write_table(frame(spark, [(7, "only", "b")]), root, mode="overwrite")
    kept_a = {row: n for row, n in expected.items() if row[2] == "a"}
    assert spark_rows(spark, root) == Counter({**kept_a, (7, "only", "b"): 1})
    frame(spark, [(8, "all", "c")]).write.format("paimon").mode("overwrite").save(root)
    assert spark_rows(spark, str(tmp_path / "pk"), **{"snapshot-id": "1"}) == Counter(first)
    assert spark_rows(spark, root)[(8, "all", "c")] == 1


def test_append_and_dynamic_tables(spark: Any, tmp_path: Path) -> None:
    rows = [(i % 17, f"v{i}", "a" if i % 2 else "b") for i in range(60)]
    append = str(tmp_path / "append")
    create(append, [], {"bucket": "-1"})
    frame(spark, rows).write.format("paimon").mode("append").save(append)
    write_table(frame(spark, rows), append)
    assert spark_rows(spark, append) == Counter(rows * 2)
    dynamic = str(tmp_path / "dynamic")
    create(dynamic, ["k", "dt"], {"bucket": "-1", "dynamic-bucket.target-row-num": "4"})
    write_table(frame(spark, rows), dynamic)
    write_table(frame(spark, [(1, "again", "a")]), dynamic)
    assert spark_rows(spark, dynamic) == reference_rows(IO, dynamic)
    assert spark_rows(spark, dynamic)[(1, "again", "a")] == 1


def test_streaming_read_follows_new_commits(spark: Any, tmp_path: Path) -> None:
    root = str(tmp_path / "stream")
    create(root, ["k", "dt"], {"bucket": "1", "changelog-producer": "input"})
    write_table(frame(spark, [(1, "a", "a"), (2, "b", "a")]), root)
    query_ = (
        read_stream(spark, root)
        .writeStream.format("memory")
        .queryName("paimon_changes")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .start()
    )
    try:
        query_.processAllAvailable()
        write_table(frame(spark, [(1, "a2", "a", "+U"), (2, "b", "a", "-D")]), root)
        query_.processAllAvailable()
        got = Counter(tuple(r) for r in spark.sql("select * from paimon_changes").collect())
    finally:
        query_.stop()
    assert got == Counter(
        {
            (1, "a", "a", "+I"): 1,
            (2, "b", "a", "+I"): 1,
            (1, "a2", "a", "+U"): 1,
            (2, "b", "a", "-D"): 1,
        }
    )


def test_compaction_and_expiration_jobs(spark: Any, tmp_path: Path) -> None:
    root = str(tmp_path / "jobs")
    create(root, ["k", "dt"], {"bucket": "2", "write-only": "true"})
    Table(IO, root).write_and_commit([(i, "reference", "b") for i in range(10)])
    assert spark_rows(spark, root) == Counter((i, "reference", "b") for i in range(10))
    for round_ in range(3):
        write_table(frame(spark, [(i, f"r{round_}", "a") for i in range(round_, 30)]), root)
    before = spark_rows(spark, root)
    [snapshot] = compact(spark, root, full=True)
    assert snapshot.commit_kind.value == "COMPACT"
    assert spark_rows(spark, root) == before == reference_rows(IO, root)
    expired = expire(spark, root, retain_max=1, retain_min=1)
    assert expired == [1, 2, 3, 4]
    assert spark_rows(spark, root) == before
    assert not (tmp_path / "jobs" / "snapshot" / "snapshot-1").exists()


@pytest.mark.s3
def test_write_and_read_on_s3(spark: Any, s3_store: S3Store) -> None:
    root = f"{s3_store.uri}/warehouse/db.db/spark_written"
    file_io = s3_store.file_io()
    Table.create(
        file_io,
        root,
        FIELDS,
        partition_keys=["dt"],
        primary_keys=["k", "dt"],
        options={"bucket": "2"},
    )
    rows = [(i, f"v{i}", "a" if i % 2 else "b") for i in range(30)]
    write_table(frame(spark, rows), root, options=s3_store.options)
    writer = frame(spark, [(0, "changed", "b", "+U")]).write.format("paimon").mode("append")
    for key, value in s3_store.options.items():
        writer = writer.option(key, value)
    writer.save(root)
    expected = Counter(rows)
    del expected[(0, "v0", "b")]
    expected[(0, "changed", "b")] = 1
    assert spark_rows(spark, root, **s3_store.options) == expected
    oracle = query.read_table(file_io, root, query.TimeTravel())
    assert Counter(row for _, row in oracle.rows) == expected


@pytest.mark.java
def test_spark_impl_reads_and_extends_java_tables(
    spark: Any, java_harness: Any, tmp_path: Path
) -> None:
    root = str(tmp_path / "java_written")
    java_harness.create_table(
        root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options={"bucket": "2"}
    )
    rows = [(i, f"java{i}", "ab"[i % 2]) for i in range(20)]
    java_harness.write(root, [(RowKind.INSERT, row) for row in rows], commit=True)
    assert spark_rows(spark, root) == Counter(rows)
    write_table(frame(spark, [(0, "spark", "b", "+U"), (1, "spark", "a", "-D")]), root)
    expected = Counter(rows)
    del expected[(0, "java0", "b")], expected[(1, "java1", "a")]
    expected[(0, "spark", "b")] = 1
    assert Counter(java_harness.read(root).values()) == spark_rows(spark, root) == expected
