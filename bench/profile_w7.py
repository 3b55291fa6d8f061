"""Where W7's deletion-vector read time goes, against Spark's own scan of the same files.

    python -m bench.profile_w7 <W7 table root>      (e.g. one ``--bench-keep`` left at 10M)

Prints, best of three in one ``local[2]`` session, the checksum query (count and sums, as the
bench computes it) over: the live files through ``spark.read.parquet`` (the yardstick), the
same with the ``_VALUE_KIND`` filter, the same with ``_metadata.file_name`` and
``_metadata.row_index`` selected, and ``spark_impl.read_table``; then read_table's physical
plan. The differences between the lines are the costs of each part of the native DV path.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from bench import engines as e
from bench import workloads as w

ROUNDS = 3


def best(name: str, make: Callable[[], Any]) -> None:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        w.spark_checksum(make())
        times.append(time.perf_counter() - started)
    print(f"{name:60s} {min(times):6.2f} s", flush=True)


def main(root: str) -> None:
    from pyspark.sql import functions as F  # noqa: PLC0415 (pyspark is optional)

    import spark_impl  # noqa: PLC0415

    spark = e.start_spark("local[2]")
    e.warm_up(spark)
    files = e.live_data_files(root)
    live = F.col("_VALUE_KIND").isin(0, 2)
    metadata = [F.col("_metadata.file_name").alias("f"), F.col("_metadata.row_index").alias("i")]
    best("spark.read.parquet(files)", lambda: spark.read.parquet(*files))
    best("+ _VALUE_KIND filter", lambda: spark.read.parquet(*files).where(live))
    best(
        "+ _metadata.file_name and row_index selected",
        lambda: (
            spark.read.parquet(*files)
            .select("k", "v", "x", *metadata)
            .where(F.col("f").isNotNull() & (F.col("i") >= 0))
        ),
    )
    best("spark_impl.read_table", lambda: spark_impl.read_table(spark, root))
    spark_impl.read_table(spark, root).select(F.count("*")).explain(mode="formatted")


if __name__ == "__main__":
    main(sys.argv[1])
