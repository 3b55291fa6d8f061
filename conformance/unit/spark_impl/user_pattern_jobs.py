"""Spark jobs the user-pattern tests run in their own SparkSession (a subprocess), so the
shared session keeps its configuration: writes whose tasks fail and are retried, and writes
with speculative execution on.

``python -m conformance.unit.spark_impl.user_pattern_jobs <warehouse> <result.json>`` writes
three tables under ``<warehouse>`` and prints what the tasks did to ``<result.json>``:

* ``before_write``: a task fails on its first attempt before the writer gets a row
  (``mapInArrow`` raises when ``attemptNumber() == 0``); Spark retries it (``local[2,4]``).
* ``after_write``: a task's first attempt writes its files and then fails (the writer of a
  ``paimon_flaky`` source, a thin test wrapper of the ``paimon`` one, raises after
  ``PaimonWriter.write`` returned): the retry writes the rows again, as a speculative or
  retried duplicate attempt does; only one attempt's commit message may reach the commit.
* ``speculation``: ``spark.speculation`` on with aggressive settings and one slow task.
  Spark's local mode never launches a speculative copy (``TaskSchedulerImpl.start`` starts
  the speculation check only when the master is not local), so the attempts are recorded:
  the duplicate-attempt case proper is ``after_write``, and a real speculative copy on a
  standalone cluster is ``test_speculation_cluster.py``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

import spark_impl
from conformance.spark_settings import session_builder
from spark_impl.batch_source import PaimonWriter, plain_options
from spark_impl.datasource import PaimonDataSource

ROWS = 400
TASKS = 4
FAILING_PARTITION = 1
SLOW_PARTITION = 2
SLOW_SECONDS = 1.0
"""How long the slow task's first attempt stalls: local mode launches no speculative copy
(real copies: ``test_speculation_cluster.py``), so a second makes it the slow task as well as
four did."""
MASTER = "local[2,4]"
SPECULATION_CONFIG = {
    "spark.speculation": "true",
    "spark.speculation.multiplier": "1",
    "spark.speculation.quantile": "0.1",
    "spark.speculation.minTaskRuntime": "1ms",
    "spark.speculation.interval": "10ms",
    "spark.sql.adaptive.enabled": "true",
}
"""Speculation as the tests ask for it, and adaptive execution on as users run Spark (the
suite's other sessions turn it off for speed)."""
TABLES = ("before_write", "after_write", "speculation")


def expected_row(k: int) -> tuple[int, int, str]:
    """Row ``k`` of every job: ``(k, k % 97, dt)`` over three partitions."""
    return k, k % 97, f"2024-02-0{1 + k % 3}"


def _marker(directory: str, kind: str) -> None:
    """Record one task attempt (``kind-partition-attempt``) in ``directory``."""
    from pyspark import TaskContext  # noqa: PLC0415

    context = TaskContext.get()
    assert context is not None
    name = f"{kind}-{context.partitionId()}-{context.attemptNumber()}"
    Path(directory, name).touch()


def rows_of(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """``id`` batches of ``spark.range`` as the table's rows."""
    for batch in batches:
        ids = batch.column(0).to_pylist()
        rows = [expected_row(k) for k in ids]
        yield pa.RecordBatch.from_pylist(
            [{"k": k, "v": v, "dt": dt} for k, v, dt in rows],
            schema=pa.schema([("k", pa.int32()), ("v", pa.int32()), ("dt", pa.string())]),
        )


def _source_frame(spark: Any, markers: str, behaviour: str) -> Any:
    """``ROWS`` rows in ``TASKS`` partitions; ``behaviour`` makes one task fail or slow."""
    from pyspark import TaskContext  # noqa: PLC0415

    def produce(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        context = TaskContext.get()
        assert context is not None
        _marker(markers, behaviour)
        first = context.attemptNumber() == 0
        if behaviour == "before_write" and context.partitionId() == FAILING_PARTITION and first:
            raise RuntimeError("injected failure of the first attempt")
        if behaviour == "speculation" and context.partitionId() == SLOW_PARTITION and first:
            time.sleep(SLOW_SECONDS)
        yield from rows_of(batches)

    frame = spark.range(0, ROWS, numPartitions=TASKS)
    return frame.mapInArrow(produce, "k int, v int, dt string")


def register_flaky(spark: Any, markers: str) -> None:
    """The ``paimon_flaky`` source: ``paimon`` whose writer raises after a first attempt of
    partition ``FAILING_PARTITION`` wrote its files."""
    from pyspark import TaskContext  # noqa: PLC0415

    class FlakyWriter(PaimonWriter):
        def write(self, iterator: Iterator[pa.RecordBatch]) -> Any:
            message = super().write(iterator)
            context = TaskContext.get()
            assert context is not None
            _marker(markers, "after_write_wrote")
            if context.partitionId() == FAILING_PARTITION and context.attemptNumber() == 0:
                raise RuntimeError("injected failure after the attempt wrote its files")
            return message

    class FlakySource(PaimonDataSource):
        @classmethod
        def name(cls) -> str:
            return "paimon_flaky"

        def writer(self, schema: Any, overwrite: bool) -> FlakyWriter:
            return FlakyWriter(plain_options(self.options), overwrite)

    spark.dataSource.register(FlakySource)


def run(warehouse: str) -> dict[str, Any]:
    """Write the three tables; the attempts each task made, by job."""
    builder = session_builder(MASTER, "paimon-kit-user-pattern-jobs", **SPECULATION_CONFIG)
    spark = builder.getOrCreate()
    try:
        spark_impl.register(spark)
        markers = Path(warehouse, "markers")
        markers.mkdir(exist_ok=True)
        register_flaky(spark, str(markers))
        for name in TABLES:
            source = "paimon_flaky" if name == "after_write" else "paimon"
            frame = _source_frame(spark, str(markers), name)
            frame.write.format(source).mode("append").save(str(Path(warehouse, name)))
        return {"attempts": sorted(p.name for p in markers.iterdir())}
    finally:
        spark.stop()


def main() -> None:
    warehouse, result = sys.argv[1], sys.argv[2]
    Path(result).write_text(json.dumps(run(warehouse)))


if __name__ == "__main__":
    main()
