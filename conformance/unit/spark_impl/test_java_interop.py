"""Java 0.9 reads the tables spark_impl's writer, compaction and committer make (the tasks' code
run without Spark; ``test_jobs`` covers the same through Spark)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conformance.unit.spark_impl.write_helpers import (
    STRING_FIELDS,
    reference_rows,
    spark_impl_write,
)
from reference.io import LocalFileIO
from reference.spec.data import RowKind
from reference.table import Table
from spark_impl import commit as committer
from spark_impl import stream
from spark_impl.compact import compact_bucket, plan_bucket_jobs
from spark_impl.metadata import find_latest_snapshot_id

pytestmark = pytest.mark.java

IO = LocalFileIO()
FIELDS = list(STRING_FIELDS)
CASES = {
    "fixed-bucket": (["k", "dt"], {"bucket": "2", "num-sorted-run.compaction-trigger": "2"}),
    "deletion-vectors": (["k", "dt"], {"bucket": "2", "deletion-vectors.enabled": "true"}),
    "first-row": (["k", "dt"], {"bucket": "1", "merge-engine": "first-row"}),
    "dynamic-bucket": (
        ["k", "dt"],
        {
            "bucket": "-1",
            "dynamic-bucket.target-row-num": "5",
            "dynamic-bucket.initial-buckets": "2",
        },
    ),
    "input-changelog-orc": (
        ["k", "dt"],
        {"bucket": "1", "changelog-producer": "input", "file.format": "orc"},
    ),
    "append-avro-orc-manifests": (
        [],
        {"bucket": "-1", "file.format": "avro", "manifest.format": "orc"},
    ),
    "append-fixed": ([], {"bucket": "3", "bucket-key": "k"}),
    "partial-update": (["k", "dt"], {"bucket": "2", "merge-engine": "partial-update"}),
    "aggregation": (
        ["k", "dt"],
        {"bucket": "2", "merge-engine": "aggregation", "fields.v.aggregate-function": "max"},
    ),
}
NO_RETRACTION = frozenset({"first-row", "partial-update", "aggregation"})
"""Engines written with inserts and updates only (their retractions need extra options)."""


@pytest.mark.parametrize("case", sorted(CASES))
def test_java_reads_what_spark_impl_writes(java_harness: Any, tmp_path: Path, case: str) -> None:
    primary_keys, options = CASES[case]
    root = str(tmp_path / case)
    Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=primary_keys, options=options
    )
    choices = [RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE]
    if not primary_keys or options.get("merge-engine") == "first-row":
        choices = [RowKind.INSERT]
    elif case in NO_RETRACTION:
        choices = [RowKind.INSERT, RowKind.UPDATE_AFTER]
    for round_ in range(4):
        rows = [(i % 11, f"r{round_}-{i}" if i % 5 else None, "ab"[i % 2]) for i in range(25)]
        kinds = [choices[(i + round_) % len(choices)] for i in range(25)]
        spark_impl_write(IO, root, rows, kinds)
    if primary_keys:
        jobs = plan_bucket_jobs(IO, root, full=True)
        committer.commit(IO, root, [m for m in (compact_bucket(IO, j) for j in jobs) if m])
    latest = find_latest_snapshot_id(IO, root)
    assert latest is not None
    for snapshot_id in sorted({1, latest - 1, latest}):
        java = java_harness.read(root, snapshot_id=snapshot_id)
        assert Counter(java.values()) == reference_rows(IO, root, snapshot_id=snapshot_id), (
            snapshot_id
        )


@pytest.mark.parametrize("case", ["deletion-vectors", "fixed-bucket"])
def test_java_compacts_what_spark_impl_writes(java_harness: Any, tmp_path: Path, case: str) -> None:
    """Java's writer restores its LSM levels (and deletion vectors) from spark_impl's files."""
    primary_keys, options = CASES[case]
    root = str(tmp_path / case)
    Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=primary_keys, options=options
    )
    for round_ in range(3):
        rows = [(i % 13, f"r{round_}-{i}", "ab"[i % 2]) for i in range(30)]
        kinds = [[RowKind.INSERT, RowKind.DELETE][(i + round_) % 2] for i in range(30)]
        spark_impl_write(IO, root, rows, kinds)
    before = reference_rows(IO, root)
    java_harness.compact(root, full=True, commit=True)
    assert Counter(java_harness.read(root).values()) == before == reference_rows(IO, root)


@pytest.mark.parametrize("case", ["input-changelog-orc", "fixed-bucket", "append-fixed"])
def test_stream_changes_match_java(java_harness: Any, tmp_path: Path, case: str) -> None:
    """Every change from snapshot 1 on, as Java's stream scan reads them."""
    primary_keys, options = CASES[case]
    root = str(tmp_path / case)
    Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=primary_keys, options=options
    )
    choices = (
        [RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE] if primary_keys else [RowKind.INSERT]
    )
    for round_ in range(3):
        rows = [(i % 7, f"r{round_}-{i}", "ab"[i % 2]) for i in range(15)]
        spark_impl_write(IO, root, rows, [choices[(i + round_) % len(choices)] for i in range(15)])
    latest = find_latest_snapshot_id(IO, root)
    assert latest is not None
    mine: Counter[tuple[str, tuple[Any, ...]]] = Counter()
    for split in stream.plan_micro_batch(IO, root, 0, latest):
        table = stream.read_stream_split(IO, split)
        kinds = table.column(stream.ROW_KIND_COLUMN).to_pylist()
        values = table.drop_columns([stream.ROW_KIND_COLUMN]).to_pylist()
        mine.update((k, tuple(v.values())) for k, v in zip(kinds, values, strict=True))
    java = java_harness.read_stream(root, snapshot_id=1)
    assert mine == Counter((kind.short_string, row) for kind, row in java.rows)
