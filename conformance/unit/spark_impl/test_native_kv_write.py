"""spark_impl.native_kv_write: primary-key writes through Spark's own Parquet writer.

The rules that choose the native route are checked without Spark. The writes are checked
from the user's side (DataFrames in, ``write_table``): the rows the reference reads equal the
stated expected rows (the last row of each key in input order wins), the files hold each key
once in ascending order at level 0, their metadata equals the Python writer's for the same
input field by field (names, sizes, times and sequence numbers aside), and the compactions
after the writes leave the same runs as the Python writer's. Java 0.9 reads the files."""

from __future__ import annotations

from collections import Counter
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from reference.errors import SpecViolation
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data_file import DataFileMeta
from reference.spec.file_entry import compute_live_entries
from reference.spec.manifest import ManifestEntry
from reference.spec.schema import compute_table_schema
from reference.store import metadata, scan
from reference.table import Table
from spark_impl.native_kv_write import native_kv_write_refusal

IO = LocalFileIO()
COMMITS = 5
ROWS = 60
KEYS = 20
PK_FIELDS = (
    t.DataField(0, "dt", t.VarCharType(t.MAX_LENGTH, nullable=False)),
    t.DataField(1, "k", t.IntType(nullable=False)),
    t.DataField(2, "s", t.VarCharType(t.MAX_LENGTH, nullable=False)),
    t.DataField(3, "v", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(4, "x", t.DoubleType()),
)
BASE_OPTIONS = {"file.format": "parquet", "num-sorted-run.compaction-trigger": "3"}
KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...], dict[str, str]]] = {
    "partitioned-composite-3": (("dt",), ("dt", "k", "s"), {"bucket": "3", "bucket-key": "k"}),
    "unpartitioned-1": ((), ("dt", "k"), {"bucket": "1", "bucket-key": "k"}),
    "unpartitioned-3": ((), ("k", "s", "dt"), {"bucket": "3", "bucket-key": "k"}),
}
SQL = """
SELECT IF(id % 3 = 0, 'a', 'b') AS dt, CAST((id * 7 + {c}) % {keys} AS INT) AS k,
       IF(id % 2 = 0, 'p', 'q') AS s, IF(id % 11 = 0, NULL, concat('c{c}-', id)) AS v,
       id + {c} / 8 AS x
FROM range(0, {rows}, 1, 2)
"""


def input_rows(commit: int) -> list[tuple[Any, ...]]:
    """Commit ``commit``'s rows of :data:`SQL`, in input order."""
    return [
        (
            "ab"[i % 3 != 0],
            (i * 7 + commit) % KEYS,
            "pq"[i % 2],
            None if i % 11 == 0 else f"c{commit}-{i}",
            i + commit / 8,
        )
        for i in range(ROWS)
    ]


def expected_rows(commits: int, primary_keys: tuple[str, ...]) -> Counter[tuple[Any, ...]]:
    """The table after ``commits`` commits: per key, the last row in input order."""
    names = [f.name for f in PK_FIELDS]
    positions = [names.index(k) for k in primary_keys]
    latest: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for commit in range(commits):
        for row in input_rows(commit):
            latest[tuple(row[p] for p in positions)] = row
    return Counter(latest.values())


def schema_of(options: dict[str, str], primary_keys: tuple[str, ...] = ("dt", "k")) -> Any:
    return compute_table_schema(
        0,
        PK_FIELDS,
        partition_keys=("dt",),
        primary_keys=primary_keys,
        options={k: v for k, v in {"bucket": "2", "bucket-key": "k", **options}.items() if v},
        comment=None,
        time_millis=0,
    )


def live_files(root: str) -> list[ManifestEntry]:
    """The latest snapshot's live data files, listed by the reference."""
    schema = metadata.read_latest_schema(IO, root)
    snapshot = metadata.read_latest_snapshot(IO, root)
    assert snapshot is not None
    entries, _ = scan.read_matching_entries(IO, root, snapshot, schema, None)
    return sorted(compute_live_entries(entries).live, key=lambda e: (e.partition, e.bucket))


def runs_of(root: str) -> list[tuple[bytes, int, int, int]]:
    """(partition, bucket, level, rows) of every live file: the runs a read merges."""
    return sorted((e.partition, e.bucket, e.file.level, e.file.row_count) for e in live_files(root))


def commit_kinds(root: str) -> list[str]:
    ids = metadata.list_snapshot_ids(IO, root)
    return [metadata.read_snapshot(IO, root, i).commit_kind.value for i in ids]


def create(root: str, kind: str) -> None:
    partitions, keys, options = KINDS[kind]
    Table.create(
        IO,
        root,
        PK_FIELDS,
        partition_keys=partitions,
        primary_keys=keys,
        options={**BASE_OPTIONS, **options},
    )


# --------------------------------------------------------------------------------------------
# Rule 1 (no Spark)
# --------------------------------------------------------------------------------------------


def test_which_primary_key_tables_are_written_natively(tmp_path: Path) -> None:
    root = str(tmp_path)
    assert native_kv_write_refusal(schema_of({}), root) is None
    assert native_kv_write_refusal(schema_of({"write-only": "true"}), root) is None
    refused = {
        "level-0 file.format is not parquet": {"file.format": "orc"},
        "file.compression": {"file.compression": "lz4"},
        "merge-engine": {"merge-engine": "partial-update"},
        "sequence.field": {"sequence.field": "x"},
        "changelog-producer": {"changelog-producer": "input"},
        "deletion vectors": {"deletion-vectors.enabled": "true"},
        "file indexes": {"file-index.bloom-filter.columns": "v"},
        "rowkind.field": {"rowkind.field": "v"},
        "data-file.path-directory": {"data-file.path-directory": "data"},
    }
    for reason, options in refused.items():
        assert native_kv_write_refusal(schema_of(options), root) == reason, options
    level_zero_orc = {"file.format.per.level": "0:orc"}
    assert native_kv_write_refusal(schema_of(level_zero_orc), root) == (
        "level-0 file.format is not parquet"
    )
    string_bucket_key = schema_of({"bucket-key": "s"}, primary_keys=("dt", "k", "s"))
    assert native_kv_write_refusal(string_bucket_key, root) == "bucket key"
    dynamic = schema_of({"bucket": "-1", "bucket-key": ""})
    assert native_kv_write_refusal(dynamic, root) == "bucket key"
    cross = schema_of({"bucket": "-1", "bucket-key": ""}, primary_keys=("k",))
    assert native_kv_write_refusal(cross, root) is not None
    float_key = replace(schema_of({}), primary_keys=("dt", "x"))
    assert native_kv_write_refusal(float_key, root) == "key column types"
    assert native_kv_write_refusal(schema_of({}), "s3://b/t") == "not a local table"
    assert native_kv_write_refusal(replace(schema_of({}), primary_keys=()), root) == (
        "not a primary-key table"
    )


# --------------------------------------------------------------------------------------------
# Rules 2-5 (Spark)
# --------------------------------------------------------------------------------------------


def write_commits(spark: Any, root: str, commits: int, *, native: bool) -> None:
    from spark_impl import jobs  # noqa: PLC0415 (pyspark)
    from spark_impl.native_kv_write import write_table  # noqa: PLC0415

    for commit in range(commits):
        frame = spark.sql(SQL.format(c=commit, keys=KEYS, rows=ROWS))
        if native:
            assert write_table(frame, root) is not None
        else:
            jobs.write_table(frame, root)


def check_differential(spark: Any, tmp_path: Path, kind: str) -> None:
    """Five commits natively and through the Python writer: the same rows (the stated
    expected ones, read by the reference), the same snapshots and runs."""
    native, python = str(tmp_path / "native"), str(tmp_path / "python")
    for root in (native, python):
        create(root, kind)
    write_commits(spark, native, COMMITS, native=True)
    write_commits(spark, python, COMMITS, native=False)
    expected = expected_rows(COMMITS, KINDS[kind][1])
    assert Counter(tuple(r) for _, r in Table.open(IO, native).read().rows) == expected
    assert Counter(tuple(r) for _, r in Table.open(IO, python).read().rows) == expected
    assert "COMPACT" in commit_kinds(native)
    assert commit_kinds(native) == commit_kinds(python)
    assert runs_of(native) == runs_of(python)


def test_native_writes_equal_the_python_writer(spark: Any, tmp_path: Path) -> None:
    check_differential(spark, tmp_path, "partitioned-composite-3")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["unpartitioned-1", "unpartitioned-3"])
def test_native_writes_equal_the_python_writer_unpartitioned(
    spark: Any, tmp_path: Path, kind: str
) -> None:
    check_differential(spark, tmp_path, kind)


def explained(spark: Any, root: str) -> str:
    """The physical plan of the frame a native write stages (rule 2: one shuffle, one sort)."""
    from spark_impl.native_kv_write import compute_key_value_frame  # noqa: PLC0415

    schema = metadata.read_latest_schema(IO, root)
    frame = compute_key_value_frame(spark.sql(SQL.format(c=0, keys=KEYS, rows=ROWS)), schema, -1)
    return str(frame._jdf.queryExecution().executedPlan().toString())


def comparable(meta: DataFileMeta) -> DataFileMeta:
    """``meta`` without what differs between two writers of the same rows."""
    return replace(
        meta,
        file_name="",
        file_size=0,
        creation_time=None,
        min_sequence_number=0,
        max_sequence_number=0,
    )


def test_files_are_sorted_unique_level_zero_as_the_python_writer(
    spark: Any, tmp_path: Path
) -> None:
    """One commit with duplicate keys: every native file holds its keys once, ascending, at
    level 0, with the Python writer's metadata."""
    native, python = str(tmp_path / "native"), str(tmp_path / "python")
    for root in (native, python):
        create(root, "partitioned-composite-3")
    write_commits(spark, native, 1, native=True)
    write_commits(spark, python, 1, native=False)
    plan = explained(spark, native)
    assert plan.count("Exchange") == 1 and plan.count("Sort [") == 1, plan
    entries = live_files(native)
    assert len(entries) == len(live_files(python)) > 1
    for entry in entries:
        assert entry.file.level == 0
        path = next(Path(native).rglob(entry.file.file_name))
        keys = pq.ParquetFile(path).read(columns=["_KEY_k", "_KEY_s"]).to_pylist()
        ordered = [(r["_KEY_k"], r["_KEY_s"]) for r in keys]
        assert ordered == sorted(set(ordered))
    for mine, theirs in zip(entries, live_files(python), strict=True):
        left, right = comparable(mine.file), comparable(theirs.file)
        differing = [
            (f.name, getattr(left, f.name), getattr(right, f.name))
            for f in fields(DataFileMeta)
            if getattr(left, f.name) != getattr(right, f.name)
        ]
        assert differing == [], repr(differing)


# --------------------------------------------------------------------------------------------
# Interop: Java 0.9 reads the native files
# --------------------------------------------------------------------------------------------


@pytest.mark.java
@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_java_reads_native_primary_key_files(
    spark: Any, java_harness: Any, tmp_path: Path, kind: str
) -> None:
    root = str(tmp_path / kind)
    create(root, kind)
    write_commits(spark, root, COMMITS, native=True)
    expected = expected_rows(COMMITS, KINDS[kind][1])
    assert Counter(java_harness.read(root).values()) == expected


@pytest.mark.slow
def test_failed_write_leaves_the_table_as_it_was(spark: Any, tmp_path: Path) -> None:
    """A null in a NOT NULL key column fails the write with ``SpecViolation`` naming the
    column; the table keeps its one snapshot and files, no staging directory is left."""
    from spark_impl.native_kv_write import write_table  # noqa: PLC0415

    root = str(tmp_path / "t")
    create(root, "partitioned-composite-3")
    write_commits(spark, root, 1, native=True)
    before = sorted(p.name for p in Path(root).rglob("*") if p.is_file())
    bad = spark.sql("SELECT 'a' AS dt, CAST(NULL AS INT) AS k, 'p' AS s, 'v' AS v, 1.0D AS x")
    with pytest.raises(SpecViolation, match="'k'"):
        write_table(bad, root)
    assert sorted(p.name for p in Path(root).rglob("*") if p.is_file()) == before
    assert metadata.list_snapshot_ids(IO, root) == [1]
