"""Workload definitions shared by every engine of the benchmark suite.

W1 (primary-key table): ``rows`` keys written in commit 0 (``k = id``, ``v = 'value-<id>'``,
``x = id``), then commits 1..4 each update a fifth of the keys (20 %):
``k = (id * 5 + c) % rows``, ``v = 'update-<c>-<id>'``, ``x = id + c / 8``.
Bucket 4 (:data:`BUCKETS`), Parquet.
The table after the five commits holds exactly ``rows`` rows whose checksum
(:func:`expected_checksum`) is computed here with numpy, independently of every engine.

W2 (append table, bucket-unaware): the commit-0 rows of W1 written in five equal commits.

Every value is a multiple of 1/8 below 2**50, so sums of ``x`` are exact in any order and a
checksum is a tuple of integers and exact floats that engines must reproduce bit for bit.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reference.io import LocalFileIO
from reference.spec import types as t
from reference.table import Table

DATABASE = "bench"
DEFAULT_BUCKETS = 4
BUCKETS = int(os.environ.get("BENCH_BUCKETS", DEFAULT_BUCKETS))
"""The tables' bucket count; ``BENCH_BUCKETS`` changes it for the runs at a fixed split size
(the memory target: e.g. 1M rows in 4 buckets and 10M in 40 both make 250k-row splits)."""
COMMITS = 5
UPDATE_STRIDE = 5
"""Each update commit touches every fifth key: a 20 % update."""
X_FRACTION = 8.0
"""Update commit ``c`` adds ``c / X_FRACTION`` to ``x`` (an exact binary fraction)."""
TABLE_OPTIONS = {"bucket": str(BUCKETS), "file.format": "parquet", "file.compression": "zstd"}
WRITE_ONLY_OPTIONS = {**TABLE_OPTIONS, "write-only": "true"}
"""W1 without compaction by the writers: every bucket keeps its five sorted runs, so a read
really merges and a full compaction has work to do."""
APPEND_OPTIONS = {"bucket": "-1", "file.format": "parquet", "file.compression": "zstd"}

FIELDS = (
    t.DataField(0, "k", t.BigIntType(nullable=False)),
    t.DataField(1, "v", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(2, "x", t.DoubleType()),
)
ARROW_SCHEMA = pa.schema(
    [
        pa.field("k", pa.int64(), nullable=False),
        pa.field("v", pa.string()),
        pa.field("x", pa.float64()),
    ]
)


@dataclass(frozen=True)
class Checksum:
    """Row count, sum of keys, sum of ``x`` and total length of ``v``."""

    count: int
    key_sum: int
    x_sum: float
    v_length: int


def compute_update_rows(rows: int) -> int:
    """Rows of each update commit of W1."""
    return rows // UPDATE_STRIDE


def compute_commit_columns(rows: int, commit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(k, id, x)`` of W1's ``commit`` as numpy arrays (``v`` derives from ``id``)."""
    if commit == 0:
        ids = np.arange(rows, dtype=np.int64)
        return ids, ids, ids.astype(np.float64)
    ids = np.arange(compute_update_rows(rows), dtype=np.int64)
    keys = (ids * UPDATE_STRIDE + commit) % rows
    return keys, ids, ids.astype(np.float64) + commit / X_FRACTION


def value_prefix(commit: int) -> str:
    return "value-" if commit == 0 else f"update-{commit}-"


def commit_arrow(rows: int, commit: int) -> pa.Table:
    """W1's ``commit`` as an Arrow table in the table's schema."""
    keys, ids, xs = compute_commit_columns(rows, commit)
    values = pc.binary_join_element_wise(
        value_prefix(commit), pc.cast(pa.array(ids), pa.string()), ""
    )
    return pa.Table.from_arrays([pa.array(keys), values, pa.array(xs)], schema=ARROW_SCHEMA)


def commit_spark_frame(spark: object, rows: int, commit: int) -> object:
    """W1's ``commit`` as a Spark DataFrame built on the executors (``spark.range``)."""
    if commit == 0:
        frame = spark.range(rows)  # type: ignore[attr-defined]
        return frame.selectExpr("id as k", "concat('value-', id) as v", "cast(id as double) as x")
    frame = spark.range(compute_update_rows(rows))  # type: ignore[attr-defined]
    return frame.selectExpr(
        f"(id * {UPDATE_STRIDE} + {commit}) % {rows} as k",
        f"concat('{value_prefix(commit)}', id) as v",
        f"cast(id as double) + {commit / X_FRACTION} as x",
    )


def compute_append_bounds(rows: int, commit: int) -> tuple[int, int]:
    """The id range ``[start, end)`` W2 writes in ``commit``."""
    return rows * commit // COMMITS, rows * (commit + 1) // COMMITS


def append_commit_arrow(rows: int, commit: int) -> pa.Table:
    """W2's ``commit`` as an Arrow table."""
    start, end = compute_append_bounds(rows, commit)
    ids = pa.array(np.arange(start, end, dtype=np.int64))
    values = pc.binary_join_element_wise(value_prefix(0), pc.cast(ids, pa.string()), "")
    return pa.Table.from_arrays([ids, values, pc.cast(ids, pa.float64())], schema=ARROW_SCHEMA)


def append_commit_spark_frame(spark: object, rows: int, commit: int) -> object:
    """W2's ``commit`` as a Spark DataFrame."""
    start, end = compute_append_bounds(rows, commit)
    frame = spark.range(start, end)  # type: ignore[attr-defined]
    return frame.selectExpr("id as k", "concat('value-', id) as v", "cast(id as double) as x")


def compute_digits(ids: np.ndarray) -> np.ndarray:
    """Decimal digit count of each non-negative id."""
    return np.where(ids == 0, 1, np.floor(np.log10(np.maximum(ids, 1))).astype(np.int64) + 1)


def expected_checksum(rows: int) -> Checksum:
    """The checksum of W1 after all commits: the last write of every key wins."""
    lengths = np.zeros(rows, dtype=np.int64)
    xs = np.zeros(rows, dtype=np.float64)
    for commit in range(COMMITS):
        keys, ids, values = compute_commit_columns(rows, commit)
        lengths[keys] = len(value_prefix(commit)) + compute_digits(ids)
        xs[keys] = values
    return Checksum(rows, rows * (rows - 1) // 2, float(xs.sum()), int(lengths.sum()))


def expected_append_checksum(rows: int) -> Checksum:
    """The checksum of W2 (every commit-0 row of W1, nothing merged)."""
    ids = np.arange(rows, dtype=np.int64)
    lengths = len(value_prefix(0)) + compute_digits(ids)
    return Checksum(rows, rows * (rows - 1) // 2, float(ids.sum()), int(lengths.sum()))


def arrow_checksum(table: pa.Table) -> Checksum:
    """The checksum of rows read into Arrow."""
    if table.num_rows == 0:
        return Checksum(0, 0, 0.0, 0)
    return Checksum(
        table.num_rows,
        int(pc.sum(table["k"]).as_py()),
        float(pc.sum(table["x"]).as_py()),
        int(pc.sum(pc.utf8_length(table["v"])).as_py()),
    )


SPARK_CHECKSUM = ("count(*)", "sum(k)", "sum(x)", "sum(length(v))")
"""The checksum as Spark SQL aggregates (one pass over every column, merged)."""


def spark_checksum(frame: object) -> Checksum:
    row = frame.selectExpr(*SPARK_CHECKSUM).collect()[0]  # type: ignore[attr-defined]
    return Checksum(int(row[0]), int(row[1] or 0), float(row[2] or 0.0), int(row[3] or 0))


def table_root(warehouse: str, name: str) -> str:
    """``<warehouse>/bench.db/<name>``: a catalog table every engine can open."""
    return f"{warehouse}/{DATABASE}.db/{name}"


def create_table(
    warehouse: str, name: str, options: dict[str, str], *, primary_key: bool = True
) -> str:
    """Create an empty table with W1's fields and ``options`` (through the reference) and
    return its root ``<warehouse>/bench.db/<name>``."""
    root = table_root(warehouse, name)
    keys = ["k"] if primary_key else []
    Table.create(LocalFileIO(), root, FIELDS, primary_keys=keys, options=options)
    return root


def create_pk_table(warehouse: str, name: str) -> str:
    """The empty W1 table."""
    return create_table(warehouse, name, TABLE_OPTIONS)


def create_pk_runs_table(warehouse: str, name: str) -> str:
    """The empty W1 table with ``write-only`` (no compaction while writing)."""
    return create_table(warehouse, name, WRITE_ONLY_OPTIONS)


def create_append_table(warehouse: str, name: str) -> str:
    """The empty W2 table."""
    return create_table(warehouse, name, APPEND_OPTIONS, primary_key=False)
