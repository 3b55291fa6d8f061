"""Tests of ``reference.spec.system_table_columns``: the one declaration of each system
table's columns, which the reference and the PySpark engine both serve (Java ``XxxTable``
row types: the 0.9 columns where the project mirrors 0.9, main's beside them)."""

from __future__ import annotations

import pytest

from reference.io import LocalFileIO
from reference.spec import system_table_columns as c
from reference.spec import types as t
from reference.system_tables import SystemTableVersion
from reference.table import Table
from spark_impl.system_table_rows import SYSTEM_TABLES as SPARK_TABLES

V09 = SystemTableVersion.PAIMON_0_9
MAIN = SystemTableVersion.MAIN
BRANCHES_MAIN_COLUMNS = tuple(col for col in c.BRANCHES_COLUMNS if col[0] in c.BRANCHES_MAIN)
SHARED = {
    "schemas": c.SCHEMAS_COLUMNS,
    "options": c.OPTIONS_COLUMNS,
    "tags": c.TAGS_COLUMNS,
    "consumers": c.CONSUMERS_COLUMNS,
    "aggregation_fields": c.AGGREGATION_COLUMNS,
    "statistics": c.STATISTICS_COLUMNS,
}
EXPECTED_0_9 = {
    **SHARED,
    "snapshots": c.SNAPSHOTS_0_9_COLUMNS,
    "branches": c.BRANCHES_COLUMNS,
    "files": c.FILES_0_9_COLUMNS,
    "manifests": c.MANIFESTS_0_9_COLUMNS,
    "partitions": c.PARTITIONS_0_9_COLUMNS,
}
EXPECTED_MAIN = {
    **SHARED,
    "snapshots": c.SNAPSHOTS_COLUMNS,
    "branches": BRANCHES_MAIN_COLUMNS,
    "files": c.FILES_COLUMNS,
    "manifests": c.MANIFESTS_COLUMNS,
    "partitions": c.PARTITIONS_COLUMNS,
    "buckets": c.BUCKETS_COLUMNS,
    "table_indexes": c.TABLE_INDEXES_COLUMNS,
}
SPARK_EXTRA = {"buckets": c.BUCKETS_COLUMNS, "table_indexes": c.TABLE_INDEXES_COLUMNS}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Table:
    root = str(tmp_path_factory.mktemp("cols") / "t")
    fields = (t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType()))
    created = Table.create(LocalFileIO(), root, fields, primary_keys=["k"], options={"bucket": "1"})
    created.write_and_commit([(1, 1)])
    return created


def test_names_are_unique_per_table() -> None:
    for name in dir(c):
        value = getattr(c, name)
        if name.endswith("_COLUMNS") and isinstance(value, tuple):
            names = c.column_names(value)
            assert len(set(names)) == len(names), name


@pytest.mark.parametrize(
    ("version", "expected"), [(V09, EXPECTED_0_9), (MAIN, EXPECTED_MAIN)], ids=["0.9", "main"]
)
def test_reference_serves_these_columns(
    table: Table, version: SystemTableVersion, expected: dict[str, c.Columns]
) -> None:
    for name, columns in expected.items():
        fields = table.system_table(name, version=version).fields
        assert [(f.name, f.type) for f in fields] == list(columns), name


def test_spark_serves_the_0_9_columns(table: Table) -> None:
    """The PySpark engine's fixed-column tables are 0.9's (and main's ``buckets`` and
    ``table_indexes``), the very objects this module declares."""
    io = LocalFileIO()
    for name, columns in {**EXPECTED_0_9, **SPARK_EXTRA}.items():
        assert SPARK_TABLES[name].columns(io, table.root, {}) is columns, name
