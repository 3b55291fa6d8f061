"""docs/spark.md's Spark examples on a real standalone cluster with the warehouse on S3
(issue 19 must-show 3).

The fixture starts a master on 127.0.0.1 and two workers on 127.0.0.2 / .3
(:mod:`conformance.spark_cluster`) and the suite's S3 server
(:mod:`conformance.objectstore`); :mod:`conformance.unit.spark_impl.cluster_docs_job` is the
driver, in its own process: every ``python`` example of the page runs unchanged there (the
``cluster`` ones included) with ``warehouse`` an ``s3://`` path, so executors in their own
JVMs and Python workers do the table's S3 IO through ``pyarrow.fs`` (no hadoop-aws jar on
any classpath). The tables are then read back with the reference (never spark_impl).

Marked ``slow`` (a cluster start and the page's jobs take minutes): run it with
``python -m pytest -m slow conformance/unit/spark_impl/test_cluster_s3.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.objectstore.pytest_fixtures import S3Store, s3_store  # noqa: F401 (fixture)
from conformance.spark_cluster import Cluster, ClusterUnavailable, start_cluster
from reference.io import file_io_for
from reference.table import Table

pytestmark = [pytest.mark.spark, pytest.mark.s3, pytest.mark.slow]

JOB_TIMEOUT_SECONDS = 1800
WORKER_HOSTS = ("127.0.0.2", "127.0.0.3")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    pytest.importorskip("pyspark")
    try:
        started = start_cluster(tmp_path / "cluster", WORKER_HOSTS)
    except ClusterUnavailable as reason:
        pytest.skip(f"no standalone cluster here: {reason}")
    yield started
    started.stop()


def run_job(cluster: Cluster, store: S3Store, warehouse: str, report: Path) -> None:
    environment = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "PAIMON_KIT_S3_ENDPOINT": store.endpoint,
        "AWS_ACCESS_KEY_ID": store.access_key,
        "AWS_SECRET_ACCESS_KEY": store.secret_key,
        "AWS_REGION": store.region,
        "SPARK_LOCAL_IP": "127.0.0.1",
    }
    command = [sys.executable, "-m", "conformance.unit.spark_impl.cluster_docs_job"]
    done = subprocess.run(
        [*command, cluster.master_url, warehouse, str(report)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=JOB_TIMEOUT_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]


def test_docs_examples_run_on_a_cluster_with_the_warehouse_on_s3(
    cluster: Cluster,
    s3_store: S3Store,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
) -> None:
    warehouse = f"{s3_store.uri}/cluster-docs"
    report = tmp_path / "report.json"
    run_job(cluster, s3_store, warehouse, report)
    seen = json.loads(report.read_text(encoding="utf-8"))
    assert sorted(set(seen["executors"]) - {"127.0.0.1"}) == list(WORKER_HOSTS)
    pids = {pid for _, pid, _ in seen["workers"]}
    assert len(pids) >= len(WORKER_HOSTS) and seen["driver"] not in pids
    file_io = file_io_for(warehouse, s3_store.options)
    on_s3 = Table.open(file_io, f"{warehouse}/db.db/on_s3").read()
    assert sorted(row[0] for _, row in on_s3.rows) == [1, 2, 3]
    spread = Table.open(file_io, f"{warehouse}/db.db/spread").read()
    assert sorted(row[0] for _, row in spread.rows) == list(range(1000))
    orders = Table.open(file_io, f"{warehouse}/db.db/orders").read()
    assert sorted(row[0] for _, row in orders.rows) == [1, 2, 3, 4]
