"""No false positives: valid tables written by Java Paimon (and the project's fixture tables)
validate clean with ``--deep --all-snapshots``: no finding of any severity."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.conftest import FIXTURES, THIRD_PARTY
from reference.io import LocalFileIO
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
FIXTURE_TABLES = sorted(str(p.relative_to(FIXTURES)) for p in FIXTURES.glob("cases/**/table"))


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


@pytest.mark.skipif(not FIXTURE_TABLES, reason="no fixtures/cases/**/table yet")
@pytest.mark.parametrize("relative", FIXTURE_TABLES or ["(none)"])
def test_fixture_table_is_clean(relative: str) -> None:
    report = validate(LocalFileIO(), str(FIXTURES / relative), DEEP_ALL)
    assert compute_exit_code(report) == 0, describe(report)
    assert all(t.violations == () for t in report.tables), describe(report)


def test_not_a_table(tmp_path: Path) -> None:
    report = validate(LocalFileIO(), str(tmp_path))
    assert report.unreadable is not None and compute_exit_code(report) == 2


def test_a_missing_snapshot_makes_the_table_unreadable(third_party: Path) -> None:
    table = third_party / "paimon-cpp" / "parquet" / "pk_09.db" / "pk_09"
    report = validate(LocalFileIO(), str(table), ValidateOptions(snapshot_id=99))
    assert report.tables[0].unreadable is not None and compute_exit_code(report) == 2
