"""spark_impl through Spark: ``format("paimon")`` writes (append, overwrite), ``write_table``,
streaming reads, the compaction and expiration jobs, S3, and Java 0.9 as the other engine (it
reads what spark_impl writes; spark_impl reads what it writes)."""

from __future__ import annotations

import datetime
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.objectstore.pytest_fixtures import S3Store
from conformance.unit.spark_impl.write_helpers import STRING_FIELDS, reference_rows
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.store import query
from reference.table import Table
from spark_impl.jobs import compact, expire, read_stream, write_table

pytestmark = pytest.mark.spark

IO = LocalFileIO()
FIELDS = list(STRING_FIELDS)
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
    # format("paimon") overwrites only the partitions it writes (dynamic-partition-overwrite)...
    frame(spark, [(8, "all", "c")]).write.format("paimon").mode("overwrite").save(root)
    expected = Counter({**kept_a, (7, "only", "b"): 1, (8, "all", "c"): 1})
    assert spark_rows(spark, root) == reference_rows(IO, root) == expected
    # ... or the whole table when the write option turns that off.
    whole = frame(spark, [(9, "whole", "a")]).write.format("paimon").mode("overwrite")
    whole.option("dynamic-partition-overwrite", "false").save(root)
    assert spark_rows(spark, root) == reference_rows(IO, root) == Counter({(9, "whole", "a"): 1})
    assert spark_rows(spark, root, **{"snapshot-id": "1"}) == Counter(first)


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


def memory_stream(spark: Any, root: str, name: str, checkpoint: Path, **options: str) -> Any:
    """A running streaming query copying the table's changes into the memory table ``name``."""
    changes = read_stream(spark, root, options).writeStream.format("memory").queryName(name)
    return changes.option("checkpointLocation", str(checkpoint)).start()


@pytest.mark.s3
def test_write_read_overwrite_and_stream_on_s3(
    spark: Any, s3_store: S3Store, tmp_path: Path
) -> None:
    """Every path of must-show 1 on s3:// (executors open their own S3 FileIO)."""
    root = f"{s3_store.uri}/warehouse/db.db/spark_written"
    file_io = s3_store.file_io()
    options = {"bucket": "2", "changelog-producer": "input"}
    Table.create(
        file_io, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=options
    )

    def oracle() -> Counter[Row]:
        return Counter(row for _, row in query.read_table(file_io, root, query.TimeTravel()).rows)

    def save(rows: list[tuple[Any, ...]], mode: str, **extra: str) -> None:
        writer = frame(spark, rows).write.format("paimon").mode(mode)
        for key, value in {**s3_store.options, **extra}.items():
            writer = writer.option(key, value)
        writer.save(root)

    rows = [(i, f"v{i}", "a" if i % 2 else "b") for i in range(30)]
    write_table(frame(spark, rows), root, options=s3_store.options)
    save([(0, "changed", "b", "+U")], "append")
    expected = Counter(rows)
    del expected[(0, "v0", "b")]
    expected[(0, "changed", "b")] = 1
    assert spark_rows(spark, root, **s3_store.options) == oracle() == expected

    stream = memory_stream(spark, root, "s3_changes", tmp_path / "checkpoint", **s3_store.options)
    try:
        stream.processAllAvailable()
        save([(1, "streamed", "a", "+U")], "append")
        stream.processAllAvailable()
        got = Counter(tuple(r) for r in spark.sql("select * from s3_changes").collect())
    finally:
        stream.stop()
    # The first micro-batch is the latest snapshot, each row with the kind of its newest
    # record (as Java's full-then-incremental stream scan): key 0 was updated.
    streamed = Counter((*row, "+U" if row[0] == 0 else "+I") for row in expected.elements())
    streamed[(1, "streamed", "a", "+U")] = 1
    assert got == streamed

    kept_a = Counter({row: n for row, n in oracle().items() if row[2] == "a"})
    save([(50, "new-b", "b")], "overwrite")
    after = kept_a + Counter({(50, "new-b", "b"): 1})
    assert spark_rows(spark, root, **s3_store.options) == oracle() == after
    save([(60, "whole", "a")], "overwrite", **{"dynamic-partition-overwrite": "false"})
    whole = Counter({(60, "whole", "a"): 1})
    assert spark_rows(spark, root, **s3_store.options) == oracle() == whole


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


def test_static_partition_overwrite_replaces_one_partition(spark: Any, tmp_path: Path) -> None:
    """The write option ``static-partition`` (INSERT OVERWRITE ... PARTITION), as the
    reference's ``overwrite={...}``."""
    fields = [
        t.DataField(0, "d", t.DateType(nullable=False)),
        t.DataField(1, "v", t.IntType()),
    ]
    mine, theirs = str(tmp_path / "mine"), str(tmp_path / "theirs")
    for root in (mine, theirs):
        table = Table.create(IO, root, fields, partition_keys=["d"])
        table.write_and_commit([(0, 1), (1, 2), (1, 3)])
    frame = spark.createDataFrame([(datetime.date(1970, 1, 2), 9)], "d DATE, v INT")
    write_table(frame, mine, "overwrite", {"static-partition": '{"d": "1970-01-02"}'})
    Table(IO, theirs).write_and_commit([(1, 9)], overwrite={"d": 1})
    assert reference_rows(IO, mine) == reference_rows(IO, theirs)
    with pytest.raises(Exception, match="not partition keys"):
        write_table(frame, mine, "overwrite", {"static-partition": '{"v": 1}'})
