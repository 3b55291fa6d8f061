"""``paimon-kit validate``: arguments, exit codes, output formats, the progress bar."""

from __future__ import annotations

import argparse
import io
import json
import shutil
from pathlib import Path

import pytest

from paimon_kit.validate_cli import (
    add_validate_parser,
    is_progress_shown,
    main,
    make_progress_bar,
    render_progress_line,
)


def table(third_party: Path, name: str = "pk_09") -> Path:
    return third_party / "paimon-cpp" / "parquet" / f"{name}.db" / name


@pytest.fixture
def broken(third_party: Path, tmp_path: Path) -> Path:
    """pk_09 without one of its live data files, and with a stale LATEST hint."""
    copy = tmp_path / "pk_09"
    shutil.copytree(table(third_party), copy)
    next((copy / "f1=20" / "bucket-0").glob("*.parquet")).unlink()
    (copy / "snapshot" / "LATEST").write_text("7")
    return copy


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="paimon-kit")
    add_validate_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["validate", *argv])


def test_arguments() -> None:
    args = parse("/t", "--all-snapshots", "--deep", "--format", "json", "--max-details", "3")
    assert (args.path, args.all_snapshots, args.deep, args.format, args.max_details) == (
        "/t",
        True,
        True,
        "json",
        3,
    )
    assert parse("/t").snapshot is None and parse("/t", "--snapshot", "4").snapshot == 4
    assert parse("/t", "--json").format == "json" and parse("/t").format == "text"
    with pytest.raises(SystemExit):
        parse("/t", "--json", "--format", "json")
    with pytest.raises(SystemExit):
        parse("/t", "--snapshot", "4", "--all-snapshots")


def test_clean_table_exits_0(third_party: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(table(third_party)), "--deep", "--all-snapshots"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("validate: 1 table, 0 with errors, 0 unreadable; 0 errors, 0 warnings")


def test_warehouse(third_party: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(third_party / "paimon-cpp" / "parquet"), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["summary"]["tables"] >= 8 and document["exit_code"] == 0


def test_violations_exit_1_with_text(broken: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(broken)]) == 1
    out = capsys.readouterr().out
    assert "1 error, 1 warning" in out
    assert "DATA_FILE_MISSING" in out and "f1=20/bucket-0/" in out
    assert "HINT_WRONG" in out and "snapshot/LATEST" in out


def test_violations_as_json(broken: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(broken), "--format", "json", "--all-snapshots"]) == 1
    document = json.loads(capsys.readouterr().out)
    violations = document["tables"][0]["violations"]
    assert {v["code"] for v in violations} == {"DATA_FILE_MISSING", "HINT_WRONG"}
    assert set(violations[0]) == {"code", "severity", "file", "reason", "spec_ref", "snapshot"}


def test_unreadable_inputs_exit_2(
    third_party: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path)]) == 2
    assert "UNREADABLE" in capsys.readouterr().out
    assert main([str(table(third_party)), "--snapshot", "99"]) == 2
    assert main([str(tmp_path), "--max-details", "-1"]) == 2


def test_progress_line() -> None:
    line = render_progress_line(3, 12, "f1=10/bucket-0/data-x.parquet", 7.4)
    assert line.startswith("[#######" + "." * 23 + "]")
    assert " 3/12 files  7 s  f1=10/bucket-0/data-x.parquet" in line
    assert len(render_progress_line(1, 2, "x" * 500)) < 120


def test_progress_bar_redraws_one_line_and_keeps_the_last() -> None:
    stream = io.StringIO()
    ticks = iter([0.0, 1.0, 2.0, 3.0])
    draw = make_progress_bar(stream, clock=lambda: next(ticks))
    draw(0, 2, "a")
    draw(1, 2, "b")
    draw(2, 2, "")
    text = stream.getvalue()
    assert text.count("\r") == 3 and text.count("\n") == 1 and text.endswith("\n")
    assert text.rstrip().endswith("2/2 files  3 s  done")


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_or_when_asked_with_deep_and_without_quiet() -> None:
    assert is_progress_shown(parse("/t", "--deep"), FakeTerminal())
    assert is_progress_shown(parse("/t", "--deep", "--progress"), io.StringIO())
    assert not is_progress_shown(parse("/t", "--deep", "--quiet"), FakeTerminal())
    assert not is_progress_shown(parse("/t"), FakeTerminal())
    assert not is_progress_shown(parse("/t", "--deep"), io.StringIO())
    with pytest.raises(SystemExit):
        parse("/t", "--progress", "--quiet")


def test_progress_bar_reaches_stderr_with_progress(
    third_party: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(table(third_party)), "--deep", "--progress", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["exit_code"] == 0
    assert "files" in captured.err and captured.err.rstrip().endswith("done")
