"""Timings of spark_impl (slow tier): write and merge-read a 1M-row primary-key table (bucket 4,
five commits: 1M inserts then four times 200k updates, i.e. 20 %) at ``local[1]`` and
``local[2]``, each in its own process so that the SparkSession start is measured apart.

Run with ``python -m pytest conformance/unit/spark_impl/test_benchmark.py -m slow -s``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROWS = 1_000_000
SCRIPT = textwrap.dedent(
    """
    import sys, time
    started = time.time()
    from pyspark.sql import SparkSession
    master, root, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
    spark = (
        SparkSession.builder.master(master)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", master[6:-1])
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    import spark_impl
    spark_impl.register(spark)
    spark.range(4).rdd.map(lambda x: x).collect()
    start = time.time() - started
    from reference.io import LocalFileIO
    from reference.spec import types as t
    from reference.table import Table
    fields = [
        t.DataField(0, "k", t.BigIntType(nullable=False)),
        t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
        t.DataField(2, "x", t.DoubleType()),
    ]
    Table.create(LocalFileIO(), root, fields, primary_keys=["k"], options={"bucket": "4"})
    writes = []
    for commit in range(5):
        if commit == 0:
            df = spark.range(rows).selectExpr(
                "id as k", "concat('value-', id) as v", "cast(id as double) as x")
        else:
            df = spark.range(rows // 5).selectExpr(
                f"(id * 5 + {commit}) % {rows} as k", f"concat('update-{commit}-', id) as v",
                "cast(id as double) as x")
        begin = time.time()
        spark_impl.write_table(df, root)
        writes.append(time.time() - begin)
    begin = time.time()
    counted = spark.read.format("paimon").load(root).count()
    count_time = time.time() - begin
    begin = time.time()
    spark.read.format("paimon").load(root).selectExpr("sum(x)", "max(v)").collect()
    scan_time = time.time() - begin
    assert counted == rows, counted
    print(f"RESULT {master}: session start {start:.1f} s; writes "
          + " + ".join(f"{w:.1f}" for w in writes) + f" = {sum(writes):.1f} s; "
          + f"merge-read count {count_time:.1f} s, sum/max {scan_time:.1f} s")
    """
)


@pytest.mark.parametrize("master", ["local[1]", "local[2]"])
def test_write_and_merge_read_one_million_rows(tmp_path: Path, master: str) -> None:
    script = tmp_path / "bench.py"
    script.write_text(SCRIPT, encoding="utf-8")
    project = Path(__file__).resolve().parents[3]
    paths = [str(project), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    cmd = [sys.executable, str(script), master, str(tmp_path / "table"), str(ROWS)]
    result = subprocess.run(cmd, check=False, capture_output=True, text=True, cwd=project, env=env)
    lines = [line for line in result.stdout.splitlines() if line.startswith("RESULT")]
    assert result.returncode == 0 and lines, result.stderr[-3000:]
    print(lines[0])
