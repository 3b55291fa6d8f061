"""The file system catalog (``reference/catalog/filesystem.py``) and the shared rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.java.harness import CatalogTable, JavaHarness
from conformance.unit.reference.store.commit_helpers import PK_FIELDS
from reference.catalog import FileSystemCatalog, Identifier, create_catalog
from reference.catalog.base import (
    DatabaseAlreadyExistsError,
    DatabaseNotEmptyError,
    DatabaseNotFoundError,
)
from reference.errors import (
    InvalidOptionError,
    SpecViolation,
    TableAlreadyExistsError,
    TableNotFoundError,
)
from reference.io import LocalFileIO
from reference.spec.schema import SetOption
from reference.table import Table

T1 = Identifier("db", "t1")


def catalog(tmp_path: Path) -> FileSystemCatalog:
    made = create_catalog({"warehouse": str(tmp_path / "wh")})
    assert isinstance(made, FileSystemCatalog)
    return made


def test_databases_are_directories(tmp_path: Path) -> None:
    cat = catalog(tmp_path)
    cat.create_database("b")
    cat.create_database("a")
    assert cat.list_databases() == ["a", "b"]
    assert (tmp_path / "wh" / "a.db").is_dir()
    cat.create_database("a", ignore_if_exists=True)
    with pytest.raises(DatabaseAlreadyExistsError):
        cat.create_database("a")
    with pytest.raises(SpecViolation):
        cat.create_database("sys")
    with pytest.raises(SpecViolation):
        cat.create_database("c", {"location": "/elsewhere"})
    assert cat.database_properties("a") == {}
    cat.drop_database("a")
    assert cat.list_databases() == ["b"]
    cat.drop_database("a", ignore_if_not_exists=True)
    with pytest.raises(DatabaseNotFoundError):
        cat.drop_database("a")


def test_tables_live_at_warehouse_db_table(tmp_path: Path) -> None:
    cat = catalog(tmp_path)
    cat.create_database("db")
    location = cat.create_table(T1, PK_FIELDS, primary_keys=["k"], options={"bucket": "1"})
    assert location == str(tmp_path / "wh" / "db.db" / "t1")
    assert (Path(location) / "schema" / "schema-0").is_file()
    (tmp_path / "wh" / "db.db" / "not-a-table").mkdir()
    assert cat.list_tables("db") == ["t1"]
    assert cat.create_table(T1, PK_FIELDS, ignore_if_exists=True) == location
    with pytest.raises(TableAlreadyExistsError):
        cat.create_table(T1, PK_FIELDS)
    with pytest.raises(DatabaseNotFoundError):
        cat.create_table(Identifier("nope", "t"), PK_FIELDS)
    with pytest.raises(SpecViolation):
        cat.create_table(Identifier("db", "t$snapshots"), PK_FIELDS)
    with pytest.raises(SpecViolation):
        cat.create_table(Identifier("db", "t2"), PK_FIELDS, options={"auto-create": "true"})


def test_rename_alter_drop(tmp_path: Path) -> None:
    cat = catalog(tmp_path)
    cat.create_database("db")
    cat.create_table(T1, PK_FIELDS, primary_keys=["k"], options={"bucket": "1"})
    Table.open(LocalFileIO(), cat.table_location(T1)).write_and_commit([(1, "a")])
    renamed = Identifier("db", "t2")
    cat.rename_table(T1, renamed)
    assert cat.list_tables("db") == ["t2"]
    assert not Path(cat.table_location(T1)).exists()
    table = Table.open(LocalFileIO(), cat.table_location(renamed))
    assert [row for _, row in table.read().rows] == [(1, "a")]
    with pytest.raises(TableNotFoundError):
        cat.rename_table(T1, renamed)
    schema = cat.alter_table(renamed, [SetOption("snapshot.num-retained.min", "3")])
    assert schema is not None and schema.id == 1
    assert cat.table_schema(renamed).options["snapshot.num-retained.min"] == "3"
    with pytest.raises(DatabaseNotEmptyError):
        cat.drop_database("db")
    cat.drop_table(renamed)
    assert cat.list_tables("db") == []
    with pytest.raises(TableNotFoundError):
        cat.drop_table(renamed)
    cat.create_table(T1, PK_FIELDS, primary_keys=["k"])
    cat.drop_database("db", cascade=True)
    assert not (tmp_path / "wh" / "db.db").exists()


def test_catalog_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(InvalidOptionError) as raised:
        create_catalog({})
    assert raised.value.option == "warehouse"
    with pytest.raises(InvalidOptionError) as raised:
        create_catalog({"warehouse": str(tmp_path), "metastore": "hive"})
    assert raised.value.option == "metastore"


@pytest.mark.java
def test_java_sees_our_catalog_and_we_see_java_tables(
    tmp_path: Path, java_harness: JavaHarness
) -> None:
    warehouse = tmp_path / "wh"
    cat = catalog(tmp_path)
    cat.create_database("db")
    cat.create_table(T1, PK_FIELDS, primary_keys=["k"], options={"bucket": "1"})
    Table.open(LocalFileIO(), cat.table_location(T1)).write_and_commit([(1, "a")])
    assert java_harness.read(CatalogTable(warehouse, "db", "t1")).values() == [(1, "a")]
    java_harness.create_table(
        CatalogTable(warehouse, "db", "java_made"), PK_FIELDS, primary_keys=["k"]
    )
    assert cat.list_tables("db") == ["java_made", "t1"]
    assert list(cat.table_schema(Identifier("db", "java_made")).primary_keys) == ["k"]
