"""A write with speculative execution on a standalone cluster, run as its own Spark driver.

``python -m conformance.unit.spark_impl.speculation_job <master-url> <table> <result.json>``

The table's rows come in ``TASKS`` partitions. The writer of the ``paimon_slow`` source (a
thin test wrapper of ``paimon``) lets the first attempt of partition ``SLOW_PARTITION`` write
its files and then sleep, so Spark's speculation launches a copy of that task on the other
worker (another host); the copy writes the same rows again and finishes first. Each attempt
that wrote records the files it wrote in ``<table>.attempts/<partition>-<attempt>``. The result
file says which attempts wrote which files; the test checks that only one attempt's files are
committed.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

import spark_impl
from spark_impl.batch_source import PaimonCommitMessage, PaimonWriter, plain_options
from spark_impl.datasource import PaimonDataSource

ROWS = 1000
TASKS = 2
SLOW_PARTITION = 0
SLOW_SECONDS = 60.0
"""Long enough that the speculative copy always finishes first; the attempt is killed when
the stage ends, so the job does not wait for it."""
SPECULATION_CONFIG = {
    "spark.speculation": "true",
    "spark.speculation.interval": "100ms",
    "spark.speculation.multiplier": "1.1",
    "spark.speculation.quantile": "0.5",
    "spark.speculation.minTaskRuntime": "500ms",
    "spark.executor.cores": "1",
    "spark.executor.memory": "768m",
    "spark.cores.max": str(TASKS),
    "spark.ui.enabled": "false",
    "spark.driver.host": "127.0.0.1",
}


def register_slow_source(spark: Any, attempts_dir: Path) -> None:
    """The ``paimon_slow`` source: ``paimon`` whose first attempt of ``SLOW_PARTITION`` sleeps
    after writing its files."""
    from pyspark import TaskContext  # noqa: PLC0415

    class SlowWriter(PaimonWriter):
        def write(self, iterator: Iterator[pa.RecordBatch]) -> PaimonCommitMessage:
            message = super().write(iterator)
            context = TaskContext.get()
            assert context is not None
            files = [f.file_name for m in message.messages for f in m.data.new_files]
            name = f"{context.partitionId()}-{context.attemptNumber()}"
            (attempts_dir / name).write_text(json.dumps(files))
            if context.partitionId() == SLOW_PARTITION and context.attemptNumber() == 0:
                time.sleep(SLOW_SECONDS)
            return message

    class SlowSource(PaimonDataSource):
        @classmethod
        def name(cls) -> str:
            return "paimon_slow"

        def writer(self, schema: Any, overwrite: bool) -> SlowWriter:
            return SlowWriter(plain_options(self.options), overwrite)

    spark.dataSource.register(SlowSource)


def run(master_url: str, table: str) -> dict[str, list[str]]:
    """Write ``ROWS`` rows to ``table`` (an existing append table with columns k, v)."""
    from pyspark.sql import SparkSession  # noqa: PLC0415

    os.environ["PYSPARK_PYTHON"] = sys.executable  # the executors' Python: this one
    builder = SparkSession.builder.master(master_url).appName("paimon-kit-speculation")
    for key, value in SPECULATION_CONFIG.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    attempts_dir = Path(f"{table}.attempts")
    attempts_dir.mkdir()
    try:
        spark_impl.register(spark)
        register_slow_source(spark, attempts_dir)
        frame = spark.range(0, ROWS, numPartitions=TASKS).selectExpr(
            "cast(id as int) as k", "cast(id % 97 as int) as v"
        )
        frame.write.format("paimon_slow").mode("append").save(table)
    finally:
        spark.stop()
    return {p.name: json.loads(p.read_text()) for p in sorted(attempts_dir.iterdir())}


def main() -> None:
    master_url, table, result = sys.argv[1], sys.argv[2], sys.argv[3]
    Path(result).write_text(json.dumps(run(master_url, table)))


if __name__ == "__main__":
    main()
