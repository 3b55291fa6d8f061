"""spark_impl's ``lookup`` and ``full-compaction`` changelog producers against the reference's.

The same writes go to two tables: spark_impl's write tasks and compaction (without Spark) make
one, the reference's ``Table`` the other. Both must hold the same changelog files (file by
file: level, file source, statistics, records with sequence numbers) and give the same changes:
spark_impl's stream reads its table, the reference's incremental read its own. The reference
full-compacts a ``full-compaction`` table in each write's commit (``changelog`` rule 7), Java
0.9's batch writer (and spark_impl) does not, so spark_impl's side compacts after each write.
Java 0.9 reads the lookup changelog spark_impl wrote.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance.differential.run_spark import snapshot_structure
from conformance.unit.spark_impl.write_helpers import spark_impl_write
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.spec.data_file import FileSource
from reference.spec.snapshot import CommitKind
from reference.store import metadata, scan
from reference.store.incremental import ChangeView
from reference.table import Table
from spark_impl import commit as committer
from spark_impl import stream
from spark_impl.compact import compact_bucket, plan_bucket_jobs
from spark_impl.metadata import find_latest_snapshot_id

IO = LocalFileIO()
FIELDS = [
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.IntType()),
    t.DataField(2, "s", t.VarCharType(t.MAX_LENGTH)),
]
INS, UA, DEL = RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE
Write = list[tuple[RowKind, Row]]
Change = tuple[str, Row]

LOOKUP = {"changelog-producer": "lookup"}
FULL = {"changelog-producer": "full-compaction"}
DEDUPLICATE_ROWS = {"changelog-producer.row-deduplicate": "true"}
SUM = {"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}
FIRST = [(INS, (1, 1, "a")), (INS, (2, 2, "b")), (INS, (3, 3, "c"))]
SECOND = [(UA, (1, 10, "a2")), (DEL, (2, 2, "b")), (INS, (4, 4, "d")), (INS, (3, 3, "c"))]
THIRD = [(INS, (1, 10, "a2")), (UA, (4, 5, "d")), (INS, (2, 7, "e")), (INS, (5, None, None))]
HISTORY = [FIRST, SECOND, THIRD]
ADDS_ONLY = [[(INS, row) for _, row in write] for write in HISTORY]
CASES: dict[str, tuple[dict[str, str], list[Write]]] = {
    "lookup": (LOOKUP, HISTORY),
    "lookup-row-deduplicate": ({**LOOKUP, **DEDUPLICATE_ROWS}, HISTORY),
    "lookup-deletion-vectors": ({**LOOKUP, "deletion-vectors.enabled": "true"}, HISTORY),
    "lookup-orc-two-levels": ({**LOOKUP, "file.format": "orc", "num-levels": "2"}, HISTORY),
    "lookup-partial-update": ({**LOOKUP, "merge-engine": "partial-update"}, ADDS_ONLY),
    "lookup-aggregation": ({**LOOKUP, **SUM}, ADDS_ONLY),
    "lookup-first-row": ({**LOOKUP, "merge-engine": "first-row"}, ADDS_ONLY),
    "lookup-sequence-field": ({**LOOKUP, "sequence.field": "v"}, ADDS_ONLY),
    "full-compaction": (FULL, HISTORY),
    "full-compaction-row-deduplicate": ({**FULL, **DEDUPLICATE_ROWS}, HISTORY),
    "full-compaction-aggregation": ({**FULL, **SUM}, ADDS_ONLY),
}


def create(root: str, options: dict[str, str]) -> Table:
    return Table.create(IO, root, FIELDS, primary_keys=["k"], options={"bucket": "1", **options})


def spark_impl_compact(root: str, *, full: bool) -> None:
    jobs = plan_bucket_jobs(IO, root, full=full)
    committer.commit(IO, root, [m for m in (compact_bucket(IO, job) for job in jobs) if m])


def spark_impl_apply(root: str, write: Write) -> None:
    """One write by spark_impl's task; a full-compaction table then fully compacted."""
    spark_impl_write(IO, root, [row for _, row in write], [kind for kind, _ in write])
    if Table(IO, root).schema().core_options.changelog_producer.value == "full-compaction":
        spark_impl_compact(root, full=True)


def reference_apply(root: str, write: Write) -> None:
    Table(IO, root).write_and_commit([row for _, row in write], [kind for kind, _ in write])


def spark_impl_changes(root: str, start: int = 0) -> list[Change]:
    """The changes spark_impl's stream reads after snapshot ``start``, in order."""
    latest = find_latest_snapshot_id(IO, root) or 0
    changes: list[Change] = []
    for split in stream.change_splits(IO, root, start, latest):
        table = stream.read_stream_split(IO, split)
        kinds = table.column(stream.ROW_KIND_COLUMN).to_pylist()
        rows = table.drop_columns([stream.ROW_KIND_COLUMN]).to_pylist()
        changes += [(k, tuple(r.values())) for k, r in zip(kinds, rows, strict=True)]
    return changes


def reference_changes(root: str, start: int = 0) -> list[Change]:
    """The changes the reference reads after snapshot ``start`` (``incremental-between``)."""
    latest = metadata.find_latest_snapshot_id(IO, root) or 0
    result = Table(IO, root).read_changes(
        {"incremental-between": f"{start},{latest}"}, view=ChangeView.RAW, keep_retractions=True
    )
    return [(kind.short_string, tuple(row)) for kind, row in result.changes]


def build_both(tmp_path: Path, options: dict[str, str], writes: Sequence[Write]) -> tuple[str, str]:
    mine, theirs = str(tmp_path / "spark_impl"), str(tmp_path / "reference")
    create(mine, options)
    create(theirs, options)
    for write in writes:
        spark_impl_apply(mine, write)
        reference_apply(theirs, write)
    return mine, theirs


@pytest.mark.parametrize("case", sorted(CASES))
def test_changelog_matches_the_reference(tmp_path: Path, case: str) -> None:
    options, writes = CASES[case]
    mine, theirs = build_both(tmp_path, options, writes)
    latest = find_latest_snapshot_id(IO, mine)
    assert latest == metadata.find_latest_snapshot_id(IO, theirs)
    assert latest is not None
    for snapshot_id in range(1, latest + 1):
        assert snapshot_structure(mine, snapshot_id) == snapshot_structure(theirs, snapshot_id)
    assert spark_impl_changes(mine) == reference_changes(theirs) == reference_changes(mine)
    assert spark_impl_changes(mine), "the workload produced changelog"


def last_write_changes(options: dict[str, str], tmp_path: Path) -> list[Change]:
    """The changes spark_impl made for the second write of ``FIRST``, ``SECOND``."""
    root = str(tmp_path / "t")
    create(root, options)
    spark_impl_apply(root, FIRST)
    start = find_latest_snapshot_id(IO, root) or 0
    spark_impl_apply(root, SECOND)
    return spark_impl_changes(root, start)


UPDATES = [("-U", (1, 1, "a")), ("+U", (1, 10, "a2")), ("-D", (2, 2, "b"))]
UNCHANGED = [("-U", (3, 3, "c")), ("+U", (3, 3, "c"))]
INSERTED = [("+I", (4, 4, "d"))]


@pytest.mark.parametrize("producer", [LOOKUP, FULL], ids=["lookup", "full-compaction"])
def test_changes_of_each_kind(tmp_path: Path, producer: dict[str, str]) -> None:
    """+I for a new key, -U/+U for an update, -D for a delete; a rewritten equal row is an
    update pair too (Java ``LookupChangelogMergeFunctionWrapper``,
    ``FullChangelogMergeFunctionWrapper``)."""
    assert last_write_changes(producer, tmp_path) == UPDATES + UNCHANGED + INSERTED


@pytest.mark.parametrize("producer", [LOOKUP, FULL], ids=["lookup", "full-compaction"])
def test_row_deduplicate_drops_equal_pairs(tmp_path: Path, producer: dict[str, str]) -> None:
    assert last_write_changes({**producer, **DEDUPLICATE_ROWS}, tmp_path) == UPDATES + INSERTED


def test_first_write_of_a_lookup_table_is_inserts(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    create(root, LOOKUP)
    spark_impl_apply(root, FIRST)
    assert spark_impl_changes(root) == [("+I", row) for _, row in FIRST]
    kinds = [metadata.read_snapshot(IO, root, i).commit_kind for i in (1, 2)]
    assert kinds == [CommitKind.APPEND, CommitKind.COMPACT]
    assert find_latest_snapshot_id(IO, root) == 2


def test_full_compaction_changelog_waits_for_a_full_compaction(tmp_path: Path) -> None:
    """Java 0.9's batch writer does not full-compact: writes make no changelog until a full
    compaction does (``changelog`` rule 7; conformance case full_compaction_first)."""
    root = str(tmp_path / "t")
    create(root, FULL)
    spark_impl_write(IO, root, [row for _, row in FIRST])
    spark_impl_write(IO, root, [row for _, row in SECOND], [kind for kind, _ in SECOND])
    assert spark_impl_changes(root) == []
    spark_impl_compact(root, full=True)
    expected = [("+I", (1, 10, "a2")), ("+I", (3, 3, "c")), ("+I", (4, 4, "d"))]
    assert spark_impl_changes(root) == expected


def test_changelog_files_in_the_commit(tmp_path: Path) -> None:
    """Changelog files sit in the bucket directory as ``changelog-*`` files on the output
    level, file source APPEND, listed in the COMPACT snapshot's changelog manifest list."""
    root = str(tmp_path / "t")
    create(root, LOOKUP)
    for write in HISTORY:
        spark_impl_apply(root, write)
    latest = metadata.read_latest_snapshot(IO, root)
    assert latest is not None and latest.commit_kind is CommitKind.COMPACT
    assert latest.changelog_manifest_list is not None
    entries = [
        entry
        for manifest in scan.read_manifest_list(IO, root, latest.changelog_manifest_list)
        for entry in scan.read_manifest(IO, root, manifest.file_name)
    ]
    assert entries and all(e.file.file_name.startswith("changelog-") for e in entries)
    assert all(e.file.file_source is FileSource.APPEND and e.file.level > 0 for e in entries)
    assert all((Path(root) / "bucket-0" / e.file.file_name).is_file() for e in entries)
    assert latest.changelog_record_count == sum(e.file.row_count for e in entries)


@pytest.mark.java
def test_java_reads_the_lookup_changelog(java_harness: Any, tmp_path: Path) -> None:
    """Java 0.9's stream scan from snapshot 1 reads the changelog spark_impl wrote."""
    root = str(tmp_path / "t")
    create(root, {**LOOKUP, "bucket": "2"})
    for write in HISTORY:
        spark_impl_apply(root, write)
    java = java_harness.read_stream(root, snapshot_id=1)
    mine = Counter(spark_impl_changes(root))
    assert mine == Counter((kind.short_string, row) for kind, row in java.rows)
    assert mine == Counter(reference_changes(root))
