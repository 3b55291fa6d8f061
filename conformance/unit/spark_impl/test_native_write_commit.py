"""The public ``spark_impl.write_table`` on an append table: Spark's own Parquet writer
(:mod:`spark_impl.native_write`), with the Python writer's commit guarantees.

* It is the route users get: the data files carry Spark's ``parquet-mr`` footer, while a
  primary-key table is still written by the Python writer (pyarrow's footer).
* A commit that raises after its snapshot landed keeps every file that snapshot references
  (the guide's rule: a failed commit deletes nothing a published snapshot needs); one that
  fails before anything landed leaves no written file behind.
* A fixed-bucket append table compacts after the write as Java's ``AppendOnlyWriter`` does:
  the same commits and live files per bucket as the reference's writer (the oracle).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from reference.errors import CommitConflictError
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.store import metadata
from reference.store.commit import read_live_entries
from reference.store.orphans import find_orphans
from reference.table import Table
from spark_impl import commit as committer

IO = LocalFileIO()
FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
)
SCHEMA = "k INT, v STRING"


def data_files(root: str) -> list[Path]:
    return sorted(Path(root).glob("bucket-*/data-*"))


def rows(root: str) -> Counter[tuple[Any, ...]]:
    return Counter(tuple(r) for _, r in Table.open(IO, root).read().rows)


def frame(spark: Any, keys: range, value: str) -> Any:
    return spark.createDataFrame([(k, value) for k in keys], SCHEMA)


@pytest.mark.spark
def test_public_write_table_writes_append_tables_natively(spark: Any, tmp_path: Path) -> None:
    """Users call ``spark_impl.write_table``; an append table's files come from Spark's
    writer, a primary-key table's from the Python writer, and both read back as written."""
    import spark_impl  # noqa: PLC0415

    append, keyed = str(tmp_path / "append"), str(tmp_path / "keyed")
    Table.create(IO, append, FIELDS, options={"bucket": "-1"})
    Table.create(IO, keyed, FIELDS, primary_keys=["k"], options={"bucket": "1"})
    for root in (append, keyed):
        spark_impl.write_table(frame(spark, range(5), "a"), root)
        assert rows(root) == Counter((k, "a") for k in range(5))
    writers = {
        root: {pq.ParquetFile(p).metadata.created_by.split(" ")[0] for p in data_files(root)}
        for root in (append, keyed)
    }
    assert writers[append] == {"parquet-mr"}
    assert writers[keyed] == {"parquet-cpp-arrow"}


@pytest.mark.spark
def test_commit_raising_after_its_snapshot_landed_keeps_the_files(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The snapshot file is written, then the commit raises (the hint update is interrupted):
    the error reaches the user, and the published snapshot's files are all still there."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, options={"bucket": "-1"})
    spark_impl.write_table(frame(spark, range(3), "base"), root)

    def interrupted(*_args: Any) -> None:
        raise KeyboardInterrupt("after the snapshot landed")

    monkeypatch.setattr(committer, "publish_hints", interrupted)
    with pytest.raises(KeyboardInterrupt):
        spark_impl.write_table(frame(spark, range(3, 6), "new"), root)
    assert metadata.find_latest_snapshot_id(IO, root) == 2
    assert rows(root) == Counter(
        [*((k, "base") for k in range(3)), *((k, "new") for k in (3, 4, 5))]
    )
    assert not find_orphans(IO, root, older_than=dt.timedelta(0))


@pytest.mark.spark
def test_commit_failing_before_anything_landed_leaves_no_file(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit that loses before publishing: no snapshot, and no data file of the write is
    left in the table's directories (nothing references them)."""
    import spark_impl  # noqa: PLC0415

    root = str(tmp_path / "t")
    Table.create(IO, root, FIELDS, options={"bucket": "-1"})
    spark_impl.write_table(frame(spark, range(3), "base"), root)
    before = data_files(root)

    def conflict(*_args: Any, **_kwargs: Any) -> None:
        raise CommitConflictError("injected: another commit won", retryable=False)

    monkeypatch.setattr(committer, "ensure_no_conflict", conflict)
    with pytest.raises(CommitConflictError, match="injected"):
        spark_impl.write_table(frame(spark, range(3, 6), "new"), root)
    assert metadata.find_latest_snapshot_id(IO, root) == 1
    assert data_files(root) == before
    assert not list(Path(root).glob("_native-write-*"))


def commit_kinds(root: str) -> list[str]:
    latest = metadata.find_latest_snapshot_id(IO, root) or 0
    return [metadata.read_snapshot(IO, root, i).commit_kind.value for i in range(1, latest + 1)]


def live_files(root: str) -> list[str]:
    latest = metadata.read_latest_snapshot(IO, root)
    assert latest is not None
    return [e.file.file_name for e in read_live_entries(IO, root, latest)]


@pytest.mark.spark
def test_fixed_bucket_table_compacts_after_the_write_as_the_reference(
    spark: Any, tmp_path: Path
) -> None:
    """Six one-row appends to a one-bucket append table: Java compacts the bucket once it
    holds ``compaction.min.file-num`` (5) files; the commits and live files equal the
    reference writer's."""
    import spark_impl  # noqa: PLC0415

    options = {"bucket": "1", "bucket-key": "k"}
    ours, oracle = str(tmp_path / "ours"), str(tmp_path / "oracle")
    for root in (ours, oracle):
        Table.create(IO, root, FIELDS, options=options)
    for key in range(6):
        spark_impl.write_table(frame(spark, range(key, key + 1), "v"), ours)
        Table.open(IO, oracle).write_and_commit([(key, "v")])
    assert commit_kinds(ours) == commit_kinds(oracle)
    assert "COMPACT" in commit_kinds(ours)
    assert len(live_files(ours)) == len(live_files(oracle))
    assert rows(ours) == rows(oracle)
