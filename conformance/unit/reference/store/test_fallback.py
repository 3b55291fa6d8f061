"""Batch reads through ``scan.fallback-branch`` (``reference/store/fallback.py``), against the
rows the scenario states and Java 0.9's read of the same tables (``fallback_helpers``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.java.harness import BranchTable, JavaHarness
from conformance.unit.reference.store.fallback_helpers import (
    BRANCH,
    EXPECTED_AT_MAIN_FIRST,
    EXPECTED_AT_MAIN_SECOND,
    EXPECTED_BRANCH,
    EXPECTED_LATEST,
    FALLBACK_OPTION,
    FIELDS,
    FallbackTable,
    alter_branch,
    write_java_table,
    write_on_branch,
    write_reference_table,
)
from reference.errors import InvalidOptionError
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Row
from reference.spec.predicate import equal
from reference.spec.schema import AddColumn, DropPrimaryKey, RemoveOption, SetOption
from reference.store.query import TimeTravel, read_table
from reference.store.stream import StreamReader
from reference.table import Table

LATEST = TimeTravel()


def read_rows(root: Path, travel: TimeTravel = LATEST, **kwargs: object) -> list[Row]:
    result = read_table(LocalFileIO(), str(root), travel, **kwargs)  # type: ignore[arg-type]
    return sorted(row for _, row in result.rows)


def java_rows(java: JavaHarness, table: Path | BranchTable, **travel: int) -> list[Row]:
    return sorted(java.read(table, **travel).values())


def assert_scenario(table: FallbackTable) -> None:
    first, second = table.main_snapshots
    assert read_rows(table.root) == EXPECTED_LATEST
    assert read_rows(table.root, TimeTravel(snapshot_id=second)) == EXPECTED_AT_MAIN_SECOND
    assert read_rows(table.root, TimeTravel(snapshot_id=first)) == EXPECTED_AT_MAIN_FIRST
    assert read_rows(table.root, branch=BRANCH) == EXPECTED_BRANCH


def test_partitions_main_lacks_come_from_the_fallback_branch(tmp_path: Path) -> None:
    assert_scenario(write_reference_table(tmp_path / "t"))


def test_filters_and_projections_apply_to_the_fallback_rows(tmp_path: Path) -> None:
    root = write_reference_table(tmp_path / "t").root
    assert read_rows(root, predicate=equal("pt", 2)) == [(2, 10, "lion"), (2, 20, "wolf")]
    assert read_rows(root, predicate=equal("v", "cat")) == []  # main has partition 1
    assert read_rows(root, projection=["v"]) == sorted((r[2],) for r in EXPECTED_LATEST)


def test_without_the_option_main_reads_alone(tmp_path: Path) -> None:
    root = write_reference_table(tmp_path / "t").root
    Table.open(LocalFileIO(), str(root)).alter([RemoveOption(FALLBACK_OPTION.key)])
    assert read_rows(root) == sorted(r for r in EXPECTED_LATEST if r[0] != 2)


def test_an_empty_main_reads_every_partition_of_the_fallback(tmp_path: Path) -> None:
    table = Table.create(LocalFileIO(), str(tmp_path / "t"), FIELDS, partition_keys=["pt"])
    table.create_branch(BRANCH)
    table.alter([FALLBACK_OPTION])
    write_on_branch(table, BRANCH, [(1, 1, "a"), (2, 2, "b")])
    assert read_rows(tmp_path / "t") == [(1, 1, "a"), (2, 2, "b")]


def test_a_timestamp_before_the_fallback_branch_adds_nothing(tmp_path: Path) -> None:
    root = write_reference_table(tmp_path / "t").root
    table = Table.open(LocalFileIO(), str(root))
    first = table.read(TimeTravel(snapshot_id=1)).snapshot
    assert first is not None
    at = TimeTravel(timestamp_millis=first.time_millis)
    # the branch's first snapshot may share main's millisecond: then its partition 1 is main's
    assert read_rows(root, at) == EXPECTED_AT_MAIN_FIRST


def test_streaming_reads_see_main_only(tmp_path: Path) -> None:
    root = write_reference_table(tmp_path / "t").root
    plan = StreamReader(LocalFileIO(), str(root)).plan()
    assert sorted(row for _, row in plan.changes) == sorted(r for r in EXPECTED_LATEST if r[0] != 2)


def test_a_fallback_branch_of_another_row_type_is_refused(tmp_path: Path) -> None:
    root = write_reference_table(tmp_path / "t").root
    table = Table.open(LocalFileIO(), str(root))
    alter_branch(table, BRANCH, [AddColumn(("v2",), t.IntType())])
    with pytest.raises(InvalidOptionError, match=r"scan\.fallback-branch.*row type"):
        read_rows(root)


def test_a_fallback_branch_without_main_primary_keys_is_refused(tmp_path: Path) -> None:
    table = Table.create(
        LocalFileIO(),
        str(tmp_path / "t"),
        FIELDS,
        partition_keys=["pt"],
        primary_keys=["pt", "k"],
        options={"bucket": "1"},
    )
    table.create_branch("b")
    alter_branch(table, "b", [DropPrimaryKey(), SetOption("bucket-key", "k")])
    table.alter([SetOption(FALLBACK_OPTION.key, "b")])
    with pytest.raises(InvalidOptionError, match=r"scan\.fallback-branch.*primary keys"):
        read_rows(tmp_path / "t")


def test_a_missing_fallback_branch_is_refused(tmp_path: Path) -> None:
    table = Table.create(LocalFileIO(), str(tmp_path / "t"), FIELDS, partition_keys=["pt"])
    table.alter([SetOption(FALLBACK_OPTION.key, "nope")])
    with pytest.raises(InvalidOptionError, match="'nope' does not exist"):
        read_rows(tmp_path / "t")


@pytest.mark.java
def test_java_written_table_reads_as_java_reads_it(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    table = write_java_table(java_harness, tmp_path / "t")
    first, second = table.main_snapshots
    assert java_rows(java_harness, table.root) == EXPECTED_LATEST
    assert java_rows(java_harness, table.root, snapshot_id=second) == EXPECTED_AT_MAIN_SECOND
    assert java_rows(java_harness, table.root, snapshot_id=first) == EXPECTED_AT_MAIN_FIRST
    assert java_rows(java_harness, BranchTable(table.root, BRANCH)) == EXPECTED_BRANCH
    assert_scenario(table)


@pytest.mark.java
def test_java_reads_the_reference_table_alike(tmp_path: Path, java_harness: JavaHarness) -> None:
    table = write_reference_table(tmp_path / "t")
    first, second = table.main_snapshots
    assert java_rows(java_harness, table.root) == EXPECTED_LATEST
    assert java_rows(java_harness, table.root, snapshot_id=second) == EXPECTED_AT_MAIN_SECOND
    assert java_rows(java_harness, table.root, snapshot_id=first) == EXPECTED_AT_MAIN_FIRST
