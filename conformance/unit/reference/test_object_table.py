"""Tests of ``reference.object_table``: the fixed columns, creation rules, refresh as one
OVERWRITE snapshot per listing, time travel, and catalogs.

The expected columns are Java 1.1-1.2's ``ObjectTable.SCHEMA`` written out by hand; the
expected rows come from ``os.stat`` of the objects the test creates. Java 0.9, which has no
object table, reads one as the plain append table it is (``java_harness``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conformance.java.harness import JavaHarness
from reference.catalog import Identifier, create_catalog
from reference.errors import InvalidOptionError, SpecViolation, UnsupportedFeature
from reference.io import LocalFileIO
from reference.object_table import OBJECT_FIELDS, refresh_object_table
from reference.spec import types as t
from reference.spec.data import Row, Timestamp
from reference.spec.snapshot import CommitKind
from reference.store.query import TimeTravel
from reference.table import Table

OBJECT_TABLE = "object-table"


def objects(root: Path) -> Path:
    """``a.txt`` (5 bytes) and ``sub/b.bin`` (2 bytes) below ``root``."""
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"hello")
    (root / "sub" / "b.bin").write_bytes(b"12")
    return root


def expected_row(path: Path) -> Row:
    """Rule 2 by hand: the full ``file:`` URI, parent, name, size, mtime; atime 0, no owner."""
    uri = f"file:{path}"
    mtime = os.stat(path).st_mtime_ns // 1_000_000
    nulls = (None,) * 7
    size = path.stat().st_size
    return (uri, f"file:{path.parent}", path.name, size, Timestamp(mtime), Timestamp(0), *nulls)


def object_table(root: Path, location: Path) -> Table:
    options = {"type": OBJECT_TABLE, "object-location": str(location)}
    return Table.create(LocalFileIO(), str(root), OBJECT_FIELDS, options=options)


def rows(table: Table, snapshot_id: int | None = None) -> list[Row]:
    travel = TimeTravel(snapshot_id=snapshot_id) if snapshot_id else TimeTravel()
    return [row for _, row in table.read(travel).rows]


def test_the_columns_are_java_s_object_schema() -> None:
    ltz = t.LocalZonedTimestampType(precision=3)
    string = t.VarCharType(t.MAX_LENGTH)
    assert [(f.name, f.type) for f in OBJECT_FIELDS] == [
        ("path", string.copy(False)),
        ("parent_path", string.copy(False)),
        ("name", string.copy(False)),
        ("length", t.BigIntType(nullable=False)),
        ("mtime", ltz),
        ("atime", ltz),
        ("owner", string),
        ("generation", t.IntType()),
        ("content_type", string),
        ("storage_class", string),
        ("md5_hash", string),
        ("metadata_mtime", ltz),
        ("metadata", t.MapType(string, string)),
    ]


def test_refresh_lists_every_object_as_one_overwrite(tmp_path: Path) -> None:
    location = objects(tmp_path / "objects")
    table = object_table(tmp_path / "t", location)
    [snapshot] = refresh_object_table(table.file_io, table.root)
    assert snapshot.commit_kind is CommitKind.OVERWRITE
    assert rows(table) == [expected_row(location / "a.txt"), expected_row(location / "sub/b.bin")]
    # objects change; the next refresh is the next snapshot, the first stays readable
    (location / "a.txt").unlink()
    (location / "c.csv").write_bytes(b"x")
    refresh_object_table(table.file_io, table.root)
    assert [r[2] for r in rows(table)] == ["c.csv", "b.bin"]  # path order: c.csv < sub/b.bin
    assert [r[2] for r in rows(table, 1)] == ["a.txt", "b.bin"]
    # an empty location is an empty listing, committed too
    for path in (location / "sub/b.bin", location / "c.csv"):
        path.unlink()
    assert len(refresh_object_table(table.file_io, table.root)) == 1
    assert rows(table) == [] and len(rows(table, 2)) == 2


def test_object_tables_are_not_written_directly(tmp_path: Path) -> None:
    table = object_table(tmp_path / "t", objects(tmp_path / "objects"))
    with pytest.raises(UnsupportedFeature):
        table.write([expected_row(tmp_path / "objects" / "a.txt")])
    plain = Table.create(LocalFileIO(), str(tmp_path / "p"), OBJECT_FIELDS[:1])
    with pytest.raises(UnsupportedFeature):
        refresh_object_table(plain.file_io, plain.root)


def test_the_seed_example_through_a_catalog(tmp_path: Path) -> None:
    """Seed 3.6.5: CREATE TABLE ... WITH ('type' = 'object-table', 'object-location' = ...),
    CALL sys.refresh_object_table, SELECT *, SELECT with 'scan.snapshot-id' = '1'."""
    location = objects(tmp_path / "objects")
    for metastore in ("filesystem", "jdbc"):
        warehouse = tmp_path / metastore
        catalog = create_catalog(
            {"warehouse": str(warehouse), "metastore": metastore, "uri": str(tmp_path / "c.db")}
        )
        catalog.create_database("mydb")
        identifier = Identifier("mydb", "my_object_table")
        options = {"type": OBJECT_TABLE, "object-location": str(location)}
        root = catalog.create_table(identifier, [], options=options)
        assert catalog.table_schema(identifier).fields == OBJECT_FIELDS
        table = Table.open(LocalFileIO(), root)
        refresh_object_table(table.file_io, table.root)
        assert len(rows(table)) == 2
        assert rows(table, 1) == rows(table)
    with pytest.raises(InvalidOptionError):
        catalog.create_table(Identifier("mydb", "no_location"), [], options={"type": OBJECT_TABLE})
    wrong = [t.DataField(0, "path", t.IntType())]
    with pytest.raises(SpecViolation):
        catalog.create_table(Identifier("mydb", "wrong"), wrong, options=options)
    # a subset of the columns is accepted, and the table gets all of them
    catalog.create_table(Identifier("mydb", "subset"), OBJECT_FIELDS[:2], options=options)
    assert catalog.table_schema(Identifier("mydb", "subset")).fields == OBJECT_FIELDS


@pytest.mark.java
def test_java_reads_an_object_table(tmp_path: Path, java_harness: JavaHarness) -> None:
    location = objects(tmp_path / "objects")
    table = object_table(tmp_path / "t", location)
    refresh_object_table(table.file_io, table.root)
    (location / "a.txt").unlink()
    refresh_object_table(table.file_io, table.root)
    assert java_harness.read(table.root).values() == rows(table)
    assert java_harness.read(table.root, snapshot_id=1).values() == rows(table, 1)
