"""The ``Table`` handle: a file IO and a root, every method a call into ``reference.store``.

Expected rows are written by hand; the data files come from the hand-made helpers of the commit
tests (the writer has its own tests).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from conformance.java.harness import JavaHarness
from conformance.unit.reference.store.commit_helpers import (
    APPEND_FIELDS,
    PK_FIELDS,
    append_file,
    append_table,
    create_table,
    message,
    partitioned_table,
    values_of,
)
from reference.errors import TableAlreadyExistsError, TableNotFoundError
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import RowKind
from reference.spec.predicate import Leaf, PredicateOp
from reference.spec.schema import AddColumn
from reference.spec.snapshot import CommitKind
from reference.store.query import TimeTravel
from reference.table import Table

INSERT = RowKind.INSERT


def test_the_handle_holds_only_a_file_io_and_a_root(tmp_path: Path) -> None:
    assert [f.name for f in dataclasses.fields(Table)] == ["file_io", "root"]
    table = append_table(str(tmp_path / "t"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        table.root = "elsewhere"  # type: ignore[misc]


def test_create_open_and_schema(tmp_path: Path) -> None:
    root = str(tmp_path / "t")
    with pytest.raises(TableNotFoundError):
        Table.open(LocalFileIO(), root)
    created = Table.create(LocalFileIO(), root, APPEND_FIELDS, options={"bucket": "-1"})
    opened = Table.open(LocalFileIO(), root)
    assert opened.root == created.root
    assert opened.schema().field_names == ["id", "v"]
    assert opened.schema().id == 0
    assert opened.latest_snapshot() is None
    assert opened.read().rows == []
    with pytest.raises(TableAlreadyExistsError):
        Table.create(LocalFileIO(), root, APPEND_FIELDS)


def test_commit_read_and_time_travel(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    [first] = table.commit([message(table, new=[append_file(table, [(1, "a")])])])
    # a fresh commit user per call, so two batch commits both count
    [second] = table.commit([message(table, new=[append_file(table, [(2, "b")])])])
    assert (first.id, second.id) == (1, 2)
    assert first.commit_user != second.commit_user
    assert first.commit_identifier == second.commit_identifier == 2**63 - 1
    assert table.latest_snapshot() == second
    assert values_of(table) == [(1, "a"), (2, "b")]
    assert table.read(TimeTravel(snapshot_id=1)).rows == [(INSERT, (1, "a"))]
    only_two = Leaf(PredicateOp.EQUAL, "id", (2,))
    assert table.read(predicate=only_two, projection=["v"]).rows == [(INSERT, ("b",))]


def test_commit_with_a_user_and_identifiers(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    new = [message(table, new=[append_file(table, [(1, "a")])])]
    assert len(table.commit(new, commit_user="job", identifier=1)) == 1
    assert table.commit(new, commit_user="job", identifier=1) == []
    # batch commits (no identifier) are never skipped, even under one user
    batch = [message(table, new=[append_file(table, [(i, "b")])]) for i in (2, 3)]
    assert len(table.commit([batch[0]], commit_user="job")) == 1
    assert len(table.commit([batch[1]], commit_user="job")) == 1
    assert values_of(table) == [(1, "a"), (2, "b"), (3, "b")]


def test_overwrite_through_the_handle(tmp_path: Path) -> None:
    table = partitioned_table(str(tmp_path / "t"))
    table.commit(
        [
            message(
                table,
                partition=("x",),
                new=[append_file(table, [("x", 1, "old")], partition=("x",))],
            )
        ]
    )
    [snapshot] = table.commit(
        [
            message(
                table,
                partition=("x",),
                new=[append_file(table, [("x", 2, "new")], partition=("x",))],
            )
        ],
        overwrite={},
    )
    assert snapshot.commit_kind is CommitKind.OVERWRITE
    assert values_of(table) == [("x", 2, "new")]


def test_alter(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    table.commit([message(table, new=[append_file(table, [(1, "a")])])])
    schema = table.alter([AddColumn(("w",), t.IntType())])
    assert schema.id == 1 and table.schema() == schema
    assert values_of(table) == [(1, "a", None)]


def test_write_and_commit(tmp_path: Path) -> None:
    table = append_table(str(tmp_path / "t"))
    messages = table.write([(1, "a"), (2, "b")])
    assert table.latest_snapshot() is None  # nothing visible before the commit
    table.commit(messages)
    table.write_and_commit([(3, "c")])
    assert values_of(table) == [(1, "a"), (2, "b"), (3, "c")]
    [overwritten] = table.write_and_commit([(4, "d")], overwrite={})
    assert overwritten.commit_kind is CommitKind.OVERWRITE
    assert values_of(table) == [(4, "d")]


@pytest.mark.java
def test_java_09_reads_and_extends_what_the_handle_writes(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    # a dynamic-bucket primary-key table: the commits carry the HASH index Java then reads
    table = create_table(
        str(tmp_path / "t"), PK_FIELDS, primary_keys=["k"], options={"bucket": "-1"}
    )
    table.write_and_commit([(i, str(i)) for i in range(5)])
    table.write_and_commit([(1, "x"), (7, "y")])
    expected = [(0, "0"), (1, "x"), (2, "2"), (3, "3"), (4, "4"), (7, "y")]
    assert sorted(java_harness.read(table.root).rows) == [(INSERT, row) for row in expected]
    java_harness.write(table.root, [(2, "java"), (9, "j9")], commit=True)
    expected = [(0, "0"), (1, "x"), (2, "java"), (3, "3"), (4, "4"), (7, "y"), (9, "j9")]
    assert values_of(table) == expected
