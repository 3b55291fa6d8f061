"""No false positives: valid tables written by Java Paimon (the third-party tables and the
project's fixture tables) and by the reference writer validate clean with
``--deep --all-snapshots``: no finding of any severity."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.conftest import FIXTURES, THIRD_PARTY
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import RowKind
from reference.table import Table
from reference.validate import (
    ValidateOptions,
    ValidationReport,
    compute_exit_code,
    find_tables,
    validate,
)

DEEP_ALL = ValidateOptions(all_snapshots=True, deep=True)
THIRD_PARTY_TABLES = sorted(
    p.parent.name.removesuffix(".db")
    for p in (THIRD_PARTY / "paimon-cpp" / "parquet").glob("*.db/*")
)
TABLE_DIRS = sorted(FIXTURES.glob("cases/**/table"))
FIXTURE_TABLES = [str(p.relative_to(FIXTURES)) for p in TABLE_DIRS if (p / "schema").is_dir()]
FORMAT_TABLES = [str(p.relative_to(FIXTURES)) for p in TABLE_DIRS if not (p / "schema").is_dir()]
"""Format tables (``type = format-table``): plain files whose schema lives in a catalog, not a
Paimon table on storage, so there is nothing for the validator to check."""


def describe(report: ValidationReport) -> str:
    return "\n".join(f"{v.code} {v.file}: {v.reason}" for t in report.tables for v in t.violations)


@pytest.mark.parametrize("name", THIRD_PARTY_TABLES or ["(none)"])
def test_third_party_table_is_clean(third_party: Path, name: str) -> None:
    table = third_party / "paimon-cpp" / "parquet" / f"{name}.db" / name
    report = validate(LocalFileIO(), str(table), DEEP_ALL)
    assert [t.unreadable for t in report.tables] == [None]
    assert report.tables[0].violations == (), describe(report)
    assert report.tables[0].checked["snapshots"] >= 1


def test_third_party_warehouse(third_party: Path) -> None:
    warehouse = third_party / "paimon-cpp" / "parquet"
    tables = find_tables(LocalFileIO(), str(warehouse))
    assert len(tables) == len(THIRD_PARTY_TABLES) >= 8
    report = validate(LocalFileIO(), str(warehouse))
    assert compute_exit_code(report) == 0, describe(report)


def test_blob_table_is_clean(third_party: Path) -> None:
    """Paimon 1.x BLOB files are checked like the others (their index, row count and, deep,
    every record and its CRC-32: ``reference.spec.blob``): no finding."""
    table = third_party / "paimon-cpp" / "db_with_blob.db" / "table_with_blob"
    report = validate(LocalFileIO(), str(table), DEEP_ALL)
    assert compute_exit_code(report) == 0, describe(report)
    [found] = report.tables
    assert found.violations == (), describe(report)
    assert found.checked["data files"] == 5


@pytest.mark.skipif(not FIXTURE_TABLES, reason="no fixtures/cases/**/table yet")
@pytest.mark.parametrize("relative", FIXTURE_TABLES or ["(none)"])
def test_fixture_table_is_clean(relative: str) -> None:
    report = validate(LocalFileIO(), str(FIXTURES / relative), DEEP_ALL)
    assert compute_exit_code(report) == 0, describe(report)
    assert all(t.violations == () for t in report.tables), describe(report)


STRING = t.VarCharType(t.MAX_LENGTH)
WRITTEN_FIELDS = (
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "p", STRING.copy(False)),
    t.DataField(2, "v", STRING),
)
WRITTEN_TABLES = {
    "pk-deletion-vectors": (True, {"bucket": "2", "deletion-vectors.enabled": "true"}),
    "pk-dynamic-bucket": (True, {"bucket": "-1", "dynamic-bucket.target-row-num": "10"}),
    "pk-lookup-changelog": (True, {"bucket": "1", "changelog-producer": "lookup"}),
    "append-fixed-bucket": (False, {"bucket": "2", "bucket-key": "k"}),
    "append-bloom-filter": (False, {"bucket": "-1", "file-index.bloom-filter.columns": "v"}),
}


@pytest.mark.parametrize("name", sorted(WRITTEN_TABLES))
def test_reference_written_table_is_clean(tmp_path: Path, name: str) -> None:
    """Three commits of 20 rows over 2 partitions, a delete, and a full compaction."""
    has_keys, options = WRITTEN_TABLES[name]
    table = Table.create(
        LocalFileIO(),
        str(tmp_path / name),
        WRITTEN_FIELDS,
        partition_keys=["p"],
        primary_keys=["k", "p"] if has_keys else [],
        options=options,
    )
    for commit in range(3):
        table.write_and_commit([((i * 7 + commit) % 30, "ab"[i % 2], f"v{i}") for i in range(20)])
    if has_keys:
        table.write_and_commit([(1, "b", None)], [RowKind.DELETE])
        table.compact(full=True)
    report = validate(LocalFileIO(), table.root, DEEP_ALL)
    assert report.tables[0].violations == (), describe(report)
    assert report.tables[0].checked["rows read"] > 0


@pytest.mark.skipif(not FORMAT_TABLES, reason="no format-table fixtures")
@pytest.mark.parametrize("relative", FORMAT_TABLES or ["(none)"])
def test_format_table_is_not_taken_for_a_paimon_table(relative: str) -> None:
    report = validate(LocalFileIO(), str(FIXTURES / relative), DEEP_ALL)
    assert report.unreadable is not None and "not a Paimon table" in report.unreadable
    assert compute_exit_code(report) == 2


def test_not_a_table(tmp_path: Path) -> None:
    report = validate(LocalFileIO(), str(tmp_path))
    assert report.unreadable is not None and compute_exit_code(report) == 2


def test_a_missing_snapshot_makes_the_table_unreadable(third_party: Path) -> None:
    table = third_party / "paimon-cpp" / "parquet" / "pk_09.db" / "pk_09"
    report = validate(LocalFileIO(), str(table), ValidateOptions(snapshot_id=99))
    assert report.tables[0].unreadable is not None and compute_exit_code(report) == 2
