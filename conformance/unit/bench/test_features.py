"""bench.features: the expected checksums computed with numpy agree with the reference (the
oracle) running the same workloads at a small size, and W5's table really is pruned by its
index."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow as pa

from bench import engines as e
from bench import features as f
from bench import workloads as w
from bench.plans import reference_rows

ROWS = 1_000


def write_commits(root: str, commits: Callable[[int, int], pa.Table]) -> None:
    """Write the workload's five commits through the reference."""
    e.reference_write(root, reference_rows([commits(ROWS, c) for c in range(w.COMMITS)]))


def test_partial_update_checksum(tmp_path: Path) -> None:
    root = f.create_partial_table(str(tmp_path), "t")
    write_commits(root, f.partial_commit_arrow)
    assert e.reference_read(root) == f.expected_partial_checksum(ROWS)


def test_aggregation_checksum(tmp_path: Path) -> None:
    root = f.create_aggregate_table(str(tmp_path), "t")
    write_commits(root, w.commit_arrow)
    assert e.reference_read(root) == f.expected_aggregate_checksum(ROWS)


def test_lookup_changelog_record_count(tmp_path: Path) -> None:
    root = f.create_lookup_table(str(tmp_path), "t")
    write_commits(root, w.commit_arrow)
    assert e.reference_read(root) == w.expected_checksum(ROWS)
    assert f.count_changelog_records(root) == f.expected_changelog_records(ROWS)


def test_deletion_vector_table_checksum(tmp_path: Path) -> None:
    root = f.create_dv_table(str(tmp_path), "t")
    write_commits(root, w.commit_arrow)
    assert e.reference_read(root) == w.expected_checksum(ROWS)


def test_point_queries_and_index_pruning(tmp_path: Path) -> None:
    root = f.create_index_table(str(tmp_path), "t")
    write_commits(root, w.append_commit_arrow)
    values = f.point_query_values(ROWS)
    found = [e.reference_point_query(root, value) for value in values]
    assert sum(c.count for c in found) == f.expected_point_checksum(ROWS).count
    assert sum(c.key_sum for c in found) == f.expected_point_checksum(ROWS).key_sum
    files = len(e.live_data_files(root))
    assert files == w.COMMITS
    assert e.reference_planned_files(root, f.INDEX_COLUMN, values[0]) < files
