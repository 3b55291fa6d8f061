"""spark_impl compaction of append tables against the reference's: the same table compacted by
both gives the same files (sizes, sequences, statistics, rows) and deletion vectors.

Tables are built by the reference (several writes, deletes through deletion vectors, a schema
change), copied, and compacted once by each engine; the pure pickers are also checked against
the reference's on drawn file lists.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.differential.regressions.cases import KEY_VALUE, inserts, workload
from conformance.differential.run_spark import run_workload
from conformance.differential.spark_workloads import WriteRoute
from conformance.differential.workloads import Compact, TableSpec
from conformance.unit.reference.store.test_append_compact import meta as reference_meta
from conformance.unit.spark_impl.write_helpers import INT_FIELDS, reference_rows, table_structure
from reference.io import LocalFileIO
from reference.spec import schema as s
from reference.spec import types as t
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.deletion_vector import BitmapKind
from reference.spec.manifest import DeletionVectorMeta, IndexFileMeta
from reference.spec.predicate import equal
from reference.store import append_compact as ref
from reference.store.bucket_state import BucketState
from reference.store.compact import compact_table
from reference.table import Table
from spark_impl import append_compact as mine
from spark_impl import commit as committer
from spark_impl import jobs
from spark_impl.metadata import read_latest_snapshot, read_live_entries

IO = LocalFileIO()
FIELDS = list(INT_FIELDS)
SMALL = {"target-file-size": "2 kb"}
CASES: dict[str, dict[str, str]] = {
    "unaware": {"bucket": "-1", "compaction.max.file-num": "3", **SMALL},
    "unaware-vectors": {
        "bucket": "-1",
        "deletion-vectors.enabled": "true",
        "compaction.max.file-num": "2",
    },
    "fixed": {"bucket": "2", "bucket-key": "k", "write-only": "true", **SMALL},
    "fixed-vectors": {
        "bucket": "1",
        "bucket-key": "k",
        "deletion-vectors.enabled": "true",
        "write-only": "true",
        "deletion-vectors.bitmap64": "true",
    },
}


def _build(root: str, options: dict[str, str], seed: str) -> None:
    """Five writes, a column added before the last two, deletes when vectors are on."""
    table = Table.create(IO, root, FIELDS, partition_keys=["dt"], options=options)
    rng = random.Random(seed)
    for step in range(5):
        if step == 3:
            table.alter([s.AddColumn(("w",), t.BigIntType())])
        width = 3 if step < 3 else 4
        count = rng.choice([3, 40, 200])
        rows = [
            (rng.randint(0, 99), rng.randint(0, 9), rng.choice("ab"), rng.randint(0, 5))[:width]
            for _ in range(count)
        ]
        table.write_and_commit(rows)
        if options.get("deletion-vectors.enabled") and step in (1, 4):
            table.delete(equal("v", rng.randint(0, 9)))


def _compact_with_spark_impl(root: str, full: bool) -> None:
    tasks = mine.plan_append_tasks(IO, root, full=full)
    committer.commit(IO, root, [mine.run_task_message(IO, task) for task in tasks])


@pytest.mark.parametrize("case", sorted(CASES))
def test_compaction_matches_the_reference(tmp_path: Path, case: str) -> None:
    ours, theirs = tmp_path / "spark", tmp_path / "reference"
    _build(str(ours), CASES[case], case)
    shutil.copytree(ours, theirs)
    before = reference_rows(IO, str(ours))
    compacted = 0
    for full in (False, True, False):
        _compact_with_spark_impl(str(ours), full)
        Table(IO, str(theirs)).commit(compact_table(IO, str(theirs), full=full))
        assert table_structure(IO, str(ours)) == table_structure(IO, str(theirs)), full
        assert reference_rows(IO, str(ours)) == before
        latest = read_latest_snapshot(IO, str(ours))
        entries = read_live_entries(IO, str(ours), latest)
        compacted += sum(e.file.file_source is FileSource.COMPACT for e in entries)
    assert compacted, "the case compacts something"


def test_a_spark_job_compacts_an_append_table(spark: Any, tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    _build(root, CASES["unaware"], "job")
    before = reference_rows(IO, root)
    snapshots = jobs.compact(spark, root)
    assert [snap.commit_kind.value for snap in snapshots] == ["COMPACT"]
    assert reference_rows(IO, root) == before


# --------------------------------------------------------------------------------------------
# The pickers, against the reference's
# --------------------------------------------------------------------------------------------


def meta(index: int, size: int) -> DataFileMeta:
    """A file meta with what picking reads: name, size, sequence numbers (in index order)."""
    return reference_meta(f"f{index}", size, 10 * index, 10 * index + 9)


@st.composite
def bucket_files(draw: st.DrawFn) -> tuple[list[DataFileMeta], frozenset[str], dict[str, Any]]:
    """Files with small sizes (ties likely), some with a vector, and picking options."""
    sizes = draw(st.lists(st.integers(1, 120), max_size=12))
    files = [meta(i, size) for i, size in enumerate(sizes)]
    with_vector = draw(st.sets(st.sampled_from([f.file_name for f in files]))) if files else set()
    knobs = {
        "target": draw(st.sampled_from([50, 100, 400])),
        "min_files": draw(st.integers(1, 5)),
        "max_files": draw(st.integers(1, 6)),
        "vectors": draw(st.booleans()),
    }
    return files, frozenset(with_vector), knobs


def both_options(knobs: dict[str, Any], unaware: bool) -> tuple[Any, Any]:
    target = knobs["target"]
    theirs = ref.AppendCompactionOptions(
        bucket_unaware=unaware,
        target_file_size=target,
        compaction_file_size=ref.compute_compaction_file_size(target),
        min_file_num=knobs["min_files"],
        max_file_num=knobs["max_files"],
        deletion_vectors=knobs["vectors"],
        bitmap_kind=BitmapKind.BITMAP32,
        write_only=False,
    )
    ours = mine.AppendOptions(
        unaware=unaware,
        target=target,
        small=target // 10 * 7,
        min_files=knobs["min_files"],
        max_files=knobs["max_files"],
        vectors=knobs["vectors"],
        bitmap64=False,
        write_only=False,
    )
    return ours, theirs


def names(tasks: Any) -> Any:
    if tasks is None:
        return None
    if tasks and isinstance(tasks[0], DataFileMeta):
        return [m.file_name for m in tasks]
    return [[m.file_name for m in task] for task in tasks]


def vector_files(with_vector: frozenset[str]) -> tuple[IndexFileMeta, ...]:
    """Vectors spread over two index files."""
    owned = sorted(with_vector)
    groups = (owned[::2], owned[1::2])
    return tuple(
        IndexFileMeta(
            "DELETION_VECTORS",
            f"index-{i}",
            1,
            len(group),
            tuple(DeletionVectorMeta(n, 1, 1) for n in group),
        )
        for i, group in enumerate(groups)
        if group
    )


@settings(max_examples=300, deadline=None)
@given(bucket_files())
def test_pickers_agree_with_the_reference(drawn: Any) -> None:
    files, with_vector, knobs = drawn
    index_files = vector_files(with_vector)
    vectors = {name: frozenset({0}) for name in with_vector}
    bucket = BucketState((), b"", 0, tuple(files), vectors, index_files)
    owners = mine.compute_owners(index_files)
    ours, theirs = both_options(knobs, unaware=True)
    assert names(mine.pack_unaware(files, owners, ours)) == names(
        ref.pack_unaware_partition(bucket, theirs)
    )
    ours, theirs = both_options(knobs, unaware=False)
    assert names(mine.pick_window(files, ours)) == names(ref.pick_bucketed_files(files, theirs))
    assert names(mine.pick_full(files, owners, ours)) == names(
        ref.pick_bucketed_full(files, theirs, vectors)
    )


# --------------------------------------------------------------------------------------------
# Compaction after a write (fixed buckets), through both write routes
# --------------------------------------------------------------------------------------------

FIXED_AFTER_WRITE = TableSpec(
    KEY_VALUE, (), (), {"bucket": "2", "bucket-key": "k", "compaction.max.file-num": "2"}
)
UNAWARE_PAIRS = TableSpec(KEY_VALUE, (), (), {"bucket": "-1", "compaction.max.file-num": "2"})


@pytest.mark.parametrize("route", [WriteRoute.PREPARED, WriteRoute.PLAIN], ids=lambda r: r.value)
def test_writes_compact_fixed_buckets_as_the_reference(spark: Any, route: WriteRoute) -> None:
    steps = [
        (inserts((1, 1, "a"), (2, 2, "b")), route),
        (inserts((1, 3, "c"), (3, 4, "d")), route),
        (inserts((2, 5, "e")), route),
        (Compact(full=True), None),
        (inserts((4, 6, "f"), overwrite=True), route),
    ]
    outcome = run_workload(spark, workload("fixed after write", FIXED_AFTER_WRITE, *steps))
    assert not outcome.findings, [d.describe() for d in outcome.findings]


def test_unaware_compaction_job_matches_the_reference(spark: Any) -> None:
    steps = [(inserts((i, i, "x" * i)), WriteRoute.PLAIN) for i in range(1, 6)]
    compact = workload("unaware pairs", UNAWARE_PAIRS, *steps, (Compact(full=False), None))
    outcome = run_workload(spark, compact)
    assert not outcome.findings, [d.describe() for d in outcome.findings]
