"""Tests of ``reference.store.compact``: picking, the steps of a compaction, and compaction of
real tables (rows kept, deletion vectors, upgrades, increments, options).

Expected picks are worked out by hand from the rules of the module docstring and checked
against Java 0.9's ``UniversalCompaction`` / ``ForceUpLevel0Compaction`` /
``pickFullCompaction`` through the harness (``pick_compaction``), with hand-made scenarios and
random ones. Compacted tables are checked against the reference's reader before compaction,
against a plain model of the merge engine, and against Java 0.9 reading every snapshot.
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
from reference.errors import UnsupportedFeature
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.binary_row import NullLayout, serialize_binary_row
from reference.spec.data import Row, RowKind
from reference.spec.data_file import DataFileMeta, FileSource
from reference.spec.deletion_vector import decode_deletion_vector_file
from reference.spec.schema import TableSchema
from reference.spec.snapshot import CommitKind
from reference.spec.stats import EMPTY_STATS
from reference.store import metadata
from reference.store.bucket_state import compute_vector_ranges, read_bucket_states
from reference.store.compact import (
    CompactionOptions,
    CompactionResult,
    CompactUnit,
    Increment,
    StepKind,
    apply_round_to_increment,
    compute_compaction_options,
    compute_compaction_steps,
    compute_min_file_size,
    is_compaction_awaited,
    is_delete_dropped,
    pick_force_level0,
    pick_full_compaction,
    pick_universal,
)
from reference.store.levels import LevelSortedRun, SortedRun, compute_levels
from reference.store.query import TimeTravel
from reference.store.read import compute_file_fields, read_file_rows
from reference.table import Table

KEY_TYPES = (t.IntType(nullable=False),)
K = t.DataField(0, "k", t.IntType(nullable=False))
V = t.DataField(1, "v", t.IntType())
P = t.DataField(2, "p", t.IntType(nullable=False))
INS, UB, UA, DEL = (
    RowKind.INSERT,
    RowKind.UPDATE_BEFORE,
    RowKind.UPDATE_AFTER,
    RowKind.DELETE,
)

# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def key(value: int) -> bytes:
    return serialize_binary_row((value,), KEY_TYPES, null_layout=NullLayout.ZERO_SLOT)


def meta(
    name: str,
    size: int,
    level: int,
    low: int = 0,
    high: int = 0,
    *,
    deletes: int | None = 0,
) -> DataFileMeta:
    return DataFileMeta(
        file_name=name,
        file_size=size,
        row_count=1,
        min_key=key(low),
        max_key=key(high),
        key_stats=EMPTY_STATS,
        value_stats=EMPTY_STATS,
        min_sequence_number=0,
        max_sequence_number=0,
        schema_id=0,
        level=level,
        extra_files=(),
        creation_time=None,
        delete_row_count=deletes,
    )


Scenario = list[tuple[int, list[int]]]
"""Sorted runs in run order: (level, file sizes)."""


def to_runs(scenario: Scenario) -> list[LevelSortedRun]:
    """Runs of files named ``<run>-<file>``."""
    return [
        LevelSortedRun(
            level, SortedRun(tuple(meta(f"{i}-{j}", z, level) for j, z in enumerate(sizes)))
        )
        for i, (level, sizes) in enumerate(scenario)
    ]


def schema_of(options: Mapping[str, str]) -> TableSchema:
    return TableSchema(3, 0, (K, V), 1, (), ("k",), options)


def options_of(
    trigger: int = 5, amplification: int = 200, ratio: int = 1, **more: str
) -> CompactionOptions:
    return compute_compaction_options(
        schema_of(
            {
                "num-sorted-run.compaction-trigger": str(trigger),
                "compaction.max-size-amplification-percent": str(amplification),
                "compaction.size-ratio": str(ratio),
                **more,
            }
        )
    )


def picked(unit: CompactUnit | None) -> tuple[int, list[str]] | None:
    return None if unit is None else (unit.output_level, [f.file_name for f in unit.files])


# --------------------------------------------------------------------------------------------
# Picking: a decision table worked out by hand (checked against Java below)
# --------------------------------------------------------------------------------------------

PickCase = tuple[str, Scenario, dict[str, int], int, tuple[int, list[str]] | None]
"""id, runs, options (trigger, amplification, ratio), num-levels, expected pick."""

ALL_5 = ["0-0", "1-0", "2-0", "3-0", "4-0"]

UNIVERSAL_CASES: list[PickCase] = [
    ("fewer-runs-than-trigger", [(0, [10]), (0, [10]), (0, [10]), (5, [1000])], {}, 6, None),
    ("size-amplification", [(0, [100])] * 4 + [(5, [150])], {}, 6, (5, ALL_5)),
    (
        "amplification-exactly-at-the-limit",
        [(0, [60]), (0, [70]), (0, [70]), (5, [100])],
        {"trigger": 4},
        6,
        None,
    ),
    (
        "amplification-just-over-the-limit",
        [(0, [60]), (0, [70]), (0, [71]), (5, [100])],
        {"trigger": 4},
        6,
        (5, ["0-0", "1-0", "2-0", "3-0"]),
    ),
    (
        "size-ratio",
        [(0, [10])] * 4 + [(3, [100]), (5, [1000])],
        {},
        6,
        (2, ["0-0", "1-0", "2-0", "3-0"]),
    ),
    (
        "ratio-boundary-joins",
        [(0, [100]), (0, [101]), (2, [1000]), (4, [100000])],
        {"trigger": 3},
        5,
        (1, ["0-0", "1-0"]),
    ),
    (
        "ratio-boundary-misses",
        [(0, [100]), (0, [102]), (2, [1000]), (4, [100000])],
        {"trigger": 4},
        5,
        None,
    ),
    (
        "size-ratio-option",
        [(0, [100]), (0, [110]), (2, [1000]), (4, [100000])],
        {"trigger": 4, "ratio": 10},
        5,
        (1, ["0-0", "1-0"]),
    ),
    (
        "file-number",
        [(0, [1]), (0, [100]), (0, [10000]), (1, [1000000]), (3, [100000000])],
        {"trigger": 3},
        4,
        (1, ["0-0", "1-0", "2-0", "3-0"]),
    ),
    (
        "output-below-the-next-run",
        [(0, [10]), (0, [10]), (4, [1000]), (5, [1000000])],
        {"trigger": 2},
        6,
        (3, ["0-0", "1-0"]),
    ),
    (
        "upper-runs-join",
        [(0, [10]), (2, [10]), (3, [15]), (5, [10000])],
        {"trigger": 2},
        6,
        (4, ["0-0", "1-0", "2-0"]),
    ),
    (
        "runs-of-several-files",
        [(0, [10]), (1, [5, 5]), (4, [1000])],
        {"trigger": 2},
        5,
        (3, ["0-0", "1-0", "1-1"]),
    ),
    (
        "no-level-0-output-takes-everything",
        [(0, [100]), (0, [101]), (0, [10000]), (0, [1]), (5, [100000])],
        {},
        6,
        (5, ALL_5),
    ),
    (
        "no-level-0-output-stops-at-an-upper-run",
        [(0, [100]), (0, [101]), (0, [10000]), (2, [1]), (5, [100000])],
        {},
        6,
        (2, ["0-0", "1-0", "2-0", "3-0"]),
    ),
]

FORCE_LEVEL0_CASES: list[PickCase] = [
    ("lone-level-0-file", [(0, [10]), (5, [1000])], {}, 6, (4, ["0-0"])),
    (
        "level-0-grows-into-the-top",
        [(0, [10]), (0, [10]), (5, [15])],
        {},
        6,
        (5, ["0-0", "1-0", "2-0"]),
    ),
    ("no-level-0", [(3, [10]), (5, [100])], {}, 6, None),
    ("output-of-level-1-next", [(0, [10]), (1, [10000])], {}, 6, (5, ["0-0", "1-0"])),
    ("universal-first", [(0, [100])] * 4 + [(5, [150])], {}, 6, (5, ALL_5)),
    ("empty", [], {}, 6, None),
]

FULL_CASES: list[PickCase] = [
    ("empty", [], {}, 6, None),
    ("one-top-run", [(5, [10, 10])], {}, 6, None),
    ("one-lower-run", [(3, [10])], {}, 6, (5, ["0-0"])),
    ("several-runs", [(0, [1]), (5, [10])], {}, 6, (5, ["0-0", "1-0"])),
    ("files-above-the-option", [(5, [10])], {}, 7, (6, ["0-0"])),
]


def pick_options(case: PickCase) -> CompactionOptions:
    settings_ = case[2]
    return options_of(
        trigger=settings_.get("trigger", 5),
        amplification=settings_.get("amplification", 200),
        ratio=settings_.get("ratio", 1),
    )


@pytest.mark.parametrize("case", UNIVERSAL_CASES, ids=lambda c: c[0])
def test_universal_picks(case: PickCase) -> None:
    _, scenario, _, num_levels, expected = case
    assert picked(pick_universal(to_runs(scenario), num_levels, pick_options(case))) == expected


@pytest.mark.parametrize("case", FORCE_LEVEL0_CASES, ids=lambda c: c[0])
def test_force_level0_picks(case: PickCase) -> None:
    _, scenario, _, num_levels, expected = case
    assert picked(pick_force_level0(to_runs(scenario), num_levels, pick_options(case))) == expected


@pytest.mark.parametrize("case", FULL_CASES, ids=lambda c: c[0])
def test_full_compaction_picks(case: PickCase) -> None:
    _, scenario, _, num_levels, expected = case
    assert picked(pick_full_compaction(to_runs(scenario), num_levels)) == expected


def test_optimization_interval_picks_everything() -> None:
    chosen = options_of(**{"compaction.optimization-interval": "1 h"})
    runs = to_runs([(0, [10]), (5, [1000])])
    assert picked(pick_universal(runs, 6, chosen)) == (5, ["0-0", "1-0"])


def test_option_defaults() -> None:
    defaults = compute_compaction_options(schema_of({}))
    assert (defaults.trigger, defaults.num_levels, defaults.stop_trigger) == (5, 6, 8)
    assert (defaults.max_size_amplification, defaults.size_ratio) == (200, 1)
    assert defaults.min_file_size == 128 * 1024 * 1024 // 10 * 7
    assert compute_min_file_size(1) == 0
    assert options_of(trigger=3).num_levels == 4
    assert not defaults.lookup.need_lookup
    assert options_of(**{"deletion-vectors.enabled": "true"}).lookup.need_lookup


def test_dropping_deletes() -> None:
    levels = compute_levels(
        [meta("a", 10, 0), meta("b", 10, 3)], 6, KEY_TYPES
    )  # highest non-empty level: 3
    assert not is_delete_dropped(1, levels, deletion_vectors=False)
    assert is_delete_dropped(3, levels, deletion_vectors=False)
    assert is_delete_dropped(5, levels, deletion_vectors=False)
    assert is_delete_dropped(1, levels, deletion_vectors=True)
    assert not is_delete_dropped(0, levels, deletion_vectors=True)


# --------------------------------------------------------------------------------------------
# Steps of one compaction
# --------------------------------------------------------------------------------------------


def step_shape(steps: Sequence[Any]) -> list[tuple[str, list[str]]]:
    return [(s.kind.value, sorted(f.file_name for f in s.files)) for s in steps]


def test_steps_rewrite_overlaps_and_upgrade_large_files() -> None:
    files = (
        meta("a", 10, 0, 0, 10),
        meta("b", 10, 0, 5, 15),
        meta("c", 100, 1, 20, 30),
        meta("d", 10, 1, 40, 50),
        meta("e", 10, 1, 60, 70),
    )
    steps = compute_compaction_steps(CompactUnit(3, files), KEY_TYPES, 50, 5)
    assert step_shape(steps) == [
        ("rewrite", ["a", "b"]),
        ("upgrade", ["c"]),
        ("rewrite", ["d", "e"]),
    ]
    # the rewrite of d and e keeps them as two sections
    assert len(steps[2].sections) == 2


def test_steps_of_lone_files() -> None:
    small = meta("g", 10, 0, 0, 9)
    assert step_shape(compute_compaction_steps(CompactUnit(3, (small,)), KEY_TYPES, 50, 5)) == [
        ("upgrade", ["g"])
    ]
    same_level = meta("h", 100, 5, 0, 9)
    assert compute_compaction_steps(CompactUnit(5, (same_level,)), KEY_TYPES, 50, 5) == []


@pytest.mark.parametrize(("deletes", "kind"), [(0, "upgrade"), (2, "rewrite"), (None, "rewrite")])
def test_retractions_are_not_moved_to_the_top(deletes: int | None, kind: str) -> None:
    file = meta("f", 100, 0, 0, 9, deletes=deletes)
    [step] = compute_compaction_steps(CompactUnit(5, (file,)), KEY_TYPES, 50, 5)
    assert step.kind is StepKind(kind)
    # below the top level a file with retractions simply moves
    [lower] = compute_compaction_steps(CompactUnit(4, (file,)), KEY_TYPES, 50, 5)
    assert lower.kind is StepKind.UPGRADE


def test_a_second_compaction_removes_intermediate_files(tmp_path: Path) -> None:
    io = LocalFileIO()
    bucket = str(tmp_path)
    for name in ("x", "y"):
        io.write_bytes(layout.join(bucket, name), b"data")
    base, moved = meta("m", 10, 0), meta("m", 10, 3)
    first = CompactionResult(before=(meta("a", 10, 0), base), after=(meta("x", 10, 3), moved))
    increment = apply_round_to_increment(io, bucket, Increment(), first)
    second = CompactionResult(
        before=(meta("x", 10, 3), moved, meta("b", 10, 4)), after=(meta("y", 10, 5),)
    )
    increment = apply_round_to_increment(io, bucket, increment, second)
    assert [f.file_name for f in increment.before.values()] == ["a", "m", "b"]
    assert [f.file_name for f in increment.after] == ["y"]
    # x was written by the first compaction and read by the second: gone from storage
    assert not io.exists(layout.join(bucket, "x"))
    assert io.exists(layout.join(bucket, "y"))


# --------------------------------------------------------------------------------------------
# Picking against Java 0.9
# --------------------------------------------------------------------------------------------

STRATEGIES = {
    "universal": (UNIVERSAL_CASES, pick_universal),
    "force_level0": (FORCE_LEVEL0_CASES, pick_force_level0),
}


def java_picks(java: Any, strategy: str, cases: Sequence[PickCase]) -> list[Any]:
    """Java's picks, one request per option set."""
    results: list[Any] = [None] * len(cases)
    groups: dict[tuple[int, int, int, int], list[int]] = {}
    for index, case in enumerate(cases):
        o = pick_options(case)
        groups.setdefault((o.trigger, o.max_size_amplification, o.size_ratio, case[3]), []).append(
            index
        )
    for (trigger, amplification, ratio, num_levels), indexes in groups.items():
        scenarios = [
            [(level, [(f"{i}-{j}", z) for j, z in enumerate(sizes)]) for i, (level, sizes) in
             enumerate(cases[index][1])]
            for index in indexes
        ]  # fmt: skip
        picks = java.pick_compaction(
            scenarios,
            strategy=strategy,
            num_levels=num_levels,
            max_size_amplification=amplification,
            size_ratio=ratio,
            trigger=trigger,
        )
        for index, pick in zip(indexes, picks, strict=True):
            results[index] = pick
    return results


@pytest.mark.java
@pytest.mark.parametrize("strategy", ["universal", "force_level0", "full"])
def test_decision_table_agrees_with_java(java_harness: Any, strategy: str) -> None:
    cases = FULL_CASES if strategy == "full" else STRATEGIES[strategy][0]
    assert java_picks(java_harness, strategy, cases) == [case[4] for case in cases]


@st.composite
def pick_cases(draw: st.DrawFn) -> PickCase:
    """Random runs: level-0 files, then some upper levels with one to three files."""
    num_levels = draw(st.integers(2, 7))
    sizes = st.one_of(st.integers(1, 200), st.integers(1, 10**7))
    scenario: Scenario = [(0, [draw(sizes)]) for _ in range(draw(st.integers(0, 7)))]
    uppers = draw(st.sets(st.integers(1, num_levels - 1), max_size=num_levels - 1))
    for level in sorted(uppers):
        scenario.append((level, draw(st.lists(sizes, min_size=1, max_size=3))))
    settings_ = {
        "trigger": draw(st.integers(1, 7)),
        "amplification": draw(st.sampled_from([0, 50, 100, 200, 400])),
        "ratio": draw(st.sampled_from([0, 1, 10, 50])),
    }
    return ("random", scenario, settings_, num_levels, None)


@pytest.mark.java
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(pick_cases(), min_size=40, max_size=40))
def test_random_picks_agree_with_java(java_harness: Any, cases: list[PickCase]) -> None:
    for strategy, pick in (("universal", pick_universal), ("force_level0", pick_force_level0)):
        ours = [picked(pick(to_runs(c[1]), c[3], pick_options(c))) for c in cases]
        assert ours == java_picks(java_harness, strategy, cases)
    full = [picked(pick_full_compaction(to_runs(c[1]), c[3])) for c in cases]
    assert full == java_picks(java_harness, "full", cases)


# --------------------------------------------------------------------------------------------
# Compacting tables
# --------------------------------------------------------------------------------------------


def create(root: Path, options: Mapping[str, str], *, partitioned: bool = False) -> Table:
    return Table.create(
        LocalFileIO(),
        str(root),
        (K, V, P) if partitioned else (K, V),
        partition_keys=("p",) if partitioned else (),
        primary_keys=("k", "p") if partitioned else ("k",),
        options={"bucket": "1", **options},
    )


def values(table: Table, snapshot: int | None = None) -> list[Row]:
    travel = TimeTravel() if snapshot is None else TimeTravel(snapshot_id=snapshot)
    return sorted(row for _, row in table.read(travel).rows)


def live_files(table: Table) -> list[DataFileMeta]:
    states = read_bucket_states(table.file_io, table.root, table.schema(), table.latest_snapshot())
    return [f for state in states for f in state.files]


def file_rows(table: Table, file: DataFileMeta) -> list[Row]:
    path = layout.join(table.root, "bucket-0", file.file_name)
    return read_file_rows(table.file_io, path, compute_file_fields(table.schema()))


def commit_kinds(table: Table) -> list[CommitKind]:
    latest = table.latest_snapshot()
    count = 0 if latest is None else latest.id
    return [
        metadata.read_snapshot(table.file_io, table.root, i).commit_kind
        for i in range(1, count + 1)
    ]


def test_writes_compact_when_runs_reach_the_trigger(tmp_path: Path) -> None:
    table = create(tmp_path / "t", {})
    for round_ in range(4):
        table.write_and_commit([(k, round_) for k in range(3)])
    assert commit_kinds(table) == [CommitKind.APPEND] * 4
    assert {f.level for f in live_files(table)} == {0}
    # the fifth run: 4 newer runs are more than twice the oldest (size amplification)
    table.write_and_commit([(k, 4) for k in range(3)])
    assert commit_kinds(table)[4:] == [CommitKind.APPEND, CommitKind.COMPACT]
    [top] = live_files(table)
    assert (top.level, top.file_source, top.row_count) == (5, FileSource.COMPACT, 3)
    assert values(table) == [(0, 4), (1, 4), (2, 4)]


def test_deletion_vectors_mark_older_rows(tmp_path: Path) -> None:
    table = create(tmp_path / "t", {"deletion-vectors.enabled": "true"})
    table.write_and_commit([(k, k) for k in range(200)])
    [big] = live_files(table)
    assert big.level == 5
    # a small new file: picked alone, moved to level 4, the old row of key 5 marked deleted
    table.write_and_commit([(5, 555)])
    state = read_bucket_states(table.file_io, table.root, table.schema(), table.latest_snapshot())
    [bucket] = state
    assert sorted(f.level for f in bucket.files) == [4, 5]
    assert dict(bucket.vectors) == {big.file_name: frozenset({5})}
    assert file_rows(table, big)[5][0] == 5  # the marked row holds key 5
    [index_file] = bucket.vector_files
    assert [r.data_file_name for r in index_file.dv_ranges or ()] == [big.file_name]
    data = table.file_io.read_bytes(layout.index_file_path(table.root, index_file.file_name))
    decoded = decode_deletion_vector_file(data, compute_vector_ranges(index_file))
    assert set(decoded[big.file_name].positions) == {5}
    expected = [(k, 555 if k == 5 else k) for k in range(200)]
    assert values(table) == expected
    # key 5 again (found on level 4: no new mark), key 6 new (its level-5 row marked)
    table.write_and_commit([(5, 777), (6, 666)])
    [bucket] = read_bucket_states(
        table.file_io, table.root, table.schema(), table.latest_snapshot()
    )
    assert dict(bucket.vectors) == {big.file_name: frozenset({5, 6})}
    assert values(table) == [(k, {5: 777, 6: 666}.get(k, k)) for k in range(200)]
    # a full compaction rewrites the marked file: no vector is left, an empty index remains
    table.compact(full=True)
    [bucket] = read_bucket_states(
        table.file_io, table.root, table.schema(), table.latest_snapshot()
    )
    assert dict(bucket.vectors) == {}
    [empty] = bucket.vector_files
    assert (empty.file_size, empty.row_count, empty.dv_ranges) == (1, 0, ())
    assert values(table) == [(k, {5: 777, 6: 666}.get(k, k)) for k in range(200)]


def test_large_files_move_without_rewriting(tmp_path: Path) -> None:
    # a target size of 1 byte makes every file "large" (0.7 * 1 rounds to 0)
    table = create(tmp_path / "t", {"target-file-size": "1 b"})
    table.write_and_commit([(k, k) for k in range(10)])
    table.write_and_commit([(k, k) for k in range(20, 30)])
    before = sorted(f.file_name for f in live_files(table))
    [snapshot] = table.compact(full=True)
    assert snapshot.commit_kind is CommitKind.COMPACT
    files = live_files(table)
    assert sorted(f.file_name for f in files) == before
    assert {f.level for f in files} == {5}
    assert values(table) == [(k, k) for k in [*range(10), *range(20, 30)]]
    # nothing left to do: one run on the top level
    assert table.compact(full=True) == []


def test_compaction_of_one_partition_or_bucket(tmp_path: Path) -> None:
    table = create(tmp_path / "t", {"bucket": "2"}, partitioned=True)
    table.write_and_commit([(k, k, p) for k in range(6) for p in (1, 2)])
    table.write_and_commit([(k, -k, p) for k in range(6) for p in (1, 2)])
    with pytest.raises(ValueError, match="keys"):
        table.compact(full=True, partition={"q": 1})
    table.compact(full=True, partition={"p": 1}, bucket=0)
    levels = {
        (state.partition, state.bucket): sorted(f.level for f in state.files)
        for state in read_bucket_states(
            table.file_io, table.root, table.schema(), table.latest_snapshot()
        )
    }
    assert levels.pop(((1,), 0)) == [5]
    assert all(found == [0, 0] for found in levels.values())
    table.compact(full=True, partition={"p": 2})
    assert {f.level for f in live_files(table) if f.level} == {5}
    assert values(table) == sorted((k, -k, p) for k in range(6) for p in (1, 2))


def test_write_only_tables_are_not_compacted(tmp_path: Path) -> None:
    table = create(tmp_path / "t", {"changelog-producer": "lookup", "write-only": "true"})
    table.write_and_commit([(1, 1)])
    assert commit_kinds(table) == [CommitKind.APPEND]
    table.compact()
    assert commit_kinds(table) == [CommitKind.APPEND, CommitKind.COMPACT]


def test_append_tables_are_compacted_by_append_rules(tmp_path: Path) -> None:
    # the merge-tree options refuse an append table; its compaction follows
    # reference.store.append_compact, for which one small file is nothing to do
    table = Table.create(LocalFileIO(), str(tmp_path / "t"), (K, V), options={"bucket": "-1"})
    table.write_and_commit([(1, 1)])
    with pytest.raises(UnsupportedFeature):
        compute_compaction_options(table.schema())
    table.compact()
    assert commit_kinds(table) == [CommitKind.APPEND]


def test_an_overwrite_compacts_only_its_own_files(tmp_path: Path) -> None:
    table = create(tmp_path / "t", {"changelog-producer": "lookup"})
    table.write_and_commit([(1, 1)])
    table.write_and_commit([(2, 2)], overwrite={})
    assert commit_kinds(table) == [
        CommitKind.APPEND,
        CommitKind.COMPACT,
        CommitKind.OVERWRITE,
        CommitKind.COMPACT,
    ]
    assert values(table) == [(2, 2)]
    assert [f.level for f in live_files(table)] == [5]


def test_per_level_file_format(tmp_path: Path) -> None:
    table = create(
        tmp_path / "t", {"changelog-producer": "lookup", "file.format.per.level": "5:avro"}
    )
    table.write_and_commit([(1, 1)])
    table.write_and_commit([(1, 2), (2, 2)])
    table.compact(full=True)
    [top] = live_files(table)
    assert (top.level, top.file_name.endswith(".avro")) == (5, True)
    assert values(table) == [(1, 2), (2, 2)]


# --------------------------------------------------------------------------------------------
# Compaction keeps the rows, for every merge engine
# --------------------------------------------------------------------------------------------

ENGINES: dict[str, tuple[dict[str, str], tuple[RowKind, ...]]] = {
    "deduplicate": ({}, (INS, UA, DEL)),
    "deduplicate-trigger-2": ({"num-sorted-run.compaction-trigger": "2"}, (INS, UA, DEL)),
    "partial-update": ({"merge-engine": "partial-update"}, (INS,)),
    "aggregation": (
        {"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"},
        (INS, UA),
    ),
    "first-row": ({"merge-engine": "first-row"}, (INS,)),
    "deletion-vectors": ({"deletion-vectors.enabled": "true"}, (INS, UA, DEL)),
    "lookup-aggregation": (
        {
            "changelog-producer": "lookup",
            "merge-engine": "aggregation",
            "fields.v.aggregate-function": "sum",
        },
        (INS, UA),
    ),
    "full-compaction-partial-update": (
        {"changelog-producer": "full-compaction", "merge-engine": "partial-update"},
        (INS,),
    ),
}

Batch = list[tuple[RowKind, Row]]


def batches(kinds: Sequence[RowKind]) -> st.SearchStrategy[list[Batch]]:
    change = st.tuples(
        st.sampled_from(kinds),
        st.tuples(st.integers(0, 4), st.one_of(st.none(), st.integers(-5, 9))),
    )
    return st.lists(st.lists(change, min_size=1, max_size=5), min_size=1, max_size=4)


@pytest.mark.parametrize("engine", ENGINES)
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_compaction_keeps_rows(tmp_path_factory: Any, engine: str, data: st.DataObject) -> None:
    options, kinds = ENGINES[engine]
    table = create(tmp_path_factory.mktemp("t"), options)
    for batch in data.draw(batches(kinds)):
        table.write_and_commit([row for _, row in batch], [kind for kind, _ in batch])
        before = values(table)
        table.compact(full=data.draw(st.booleans()))
        assert values(table) == before


def latest_by_key(history: Sequence[Batch]) -> list[Row]:
    """The deduplicate model: the newest change of each key, deletes removing it."""
    state: dict[int, Row] = {}
    for batch in history:
        for kind, row in batch:
            if kind.is_add:
                state[row[0]] = row
            else:
                state.pop(row[0], None)
    return sorted(state.values())


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=batches((INS, UA, DEL)), options=st.sampled_from(
    [{}, {"deletion-vectors.enabled": "true"}, {"changelog-producer": "lookup"},
     {"num-sorted-run.compaction-trigger": "2"}]
))  # fmt: skip
def test_deduplicate_tables_match_the_model(
    tmp_path_factory: Any, history: list[Batch], options: dict[str, str]
) -> None:
    table = create(tmp_path_factory.mktemp("t"), options)
    for index, batch in enumerate(history):
        table.write_and_commit([row for _, row in batch], [kind for kind, _ in batch])
        assert values(table) == latest_by_key(history[: index + 1])


# --------------------------------------------------------------------------------------------
# Java 0.9 reads what the reference compacted, and compacts alike
# --------------------------------------------------------------------------------------------

JAVA_ENGINES: dict[str, tuple[dict[str, str], tuple[RowKind, ...]]] = {
    **ENGINES,
    "sequence-field": ({"sequence.field": "v", "num-sorted-run.compaction-trigger": "2"}, (INS,)),
    "deletion-vectors-lookup-partial-update": (
        {
            "deletion-vectors.enabled": "true",
            "changelog-producer": "lookup",
            "merge-engine": "partial-update",
        },
        (INS,),
    ),
    "orc-with-avro-top": (
        {"file.format": "orc", "file.format.per.level": "5:avro", "changelog-producer": "lookup"},
        (INS, UA, DEL),
    ),
}


def fixed_history(kinds: Sequence[RowKind], seed: int, count: int = 7) -> list[Batch]:
    chooser = random.Random(seed)
    return [
        [
            (chooser.choice(kinds), (chooser.randrange(8), chooser.choice([None, *range(10)])))
            for _ in range(chooser.randrange(1, 6))
        ]
        for _ in range(count)
    ]


def engine_params() -> list[Any]:
    """The engines, the slow ORC one in the slow tier."""
    slow = {"orc-with-avro-top"}
    return [
        pytest.param(name, marks=pytest.mark.slow) if name in slow else name
        for name in JAVA_ENGINES
    ]


@pytest.mark.java
@pytest.mark.parametrize("engine", engine_params())
def test_java_reads_every_snapshot(tmp_path: Path, java_harness: Any, engine: str) -> None:
    options, kinds = JAVA_ENGINES[engine]
    table = create(tmp_path / "ours", options)
    for batch in fixed_history(kinds, seed=len(engine)):
        table.write_and_commit([row for _, row in batch], [kind for kind, _ in batch])
    table.compact(full=True)
    latest = table.latest_snapshot()
    assert latest is not None
    for snapshot in range(1, latest.id + 1):
        theirs = sorted(row for _, row in java_harness.read(table.root, snapshot_id=snapshot).rows)
        assert theirs == values(table, snapshot), f"snapshot {snapshot}"


@pytest.mark.java
@pytest.mark.parametrize("engine", engine_params())
def test_java_writing_the_same_history_reads_alike(
    tmp_path: Path, java_harness: Any, engine: str
) -> None:
    options, kinds = JAVA_ENGINES[engine]
    ours = create(tmp_path / "ours", options)
    theirs = str(tmp_path / "java")
    java_harness.create_table(
        theirs, (K, V), primary_keys=["k"], options={"bucket": "1", **options}
    )
    full = ours.schema().core_options.changelog_producer.value == "full-compaction"
    for batch in fixed_history(kinds, seed=len(engine) + 1):
        ours.write_and_commit([row for _, row in batch], [kind for kind, _ in batch])
        java_harness.write(theirs, batch, commit=not full)
        if full:
            java_harness.compact(theirs, full=True, commit=True)
        assert sorted(row for _, row in java_harness.read(theirs).rows) == values(ours)
        if compute_compaction_options(ours.schema()).lookup.need_lookup:
            # lookup tables compact every write; others pick by file sizes, which differ
            # between the two writers (conformance/expected_differences.md)
            assert commit_kinds(ours) == commit_kinds(Table(LocalFileIO(), theirs))


@pytest.mark.java
@pytest.mark.parametrize(
    "options",
    [
        {"bucket": "-1", "deletion-vectors.enabled": "true", "dynamic-bucket.target-row-num": "3"},
        {"bucket": "2", "changelog-producer": "full-compaction"},
    ],
    ids=["dynamic-bucket-dv", "two-buckets-full-compaction"],
)
def test_java_reads_partitioned_tables(
    tmp_path: Path, java_harness: Any, options: dict[str, str]
) -> None:
    table = create(tmp_path / "t", options, partitioned=True)
    for round_ in range(3):
        table.write_and_commit([(k, k * round_, k % 2) for k in range(round_, round_ + 6)])
    latest = table.latest_snapshot()
    assert latest is not None
    for snapshot in range(1, latest.id + 1):
        theirs = sorted(row for _, row in java_harness.read(table.root, snapshot_id=snapshot).rows)
        assert theirs == values(table, snapshot), f"snapshot {snapshot}"


def test_when_a_commit_waits_for_compaction() -> None:
    chosen = options_of(trigger=2)  # stop trigger: 2 + 3
    levels = compute_levels([meta(f"f{i}", 10, 0) for i in range(6)], 6, KEY_TYPES)
    assert is_compaction_awaited(levels, chosen, batch=True)
    assert not is_compaction_awaited(levels, chosen, batch=False)
    more = compute_levels([meta(f"f{i}", 10, 0) for i in range(7)], 6, KEY_TYPES)
    assert is_compaction_awaited(more, chosen, batch=False)
