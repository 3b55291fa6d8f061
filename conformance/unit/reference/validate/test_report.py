"""The report: rule registry, exit codes, de-duplication, JSON schema and text rendering."""

from __future__ import annotations

import json

from reference.validate import report as r

ERROR = r.violation(r.Rule.DATA_FILE_MISSING, "dt=1/bucket-0/data-a-0.parquet", "no such file", 3)
WARNING = r.violation(r.Rule.HINT_WRONG, "snapshot/LATEST", "LATEST says 2, the snapshot is 3")
SKIPPED = r.violation(r.Rule.CHECK_SKIPPED, "bucket-0/data-b-0.lance", "format 'lance' unsupported")


def test_every_rule_is_registered_once_with_a_spec_reference() -> None:
    assert all(code == rule.code for code, rule in r.RULES.items())
    assert all(rule.spec_ref and rule.summary for rule in r.RULES.values())
    assert all(code.isupper() and " " not in code for code in r.RULES)


def test_violation_takes_severity_and_spec_reference_from_its_rule() -> None:
    assert ERROR.severity is r.Severity.ERROR
    assert ERROR.spec_ref == r.Rule.DATA_FILE_MISSING.spec_ref
    assert WARNING.severity is r.Severity.WARNING


def test_relative_file_strips_the_table_root_only() -> None:
    assert r.relative_file("/w/db.db/t", "/w/db.db/t/snapshot/LATEST") == "snapshot/LATEST"
    assert r.relative_file("s3://b/t/", "s3://b/t/manifest/m-1") == "manifest/m-1"
    assert r.relative_file("/w/t", "/elsewhere/data.parquet") == "/elsewhere/data.parquet"


def test_exit_codes() -> None:
    clean = r.TableReport("/t", (WARNING, SKIPPED))
    failing = r.TableReport("/t2", (ERROR,))
    unreadable = r.TableReport("/t3", unreadable="storage failure")
    assert r.compute_exit_code(r.ValidationReport("/", (clean,))) == r.EXIT_CLEAN
    assert r.compute_exit_code(r.ValidationReport("/", (clean, failing))) == r.EXIT_VIOLATIONS
    assert r.compute_exit_code(r.ValidationReport("/", (failing, unreadable))) == r.EXIT_UNREADABLE
    assert r.compute_exit_code(r.ValidationReport("/", unreadable="not a table")) == 2


def test_dedupe_keeps_the_first_snapshot_of_each_finding() -> None:
    later = r.violation(r.Rule.DATA_FILE_MISSING, ERROR.file, ERROR.reason, 7)
    assert r.dedupe_violations([ERROR, later, WARNING, ERROR]) == [ERROR, WARNING]


def test_json_schema_is_stable() -> None:
    report = r.ValidationReport(
        "/w", (r.TableReport("/w/db.db/t", (ERROR, WARNING), None, {"data files": 4}),)
    )
    document = json.loads(r.render_json(report))
    assert document["version"] == 1
    assert document["exit_code"] == 1
    assert document["summary"] == {
        "tables": 1,
        "unreadable_tables": 0,
        "errors": 1,
        "warnings": 1,
        "infos": 0,
    }
    table = document["tables"][0]
    assert table["status"] == "violations"
    assert table["counts"] == {"DATA_FILE_MISSING": 1, "HINT_WRONG": 1}
    assert table["checked"] == {"data files": 4}
    assert table["violations"][0] == {
        "code": "DATA_FILE_MISSING",
        "severity": "error",
        "file": "dt=1/bucket-0/data-a-0.parquet",
        "reason": "no such file",
        "spec_ref": r.Rule.DATA_FILE_MISSING.spec_ref,
        "snapshot": 3,
    }


def test_text_has_a_summary_counts_per_code_and_details_grouped_by_file() -> None:
    many = tuple(
        r.violation(r.Rule.DATA_FILE_MISSING, f"bucket-0/data-{i}-0.parquet", "no such file", 1)
        for i in range(5)
    )
    report = r.ValidationReport("/w", (r.TableReport("/w/t", (*many, WARNING)),))
    text = r.render_text(report, max_details=2)
    lines = text.splitlines()
    assert lines[0] == "validate: 1 table, 1 with errors, 0 unreadable; 5 errors, 1 warning"
    assert lines[1].startswith("FAIL /w/t")
    assert any("DATA_FILE_MISSING" in line and " 5 " in line for line in lines)
    assert "bucket-0/data-0-0.parquet" in text and "bucket-0/data-1-0.parquet" in text
    assert "bucket-0/data-2-0.parquet" not in text
    assert "3 more DATA_FILE_MISSING" in text
    assert "snapshot/LATEST" in text


def test_text_of_a_clean_and_an_unreadable_table() -> None:
    report = r.ValidationReport(
        "/w", (r.TableReport("/w/a", ()), r.TableReport("/w/b", unreadable="no such bucket"))
    )
    text = r.render_text(report, 5)
    assert "OK   /w/a: 0 errors, 0 warnings" in text
    assert "UNREADABLE /w/b: no such bucket" in text
