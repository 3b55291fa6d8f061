"""System tables from Spark (``load("<table>$<name>")``, issue 19) against the reference's
``Table.system_table(name, version=PAIMON_0_9)`` on the same tables: an append table, a
primary-key table with compactions, tags and a consumer, a branch, deletion vectors."""

from __future__ import annotations

import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from reference.errors import InvalidOptionError
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import Timestamp
from reference.spec.snapshot import LocalDateTime
from reference.system_tables import SYSTEM_TABLES_0_9, SystemTableVersion
from reference.table import Table
from spark_impl.system_tables import split_system_table

pytestmark = pytest.mark.spark

EPOCH = datetime.datetime(1970, 1, 1)
VERSION_0_9 = SystemTableVersion.PAIMON_0_9
FIELDS = [
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "dt", t.VarCharType(t.MAX_LENGTH, nullable=False)),
    t.DataField(2, "v", t.DoubleType()),
    t.DataField(3, "s", t.VarCharType(t.MAX_LENGTH)),
]


def _rows(start: int, count: int, dt: str) -> list[tuple[Any, ...]]:
    return [(k, dt, k * 1.5, None if k % 3 else f"s{k}") for k in range(start, start + count)]


def create(root: Path, **layout: Any) -> Table:
    """A table of ``FIELDS`` at ``root``; ``layout``: keys and options as ``Table.create``."""
    return Table.create(LocalFileIO(), str(root), FIELDS, **layout)


def make_append(root: Path) -> Table:
    table = create(root, partition_keys=["dt"])
    table.write_and_commit(_rows(0, 5, "a"))
    table.write_and_commit(_rows(5, 5, "b"))
    return table


def make_primary_key(root: Path) -> Table:
    """Compactions, a tag with retention, a consumer, a branch from the tag."""
    options = {"bucket": "2", "fields.v.aggregate-function": "sum"}
    table = create(root, partition_keys=["dt"], primary_keys=["dt", "k"], options=options)
    table.write_and_commit(_rows(0, 6, "a"))
    table.create_tag("t1", time_retained_nanos=3_600_000_000_000)
    table.write_and_commit(_rows(3, 6, "a") + _rows(0, 2, "b"))
    table.compact(full=True)
    table.write_and_commit(_rows(4, 1, "a"))
    table.create_tag("t2")
    table.reset_consumer("reader-1", 2)
    table.create_branch("b1", from_tag="t1")
    return table


def make_deletion_vectors(root: Path) -> Table:
    options = {"bucket": "1", "deletion-vectors.enabled": "true"}
    table = create(root, primary_keys=["k", "dt"], options=options)
    table.write_and_commit(_rows(0, 8, "a"))
    table.write_and_commit(_rows(2, 3, "a"))
    return table


MAKERS = {"append": make_append, "pk": make_primary_key, "dv": make_deletion_vectors}


def to_python(value: Any) -> Any:
    """A reference internal value as Spark returns it."""
    if isinstance(value, Timestamp):
        micros = value.millisecond * 1000 + value.nano_of_millisecond // 1000
        return EPOCH + datetime.timedelta(microseconds=micros)
    if isinstance(value, LocalDateTime):
        return datetime.datetime(
            value.year, value.month, value.day, value.hour, value.minute, value.second
        )
    if isinstance(value, Decimal):
        return value
    return value


def plain(value: Any) -> Any:
    """A Spark value with nested Rows as tuples (as the reference gives them)."""
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def sort_key(row: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple(repr(v) for v in row)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Table]:
    base = tmp_path_factory.mktemp("system_tables")
    return {kind: make(base / kind) for kind, make in MAKERS.items()}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_every_system_table_equals_the_reference(
    spark: Any, tables: dict[str, Table], kind: str
) -> None:
    table = tables[kind]
    for name in SYSTEM_TABLES_0_9:
        expected = table.system_table(name, version=SystemTableVersion.PAIMON_0_9)
        df = spark.read.format("paimon").load(f"{table.root}${name}")
        assert df.columns == expected.field_names, name
        got = sorted((tuple(row) for row in df.collect()), key=sort_key)
        want = sorted((tuple(to_python(v) for v in row) for row in expected.rows), key=sort_key)
        assert got == want, name


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_main_only_system_tables_equal_the_reference(
    spark: Any, tables: dict[str, Table], kind: str
) -> None:
    """``buckets``, ``binlog`` and ``table_indexes`` exist in main only: main's columns."""
    table = tables[kind]
    for name in ("buckets", "binlog", "table_indexes"):
        expected = table.system_table(name, version=SystemTableVersion.MAIN)
        df = spark.read.format("paimon").load(f"{table.root}${name}")
        assert df.columns == expected.field_names, name
        got = sorted((plain(tuple(row)) for row in df.collect()), key=sort_key)
        want = sorted((tuple(to_python(v) for v in row) for row in expected.rows), key=sort_key)
        assert got == want, name


def test_time_travel_and_the_option_form(spark: Any, tables: dict[str, Table]) -> None:
    table = tables["pk"]
    options = {"scan.snapshot-id": "1"}
    for name in ("files", "audit_log", "ro", "manifests"):
        expected = table.system_table(name, options, version=SystemTableVersion.PAIMON_0_9)
        reader = spark.read.format("paimon").option("system-table", name)
        rows = reader.option("scan.snapshot-id", "1").load(table.root).collect()
        got = sorted((tuple(r) for r in rows), key=sort_key)
        want = sorted((tuple(to_python(v) for v in r) for r in expected.rows), key=sort_key)
        assert got == want, name
    tagged = spark.read.format("paimon").option("scan.tag-name", "t1").load(f"{table.root}$files")
    at_tag = table.system_table("files", {"scan.tag-name": "t1"}, version=VERSION_0_9)
    assert tagged.count() == len(at_tag.rows)


def test_unknown_system_table_names_the_known_ones(spark: Any, tables: dict[str, Table]) -> None:
    with pytest.raises(Exception, match=r"no such system table.*snapshots") as raised:
        spark.read.format("paimon").load(f"{tables['append'].root}$snapshotz").collect()
    assert "snapshotz" in str(raised.value)


def test_split_system_table_path() -> None:
    assert split_system_table("/wh/db.db/t$Files", {}) == ("/wh/db.db/t", "files")
    assert split_system_table("s3://b/w/db.db/t", {"system-table": "tags"}) == (
        "s3://b/w/db.db/t",
        "tags",
    )
    assert split_system_table("/wh/db.db/t", {}) == ("/wh/db.db/t", None)
    with pytest.raises(InvalidOptionError, match="system-table"):
        split_system_table("/wh/db.db/t$files", {"system-table": "tags"})
