"""Table matrix: every table kind in every file format, written by the reference, read by Java.

For each kind of ``workloads.MATRIX_TABLE_KINDS`` (append unaware / fixed bucket with a bucket
key, primary key with fixed, dynamic and cross-partition buckets, each merge engine, deletion
vectors, the changelog producers; each partitioned by ``p`` and not) and each file format
(parquet, orc, avro), the reference writes a history of several commits (inserts over two
partitions, updates, deletes where the kind takes them, a full compaction, a partition or table
overwrite where valid, more writes, a universal compaction). Java Paimon 0.9 then lists the
snapshots (the history must hold APPEND, COMPACT and, where drawn, OVERWRITE commits) and reads
**every snapshot** of the table, and each read is the same as the reference's read of that
snapshot. For partitioned tables with a changelog producer the changelog of every snapshot
(``audit_log`` with ``incremental-between``) is compared too (the unpartitioned ones write the
same changelog files; leaving them out keeps the default run short).

Batch reads compare ``+U`` as ``+I`` (expected_differences.md, "Batch read row kinds").

Default run: the fixed history (``workloads.matrix_history``) for the whole matrix. ``-m slow``:
hypothesis-drawn longer histories (``workloads.matrix_histories``) for the whole matrix.
"""

from __future__ import annotations

import itertools
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.differential import run_java, run_reference
from conformance.differential.compare import as_inserts, describe_difference
from conformance.differential.run_reference import ReferenceRunner
from conformance.differential.workloads import (
    FILE_FORMATS,
    MATRIX_TABLE_KINDS,
    TABLE_KINDS_BY_NAME,
    Compact,
    Step,
    TableKind,
    Write,
    matrix_histories,
    matrix_history,
)
from conformance.java.harness import JavaHarness

SLOW_EXAMPLES = 2
SLOW_STEPS = 12
MATRIX = list(itertools.product([kind.name for kind in MATRIX_TABLE_KINDS], FILE_FORMATS))
STATS: Counter[str] = Counter()
"""Histories, steps and snapshots Java read in this process (the summary printed with ``-s``)."""


def expected_commit_kinds(steps: Sequence[Step]) -> set[str]:
    """The commit kinds a history must make (compactions of the fixed history always merge)."""
    kinds = {"APPEND"}
    if any(isinstance(step, Compact) for step in steps):
        kinds.add("COMPACT")
    if any(isinstance(step, Write) and step.overwrite is not None for step in steps):
        kinds.add("OVERWRITE")
    return kinds


def check_every_snapshot(
    java: JavaHarness,
    kind: TableKind,
    file_format: str,
    steps: Sequence[Step],
    commit_kinds: set[str] | None = None,
) -> None:
    """Write ``steps`` with the reference; Java lists the snapshots (holding ``commit_kinds``
    when given) and reads every one as the reference does."""
    spec = kind.for_format(file_format)
    history = "\n".join(f"    {index}: {step}" for index, step in enumerate(steps))
    with tempfile.TemporaryDirectory(prefix="paimon-kit-matrix-") as base:
        root = str(Path(base) / "t")
        ours = ReferenceRunner(root, spec)
        for step in steps:
            ours.apply(step)
        ids = run_reference.snapshot_ids(root)
        assert ids, "the history made no snapshot"
        snapshots = java.list_snapshots(root)
        assert [int(snapshot["id"]) for snapshot in snapshots] == ids
        if commit_kinds is not None:
            made = {str(snapshot["commitKind"]) for snapshot in snapshots}
            assert commit_kinds <= made, f"{kind.name}: commits {sorted(made)}"
        producer = spec.option("changelog-producer", "none")
        STATS["histories"] += 1
        STATS["steps"] += len(steps)
        STATS["snapshots"] += len(ids)
        for snapshot_id in ids:
            context = f"[{kind.name}, {file_format}] snapshot {snapshot_id} of\n{history}\n"
            difference = describe_difference(
                "the reference",
                as_inserts(run_reference.read_rows(root, snapshot_id)),
                "Java",
                as_inserts(run_java.read_rows(java, root, snapshot_id)),
            )
            assert difference is None, f"{context}: rows differ\n{difference}"
            if producer != "none" and spec.partition_keys:
                previous = snapshot_id - 1
                difference = describe_difference(
                    "the reference",
                    run_reference.read_audit_log(root, previous, snapshot_id),
                    "Java",
                    run_java.read_audit_log(java, root, previous, snapshot_id),
                )
                assert difference is None, f"{context}: changelog differs\n{difference}"


@pytest.fixture(scope="module", autouse=True)
def _print_summary() -> Iterator[None]:
    yield
    if STATS:
        print(
            f"\ntable matrix summary: {STATS['histories']} histories, {STATS['steps']} steps,"
            f" {STATS['snapshots']} snapshots read by both"
        )


@pytest.mark.java
@pytest.mark.parametrize(("kind", "file_format"), MATRIX)
def test_java_reads_every_snapshot(java_harness: JavaHarness, kind: str, file_format: str) -> None:
    table_kind = TABLE_KINDS_BY_NAME[kind]
    steps = matrix_history(table_kind)
    check_every_snapshot(java_harness, table_kind, file_format, steps, expected_commit_kinds(steps))


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
