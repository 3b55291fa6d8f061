"""``paimon-kit conformance``'s exit status, run as a user runs it (``paimon_kit.cli.main``).

0: every outcome that is not a pass is a known failure or a skip with its reason; 1: a case
failed, or an engine asked for by name cannot run here; 2: bad arguments.
"""

from __future__ import annotations

import pytest

from paimon_kit.cli import main

ONE_CASE = "tags/survives_expiration"


def test_passing_cases_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["conformance", "--engines", "reference", "--cases", ONE_CASE, "--no-progress"])
    assert status == 0
    assert "reference" in capsys.readouterr().out


def test_an_engine_asked_for_that_cannot_start_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    engines = "reference,conformance.no_such_module:Engine"
    status = main(["conformance", "--engines", engines, "--cases", ONE_CASE, "--no-progress"])
    captured = capsys.readouterr()
    assert status == 1
    assert "conformance.no_such_module:Engine was asked for but cannot run here" in captured.err
    assert "No module named 'conformance.no_such_module'" in captured.out


def test_no_matching_case_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["conformance", "--engines", "reference", "--cases", "no/such/case"])
    assert status == 2
    assert "no cases match" in capsys.readouterr().err
