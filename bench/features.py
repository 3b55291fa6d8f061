"""Workloads W4-W7: the table features on top of W1/W2 data (see :mod:`bench.workloads`).

W4 (lookup changelog producer write): W1's five commits into a primary-key table with
``changelog-producer = lookup``. Besides the table, the writer must produce the changelog: the
first commit's keys as ``+I`` and each update as a ``-U`` / ``+U`` pair, so the snapshots'
``changelogRecordCount`` sum to ``rows + 4 * 2 * rows / 5`` (:func:`expected_changelog_records`).

W5 (point query with file-index pruning): W2's rows (an append table) with a bloom-filter index
on ``v`` and a small ``target-file-size`` so that the table has many files whose ``v`` ranges
overlap (``'value-1'`` < ``'value-10'`` < ``'value-2'``: min/max statistics cannot prune a
string equality); :data:`POINT_QUERIES` queries ``v = 'value-<id>'``, one at a time, each
matching one row.

W6 (merge engines): W1's keys written ``write-only`` (five sorted runs per bucket to merge) into
a ``partial-update`` table, whose update commits set only one of ``v`` / ``x`` (the other is
null: :data:`PARTIAL_NULL_COLUMN`), and into an ``aggregation`` table (``x`` summed, ``v`` the
default ``last_non_null_value``); the timed operation is the merge-read.

W7 (deletion vectors): W1 into a primary-key table with ``deletion-vectors.enabled``; every
update commit is compacted up with its older rows marked deleted, so a read needs no merge,
only the deletion vectors.

As in :mod:`bench.workloads`, every expected checksum is computed here with numpy.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow as pa

from bench import workloads as w

LOOKUP_OPTIONS = {**w.TABLE_OPTIONS, "changelog-producer": "lookup"}
INDEX_COLUMN = "v"
INDEX_TARGET_FILE_SIZE = "256kb"
"""Small files (about 20k rows each) so that the point query has many files to rule out."""
INDEX_OPTIONS = {
    **w.APPEND_OPTIONS,
    "target-file-size": INDEX_TARGET_FILE_SIZE,
    "file-index.bloom-filter.columns": INDEX_COLUMN,
    f"file-index.bloom-filter.{INDEX_COLUMN}.items": "30000",
    f"file-index.bloom-filter.{INDEX_COLUMN}.fpp": "0.01",
    "file-index.in-manifest-threshold": "64kb",
}
"""Bloom filters sized for a file's rows (the default, 1M items, would be 600 KB per file) and
embedded in the manifests, so that planning prunes (Java reads no ``.index`` file while
planning)."""
PARTIAL_OPTIONS = {**w.WRITE_ONLY_OPTIONS, "merge-engine": "partial-update"}
AGGREGATE_OPTIONS = {
    **w.WRITE_ONLY_OPTIONS,
    "merge-engine": "aggregation",
    "fields.x.aggregate-function": "sum",
}
DV_OPTIONS = {**w.TABLE_OPTIONS, "deletion-vectors.enabled": "true"}
PARTIAL_NULL_COLUMN = {1: "x", 2: "v", 3: "x", 4: "v"}
"""The column an update commit of W6-partial leaves null (so it keeps the older value)."""
POINT_QUERY_COUNT = 4
SPARK_TYPES = {"v": "string", "x": "double"}


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


create_lookup_table = partial(w.create_table, options=LOOKUP_OPTIONS)
create_index_table = partial(w.create_table, options=INDEX_OPTIONS, primary_key=False)
create_partial_table = partial(w.create_table, options=PARTIAL_OPTIONS)
create_aggregate_table = partial(w.create_table, options=AGGREGATE_OPTIONS)
create_dv_table = partial(w.create_table, options=DV_OPTIONS)
"""``create_*(warehouse, name)``: each feature's empty table
(:func:`bench.workloads.create_table`)."""


# --------------------------------------------------------------------------------------------
# W4: the changelog
# --------------------------------------------------------------------------------------------


def expected_changelog_records(rows: int) -> int:
    """``+I`` for every key of commit 0, a ``-U`` / ``+U`` pair for every update."""
    return rows + (w.COMMITS - 1) * 2 * w.compute_update_rows(rows)


def count_changelog_records(root: str) -> int:
    """The sum of ``changelogRecordCount`` over the table's snapshots (read from their JSON,
    independently of every engine)."""
    total = 0
    for path in sorted(Path(root, "snapshot").glob("snapshot-*")):
        total += int(json.loads(path.read_text(encoding="utf-8")).get("changelogRecordCount") or 0)
    return total


def changelog_commits_arrow(rows: int) -> list[pa.Table]:
    """What the floor writes as the changelog: commit 0's rows, then each update twice (the
    ``-U`` and ``+U`` rows have the size of the update)."""
    first = w.commit_arrow(rows, 0)
    updates = [w.commit_arrow(rows, c) for c in range(1, w.COMMITS)]
    return [first, *(pa.concat_tables([u, u]) for u in updates)]


# --------------------------------------------------------------------------------------------
# W5: point queries
# --------------------------------------------------------------------------------------------


def point_query_ids(rows: int) -> list[int]:
    """Ids spread over the table, one per query."""
    return [rows * (2 * i + 1) // (2 * POINT_QUERY_COUNT) for i in range(POINT_QUERY_COUNT)]


def point_query_values(rows: int) -> list[str]:
    return [f"{w.value_prefix(0)}{i}" for i in point_query_ids(rows)]


def expected_point_checksum(rows: int) -> w.Checksum:
    """The rows of all point queries together (each matches the one row with that id)."""
    ids = point_query_ids(rows)
    values = point_query_values(rows)
    return w.Checksum(len(ids), sum(ids), float(sum(ids)), sum(len(v) for v in values))


# --------------------------------------------------------------------------------------------
# W6: partial-update and aggregation
# --------------------------------------------------------------------------------------------


def partial_commit_arrow(rows: int, commit: int) -> pa.Table:
    """W1's ``commit`` with :data:`PARTIAL_NULL_COLUMN` set to null in update commits."""
    data = w.commit_arrow(rows, commit)
    column = PARTIAL_NULL_COLUMN.get(commit)
    if column is None:
        return data
    index = data.schema.get_field_index(column)
    nulls = pa.nulls(data.num_rows, data.schema.field(column).type)
    return data.set_column(index, data.schema.field(column), nulls)


def partial_commit_spark_frame(spark: object, rows: int, commit: int) -> object:
    frame = w.commit_spark_frame(spark, rows, commit)
    column = PARTIAL_NULL_COLUMN.get(commit)
    if column is None:
        return frame
    cast = SPARK_TYPES[column]
    return frame.withColumn(column, _null(cast))  # type: ignore[attr-defined]


def _null(spark_type: str) -> object:
    from pyspark.sql import functions  # noqa: PLC0415 (pyspark is optional)

    return functions.lit(None).cast(spark_type)


def expected_partial_checksum(rows: int) -> w.Checksum:
    """The last non-null ``v`` and ``x`` of every key."""
    lengths = np.zeros(rows, dtype=np.int64)
    xs = np.zeros(rows, dtype=np.float64)
    for commit in range(w.COMMITS):
        keys, ids, values = w.compute_commit_columns(rows, commit)
        null = PARTIAL_NULL_COLUMN.get(commit)
        if null != "v":
            lengths[keys] = len(w.value_prefix(commit)) + w.compute_digits(ids)
        if null != "x":
            xs[keys] = values
    return w.Checksum(rows, rows * (rows - 1) // 2, float(xs.sum()), int(lengths.sum()))


def expected_aggregate_checksum(rows: int) -> w.Checksum:
    """``x`` summed over every commit, ``v`` the last one written."""
    lengths = np.zeros(rows, dtype=np.int64)
    xs = np.zeros(rows, dtype=np.float64)
    for commit in range(w.COMMITS):
        keys, ids, values = w.compute_commit_columns(rows, commit)
        lengths[keys] = len(w.value_prefix(commit)) + w.compute_digits(ids)
        xs[keys] += values
    return w.Checksum(rows, rows * (rows - 1) // 2, float(xs.sum()), int(lengths.sum()))
