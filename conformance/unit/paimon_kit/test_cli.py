"""``paimon-kit``'s user commands as a user runs them: one-line errors with exit 2, the
procedure subcommands (their effect judged by the reference reader and ``paimon-kit
validate``), and a command line that does not import the test kit or the benchmarks."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from paimon_kit.cli import main
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.store import query
from reference.table import Table

IO = LocalFileIO()
FIELDS = [
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "v", t.IntType()),
    t.DataField(2, "dt", t.VarCharType(t.MAX_LENGTH, nullable=False)),
]


@pytest.fixture
def table(tmp_path: Path) -> str:
    """A primary-key table with three commits (the reference writes them)."""
    root = str(tmp_path / "db.db" / "t")
    written = Table.create(
        IO, root, FIELDS, partition_keys=["dt"], primary_keys=["k", "dt"], options={"bucket": "1"}
    )
    for round_ in range(3):
        written.write_and_commit([(i, round_, "ab"[i % 2]) for i in range(round_, 4)])
    return root


def rows(root: str, **travel: Any) -> Counter[tuple[Any, ...]]:
    result = query.read_table(IO, root, query.TimeTravel(**travel))
    return Counter(row for _, row in result.rows)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_user_command_imports_neither_the_test_kit_nor_bench() -> None:
    code = (
        "import sys, paimon_kit.cli, paimon_kit.procedures_cli; "
        "print([m for m in sys.modules if m.split('.')[0] in ('conformance', 'bench')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_an_unknown_column_exits_2_with_one_line(table: str) -> None:
    """As a user runs it: a subprocess, no traceback, the table and the column named."""
    done = subprocess.run(
        [sys.executable, "-m", "paimon_kit.cli", "read", table, "--columns", "k,nosuch"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "nosuch" in done.stderr and table in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (("read", "{t}", "--snapshot", "99"), "99"),
        (("rollback", "{t}", "--tag", "nope"), "nope"),
        (("create-branch", "{t}", "123"), "123"),
        (("alter", "{t}", "--drop", "dt"), "dt"),
        (("alter", "{t}", "--widen", "v:TINYINT"), "v"),
        (("alter", "{t}", "--add", "c"), "--add"),
        (("remove-orphan-files", "{t}", "--older-than", "soon"), "--older-than"),
        (("inspect", "{t}/nosuch"), "nosuch"),
    ],
)
def test_bad_input_exits_2_naming_it(
    capsys: pytest.CaptureFixture[str], table: str, argv: tuple[str, ...], needle: str
) -> None:
    status, _, err = run(capsys, *(a.format(t=table) for a in argv))
    assert status == 2
    assert len(err.strip().splitlines()) == 1 and needle in err and table in err


@pytest.mark.parametrize(
    "argv",
    [
        ("read", "{t}", "--limit", "-1"),
        ("expire-snapshots", "{t}", "--retain-max", "0"),
        ("rollback", "{t}"),
    ],
)
def test_bad_arguments_exit_2(
    capsys: pytest.CaptureFixture[str], table: str, argv: tuple[str, ...]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([a.format(t=table) for a in argv])
    assert exit_info.value.code == 2
    assert "error: " in capsys.readouterr().err


def test_expire_refuses_retain_max_below_retain_min(
    capsys: pytest.CaptureFixture[str], table: str
) -> None:
    status, _, err = run(
        capsys, "expire-snapshots", table, "--retain-max", "1", "--retain-min", "2"
    )
    assert status == 2 and "retain_max" in err and table in err


def test_tag_expire_rollback_and_orphans(capsys: pytest.CaptureFixture[str], table: str) -> None:
    at_one = rows(table, snapshot_id=1)
    status, out, _ = run(capsys, "create-tag", table, "first", "--snapshot", "1")
    assert status == 0 and "tag 'first' names snapshot 1" in out
    status, out, _ = run(
        capsys, "expire-snapshots", table, "--retain-max", "1", "--retain-min", "1"
    )
    assert status == 0 and "expired snapshots [1, 2" in out
    assert rows(table, tag="first") == at_one
    status, out, _ = run(capsys, "rollback", table, "--tag", "first")
    assert status == 0 and "rolled back to snapshot 1" in out
    assert rows(table) == at_one
    assert main(["validate", table, "--all-snapshots", "--quiet"]) == 0
    stray = Path(table) / "manifest" / "manifest-stray-0"
    stray.write_bytes(b"x")
    status, out, _ = run(capsys, "remove-orphan-files", table, "--older-than", "0", "--dry-run")
    assert status == 0 and str(stray) in out and stray.exists()
    status, out, _ = run(capsys, "remove-orphan-files", table, "--older-than", "0")
    assert status == 0 and "deleted 1 orphan files" in out and not stray.exists()
    status, out, _ = run(capsys, "delete-tag", table, "first")
    assert status == 0 and "deleted tag 'first'" in out
    assert rows(table) == at_one


def test_branch_compact_and_alter(capsys: pytest.CaptureFixture[str], table: str) -> None:
    before = rows(table)
    status, out, _ = run(capsys, "create-branch", table, "b")
    assert status == 0 and "created empty branch 'b'" in out
    status, _, err = run(capsys, "create-tag", table, "bt", "--branch", "b")
    assert status == 2 and "no snapshot to tag" in err
    status, _, err = run(capsys, "create-tag", table, "bt", "--branch", "nope")
    assert status == 2 and "branch 'nope' does not exist" in err
    status, out, _ = run(capsys, "fast-forward", table, "b")
    assert status == 2  # an empty branch has no snapshot to fast-forward to
    status, out, _ = run(capsys, "delete-branch", table, "b")
    assert status == 0 and not (Path(table) / "branch" / "branch-b").exists()
    status, out, _ = run(capsys, "compact", table, "--full")
    assert status == 0 and out.startswith(f"compact {table}: ")
    assert rows(table) == before
    status, out, _ = run(capsys, "alter", table, "--add", "c:BIGINT", "--rename", "v:value")
    assert (
        status == 0 and "schema 1: (k INT NOT NULL, value INT, dt STRING NOT NULL, c BIGINT)" in out
    )
    assert rows(table) == Counter({(*row, None): n for row, n in before.items()})
    assert main(["validate", table, "--quiet"]) == 0
