"""A streaming query into a ``paimon`` table, run by ``test_stream_sink`` in its own process.

``python -m conformance.unit.spark_impl.stream_sink_job <source dir> <table> <checkpoint>``
reads the Parquet files under ``<source dir>`` as a stream (``k INT, v STRING``) and writes
them with ``writeStream.format("paimon")`` and ``Trigger.AvailableNow``, then exits. With
``PAIMON_KIT_STREAM_SINK_KILL_AFTER_COMMIT=<batch id>`` in the environment the sink kills the
query's process group right after that batch's table commit (before Spark's checkpoint marks
the batch done); the test starts the job in its own session so only the job dies.
"""

from __future__ import annotations

import sys

from pyspark.sql import SparkSession

import spark_impl

SCHEMA = "k INT, v STRING"


def main(source: str, table: str, checkpoint: str) -> None:
    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.streaming.schemaInference", "false")
        .getOrCreate()
    )
    spark_impl.register(spark)
    stream = spark.readStream.format("parquet").schema(SCHEMA).option("maxFilesPerTrigger", 1)
    query = (
        stream.load(source)
        .writeStream.format("paimon")
        .option("checkpointLocation", checkpoint)
        .trigger(availableNow=True)
        .start(table)
    )
    query.awaitTermination()
    spark.stop()


if __name__ == "__main__":
    main(*sys.argv[1:4])
