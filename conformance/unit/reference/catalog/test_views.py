"""Tests of views (``reference.catalog.views`` and the catalogs' view methods): the stored JSON
(Java main's ``ViewSchema`` through Jackson's pretty printer, written out by hand here), view
changes, the JDBC catalog's ``paimon_views`` rows and the shared table/view name space, and the
file system catalog, which keeps no views.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from reference.catalog import Catalog, Identifier, create_catalog
from reference.catalog.base import DatabaseNotEmptyError, DatabaseNotFoundError
from reference.catalog.views import (
    AddDialect,
    DialectAlreadyExistsError,
    DialectNotFoundError,
    DropDialect,
    RemoveViewOption,
    SetViewOption,
    UpdateDialect,
    UpdateViewComment,
    View,
    ViewAlreadyExistsError,
    ViewNotFoundError,
    apply_view_changes,
    decode_view_schema,
    encode_view_schema,
)
from reference.errors import PaimonFormatError, TableAlreadyExistsError, UnsupportedFeature
from reference.spec import types as t

STRING = t.VarCharType(t.MAX_LENGTH)
QUERY = "SELECT region, SUM(amount) AS total_amount FROM sales GROUP BY region"
SALES_VIEW = View(
    fields=(t.DataField(0, "region", STRING), t.DataField(1, "total_amount", t.DoubleType())),
    query=QUERY,
    dialects={"spark": QUERY},
    comment="totals",
    options={"k": "v"},
)
SALES_VIEW_JSON = """{
  "fields" : [ {
    "id" : 0,
    "name" : "region",
    "type" : "STRING"
  }, {
    "id" : 1,
    "name" : "total_amount",
    "type" : "DOUBLE"
  } ],
  "query" : "SELECT region, SUM(amount) AS total_amount FROM sales GROUP BY region",
  "dialects" : {
    "spark" : "SELECT region, SUM(amount) AS total_amount FROM sales GROUP BY region"
  },
  "comment" : "totals",
  "options" : {
    "k" : "v"
  }
}"""


def jdbc(tmp_path: Path) -> Catalog:
    catalog = create_catalog(
        {"warehouse": str(tmp_path / "wh"), "metastore": "jdbc", "uri": str(tmp_path / "c.db")}
    )
    catalog.create_database("db")
    return catalog


# --------------------------------------------------------------------------------------------
# The stored form and changes
# --------------------------------------------------------------------------------------------


def test_view_json_is_java_s_view_schema() -> None:
    assert encode_view_schema(SALES_VIEW) == SALES_VIEW_JSON
    assert decode_view_schema(SALES_VIEW_JSON) == SALES_VIEW
    bare = View(fields=(), query="SELECT 1")
    assert encode_view_schema(bare) == (
        '{\n  "fields" : [ ],\n  "query" : "SELECT 1",\n  "dialects" : { },\n  "options" : { }\n}'
    )
    # unknown members are ignored; missing dialects and options read as empty
    assert decode_view_schema('{"fields": [], "query": "q", "extra": 1}') == View((), "q")
    with pytest.raises(PaimonFormatError):
        decode_view_schema('{"fields": []}')
    with pytest.raises(PaimonFormatError):
        decode_view_schema('{"fields": {}, "query": "q"}')


def test_view_changes() -> None:
    changed = apply_view_changes(
        SALES_VIEW,
        [
            SetViewOption("a", "1"),
            RemoveViewOption("k"),
            UpdateViewComment(None),
            AddDialect("flink", "SELECT 2"),
            UpdateDialect("spark", "SELECT 3"),
            DropDialect("flink"),
        ],
    )
    assert changed == View(SALES_VIEW.fields, QUERY, {"spark": "SELECT 3"}, None, {"a": "1"})
    with pytest.raises(DialectAlreadyExistsError):
        apply_view_changes(SALES_VIEW, [AddDialect("spark", "x")])
    with pytest.raises(DialectNotFoundError):
        apply_view_changes(SALES_VIEW, [UpdateDialect("hive", "x")])
    with pytest.raises(DialectNotFoundError):
        apply_view_changes(SALES_VIEW, [DropDialect("hive")])


# --------------------------------------------------------------------------------------------
# The JDBC catalog
# --------------------------------------------------------------------------------------------


def test_the_seed_view_statements(tmp_path: Path) -> None:
    """Seed 3.6.3: CREATE VIEW [IF NOT EXISTS] ... AS query; SHOW VIEWS; SHOW CREATE VIEW;
    DROP VIEW [IF EXISTS]."""
    catalog = jdbc(tmp_path)
    identifier = Identifier("db", "sales_view")
    catalog.create_view(identifier, SALES_VIEW)
    catalog.create_view(identifier, View((), "other"), ignore_if_exists=True)
    with pytest.raises(ViewAlreadyExistsError):
        catalog.create_view(identifier, SALES_VIEW)
    assert catalog.list_views("db") == ["sales_view"]
    assert catalog.get_view(identifier) == SALES_VIEW
    assert catalog.get_view(identifier).query == QUERY
    with sqlite3.connect(tmp_path / "c.db") as connection:
        stored = connection.execute(
            "SELECT catalog_key, database_name, view_name, view_schema FROM paimon_views"
        ).fetchall()
    assert stored == [("jdbc", "db", "sales_view", SALES_VIEW_JSON)]
    catalog.drop_view(identifier)
    catalog.drop_view(identifier, ignore_if_not_exists=True)
    with pytest.raises(ViewNotFoundError):
        catalog.drop_view(identifier)
    with pytest.raises(ViewNotFoundError):
        catalog.get_view(identifier)
    assert catalog.list_views("db") == []


def test_tables_and_views_share_names(tmp_path: Path) -> None:
    catalog = jdbc(tmp_path)
    catalog.create_table(Identifier("db", "t"), [t.DataField(0, "a", t.IntType())])
    with pytest.raises(ViewAlreadyExistsError):
        catalog.create_view(Identifier("db", "t"), SALES_VIEW)
    catalog.create_view(Identifier("db", "v"), SALES_VIEW)
    with pytest.raises(TableAlreadyExistsError):
        catalog.create_table(Identifier("db", "v"), [t.DataField(0, "a", t.IntType())])
    with pytest.raises(TableAlreadyExistsError):
        catalog.rename_table(Identifier("db", "t"), Identifier("db", "v"))
    with pytest.raises(ViewAlreadyExistsError):
        catalog.rename_view(Identifier("db", "v"), Identifier("db", "t"))
    assert catalog.list_tables("db") == ["t"] and catalog.list_views("db") == ["v"]


def test_rename_and_alter(tmp_path: Path) -> None:
    catalog = jdbc(tmp_path)
    catalog.create_database("other")
    catalog.create_view(Identifier("db", "v"), SALES_VIEW)
    catalog.rename_view(Identifier("db", "v"), Identifier("other", "w"))
    assert catalog.list_views("db") == [] and catalog.list_views("other") == ["w"]
    with pytest.raises(DatabaseNotFoundError):
        catalog.rename_view(Identifier("other", "w"), Identifier("missing", "w"))
    with pytest.raises(ViewNotFoundError):
        catalog.rename_view(Identifier("db", "v"), Identifier("db", "x"))
    catalog.alter_view(Identifier("other", "w"), [AddDialect("flink", "SELECT 1")])
    assert dict(catalog.get_view(Identifier("other", "w")).dialects) == {
        "spark": QUERY,
        "flink": "SELECT 1",
    }
    catalog.alter_view(Identifier("db", "gone"), [], ignore_if_not_exists=True)
    with pytest.raises(ViewNotFoundError):
        catalog.alter_view(Identifier("db", "gone"), [])


def test_databases_with_views(tmp_path: Path) -> None:
    catalog = jdbc(tmp_path)
    with pytest.raises(DatabaseNotFoundError):
        catalog.create_view(Identifier("missing", "v"), SALES_VIEW)
    catalog.create_view(Identifier("db", "v"), SALES_VIEW)
    with pytest.raises(DatabaseNotEmptyError):
        catalog.drop_database("db")
    catalog.drop_database("db", cascade=True)
    assert "db" not in catalog.list_databases()
    with sqlite3.connect(tmp_path / "c.db") as connection:
        assert connection.execute("SELECT COUNT(*) FROM paimon_views").fetchone() == (0,)
    # a database whose only object is a view is listed (rows of another catalog key aside)
    with sqlite3.connect(tmp_path / "c.db") as connection:
        connection.execute(
            "INSERT INTO paimon_views VALUES ('jdbc', 'only_views', 'v', ?)", (SALES_VIEW_JSON,)
        )
    assert "only_views" in catalog.list_databases()
    assert catalog.list_views("only_views") == ["v"]
    assert catalog.list_views("sys") == []


def test_a_catalog_without_views_keeps_its_database_tables_unchanged(tmp_path: Path) -> None:
    jdbc(tmp_path).list_views("db")
    with sqlite3.connect(tmp_path / "c.db") as connection:
        names = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    assert ("paimon_views",) not in names  # made on first use only


# --------------------------------------------------------------------------------------------
# The file system catalog keeps no views
# --------------------------------------------------------------------------------------------


def test_the_file_system_catalog_has_no_views(tmp_path: Path) -> None:
    catalog = create_catalog({"warehouse": str(tmp_path / "wh")})
    catalog.create_database("db")
    identifier = Identifier("db", "v")
    with pytest.raises(UnsupportedFeature):
        catalog.create_view(identifier, SALES_VIEW)
    with pytest.raises(UnsupportedFeature):
        catalog.drop_view(identifier)
    with pytest.raises(UnsupportedFeature):
        catalog.rename_view(identifier, Identifier("db", "w"))
    with pytest.raises(UnsupportedFeature):
        catalog.alter_view(identifier, [])
    with pytest.raises(ViewNotFoundError):
        catalog.get_view(identifier)
    assert catalog.list_views("db") == []
    catalog.drop_database("db")
