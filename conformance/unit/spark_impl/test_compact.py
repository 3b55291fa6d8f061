"""spark_impl compaction (driver planning, bucket jobs) against the reference's compaction."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from conformance.unit.spark_impl.write_helpers import INT_FIELDS, reference_rows, table_structure
from reference.io import LocalFileIO
from reference.spec.data import RowKind
from reference.store.compact import compact_table
from reference.table import Table
from spark_impl import commit as committer
from spark_impl.compact import compact_bucket, plan_bucket_jobs
from spark_impl.metadata import read_latest_snapshot, read_live_entries

IO = LocalFileIO()
FIELDS = list(INT_FIELDS)
CASES = {
    "deduplicate": {"bucket": "2", "num-sorted-run.compaction-trigger": "10"},
    "deletion-vectors": {
        "bucket": "2",
        "deletion-vectors.enabled": "true",
        "num-sorted-run.compaction-trigger": "10",
    },
    "partial-update": {
        "bucket": "1",
        "merge-engine": "partial-update",
        "num-sorted-run.compaction-trigger": "10",
        "target-file-size": "1 kb",
    },
    "first-row": {"bucket": "1", "merge-engine": "first-row", "write-only": "true"},
}


def _build(root: str, options: dict[str, str], seed: str) -> None:
    """Six commits by the reference (so both compactions start from one table)."""
    table = Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options=options
    )
    rng = random.Random(seed)
    retracts = options.get("merge-engine") not in ("partial-update", "first-row")
    for _ in range(6):
        rows = [(rng.randint(0, 150), rng.randint(0, 9), rng.choice("ab")) for _ in range(120)]
        kinds = [
            rng.choice([RowKind.INSERT, RowKind.DELETE]) if retracts else RowKind.INSERT
            for _ in rows
        ]
        table.write_and_commit(rows, kinds)


def _compact(root: str, full: bool) -> None:
    jobs = plan_bucket_jobs(IO, root, full=full)
    messages = [m for m in (compact_bucket(IO, job) for job in jobs) if m is not None]
    committer.commit(IO, root, messages)


@pytest.mark.parametrize("case", sorted(CASES))
def test_compaction_matches_the_reference(tmp_path: Path, case: str) -> None:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    _build(str(mine), CASES[case], case)
    shutil.copytree(mine, theirs)
    before = reference_rows(IO, str(mine))
    for full in (False, True):
        _compact(str(mine), full)
        reference = Table(IO, str(theirs))
        reference.commit(compact_table(IO, str(theirs), full=full))
        assert table_structure(IO, str(mine)) == table_structure(IO, str(theirs)), full
        assert reference_rows(IO, str(mine)) == reference_rows(IO, str(theirs))
        if case != "first-row":  # write-only first-row rows are invisible before compaction
            assert reference_rows(IO, str(mine)) == before
    latest = read_latest_snapshot(IO, str(mine))
    levels = {e.file.level for e in read_live_entries(IO, str(mine), latest)}
    assert len(levels) == 1 and levels.pop() > 0, "a full compaction leaves one top level"


def test_nothing_to_compact_plans_no_job(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options={"bucket": "1"}
    )
    Table(IO, root).write_and_commit([(1, 1, "a")])
    assert plan_bucket_jobs(IO, root, full=False) == []
    assert len(plan_bucket_jobs(IO, root, full=True)) == 1
