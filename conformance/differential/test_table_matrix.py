"""Table matrix: every table kind in every file format, written by the reference, read by Java.

For each kind of ``workloads.TABLE_KINDS`` (append unaware / fixed bucket with a bucket key,
primary key with fixed, dynamic and cross-partition buckets, each merge engine, deletion
vectors, the changelog producers) and each file format (parquet, orc, avro), the reference
writes a history of several commits (inserts over two partitions, updates, deletes where the
kind takes them, a full compaction, a partition overwrite where valid, more writes, a universal
compaction). Java Paimon 0.9 then reads **every snapshot** of the table, and each read is the
same as the reference's read of that snapshot. For tables with a changelog producer the
changelog of every snapshot (``audit_log`` with ``incremental-between``) is compared too.

Batch reads compare ``+U`` as ``+I`` (expected_differences.md, "Batch read row kinds").

Default run: the fixed history (``workloads.matrix_history``) for the whole matrix. ``-m slow``:
hypothesis-drawn longer histories (``workloads.matrix_histories``) for the whole matrix.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.differential import run_java, run_reference
from conformance.differential.compare import as_inserts, describe_difference
from conformance.differential.run_reference import ReferenceRunner
from conformance.differential.workloads import (
    FILE_FORMATS,
    TABLE_KINDS,
    TABLE_KINDS_BY_NAME,
    Step,
    TableKind,
    matrix_histories,
    matrix_history,
)
from conformance.java.harness import JavaHarness

SLOW_EXAMPLES = 6
SLOW_STEPS = 12
MATRIX = list(itertools.product([kind.name for kind in TABLE_KINDS], FILE_FORMATS))


def check_every_snapshot(
    java: JavaHarness, kind: TableKind, file_format: str, steps: Sequence[Step]
) -> None:
    """Write ``steps`` with the reference; Java reads every snapshot as the reference does."""
    spec = kind.for_format(file_format)
    history = "\n".join(f"    {index}: {step}" for index, step in enumerate(steps))
    with tempfile.TemporaryDirectory(prefix="paimon-kit-matrix-") as base:
        root = str(Path(base) / "t")
        ours = ReferenceRunner(root, spec)
        for step in steps:
            ours.apply(step)
        ids = run_reference.snapshot_ids(root)
        assert ids, "the history made no snapshot"
        assert run_java.snapshot_ids(java, root) == ids
        producer = spec.option("changelog-producer", "none")
        for snapshot_id in ids:
            context = f"[{kind.name}, {file_format}] snapshot {snapshot_id} of\n{history}\n"
            difference = describe_difference(
                "the reference",
                as_inserts(run_reference.read_rows(root, snapshot_id)),
                "Java",
                as_inserts(run_java.read_rows(java, root, snapshot_id)),
            )
            assert difference is None, f"{context}: rows differ\n{difference}"
            if producer != "none":
                previous = snapshot_id - 1
                difference = describe_difference(
                    "the reference",
                    run_reference.read_audit_log(root, previous, snapshot_id),
                    "Java",
                    run_java.read_audit_log(java, root, previous, snapshot_id),
                )
                assert difference is None, f"{context}: changelog differs\n{difference}"


@pytest.mark.java
@pytest.mark.parametrize(("kind", "file_format"), MATRIX)
def test_java_reads_every_snapshot(java_harness: JavaHarness, kind: str, file_format: str) -> None:
    table_kind = TABLE_KINDS_BY_NAME[kind]
    check_every_snapshot(java_harness, table_kind, file_format, matrix_history(table_kind))


@pytest.mark.java
@pytest.mark.slow
@pytest.mark.parametrize(("kind", "file_format"), MATRIX)
@settings(
    max_examples=SLOW_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_java_reads_every_snapshot_of_random_histories(
    java_harness: JavaHarness, kind: str, file_format: str, data: st.DataObject
) -> None:
    table_kind = TABLE_KINDS_BY_NAME[kind]
    steps = data.draw(matrix_histories(table_kind, SLOW_STEPS), label="history")
    check_every_snapshot(java_harness, table_kind, file_format, steps)
