"""Issue 22 must-show 3: ``paimon-kit validate --deep --all-snapshots`` is clean (no finding of
any severity, exit status 0) on every table under ``../shared/third-party``, branch directories
(``<table>/branch/branch-<name>``) validated on their own included. None of the READMEs there
calls a table invalid, so every one must pass. ``../shared`` holds no branch directory today,
so a Java-0.9-written table with a branch (and MAP values keyed by arrays) stands in for one.

The validator still fails genuinely broken copies: a ``.blob`` file whose record no longer
matches its CRC-32 (``--deep`` decodes every record), whose index was damaged, or a BLOB
table whose ``.blob`` file is gone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.conftest import THIRD_PARTY
from conformance.java.harness import BranchTable, JavaHarness
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import PairMap
from reference.validate import ValidateOptions, compute_exit_code, validate

BLOB_TABLE = ("paimon-cpp", "db_with_blob.db", "table_with_blob")
DEEP_ALL = ValidateOptions(all_snapshots=True, deep=True)


def find_table_dirs(root: Path) -> list[Path]:
    """Every directory with a ``schema/`` directory: table roots and branch directories."""
    found = []
    for directory, subdirectories, _ in os.walk(root):
        if "schema" in subdirectories:
            found.append(Path(directory))
    return sorted(found)


def is_branch_dir(path: Path) -> bool:
    return path.parent.name == "branch" and path.name.startswith("branch-")


def compute_validate_targets(root: Path) -> list[Path]:
    """What to hand the command: each warehouse (a directory of ``<db>.db/<table>``) once, and
    each table or branch directory no warehouse covers, on its own."""
    targets: set[Path] = set()
    for table in find_table_dirs(root):
        database = table.parent
        if not is_branch_dir(table) and database.name.endswith(".db"):
            targets.add(database.parent)
        else:
            targets.add(table)
    return sorted(targets)


def run_validate(target: Path) -> dict[str, Any]:
    command = [sys.executable, "-m", "paimon_kit.cli", "validate", "--deep", "--all-snapshots"]
    done = subprocess.run(
        [*command, "--json", "--quiet", str(target)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    try:
        report: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"validate {target} gave no JSON (exit {done.returncode}): {done.stderr}")
    report["returncode"] = done.returncode
    return report


def findings(report: dict[str, Any]) -> list[str]:
    return [
        f"{v.get('code')} {v.get('file')}: {v.get('reason')}"
        for table in report.get("tables", [])
        for v in table.get("violations", [])
    ]


def test_every_third_party_table_validates_clean(third_party: Path) -> None:
    tables = find_table_dirs(third_party)
    assert len(tables) >= 13
    validated: list[str] = []
    for target in compute_validate_targets(third_party):
        report = run_validate(target)
        assert report["returncode"] == 0, (target, report.get("unreadable"), findings(report))
        assert report["unreadable"] is None, target
        assert findings(report) == [], target
        assert set(report["summary"].values()) - {report["summary"]["tables"]} == {0}, target
        validated += [t["table"] for t in report["tables"]]
    expected = {str(p) for p in tables}
    assert {str(Path(v)) for v in validated} >= expected


def test_validate_targets_cover_branch_directories(tmp_path: Path) -> None:
    (tmp_path / "w" / "db.db" / "t" / "schema").mkdir(parents=True)
    (tmp_path / "w" / "db.db" / "t" / "branch" / "branch-x" / "schema").mkdir(parents=True)
    (tmp_path / "lone" / "schema").mkdir(parents=True)
    assert compute_validate_targets(tmp_path) == [
        tmp_path / "lone",
        tmp_path / "w",
        tmp_path / "w" / "db.db" / "t" / "branch" / "branch-x",
    ]


@pytest.fixture
def blob_copy(third_party: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "table_with_blob"
    shutil.copytree(third_party.joinpath(*BLOB_TABLE), copy)
    for path in copy.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return copy


def _flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def _error_codes(table: Path) -> set[tuple[str, str]]:
    report = validate(LocalFileIO(), str(table), DEEP_ALL)
    assert compute_exit_code(report) == 1
    return {(v.code, Path(v.file).name) for t in report.tables for v in t.violations}


def test_a_blob_record_that_fails_its_crc_is_an_error(blob_copy: Path) -> None:
    target = sorted(blob_copy.glob("bucket-0/*-2.blob"))[0]
    _flip_byte(target, 1000)
    assert ("DATA_FILE_UNREADABLE", target.name) in _error_codes(blob_copy)


def test_a_damaged_blob_index_is_an_error(blob_copy: Path) -> None:
    target = sorted(blob_copy.glob("bucket-0/*-4.blob"))[0]
    _flip_byte(target, target.stat().st_size - 6)
    assert ("DATA_FILE_UNREADABLE", target.name) in _error_codes(blob_copy)


def test_a_missing_blob_file_is_an_error(blob_copy: Path) -> None:
    target = sorted(blob_copy.glob("bucket-0/*-3.blob"))[0]
    target.unlink()
    assert ("DATA_FILE_MISSING", target.name) in _error_codes(blob_copy)


@pytest.mark.skipif(not THIRD_PARTY.is_dir(), reason=f"no third-party tables at {THIRD_PARTY}")
def test_the_third_party_tree_has_no_branch_the_walk_misses() -> None:
    branches = [p for p in THIRD_PARTY.rglob("branch-*") if p.is_dir()]
    assert all(p in find_table_dirs(THIRD_PARTY) for p in branches)


@pytest.mark.java
def test_java_written_branch_directories_validate_clean(
    java_harness: JavaHarness, tmp_path: Path
) -> None:
    """A Java 0.9 primary-key table with a tag, a branch made from it and commits on both: the
    warehouse and the branch directory on its own validate clean (``--deep --all-snapshots``)."""
    root = tmp_path / "w" / "db.db" / "t"
    fields = [
        t.DataField(0, "k", t.IntType(nullable=False)),
        t.DataField(1, "p", t.VarCharType(t.MAX_LENGTH, nullable=False)),
        t.DataField(2, "v", t.MapType(t.ArrayType(t.IntType()), t.DoubleType())),
    ]
    java_harness.create_table(
        root, fields, primary_keys=["k", "p"], partition_keys=["p"], options={"bucket": "2"}
    )
    java_harness.write(
        root, [(i, "ab"[i % 2], PairMap([([i], i / 2)])) for i in range(8)], commit=True
    )
    java_harness.create_tag(root, "t1", snapshot_id=1)
    java_harness.create_branch(root, "b", from_tag="t1")
    java_harness.write(BranchTable(root, "b"), [(1, "b", None), (9, "a", {})], commit=True)
    java_harness.write(root, [(2, "a", PairMap([([], 0.0)]))], commit=True)
    branch_dir = root / "branch" / "branch-b"
    assert find_table_dirs(tmp_path) == [root, branch_dir]
    for target in compute_validate_targets(tmp_path):
        report = run_validate(target)
        assert report["returncode"] == 0, (target, report.get("unreadable"), findings(report))
        assert findings(report) == [], target
        assert all(table["checked"]["snapshots"] >= 1 for table in report["tables"]), target
