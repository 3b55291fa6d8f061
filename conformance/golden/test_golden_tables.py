"""The reference against the golden tables Java 0.9 wrote (``fixtures/cases/golden``).

Every golden case holds a Java-written ``table/`` and what Java read from it. The reference
must read every snapshot, tag and filter to Java's rows, read every range of changes to Java's
changes (a streaming read from ``from_snapshot + 1``, as the ``java`` engine adapter reads
them), and its validator must find nothing wrong with the table. Comparison follows the case
format (:func:`conformance.cases.compare.compare_rows`).

The ``java`` test reads the checked-in tables with Java again, so a fixture damaged after
generation (or a harness change) shows up as a difference with the recorded expectations.
"""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from conformance.cases.compare import compare_rows, load_expected
from conformance.cases.loader import Case, discover_cases
from conformance.cases.predicates import decode_filter
from conformance.cases.runner import read_checked_in_fields
from conformance.engines.base import Rows, TimeTravel
from conformance.engines.reference_engine import to_predicate
from conformance.golden.tables import GOLDEN_AREA_DIR, GOLDEN_DIR, GOLDEN_TABLES
from reference.io import LocalFileIO
from reference.store import metadata, query

CASES = discover_cases(GOLDEN_DIR.parent, f"{GOLDEN_AREA_DIR}/*")
READ_OPS = ("read", "read_changes")

KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    ("changes", "schema_evolution"): (
        "Java 0.9 streams from a snapshot in that snapshot's schema (FileStoreTable.copy "
        "time-travels the schema for scan.snapshot-id; it even narrows the widened BIGINT "
        "column back to INT by truncation); the reference streams in the latest schema"
    ),
}
"""Where the reference (or its validator) and Java 0.9 disagree on a golden table, and why.
Strict: a difference that disappears fails until its entry is removed."""


def _case_id(case: Case) -> str:
    return case.id.split("/", 1)[1]


def cases_for(check: str) -> list[Any]:
    """The cases as parameters, each known difference of ``check`` a strict xfail."""
    params = []
    for case in CASES:
        reason = KNOWN_DIFFERENCES.get((check, _case_id(case)))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(case, id=_case_id(case), marks=marks))
    return params


def copy_table(case: Case, tmp_path: Path) -> Path:
    """A scratch copy of the case's table (reads must not touch the fixtures)."""
    assert case.table_dir is not None
    target = tmp_path / "table"
    shutil.copytree(case.table_dir, target)
    return target


def test_every_golden_table_is_generated_and_checked_in() -> None:
    assert sorted(_case_id(case) for case in CASES) == sorted(t.case_id for t in GOLDEN_TABLES)
    for case in CASES:
        assert case.producer == "paimon-java 0.9.0" and case.table_dir is not None, case.id
        assert all(step["op"] in READ_OPS for step in case.steps), case.id


def test_golden_tables_stay_small() -> None:
    total = sum(p.stat().st_size for p in GOLDEN_DIR.rglob("*") if p.is_file())
    assert total < 3 * 1024 * 1024, f"golden tables take {total} bytes"


# --------------------------------------------------------------------------------------------
# Reads
# --------------------------------------------------------------------------------------------


def reference_read(root: Path, step: Mapping[str, Any]) -> Rows:
    travel = query.TimeTravel(step.get("snapshot"), step.get("tag"), step.get("timestamp_millis"))
    predicate = None
    if step.get("filter") is not None:
        fields = read_checked_in_fields(root)
        predicate = to_predicate(decode_filter(step["filter"], fields))
    result = query.read_table(LocalFileIO(), str(root), travel, predicate=predicate)
    return Rows(tuple(result.schema.fields), list(result.rows))


@pytest.mark.parametrize("case", cases_for("reads"))
def test_reference_reads_every_snapshot_tag_and_filter_like_java(
    case: Case, tmp_path: Path
) -> None:
    table_copy = copy_table(case, tmp_path)
    checked = 0
    for step in case.steps:
        if step["op"] != "read":
            continue
        expected = load_expected(case.directory / step["expect"])
        mismatch = compare_rows(expected, reference_read(table_copy, step))
        assert mismatch is None, f"{step['expect']}: {mismatch.describe()}"
        checked += 1
    assert checked >= 2


# --------------------------------------------------------------------------------------------
# Changes
# --------------------------------------------------------------------------------------------


def _stream_module() -> Any:
    try:
        return importlib.import_module("reference.store.stream")
    except ImportError as error:
        pytest.skip(f"the reference has no streaming reads yet ({error})")


def reference_changes(root: Path, first: int, last: int) -> Rows:
    """The changes of snapshots ``first + 1 .. last``: a streaming read from ``first + 1``
    whose plans are kept up to snapshot ``last`` (what the ``java`` adapter does)."""
    stream = _stream_module()
    options = {"scan.mode": "from-snapshot", "scan.snapshot-id": str(first + 1)}
    reader = stream.StreamReader(LocalFileIO(), str(root), options)
    changes = []
    # The first plan of a from-snapshot read only positions the reader (an empty plan).
    for snapshot_id, plan_changes in reader.iterate(max_empty_plans=2):
        if snapshot_id > last:
            break
        changes.extend(plan_changes)
    schema = metadata.read_latest_schema(LocalFileIO(), str(root))
    return Rows(tuple(schema.fields), changes)


@pytest.mark.parametrize("case", cases_for("changes"))
def test_reference_reads_the_changes_like_java(case: Case, tmp_path: Path) -> None:
    table_copy = copy_table(case, tmp_path)
    checked = 0
    for step in case.steps:
        if step["op"] != "read_changes":
            continue
        expected = load_expected(case.directory / step["expect"])
        actual = reference_changes(table_copy, step["from_snapshot"], step["to_snapshot"])
        mismatch = compare_rows(expected, actual)
        assert mismatch is None, f"{step['expect']}: {mismatch.describe()}"
        checked += 1
    assert checked >= 1


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _validator() -> Any:
    try:
        return importlib.import_module("reference.validate")
    except ImportError as error:
        pytest.skip(f"the reference has no validator yet ({error})")


@pytest.mark.parametrize("case", cases_for("validate"))
def test_validator_finds_the_golden_tables_clean(case: Case, tmp_path: Path) -> None:
    table_copy = copy_table(case, tmp_path)
    validate = _validator()
    options = validate.ValidateOptions(all_snapshots=True, deep=True)
    report = validate.validate(LocalFileIO(), str(table_copy), options)
    findings = [
        f"{v.code} {v.file}: {v.reason}" for table in report.tables for v in table.violations
    ]
    assert report.unreadable is None and all(t.unreadable is None for t in report.tables)
    assert findings == []


# --------------------------------------------------------------------------------------------
# Java still reads the checked-in tables as recorded
# --------------------------------------------------------------------------------------------


@pytest.mark.java
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_java_reads_the_checked_in_tables_as_recorded(
    java_harness: Any, case: Case, tmp_path: Path
) -> None:
    from conformance.engines.java_engine import JavaEngine  # noqa: PLC0415

    table_copy = copy_table(case, tmp_path)
    engine = JavaEngine(java_harness)
    fields = read_checked_in_fields(table_copy)
    for step in case.steps:
        if step["op"] == "read":
            travel = TimeTravel(step.get("snapshot"), step.get("tag"), None)
            flt = None if step.get("filter") is None else decode_filter(step["filter"], fields)
            actual = engine.read(str(table_copy), travel, None, flt)
        else:
            actual = engine.read_changes(
                str(table_copy), step["from_snapshot"], step["to_snapshot"]
            )
        mismatch = compare_rows(load_expected(case.directory / step["expect"]), actual)
        assert mismatch is None, f"{step['expect']}: {mismatch.describe()}"
