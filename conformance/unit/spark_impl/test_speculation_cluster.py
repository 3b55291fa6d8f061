"""Speculative execution on a real standalone cluster (issue 18): a duplicate attempt of a
write task never commits twice.

Local mode never launches a speculative copy, so this test starts a master and two workers on
different loopback addresses (:mod:`conformance.spark_cluster`) and runs
:mod:`conformance.unit.spark_impl.speculation_job` as its own driver: the first attempt of one
write task writes its files and then stalls, Spark launches a copy on the other worker, the copy
writes the same rows again and finishes first. Checked here with the reference (never with
spark_impl): each row once, the committed files are one attempt's, the stalled attempt's files
are orphans that no snapshot references, and the orphan cleaner removes exactly those.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.spark_cluster import Cluster, ClusterUnavailable, start_cluster
from conformance.unit.spark_impl import speculation_job as job
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.store import metadata
from reference.store.commit import read_live_entries
from reference.store.orphans import find_orphans, remove_orphan_files
from reference.table import Table

pytestmark = pytest.mark.spark

IO = LocalFileIO()
FIELDS = [t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType())]
JOB_TIMEOUT_SECONDS = 300
SLOW_ATTEMPT = f"{job.SLOW_PARTITION}-0"
COPY_ATTEMPT = f"{job.SLOW_PARTITION}-1"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    pytest.importorskip("pyspark")
    try:
        started = start_cluster(tmp_path_factory.mktemp("spark-cluster"))
    except (ClusterUnavailable, OSError) as error:
        pytest.skip(f"no standalone Spark cluster here: {error}")
    yield started
    started.stop()


@pytest.fixture(scope="module")
def speculated(cluster: Cluster, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict]:
    """The table after the speculated write, and the files each attempt wrote."""
    root = str(tmp_path_factory.mktemp("speculation") / "t")
    Table.create(IO, root, FIELDS, options={"bucket": "-1"})
    result = Path(f"{root}.json")
    command = [sys.executable, "-m", job.__name__, cluster.master_url, root, str(result)]
    subprocess.run(command, check=True, timeout=JOB_TIMEOUT_SECONDS)
    return root, json.loads(result.read_text())


def committed_files(root: str) -> set[str]:
    snapshot = metadata.read_latest_snapshot(IO, root)
    assert snapshot is not None
    return {e.file.file_name for e in read_live_entries(IO, root, snapshot)}


def test_spark_launched_a_copy_that_wrote_the_rows_again(speculated: tuple[str, dict]) -> None:
    _, attempts = speculated
    assert {SLOW_ATTEMPT, COPY_ATTEMPT} <= set(attempts)
    assert attempts[SLOW_ATTEMPT] and attempts[COPY_ATTEMPT]
    assert not set(attempts[SLOW_ATTEMPT]) & set(attempts[COPY_ATTEMPT])


def test_each_row_is_committed_once(speculated: tuple[str, dict]) -> None:
    root, _ = speculated
    rows = [row for _, row in Table(IO, root).read().rows]
    assert Counter(rows) == Counter((k, k % 97) for k in range(job.ROWS))
    assert len(metadata.list_snapshot_ids(IO, root)) == 1


def test_only_one_attempt_of_a_task_is_committed(speculated: tuple[str, dict]) -> None:
    root, attempts = speculated
    committed = committed_files(root)
    by_partition: dict[str, list[set[str]]] = {}
    for name, files in attempts.items():
        by_partition.setdefault(name.split("-")[0], []).append(set(files))
    for partition, written in by_partition.items():
        kept = [files for files in written if files <= committed]
        assert len(kept) == 1, f"partition {partition}: {len(kept)} attempts committed"
    kept_files = [f for written in by_partition.values() for f in written if f <= committed]
    assert committed == set().union(*kept_files)


def test_the_stalled_attempts_files_are_unreferenced_orphans(
    speculated: tuple[str, dict],
) -> None:
    root, attempts = speculated
    slow, copy = set(attempts[SLOW_ATTEMPT]), set(attempts[COPY_ATTEMPT])
    loser = copy if slow <= committed_files(root) else slow
    now = datetime.timedelta(0)
    orphans = {Path(p).name for p in find_orphans(IO, root, older_than=now)}
    assert loser <= orphans and not orphans & committed_files(root)
    before = Counter(row for _, row in Table(IO, root).read().rows)
    remove_orphan_files(IO, root, older_than=now)
    assert Counter(row for _, row in Table(IO, root).read().rows) == before
    assert not {Path(p).name for p in find_orphans(IO, root, older_than=now)} & loser
