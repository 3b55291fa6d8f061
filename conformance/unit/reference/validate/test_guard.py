"""Failures inside checks become findings; storage failures propagate."""

from __future__ import annotations

import pytest

from reference.errors import (
    FileMissingError,
    PaimonFormatError,
    SpecViolation,
    StorageError,
    UnsupportedFeature,
)
from reference.validate import report as r
from reference.validate.guard import run_check, run_read, violation_from_error


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (PaimonFormatError("bad magic"), "MANIFEST_UNREADABLE"),
        (SpecViolation("bad value", code="X"), "MANIFEST_UNREADABLE"),
        (FileMissingError("gone"), "MANIFEST_UNREADABLE"),
        (UnsupportedFeature("lance"), "CHECK_SKIPPED"),
        (ValueError("boom"), "CHECK_FAILED"),
        (ZeroDivisionError(), "CHECK_FAILED"),
    ],
)
def test_errors_become_findings(error: Exception, code: str) -> None:
    found = violation_from_error(error, r.Rule.MANIFEST_UNREADABLE, "manifest/m-0", 4)
    assert (found.code, found.file, found.snapshot) == (code, "manifest/m-0", 4)
    assert found.reason


def test_reason_of_a_kit_error_is_its_reason_without_the_path() -> None:
    error = PaimonFormatError("truncated", path="/t/manifest/m-0")
    assert violation_from_error(error, r.Rule.MANIFEST_UNREADABLE, "m").reason == "truncated"


def test_storage_failures_propagate() -> None:
    with pytest.raises(StorageError):
        violation_from_error(StorageError("connection reset"), r.Rule.MANIFEST_UNREADABLE, "m")


def test_run_check_and_run_read() -> None:
    def fail() -> list[r.Violation]:
        raise PaimonFormatError("x")

    assert [v.code for v in run_check(fail, r.Rule.SNAPSHOT_UNREADABLE, "f")] == [
        "SNAPSHOT_UNREADABLE"
    ]
    assert run_read(lambda: 5, r.Rule.SNAPSHOT_UNREADABLE, "f") == (5, [])
    value, found = run_read(lambda: 1 // 0, r.Rule.SNAPSHOT_UNREADABLE, "f")
    assert value is None and [v.code for v in found] == ["CHECK_FAILED"]
