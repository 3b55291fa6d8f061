"""Tests of ``reference.store.changelog`` and of the changelog compaction writes: the
``lookup`` and ``full-compaction`` producers, ``changelog-producer.row-deduplicate``, first-row
lookups, deletion-vector marks and ``full-compaction.delta-commits``.

Per-key rules are checked with records made by hand; whole tables with changelogs worked out
by hand from the documented semantics (``docs/primary-key-table/changelog-producer``), read
back from the changelog files with plain file reads; and against Java 0.9: Java writes the
same history into its own table and the changelogs of each step agree (Java's ``audit_log``
with ``incremental-between`` over both tables), and Java reads our changelog as we wrote it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference import layout
from reference.errors import SpecViolation
from reference.io import LocalFileIO
from reference.merge.engine import compute_merge_setup
from reference.spec import types as t
from reference.spec.data import Row, RowKind
from reference.spec.data_file import VALUE_KIND_FIELD, FileSource
from reference.spec.key_value import KeyValue
from reference.spec.schema import TableSchema
from reference.store import metadata
from reference.store.changelog import (
    JAVA_LONG_MAX,
    KeyResult,
    LookupHit,
    LookupStrategy,
    RowLocation,
    compute_full_compaction_delta_commits,
    compute_lookup_changes,
    compute_lookup_merge_candidates,
    compute_lookup_strategy,
    is_full_compaction_due,
    merge_first_row_key,
    merge_full_compaction_key,
    merge_lookup,
    merge_lookup_key,
)
from reference.store.read import compute_file_fields, read_file_rows
from reference.store.scan import read_manifest, read_manifest_list
from reference.table import Table

K = t.DataField(0, "k", t.IntType(nullable=False))
V = t.DataField(1, "v", t.IntType())
ROW_TYPE = t.RowType((K, V))
INS, UB, UA, DEL = (
    RowKind.INSERT,
    RowKind.UPDATE_BEFORE,
    RowKind.UPDATE_AFTER,
    RowKind.DELETE,
)
DEDUPLICATE = compute_merge_setup({}, ROW_TYPE, ["k"])
SUM = compute_merge_setup(
    {"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}, ROW_TYPE, ["k"]
)
BY_V = compute_merge_setup({"sequence.field": "v"}, ROW_TYPE, ["k"])
CHANGELOG_DV = LookupStrategy(False, True, True, False)
CHANGELOG_ONLY = LookupStrategy(False, True, False, False)


def kv(k: int, v: int | None, seq: int, level: int = 0, kind: RowKind = INS) -> KeyValue:
    return KeyValue((k,), seq, kind, (k, v), level)


def change(kind: RowKind, k: int, v: int | None, seq: int) -> KeyValue:
    return KeyValue((k,), seq, kind, (k, v))


def no_lookup(key: Row) -> LookupHit | None:
    return None


# --------------------------------------------------------------------------------------------
# Per-key rules
# --------------------------------------------------------------------------------------------


def test_lookup_merge_keeps_the_newest_upper_record() -> None:
    records = [kv(1, 1, 2, level=3), kv(1, 2, 4, level=1), kv(1, 3, 5), kv(1, 4, 6)]
    assert compute_lookup_merge_candidates(records) == records[1:]
    # the sum of the newest upper record and the level-0 records, not of all
    assert merge_lookup(records, SUM) == KeyValue((1,), 6, INS, (1, 2 + 3 + 4))


@pytest.mark.parametrize(
    ("before", "after", "deduplicate", "expected"),
    [
        (None, kv(1, 5, 9), False, [change(INS, 1, 5, 9)]),
        (kv(1, 4, 3, kind=DEL), kv(1, 5, 9), False, [change(INS, 1, 5, 9)]),
        (kv(1, 4, 3), kv(1, 5, 9, kind=DEL), False, [change(DEL, 1, 4, 3)]),
        (kv(1, 4, 3), kv(1, 5, 9), False, [change(UB, 1, 4, 3), change(UA, 1, 5, 9)]),
        (kv(1, 4, 3), kv(1, 4, 9), False, [change(UB, 1, 4, 3), change(UA, 1, 4, 9)]),
        (kv(1, 4, 3), kv(1, 4, 9), True, []),
        (kv(1, 4, 3), kv(1, 5, 9), True, [change(UB, 1, 4, 3), change(UA, 1, 5, 9)]),
        (None, kv(1, 5, 9, kind=DEL), False, []),
        (None, None, False, []),
    ],
)
def test_lookup_changes(
    before: KeyValue | None, after: KeyValue | None, deduplicate: bool, expected: list[KeyValue]
) -> None:
    assert list(compute_lookup_changes(before, after, deduplicate)) == expected


def test_lookup_key_with_deletion_vectors() -> None:
    location = RowLocation("data-f.parquet", 7)

    def lookup(key: Row) -> LookupHit | None:
        assert key == (1,)
        return LookupHit(kv(1, 3, 2, level=5), location)

    result = merge_lookup_key([kv(1, 5, 10)], lookup, DEDUPLICATE, CHANGELOG_DV, False)
    assert result == KeyResult(
        kv(1, 5, 10), (change(UB, 1, 3, 2), change(UA, 1, 5, 10)), (location,)
    )
    # without deletion vectors nothing is marked
    plain = merge_lookup_key([kv(1, 5, 10)], lookup, DEDUPLICATE, CHANGELOG_ONLY, False)
    assert plain.deletions == ()
    # an aggregation merges the looked-up value in
    summed = merge_lookup_key([kv(1, 5, 10)], lookup, SUM, CHANGELOG_DV, False)
    assert summed.result == KeyValue((1,), 10, INS, (1, 8))
    assert summed.changelog == (change(UB, 1, 3, 2), change(UA, 1, 8, 10))
    # a lookup that keeps no value (deduplicate with deletion vectors, no changelog) still marks
    blind = merge_lookup_key(
        [kv(1, 5, 10)],
        lambda key: LookupHit(None, location),
        DEDUPLICATE,
        LookupStrategy(False, False, True, False),
        False,
    )
    assert blind == KeyResult(kv(1, 5, 10), (), (location,))


def test_lookup_key_prefers_an_upper_record_among_its_own() -> None:
    def lookup(key: Row) -> LookupHit | None:
        raise AssertionError("no lookup when an upper record is at hand")

    records = [kv(1, 1, 2, level=3), kv(1, 2, 4, level=1), kv(1, 3, 5)]
    result = merge_lookup_key(records, lookup, SUM, CHANGELOG_ONLY, False)
    assert result.result == KeyValue((1,), 5, INS, (1, 5))
    assert result.changelog == (change(UB, 1, 2, 4), change(UA, 1, 5, 5))


def test_lookup_key_orders_the_found_record_by_sequence_field() -> None:
    found = LookupHit(kv(1, 9, 2, level=5), RowLocation("f", 0))
    result = merge_lookup_key([kv(1, 1, 10)], lambda key: found, BY_V, CHANGELOG_ONLY, False)
    # v = 9 orders after v = 1: the old record stays the newest
    assert result.result == kv(1, 9, 2, level=5)
    assert result.changelog == (change(UB, 1, 9, 2), change(UA, 1, 9, 2))


def test_lookup_key_of_upper_records_only_makes_no_changelog() -> None:
    result = merge_lookup_key([kv(1, 1, 2, level=2)], no_lookup, SUM, CHANGELOG_ONLY, False)
    assert result == KeyResult(KeyValue((1,), 2, INS, (1, 1)))


def test_first_row_key() -> None:
    new = kv(1, 5, 10)
    assert merge_first_row_key([new], lambda key: False, False) == KeyResult(new, (new,))
    assert merge_first_row_key([new], lambda key: True, False) == KeyResult(None)
    old = kv(1, 1, 2, level=5)
    assert merge_first_row_key([old, new], lambda key: True, False) == KeyResult(old)
    retract = kv(1, 5, 11, kind=DEL)
    with pytest.raises(SpecViolation):
        merge_first_row_key([new, retract], lambda key: False, False)
    assert merge_first_row_key([new, retract], lambda key: False, True) == KeyResult(new, (new,))


def test_full_compaction_key() -> None:
    top, new = kv(1, 1, 2, level=5), kv(1, 7, 9)

    def merged(records: Sequence[KeyValue]) -> KeyValue | None:
        return records[-1]

    assert merge_full_compaction_key([new], 5, merged, False) == KeyResult(
        new, (change(INS, 1, 7, 9),)
    )
    assert merge_full_compaction_key([top], 5, merged, False) == KeyResult(top)
    assert merge_full_compaction_key([top, new], 5, merged, False) == KeyResult(
        new, (change(UB, 1, 1, 2), change(UA, 1, 7, 9))
    )
    gone = kv(1, 7, 9, kind=DEL)
    assert merge_full_compaction_key([top, gone], 5, merged, False) == KeyResult(
        None, (change(DEL, 1, 1, 2),)
    )
    assert merge_full_compaction_key([kv(1, 3, 1), gone], 5, merged, False) == KeyResult(None)
    same = kv(1, 1, 9)
    assert merge_full_compaction_key([top, same], 5, merged, True) == KeyResult(same)
    assert merge_full_compaction_key([gone], 5, merged, False) == KeyResult(None)


def test_full_compaction_frequency() -> None:
    assert is_full_compaction_due(JAVA_LONG_MAX, 3)
    assert is_full_compaction_due(6, 3)
    assert not is_full_compaction_due(7, 3)

    def schema(**options: str) -> TableSchema:
        return TableSchema(3, 0, (K, V), 1, (), ("k",), options)

    assert compute_full_compaction_delta_commits(schema()) is None
    assert compute_full_compaction_delta_commits(schema(**{"changelog-producer": "lookup"})) is None
    produced = schema(**{"changelog-producer": "full-compaction"})
    assert compute_full_compaction_delta_commits(produced) == 1
    assert (
        compute_full_compaction_delta_commits(schema(**{"full-compaction.delta-commits": "3"})) == 3
    )
    assert (
        compute_full_compaction_delta_commits(schema(**{"full-compaction.delta-commits": "0"})) == 1
    )


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, LookupStrategy(False, False, False, False)),
        ({"changelog-producer": "lookup"}, LookupStrategy(False, True, False, False)),
        ({"deletion-vectors.enabled": "true"}, LookupStrategy(False, False, True, False)),
        ({"merge-engine": "first-row"}, LookupStrategy(True, False, False, False)),
        ({"force-lookup": "true"}, LookupStrategy(False, False, False, True)),
        ({"changelog-producer": "full-compaction"}, LookupStrategy(False, False, False, False)),
    ],
)
def test_lookup_strategy(options: dict[str, str], expected: LookupStrategy) -> None:
    strategy = compute_lookup_strategy(TableSchema(3, 0, (K, V), 1, (), ("k",), options))
    assert strategy == expected
    assert strategy.need_lookup == (expected != LookupStrategy(False, False, False, False))


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------

Batch = list[tuple[RowKind, Row]]


def create(root: Path, options: Mapping[str, str]) -> Table:
    return Table.create(
        LocalFileIO(), str(root), (K, V), primary_keys=("k",), options={"bucket": "1", **options}
    )


def write(table: Table, batch: Batch) -> None:
    table.write_and_commit([row for _, row in batch], [kind for kind, _ in batch])


def changelog_between(table: Table, first: int, last: int) -> list[tuple[RowKind, Row]]:
    """The records of the changelog files of snapshots ``first + 1 .. last``, read as plain
    primary-key files (kind column, then the values)."""
    fields = compute_file_fields(table.schema())
    kind_index = fields.index(VALUE_KIND_FIELD)
    found = []
    for snapshot_id in range(first + 1, last + 1):
        snapshot = metadata.read_snapshot(table.file_io, table.root, snapshot_id)
        if snapshot.changelog_manifest_list is None:
            continue
        for manifest in read_manifest_list(
            table.file_io, table.root, snapshot.changelog_manifest_list
        ):
            for entry in read_manifest(table.file_io, table.root, manifest.file_name):
                path = layout.join(table.root, f"bucket-{entry.bucket}", entry.file.file_name)
                for row in read_file_rows(table.file_io, path, fields):
                    found.append((RowKind.from_byte(row[kind_index]), tuple(row[kind_index + 1 :])))
    return found


def latest_id(table: Table) -> int:
    snapshot = table.latest_snapshot()
    return 0 if snapshot is None else snapshot.id


def step_changelogs(table: Table, history: Sequence[Batch]) -> list[list[tuple[RowKind, Row]]]:
    """Write each batch; the changelog each write made."""
    steps = []
    for batch in history:
        start = latest_id(table)
        write(table, batch)
        steps.append(changelog_between(table, start, latest_id(table)))
    return steps


HISTORY: list[Batch] = [
    [(INS, (1, 10)), (INS, (2, 20))],
    [(UA, (1, 11))],
    [(DEL, (2, 20))],
    [(INS, (1, 11))],
    [(DEL, (9, 90))],
    [(INS, (2, 21)), (INS, (3, 30))],
]
EXPECTED_CHANGES = [
    [(INS, (1, 10)), (INS, (2, 20))],
    [(UB, (1, 10)), (UA, (1, 11))],
    [(DEL, (2, 20))],
    [(UB, (1, 11)), (UA, (1, 11))],
    [],
    [(INS, (2, 21)), (INS, (3, 30))],
]
"""The documented changes of ``HISTORY`` (a write of the same value is an update)."""


@pytest.mark.parametrize(
    "options",
    [
        {"changelog-producer": "lookup"},
        {"changelog-producer": "lookup", "deletion-vectors.enabled": "true"},
        {"changelog-producer": "full-compaction"},
    ],
    ids=["lookup", "lookup-dv", "full-compaction"],
)
def test_documented_changelog(tmp_path: Path, options: dict[str, str]) -> None:
    table = create(tmp_path / "t", options)
    assert step_changelogs(table, HISTORY) == EXPECTED_CHANGES
    # the same history with row-deduplicate drops the -U/+U pair of equal rows
    deduplicated = create(tmp_path / "d", {**options, "changelog-producer.row-deduplicate": "true"})
    expected = [changes if index != 3 else [] for index, changes in enumerate(EXPECTED_CHANGES)]
    assert step_changelogs(deduplicated, HISTORY) == expected


def test_changelog_files(tmp_path: Path) -> None:
    table = create(tmp_path / "t", {"changelog-producer": "lookup"})
    write(table, HISTORY[0])
    snapshot = table.latest_snapshot()
    assert snapshot is not None and snapshot.changelog_manifest_list is not None
    [manifest] = read_manifest_list(table.file_io, table.root, snapshot.changelog_manifest_list)
    [entry] = read_manifest(table.file_io, table.root, manifest.file_name)
    assert entry.file.file_name.startswith("changelog-")
    assert (entry.file.level, entry.file.file_source) == (5, FileSource.APPEND)
    assert snapshot.changelog_record_count == 2


def test_aggregation_changelog(tmp_path: Path) -> None:
    table = create(
        tmp_path / "t",
        {
            "changelog-producer": "lookup",
            "merge-engine": "aggregation",
            "fields.v.aggregate-function": "sum",
        },
    )
    history: list[Batch] = [[(INS, (1, 1))], [(INS, (1, 2))], [(INS, (1, 4)), (INS, (2, 1))]]
    assert step_changelogs(table, history) == [
        [(INS, (1, 1))],
        [(UB, (1, 1)), (UA, (1, 3))],
        [(UB, (1, 3)), (UA, (1, 7)), (INS, (2, 1))],
    ]


def test_first_row_changelog(tmp_path: Path) -> None:
    table = create(tmp_path / "t", {"changelog-producer": "lookup", "merge-engine": "first-row"})
    history: list[Batch] = [[(INS, (1, 1))], [(INS, (1, 2)), (INS, (2, 2))], [(INS, (2, 3))]]
    assert step_changelogs(table, history) == [[(INS, (1, 1))], [(INS, (2, 2))], []]
    assert sorted(row for _, row in table.read().rows) == [(1, 1), (2, 2)]


def test_full_compaction_after_delta_commits(tmp_path: Path) -> None:
    """Batch writes are always due: a table with ``full-compaction.delta-commits`` compacts
    every written bucket fully (the documented behaviour; Java 0.9's core writer does not)."""
    table = create(tmp_path / "t", {"full-compaction.delta-commits": "2"})
    write(table, [(INS, (1, 1))])
    write(table, [(INS, (2, 2))])
    snapshot = table.latest_snapshot()
    assert snapshot is not None and snapshot.commit_kind.value == "COMPACT"
    assert snapshot.changelog_manifest_list is None
    plain = create(tmp_path / "plain", {})
    write(plain, [(INS, (1, 1))])
    assert latest_id(plain) == 1


# --------------------------------------------------------------------------------------------
# Java 0.9: the same history, the same changelog
# --------------------------------------------------------------------------------------------

JAVA_CONFIGS: dict[str, tuple[dict[str, str], tuple[RowKind, ...]]] = {
    "lookup": ({"changelog-producer": "lookup"}, (INS, UA, DEL)),
    "lookup-row-deduplicate": (
        {"changelog-producer": "lookup", "changelog-producer.row-deduplicate": "true"},
        (INS, UA, DEL),
    ),
    "lookup-deletion-vectors": (
        {"changelog-producer": "lookup", "deletion-vectors.enabled": "true"},
        (INS, UA, DEL),
    ),
    "lookup-aggregation": (
        {
            "changelog-producer": "lookup",
            "merge-engine": "aggregation",
            "fields.v.aggregate-function": "sum",
        },
        (INS, UA),
    ),
    "lookup-partial-update": (
        {"changelog-producer": "lookup", "merge-engine": "partial-update"},
        (INS,),
    ),
    "lookup-first-row": ({"changelog-producer": "lookup", "merge-engine": "first-row"}, (INS,)),
    "lookup-sequence-field": (
        # no deletes: with a sequence field, whether a delete outlives compaction decides later
        # merges, and picks depend on file sizes (conformance/expected_differences.md)
        {"changelog-producer": "lookup", "sequence.field": "v"},
        (INS, UA),
    ),
    "full-compaction": ({"changelog-producer": "full-compaction"}, (INS, UA, DEL)),
    "full-compaction-row-deduplicate": (
        {"changelog-producer": "full-compaction", "changelog-producer.row-deduplicate": "true"},
        (INS, UA, DEL),
    ),
    "full-compaction-aggregation": (
        {
            "changelog-producer": "full-compaction",
            "merge-engine": "aggregation",
            "fields.v.aggregate-function": "sum",
        },
        (INS, UA),
    ),
}


def java_changes(java: Any, root: str, first: int, last: int) -> list[tuple[RowKind, Row]]:
    """Java's ``audit_log`` of the snapshots ``first + 1 .. last`` (its changelog files): the
    ``rowkind`` column, then the values."""
    rows = java.system_table(
        root, "audit_log", options={"incremental-between": f"{first},{last}"}
    ).rows
    return sorted(
        ((RowKind.from_short_string(row[0]), tuple(row[1:])) for _, row in rows), key=repr
    )


def java_history(
    java: Any, root: str, history: Sequence[Batch], full: bool
) -> list[tuple[int, int]]:
    """Write ``history`` with Java (a full compaction with each write when ``full``); the
    snapshot range of each step."""
    ranges = []
    last = 0
    for batch in history:
        if full:
            java.write(root, batch)
            response = java.compact(root, full=True, commit=True)
        else:
            response = java.write(root, batch, commit=True)
        current = int(response["snapshot_id"] or last)
        ranges.append((last, current))
        last = current
    return ranges


def random_history(kinds: Sequence[RowKind], seed: int, count: int = 6) -> list[Batch]:
    chooser = random.Random(seed)
    return [
        [
            (chooser.choice(kinds), (chooser.randrange(6), chooser.choice([None, *range(5)])))
            for _ in range(chooser.randrange(1, 5))
        ]
        for _ in range(count)
    ]


def check_same_changelog(
    java: Any, tmp_path: Path, options: Mapping[str, str], history: Sequence[Batch]
) -> None:
    ours = create(tmp_path / "ours", options)
    theirs = str(tmp_path / "java")
    java.create_table(theirs, (K, V), primary_keys=["k"], options={"bucket": "1", **options})
    full = options.get("changelog-producer") == "full-compaction"
    java_ranges = java_history(java, theirs, history, full)
    for step, batch in enumerate(history):
        first = latest_id(ours)
        write(ours, batch)
        last = latest_id(ours)
        mine = changelog_between(ours, first, last)
        java_first, java_last = java_ranges[step]
        expected = java_changes(java, theirs, java_first, java_last)
        assert sorted(mine, key=repr) == expected, f"step {step}: {batch}"
        if last > first:
            assert java_changes(java, ours.root, first, last) == expected, f"step {step}"
    assert sorted(row for _, row in java.read(theirs).rows) == sorted(
        row for _, row in ours.read().rows
    )


@pytest.mark.java
@pytest.mark.parametrize("config", JAVA_CONFIGS)
def test_java_makes_the_same_changelog(tmp_path: Path, java_harness: Any, config: str) -> None:
    options, kinds = JAVA_CONFIGS[config]
    check_same_changelog(java_harness, tmp_path, options, random_history(kinds, len(config)))


@pytest.mark.java
@pytest.mark.slow
@pytest.mark.parametrize("config", JAVA_CONFIGS)
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32))
def test_java_makes_the_same_changelog_for_random_histories(
    tmp_path_factory: Any, java_harness: Any, config: str, seed: int
) -> None:
    options, kinds = JAVA_CONFIGS[config]
    check_same_changelog(
        java_harness, tmp_path_factory.mktemp("c"), options, random_history(kinds, seed, 8)
    )
