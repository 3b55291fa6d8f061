"""The driver of :mod:`conformance.unit.spark_impl.test_cluster_s3`: docs/spark.md's examples
on a standalone cluster with the warehouse on S3.

``python -m conformance.unit.spark_impl.cluster_docs_job MASTER_URL WAREHOUSE REPORT``: the
S3 endpoint and keys come from the environment (``PAIMON_KIT_S3_ENDPOINT``, ``AWS_*``), which
the session hands to the executors (``spark.executorEnv.*``); executors run this interpreter
(``spark.pyspark.python``). Every ``python`` block of the page runs unchanged, the
``cluster`` ones included, with ``spark`` the cluster session and ``warehouse`` the S3 path.
The report (JSON) lists the executors that ran tasks and the Python worker processes seen.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from conformance.unit.spark_impl.test_docs_spark import (
    DOC,
    extract_examples,
    readme_examples,
    run_examples,
)

S3_ENVIRONMENT = (
    "PAIMON_KIT_S3_ENDPOINT",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_REGION",
)


def build_session(master_url: str) -> object:
    """A session on the cluster: one executor per worker, executors see the S3 settings."""
    from pyspark.sql import SparkSession  # noqa: PLC0415 (the driver's own JVM)

    builder = (
        SparkSession.builder.master(master_url)
        .appName("paimon-kit-cluster-docs")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.executor.memory", "512m")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
    )
    for name in S3_ENVIRONMENT:
        if name in os.environ:
            builder = builder.config(f"spark.executorEnv.{name}", os.environ[name])
    return builder.getOrCreate()


def worker_processes(spark: object) -> list[list[object]]:
    """(executor host, Python worker pid) of tasks spread over the executors."""
    context = spark.sparkContext  # type: ignore[attr-defined]

    def where(_: object) -> list[object]:
        from pyspark import TaskContext  # noqa: PLC0415 (inside a Python worker)

        host = os.environ.get("SPARK_LOCAL_IP", "")
        return [host, os.getpid(), TaskContext.get().partitionId()]  # type: ignore[union-attr]

    return context.parallelize(range(8), 8).map(where).collect()  # type: ignore[no-any-return]


def main(master_url: str, warehouse: str, report: str) -> None:
    spark = build_session(master_url)
    import spark_impl  # noqa: PLC0415

    spark_impl.register(spark)
    run_examples(
        extract_examples(DOC.read_text(encoding="utf-8")), {"spark": spark, "warehouse": warehouse}
    )
    readme_warehouse = f"{warehouse.rstrip('/')}/readme"
    run_examples(readme_examples(), {"spark": spark, "warehouse": readme_warehouse}, "README.md")
    tracker = spark.sparkContext._jsc.sc().statusTracker()  # type: ignore[attr-defined]
    executors = [info.host() for info in tracker.getExecutorInfos()]
    result = {"executors": executors, "workers": worker_processes(spark), "driver": os.getpid()}
    Path(report).write_text(json.dumps(result), encoding="utf-8")
    spark.stop()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main(*sys.argv[1:4])
