"""Tests of ``reference.store.levels``: levels, sorted runs and sections of a bucket.

Files are metas made by hand (a name, a size, a level, a key range, a sequence range); the
expected levels, run orders and sections are worked out by hand from the rules in the module
docstring (and Java's ``Levels`` / ``IntervalPartition`` for the greedy run dealing).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.errors import SpecViolation
from reference.spec import types as t
from reference.spec.binary_row import NullLayout, serialize_binary_row
from reference.spec.data_file import DataFileMeta
from reference.spec.stats import EMPTY_STATS
from reference.store.levels import (
    EMPTY_BUCKET_LEVEL,
    Levels,
    apply_level_update,
    compute_highest_non_empty_level,
    compute_level_sorted_runs,
    compute_levels,
    compute_number_of_sorted_runs,
    compute_sections,
    is_key_in_file,
)

KEY_TYPES = (t.IntType(nullable=False),)


def key(value: int) -> bytes:
    return serialize_binary_row((value,), KEY_TYPES, null_layout=NullLayout.ZERO_SLOT)


def meta(
    name: str,
    low: int,
    high: int,
    *,
    level: int = 0,
    size: int = 100,
    max_sequence: int = 0,
) -> DataFileMeta:
    return DataFileMeta(
        file_name=name,
        file_size=size,
        row_count=high - low + 1,
        min_key=key(low),
        max_key=key(high),
        key_stats=EMPTY_STATS,
        value_stats=EMPTY_STATS,
        min_sequence_number=0,
        max_sequence_number=max_sequence,
        schema_id=0,
        level=level,
        extra_files=(),
        creation_time=None,
        delete_row_count=0,
    )


def names(files: object) -> list[str]:
    return [f.file_name for f in files]  # type: ignore[attr-defined]


def test_levels_of_a_bucket() -> None:
    files = [
        meta("a", 0, 9, level=0, max_sequence=5),
        meta("b", 0, 9, level=0, max_sequence=7),
        meta("c", 0, 9, level=0, max_sequence=7),
        meta("d", 20, 29, level=2),
        meta("e", 0, 9, level=2),
        meta("f", 0, 99, level=4),
    ]
    levels = compute_levels(files, 3, KEY_TYPES)
    # a file on level 4 makes five levels although num-levels says 3
    assert levels.number_of_levels == 5
    assert levels.max_level == 4
    # level 0: newest first, equal max sequence numbers by name
    assert names(levels.level0) == ["b", "c", "a"]
    # level 2 by min key
    assert names(levels.run_of_level(2).files) == ["e", "d"]
    assert levels.run_of_level(1).is_empty
    runs = compute_level_sorted_runs(levels)
    assert [(r.level, names(r.run.files)) for r in runs] == [
        (0, ["b"]),
        (0, ["c"]),
        (0, ["a"]),
        (2, ["e", "d"]),
        (4, ["f"]),
    ]
    assert compute_number_of_sorted_runs(levels) == 5
    assert compute_highest_non_empty_level(levels) == 4
    assert names(levels.all_files) == ["b", "c", "a", "e", "d", "f"]


def test_highest_level_of_small_buckets() -> None:
    assert compute_highest_non_empty_level(compute_levels([], 6, KEY_TYPES)) == EMPTY_BUCKET_LEVEL
    only_zero = compute_levels([meta("a", 0, 1)], 6, KEY_TYPES)
    assert compute_highest_non_empty_level(only_zero) == 0
    assert compute_number_of_sorted_runs(only_zero) == 1


def test_a_bucket_needs_two_levels() -> None:
    with pytest.raises(SpecViolation):
        compute_levels([meta("a", 0, 1)], 1, KEY_TYPES)
    assert compute_levels([meta("a", 0, 1, level=1)], 1, KEY_TYPES).number_of_levels == 2


def test_overlapping_files_on_one_level_are_rejected() -> None:
    files = [meta("a", 0, 10, level=1), meta("b", 10, 20, level=1)]
    with pytest.raises(SpecViolation, match="overlapping"):
        compute_levels(files, 3, KEY_TYPES)


def test_key_in_file_range() -> None:
    file = meta("a", 3, 7)
    assert [k for k in range(10) if is_key_in_file((k,), file, KEY_TYPES)] == [3, 4, 5, 6, 7]


def test_update_moves_files_between_levels() -> None:
    levels = compute_levels(
        [meta("a", 0, 9, max_sequence=2), meta("b", 0, 9, level=3)], 4, KEY_TYPES
    )
    written = meta("c", 0, 9, level=2)
    upgraded = meta("a", 0, 9, level=1, max_sequence=2)
    updated = apply_level_update(levels, [levels.level0[0]], [written, upgraded], KEY_TYPES)
    assert updated.level0 == ()
    assert names(updated.run_of_level(1).files) == ["a"]
    assert names(updated.run_of_level(2).files) == ["c"]
    assert names(updated.run_of_level(3).files) == ["b"]
    grown = apply_level_update(updated, [], [meta("z", 50, 60, level=6)], KEY_TYPES)
    assert grown.number_of_levels == 7


def test_sections_split_where_ranges_stop_overlapping() -> None:
    files = [
        meta("a", 0, 10),
        meta("b", 5, 15),
        meta("c", 11, 20),
        meta("d", 21, 30),
        meta("e", 40, 50),
        meta("f", 45, 46),
    ]
    sections = compute_sections(files, KEY_TYPES)
    # [a, b, c] overlap in a chain (a-b, b-c), d starts after 20, e-f overlap
    shapes = [sorted(names(run.files) for run in section) for section in sections]
    # a and c fit one run (c starts after a ends); b needs its own
    assert shapes == [[["a", "c"], ["b"]], [["d"]], [["e"], ["f"]]]


def test_sections_keep_touching_ranges_together() -> None:
    """A file starting at the previous section's bound (equal key) overlaps it."""
    sections = compute_sections([meta("a", 0, 10), meta("b", 10, 12)], KEY_TYPES)
    assert len(sections) == 1
    assert sorted(names(run.files) for run in sections[0]) == [["a"], ["b"]]


@st.composite
def ranges(draw: st.DrawFn) -> list[tuple[int, int]]:
    starts = draw(st.lists(st.integers(0, 60), min_size=1, max_size=12))
    return [(s, s + draw(st.integers(0, 15))) for s in starts]


@settings(max_examples=60, deadline=None)
@given(ranges())
def test_sections_are_disjoint_and_runs_sorted(key_ranges: list[tuple[int, int]]) -> None:
    files = [meta(f"f{i}", low, high) for i, (low, high) in enumerate(key_ranges)]
    sections = compute_sections(files, KEY_TYPES)
    seen = [f for section in sections for run in section for f in run.files]
    assert sorted(names(seen)) == sorted(names(files))
    bounds = []
    for section in sections:
        spans_of_section = [key_ranges[int(f.file_name[1:])] for run in section for f in run.files]
        bounds.append((min(s for s, _ in spans_of_section), max(e for _, e in spans_of_section)))
        for run in section:
            spans = [key_ranges[int(f.file_name[1:])] for f in run.files]
            assert all(a[1] < b[0] for a, b in itertools.pairwise(spans))
    assert all(a[1] < b[0] for a, b in itertools.pairwise(bounds))
    # the greedy dealing uses as many runs as the deepest overlap of a key
    for section, (low, high) in zip(sections, bounds, strict=True):
        depth = max(
            sum(1 for s, e in key_ranges if s <= k <= e and low <= s and e <= high)
            for k in range(low, high + 1)
        )
        assert len(section) == depth


def test_levels_is_a_plain_record() -> None:
    levels = compute_levels([meta("a", 0, 1, level=1)], 3, KEY_TYPES)
    assert isinstance(levels, Levels)
    with pytest.raises(ValueError):
        levels.run_of_level(0)
