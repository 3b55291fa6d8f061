"""The LSM tree of one bucket: its levels and sorted runs, built from the bucket's live files.

Spec: the seeds' "LSM Trees" / "Sorted Runs" section and ``docs/primary-key-table/compaction``.
Java (0.9.0): ``mergetree/Levels``, ``mergetree/SortedRun``, ``mergetree/LevelSortedRun``,
``mergetree/compact/IntervalPartition``.

Rules:

1. *Files and levels.* Every data file of a primary-key bucket sits on one level (its
   ``level`` field). A bucket has ``max(num-levels, highest file level + 1)`` levels, at least
   two (``num-levels`` defaults to ``num-sorted-run.compaction-trigger + 1``).
2. *Sorted runs.* A sorted run is a list of files ordered by key whose key ranges do not
   overlap, so each key is in at most one file of the run. Level 0 is special: each of its
   files is a sorted run of its own, the newest first (larger max sequence number first,
   equal ones by file name). Every other level is exactly one sorted run (possibly empty), its
   files ordered by min key. Overlapping files on one level > 0 are a spec violation.
3. *Run order.* The runs of a bucket, as compaction picks from them, are the level-0 files
   (newest first) followed by the non-empty levels 1, 2, ... in order: newer data first.
4. *Highest level.* The highest non-empty level is the largest level holding a file, 0 when
   only level 0 does, -1 for an empty bucket.
5. *Sections* (interval partition): the files given to a compaction are sorted by (min key,
   max key) and cut into sections whose key ranges do not overlap; within a section the files
   are dealt greedily into the fewest sorted runs (a file joins the run whose last file ends
   first, when it starts after that end; else it opens a new run). A section of a single run
   overlaps nothing, so its files can move to another level without being rewritten.
6. *Update.* After a compaction the files it read leave their levels and the files it wrote
   (or moved) join theirs.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cmp_to_key

from reference.errors import SpecViolation
from reference.spec import types as t
from reference.spec.binary_row import deserialize_binary_row
from reference.spec.compare import compare_rows
from reference.spec.data import Row
from reference.spec.data_file import DataFileMeta

MIN_LEVELS = 2
"""A bucket has at least level 0 and one level above it (Java ``Levels`` precondition)."""
EMPTY_BUCKET_LEVEL = -1
"""The highest non-empty level of a bucket without files (rule 4)."""

# --------------------------------------------------------------------------------------------
# Keys of files
# --------------------------------------------------------------------------------------------


def decode_min_key(meta: DataFileMeta, key_types: Sequence[t.DataType]) -> Row:
    return deserialize_binary_row(meta.min_key, key_types)


def decode_max_key(meta: DataFileMeta, key_types: Sequence[t.DataType]) -> Row:
    return deserialize_binary_row(meta.max_key, key_types)


def is_key_in_file(key: Row, meta: DataFileMeta, key_types: Sequence[t.DataType]) -> bool:
    """Whether ``key`` lies in the file's key range (it may still be absent from the file)."""
    return (
        compare_rows(key_types, decode_min_key(meta, key_types), key) <= 0
        and compare_rows(key_types, key, decode_max_key(meta, key_types)) <= 0
    )


# --------------------------------------------------------------------------------------------
# Sorted runs (rule 2)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SortedRun:
    """Files ordered by key with disjoint key ranges (Java ``SortedRun``)."""

    files: tuple[DataFileMeta, ...]

    @property
    def total_size(self) -> int:
        return sum(f.file_size for f in self.files)

    @property
    def is_empty(self) -> bool:
        return not self.files


EMPTY_RUN = SortedRun(())


@dataclass(frozen=True)
class LevelSortedRun:
    """A sorted run and the level it is on (Java ``LevelSortedRun``)."""

    level: int
    run: SortedRun


def order_by_min_key(
    files: Iterable[DataFileMeta], key_types: Sequence[t.DataType]
) -> list[DataFileMeta]:
    def compare(left: DataFileMeta, right: DataFileMeta) -> int:
        return compare_rows(
            key_types, decode_min_key(left, key_types), decode_min_key(right, key_types)
        )

    return sorted(files, key=cmp_to_key(compare))


def check_sorted_run(files: Sequence[DataFileMeta], key_types: Sequence[t.DataType]) -> None:
    """Each file must start after the previous one ends (rule 2)."""
    for previous, current in itertools.pairwise(files):
        previous_max = decode_max_key(previous, key_types)
        if compare_rows(key_types, decode_min_key(current, key_types), previous_max) <= 0:
            raise SpecViolation(
                f"files {previous.file_name} and {current.file_name} on level {current.level} "
                "have overlapping key ranges",
                code="LEVEL_KEY_OVERLAP",
            )


def compute_sorted_run(files: Iterable[DataFileMeta], key_types: Sequence[t.DataType]) -> SortedRun:
    """The run of one level > 0: its files by min key, checked not to overlap."""
    ordered = order_by_min_key(files, key_types)
    check_sorted_run(ordered, key_types)
    return SortedRun(tuple(ordered))


# --------------------------------------------------------------------------------------------
# Levels (rules 1-4)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Levels:
    """The files of one bucket by level: ``level0`` newest first, ``upper[i]`` is level i + 1."""

    level0: tuple[DataFileMeta, ...]
    upper: tuple[SortedRun, ...]

    @property
    def number_of_levels(self) -> int:
        return len(self.upper) + 1

    @property
    def max_level(self) -> int:
        return len(self.upper)

    def run_of_level(self, level: int) -> SortedRun:
        if level <= 0:
            raise ValueError("level 0 has no single sorted run")
        return self.upper[level - 1]

    @property
    def all_files(self) -> list[DataFileMeta]:
        return [f for run in compute_level_sorted_runs(self) for f in run.run.files]


def compute_number_of_levels(files: Iterable[DataFileMeta], num_levels: int) -> int:
    """Rule 1: the option, or more when a file sits higher."""
    highest = max((f.level for f in files), default=-1)
    count = max(num_levels, highest + 1)
    if count < MIN_LEVELS:
        raise SpecViolation(f"a bucket needs at least {MIN_LEVELS} levels, got {count}")
    return count


def order_level_zero(files: Iterable[DataFileMeta]) -> tuple[DataFileMeta, ...]:
    """Rule 2: newest first (max sequence number descending), ties by file name."""
    by_name = sorted(files, key=lambda f: f.file_name)
    return tuple(sorted(by_name, key=lambda f: -f.max_sequence_number))


def compute_levels(
    files: Sequence[DataFileMeta], num_levels: int, key_types: Sequence[t.DataType]
) -> Levels:
    """Rules 1 and 2: the levels of a bucket holding ``files``."""
    count = compute_number_of_levels(files, num_levels)
    upper = tuple(
        compute_sorted_run([f for f in files if f.level == level], key_types)
        for level in range(1, count)
    )
    return Levels(order_level_zero(f for f in files if f.level == 0), upper)


def compute_level_sorted_runs(levels: Levels) -> list[LevelSortedRun]:
    """Rule 3: level-0 files one by one, then the non-empty levels."""
    runs = [LevelSortedRun(0, SortedRun((f,))) for f in levels.level0]
    for level, run in enumerate(levels.upper, start=1):
        if not run.is_empty:
            runs.append(LevelSortedRun(level, run))
    return runs


def compute_number_of_sorted_runs(levels: Levels) -> int:
    return len(compute_level_sorted_runs(levels))


def compute_highest_non_empty_level(levels: Levels) -> int:
    """Rule 4."""
    for level in range(levels.max_level, 0, -1):
        if not levels.run_of_level(level).is_empty:
            return level
    return 0 if levels.level0 else EMPTY_BUCKET_LEVEL


def apply_level_update(
    levels: Levels,
    before: Sequence[DataFileMeta],
    after: Sequence[DataFileMeta],
    key_types: Sequence[t.DataType],
) -> Levels:
    """Rule 6: remove ``before`` from their levels, add ``after`` to theirs."""
    removed = {(f.level, f.file_name) for f in before}
    kept = [f for f in levels.all_files if (f.level, f.file_name) not in removed]
    count = max([levels.number_of_levels, *(f.level + 1 for f in after)])
    return compute_levels([*kept, *after], count, key_types)


# --------------------------------------------------------------------------------------------
# Sections (rule 5)
# --------------------------------------------------------------------------------------------


def order_by_key_range(
    files: Iterable[DataFileMeta], key_types: Sequence[t.DataType]
) -> list[DataFileMeta]:
    def compare(left: DataFileMeta, right: DataFileMeta) -> int:
        return compare_rows(
            key_types, decode_min_key(left, key_types), decode_min_key(right, key_types)
        ) or compare_rows(
            key_types, decode_max_key(left, key_types), decode_max_key(right, key_types)
        )

    return sorted(files, key=cmp_to_key(compare))


def find_earliest_ending_run(
    runs: Sequence[Sequence[DataFileMeta]], key_types: Sequence[t.DataType]
) -> int | None:
    """The index of the run whose last file has the smallest max key (``None``: no runs)."""
    earliest: int | None = None
    for index, run in enumerate(runs):
        end = decode_max_key(run[-1], key_types)
        if (
            earliest is None
            or compare_rows(key_types, end, decode_max_key(runs[earliest][-1], key_types)) < 0
        ):
            earliest = index
    return earliest


def is_starting_after(
    meta: DataFileMeta, other: DataFileMeta, key_types: Sequence[t.DataType]
) -> bool:
    """Whether ``meta``'s keys all come after ``other``'s."""
    return (
        compare_rows(key_types, decode_min_key(meta, key_types), decode_max_key(other, key_types))
        > 0
    )


def compute_section_runs(
    section: Sequence[DataFileMeta], key_types: Sequence[t.DataType]
) -> list[SortedRun]:
    """Deal one section's files (in key-range order) into the fewest sorted runs."""
    runs: list[list[DataFileMeta]] = []
    for meta in section:
        earliest = find_earliest_ending_run(runs, key_types)
        if earliest is not None and is_starting_after(meta, runs[earliest][-1], key_types):
            runs[earliest].append(meta)
        else:
            runs.append([meta])
    return [SortedRun(tuple(run)) for run in runs]


def compute_sections(
    files: Iterable[DataFileMeta], key_types: Sequence[t.DataType]
) -> list[list[SortedRun]]:
    """Rule 5: key-disjoint sections in key order, each as its sorted runs."""
    sections: list[list[DataFileMeta]] = []
    bound: Row | None = None
    for meta in order_by_key_range(files, key_types):
        start = decode_min_key(meta, key_types)
        if sections and bound is not None and compare_rows(key_types, start, bound) > 0:
            sections.append([])
            bound = None
        if not sections:
            sections.append([])
        sections[-1].append(meta)
        end = decode_max_key(meta, key_types)
        if bound is None or compare_rows(key_types, end, bound) > 0:
            bound = end
    return [compute_section_runs(section, key_types) for section in sections]
