"""The ``paimon`` stream sink (``df.writeStream.format("paimon")``, issue 19): append and
primary-key tables, and exactly once across a restart after a crash between the table commit
and Spark's checkpoint. The reference reads the tables (the oracle)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reference.errors import InvalidOptionError
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.store import query
from reference.system_tables import SystemTableVersion
from reference.table import Table
from spark_impl import stream_sink
from spark_impl.stream_sink import compute_commit_user

from . import stream_sink_job

pytestmark = pytest.mark.spark

IO = LocalFileIO()
FIELDS = [t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.VarCharType(100))]
JOB_TIMEOUT_SECONDS = 600
SOURCE_FILE_EPOCH = 1_700_000_000


def write_source_file(directory: Path, name: str, rows: list[tuple[int, str]]) -> None:
    """One source file; ``name`` is its position (Spark's file source takes files in order of
    modification time, so file ``n`` is stamped ``n`` seconds after a fixed time)."""
    directory.mkdir(parents=True, exist_ok=True)
    table = pa.table({"k": pa.array([r[0] for r in rows], pa.int32()), "v": [r[1] for r in rows]})
    path = directory / f"{name}.parquet"
    pq.write_table(table, path)
    stamp = SOURCE_FILE_EPOCH + int(name)
    os.utime(path, (stamp, stamp))


def reference_rows(root: Path) -> Counter[tuple[Any, ...]]:
    result = query.read_table(IO, str(root), query.TimeTravel())
    return Counter(row for _, row in result.rows)


def snapshots(root: Path) -> list[tuple[Any, ...]]:
    rows = Table(IO, str(root)).system_table("snapshots", version=SystemTableVersion.PAIMON_0_9)
    return [row[:5] for row in rows.rows]


def run_crashing_job(
    source: Path, root: Path, checkpoint: Path, kill_batch: int
) -> subprocess.CompletedProcess[str]:
    """:mod:`stream_sink_job` in its own process (and process group), killed by the sink
    right after batch ``kill_batch``'s table commit."""
    env = {**os.environ, stream_sink.KILL_AFTER_COMMIT_ENV: str(kill_batch)}
    command = [sys.executable, "-m", stream_sink_job.__name__, str(source), root, checkpoint]
    return subprocess.run(
        [str(part) for part in command], env=env, timeout=JOB_TIMEOUT_SECONDS, check=False,
        start_new_session=True, capture_output=True, text=True,
    )  # fmt: skip


def run_in_session(spark: Any, source: Path, root: Path, checkpoint: Path, **options: str) -> None:
    """The job's query (one source file per micro-batch, ``availableNow``) in this process's
    session, to the end of the available files."""
    stream = spark.readStream.format("parquet").schema(stream_sink_job.SCHEMA)
    writer = stream.option("maxFilesPerTrigger", 1).load(str(source)).writeStream
    for key, value in {**options, "checkpointLocation": str(checkpoint)}.items():
        writer = writer.option(key, value)
    writer.format("paimon").trigger(availableNow=True).start(str(root)).awaitTermination()


def test_a_batch_replayed_after_a_crash_lands_once(spark: Any, tmp_path: Path) -> None:
    """The job dies (SIGKILL of its process group) right after batch 0's table commit, before
    Spark's commit log marks batch 0 done; the query restarted from the same checkpoint (in
    another process: this one, which never ran batch 0) replays batch 0 with the same batch
    id and the same commit user (from the checkpoint location): the sink commits nothing for
    it (Java ``filterCommitted``), then batch 1 lands. Each row once."""
    source, root, checkpoint = tmp_path / "src", tmp_path / "t", tmp_path / "ckpt"
    Table.create(IO, str(root), FIELDS)
    first = [(k, f"a{k}") for k in range(5)]
    write_source_file(source, "0", first)
    crashed = run_crashing_job(source, root, checkpoint, kill_batch=0)
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr[-4000:]
    assert reference_rows(root) == Counter(first)
    assert not (checkpoint / "commits" / "0").exists()  # Spark did not mark batch 0 done
    second = [(k, f"b{k}") for k in range(5, 8)]
    write_source_file(source, "1", second)
    run_in_session(spark, source, root, checkpoint)
    assert reference_rows(root) == Counter(first + second)
    user = compute_commit_user({"checkpointlocation": str(checkpoint)})
    assert [(s[2], s[3], s[4]) for s in snapshots(root)] == [
        (user, 0, "APPEND"),
        (user, 1, "APPEND"),
    ]


def test_primary_key_table_merges_each_micro_batch(spark: Any, tmp_path: Path) -> None:
    """Two micro-batches into a primary-key table (``complete`` would overwrite; ``append``
    merges by key): the later batch's value wins."""
    source, root = tmp_path / "src", tmp_path / "t"
    Table.create(IO, str(root), FIELDS, primary_keys=["k"], options={"bucket": "2"})
    write_source_file(source, "0", [(1, "a"), (2, "b")])
    write_source_file(source, "1", [(1, "c"), (3, "d")])
    run_in_session(spark, source, root, tmp_path / "ckpt", **{"commit.user": "pk-job"})
    assert reference_rows(root) == Counter([(1, "c"), (2, "b"), (3, "d")])
    appends = [(s[2], s[3]) for s in snapshots(root) if s[4] == "APPEND"]
    assert appends == [("pk-job", 0), ("pk-job", 1)]


def test_commit_user_rules() -> None:
    assert compute_commit_user({"commit.user": "job-7"}) == "job-7"
    derived = compute_commit_user({"checkpointlocation": "/ckpt/q1/"})
    assert derived == compute_commit_user({"checkpointlocation": "/ckpt/q1"})
    assert derived != compute_commit_user({"checkpointlocation": "/ckpt/q2"})
    assert compute_commit_user({}) is None
    with pytest.raises(InvalidOptionError, match=r"commit\.identifier"):
        stream_sink.check_stream_options({"commit.identifier": "3"})
