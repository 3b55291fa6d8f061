"""The JDBC catalog over SQLite (``reference/catalog/jdbc.py``).

The expected table layouts are Java 0.9's DDL (``JdbcUtils``, ``SqlLiteDistributedLockDialect``)
written out by hand as SQLite reports it.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from conformance.java.harness import CatalogTable, JavaHarness
from conformance.objectstore.pytest_fixtures import S3Store
from conformance.unit.reference.store.commit_helpers import PK_FIELDS
from reference.catalog import Identifier, JdbcCatalog, create_catalog
from reference.catalog.base import DatabaseNotEmptyError
from reference.catalog.jdbc import LockTimeoutError
from reference.errors import InvalidOptionError, SpecViolation, TableAlreadyExistsError
from reference.io import LocalFileIO, S3FileIO
from reference.spec.schema import SetOption
from reference.table import Table

T1 = Identifier("db", "t1")


def options(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "warehouse": str(tmp_path / "wh"),
        "metastore": "jdbc",
        "uri": f"jdbc:sqlite:{tmp_path / 'catalog.sqlite'}",
        **extra,
    }


def catalog(tmp_path: Path, **extra: str) -> JdbcCatalog:
    made = create_catalog(options(tmp_path, **extra))
    assert isinstance(made, JdbcCatalog)
    return made


def columns(tmp_path: Path, table: str) -> list[tuple[str, str, int, int]]:
    with sqlite3.connect(tmp_path / "catalog.sqlite") as connection:
        rows = connection.execute(f"PRAGMA table_info({table})").fetchall()
    return [(name, kind, not_null, pk) for _, name, kind, not_null, _, pk in rows]


def rows(tmp_path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(tmp_path / "catalog.sqlite") as connection:
        return [tuple(r) for r in connection.execute(sql).fetchall()]


def test_the_catalog_tables_are_javas(tmp_path: Path) -> None:
    catalog(tmp_path, **{"lock.enabled": "true", "lock-key-max-length": "100"})
    assert columns(tmp_path, "paimon_tables") == [
        ("catalog_key", "VARCHAR(255)", 1, 1),
        ("database_name", "VARCHAR(255)", 1, 2),
        ("table_name", "VARCHAR(255)", 1, 3),
    ]
    assert columns(tmp_path, "paimon_database_properties") == [
        ("catalog_key", "VARCHAR(255)", 1, 1),
        ("database_name", "VARCHAR(255)", 1, 2),
        ("property_key", "VARCHAR(255)", 0, 3),
        ("property_value", "VARCHAR(1000)", 0, 0),
    ]
    assert columns(tmp_path, "paimon_distributed_locks") == [
        ("lock_id", "VARCHAR(100)", 1, 1),
        ("acquired_at", "TIMESTAMP", 1, 0),
        ("expire_time_seconds", "BIGINT", 1, 0),
    ]


def test_no_lock_table_without_the_lock(tmp_path: Path) -> None:
    catalog(tmp_path)
    names = rows(tmp_path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    assert names == [("paimon_database_properties",), ("paimon_tables",)]


def test_databases_and_tables_are_rows(tmp_path: Path) -> None:
    cat = catalog(tmp_path)
    cat.create_database("db", {"owner": "me"})
    assert rows(
        tmp_path,
        "SELECT catalog_key, database_name, property_key, property_value "
        "FROM paimon_database_properties ORDER BY property_key",
    ) == [
        ("jdbc", "db", "exists", "true"),
        ("jdbc", "db", "location", str(tmp_path / "wh" / "db.db")),
        ("jdbc", "db", "owner", "me"),
    ]
    assert cat.database_properties("db") == {
        "location": str(tmp_path / "wh" / "db.db"),
        "owner": "me",
    }
    location = cat.create_table(T1, PK_FIELDS, primary_keys=["k"], options={"bucket": "1"})
    assert rows(tmp_path, "SELECT * FROM paimon_tables") == [("jdbc", "db", "t1")]
    assert (Path(location) / "schema" / "schema-0").is_file()
    with pytest.raises(TableAlreadyExistsError):
        cat.create_table(T1, PK_FIELDS)
    Table.open(LocalFileIO(), location).write_and_commit([(1, "a")])
    cat.rename_table(T1, Identifier("db", "t2"))
    assert rows(tmp_path, "SELECT * FROM paimon_tables") == [("jdbc", "db", "t2")]
    moved = Table.open(LocalFileIO(), cat.table_location(Identifier("db", "t2")))
    assert [row for _, row in moved.read().rows] == [(1, "a")]
    cat.alter_table(Identifier("db", "t2"), [SetOption("snapshot.num-retained.min", "2")])
    with pytest.raises(DatabaseNotEmptyError):
        cat.drop_database("db")
    cat.drop_table(Identifier("db", "t2"))
    assert rows(tmp_path, "SELECT * FROM paimon_tables") == []
    assert not Path(cat.table_location(Identifier("db", "t2"))).exists()
    cat.drop_database("db")
    assert cat.list_databases() == []


def test_catalog_keys_separate_catalogs_in_one_database(tmp_path: Path) -> None:
    first = catalog(tmp_path)
    second = catalog(tmp_path, **{"catalog-key": "other"})
    first.create_database("a")
    second.create_database("b")
    assert first.list_databases() == ["a"]
    assert second.list_databases() == ["b"]


def test_upper_case_names_are_refused(tmp_path: Path) -> None:
    cat = catalog(tmp_path)
    with pytest.raises(SpecViolation):
        cat.create_database("Db")
    cat.create_database("db")
    with pytest.raises(SpecViolation):
        cat.create_table(Identifier("db", "T"), PK_FIELDS)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("uri", ""),
        ("uri", "jdbc:mysql://localhost/x"),
        ("lock.enabled", "maybe"),
        ("lock-check-max-sleep", "soon"),
        ("lock-acquire-timeout", "x"),
        ("lock-key-max-length", "0"),
        ("lock-key-max-length", "many"),
        ("catalog-key", " "),
    ],
)
def test_invalid_options_name_the_option(tmp_path: Path, option: str, value: str) -> None:
    with pytest.raises(InvalidOptionError) as raised:
        catalog(tmp_path, **{option: value})
    assert raised.value.option == option


# --------------------------------------------------------------------------------------------
# The lock
# --------------------------------------------------------------------------------------------


def locked_catalog(tmp_path: Path, **extra: str) -> JdbcCatalog:
    settings = {"lock.enabled": "true", "lock-check-max-sleep": "20 ms", **extra}
    return catalog(tmp_path, **settings)


def test_the_lock_excludes_a_second_holder(tmp_path: Path) -> None:
    cat = locked_catalog(tmp_path)
    events: list[str] = []

    def worker(name: str) -> None:
        with cat.lock.hold(T1):
            events.append(f"{name}+")
            time.sleep(0.05)
            events.append(f"{name}-")

    threads = [threading.Thread(target=worker, args=(str(i),)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(events) == 6
    for i in range(0, 6, 2):  # every enter is followed by its own exit
        assert events[i][0] == events[i + 1][0] and events[i][1] == "+"
    assert rows(tmp_path, "SELECT * FROM paimon_distributed_locks") == []


def test_a_lock_held_elsewhere_times_out(tmp_path: Path) -> None:
    cat = locked_catalog(tmp_path, **{"lock-acquire-timeout": "200 ms"})
    with sqlite3.connect(tmp_path / "catalog.sqlite") as connection:
        connection.execute(  # another process holds it for an hour
            "INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) "
            "VALUES ('jdbc.db.t1', 3600)"
        )
    with pytest.raises(LockTimeoutError), cat.lock.hold(T1):
        pass
    with cat.lock.hold(Identifier("db", "other")):
        assert sorted(rows(tmp_path, "SELECT lock_id FROM paimon_distributed_locks")) == [
            ("jdbc.db.other",),
            ("jdbc.db.t1",),
        ]


def test_a_stale_lock_is_taken_over(tmp_path: Path) -> None:
    cat = locked_catalog(tmp_path, **{"lock-acquire-timeout": "10 s"})
    with sqlite3.connect(tmp_path / "catalog.sqlite") as connection:
        connection.execute(
            "INSERT INTO paimon_distributed_locks (lock_id, acquired_at, expire_time_seconds) "
            "VALUES ('jdbc.db.t1', '2000-01-01 00:00:00', 10)"
        )
    with cat.lock.hold(T1):
        [(acquired_at,)] = rows(tmp_path, "SELECT acquired_at FROM paimon_distributed_locks")
        assert str(acquired_at) > "2000-01-01 00:00:00"


def test_the_commit_lock_is_keyed_by_the_table_of_the_path(tmp_path: Path) -> None:
    cat = locked_catalog(tmp_path)
    path = f"{cat.warehouse}/db.db/t1/snapshot/snapshot-1"
    with cat.commit_lock(path):
        assert rows(tmp_path, "SELECT lock_id FROM paimon_distributed_locks") == [("jdbc.db.t1",)]
    assert rows(tmp_path, "SELECT lock_id FROM paimon_distributed_locks") == []


@pytest.mark.s3
def test_the_commit_lock_serves_s3_commits(tmp_path: Path, s3_store: S3Store) -> None:
    settings = {
        "lock.enabled": "true",
        "uri": f"jdbc:sqlite:{tmp_path / 'catalog.sqlite'}",
        "lock-check-max-sleep": "20 ms",
    }
    cat = JdbcCatalog(s3_store.uri + "/wh", settings, LocalFileIO())
    s3 = S3FileIO(s3_store.config(), commit_lock=cat.commit_lock)
    path = f"{cat.warehouse}/db.db/t1/snapshot/snapshot-1"
    assert s3.create_exclusive(path, b"one")
    assert not s3.create_exclusive(path, b"two")
    assert s3.read_bytes(path) == b"one"


@pytest.mark.java
def test_java_reads_a_table_of_our_jdbc_catalog(tmp_path: Path, java_harness: JavaHarness) -> None:
    cat = catalog(tmp_path)
    cat.create_database("db")
    cat.create_table(T1, PK_FIELDS, primary_keys=["k"], options={"bucket": "1"})
    Table.open(LocalFileIO(), cat.table_location(T1)).write_and_commit([(1, "a")])
    # the harness opens tables through a file system catalog over the same warehouse
    assert java_harness.read(CatalogTable(tmp_path / "wh", "db", "t1")).values() == [(1, "a")]
