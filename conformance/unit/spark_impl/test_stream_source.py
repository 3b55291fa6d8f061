"""Stream reads from Spark (issue 19): the start position (``scan.mode``,
``scan.snapshot-id``, ``scan.timestamp-millis``; ``scan.tag-name`` refused as Paimon 0.9
does), ``consumer-id`` progress kept in Paimon's consumer files and resumed by a new query,
and ``Trigger.AvailableNow``. Expected rows are stated; the reference writes the table and
reads the consumer system table."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from reference.io import LocalFileIO
from reference.spec import types as t
from reference.system_tables import SystemTableVersion
from reference.table import Table
from spark_impl import stream

pytestmark = pytest.mark.spark

IO = LocalFileIO()
FIELDS = [t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.VarCharType(100))]
Row = tuple[Any, ...]


def commit_rows(n: int) -> list[Row]:
    return [(n * 10 + i, f"c{n}") for i in range(3)]


def inserts(*commits: int) -> Counter[Row]:
    return Counter((*row, "+I") for n in commits for row in commit_rows(n))


def run_available_now(
    spark: Any, root: str, checkpoint: Path, options: dict[str, str] | None = None
) -> Counter[Row]:
    """One ``Trigger.AvailableNow`` run of a stream over the table; the rows it delivered."""
    got: Counter[Row] = Counter()

    def collect(batch: Any, _: int) -> None:
        got.update(tuple(r) for r in batch.collect())

    reader = spark.readStream.format("paimon").option("read.row-kind", "true")
    for key, value in (options or {}).items():
        reader = reader.option(key, value)
    handle = (
        reader.load(root)
        .writeStream.foreachBatch(collect)
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    handle.awaitTermination()
    return got


@pytest.fixture
def table(tmp_path: Path) -> Table:
    """Three APPEND snapshots (1, 2, 3), one per commit."""
    created = Table.create(IO, str(tmp_path / "t"), FIELDS)
    for n in (1, 2, 3):
        created.commit(created.write(commit_rows(n)))
    return created


def test_start_positions(spark: Any, table: Table, tmp_path: Path) -> None:
    """``from-snapshot`` 2: the changes of 2 and 3; ``from-snapshot-full`` 2: snapshot 2 in
    full, then 3; ``latest``: nothing until a new snapshot; ``from-timestamp`` of snapshot 3:
    its changes; the default (``latest-full``): the latest snapshot in full."""
    root = table.root
    snapshot_3 = table.latest_snapshot()
    assert snapshot_3 is not None

    def run(name: str, options: dict[str, str] | None = None) -> Counter[Row]:
        return run_available_now(spark, root, tmp_path / name, options)

    assert run("from", {"scan.snapshot-id": "2"}) == inserts(2, 3)
    full = {"scan.mode": "from-snapshot-full", "scan.snapshot-id": "2"}
    assert run("full", full) == inserts(1, 2, 3)
    assert run("latest", {"scan.mode": "latest"}) == Counter()
    at = {"scan.timestamp-millis": str(snapshot_3.time_millis)}
    assert run("time", at) == inserts(3)
    assert run("default") == inserts(1, 2, 3)


def test_a_tag_cannot_start_a_stream(spark: Any, table: Table, tmp_path: Path) -> None:
    table.create_tag("t1", 1)
    with pytest.raises(Exception, match=r"scan\.tag-name"):
        run_available_now(spark, table.root, tmp_path / "c", {"scan.tag-name": "t1"})


def test_consumer_progress_is_kept_and_resumed(spark: Any, table: Table, tmp_path: Path) -> None:
    """A query with ``consumer-id`` records the next snapshot after each batch in the
    consumer file (``$consumers`` shows it); a new query (another checkpoint) with the same
    id resumes there: only the rows committed since."""
    consumer = {"consumer-id": "c1"}
    assert run_available_now(spark, table.root, tmp_path / "q1", consumer) == inserts(1, 2, 3)
    consumers = table.system_table("consumers", version=SystemTableVersion.PAIMON_0_9)
    assert consumers.rows == [("c1", 4)]
    table.commit(table.write(commit_rows(4)))
    assert run_available_now(spark, table.root, tmp_path / "q2", consumer) == inserts(4)
    assert stream.read_consumer_next(IO, table.root, "c1") == 5
