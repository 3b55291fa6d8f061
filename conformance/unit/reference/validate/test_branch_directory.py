"""A branch directory (``<table>/branch/branch-<name>``) validated on its own is checked as that
branch of its table (issue 22 item 7): its snapshots against the table's manifests and data
files, not reported as missing them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.unit.reference.store.test_branches import write_on_branch
from conformance.unit.reference.store.test_expire import compacted_history
from reference import layout
from reference.io import LocalFileIO
from reference.store import metadata, scan
from reference.validate.runner import ValidateOptions, validate

DEEP_ALL = ValidateOptions(deep=True, all_snapshots=True)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/w/db.db/t/branch/branch-dev", ("/w/db.db/t", "dev")),
        ("s3://b/db.db/t/branch/branch-x-1/", ("s3://b/db.db/t", "x-1")),
        ("/w/db.db/t", None),
        ("/w/db.db/t/branch", None),
        ("/w/db.db/t/branch/dev", None),
        ("/w/db.db/t/other/branch-dev", None),
        ("/w/db.db/t/branch/branch-main", None),
    ],
)
def test_parse_branch_path(path: str, expected: tuple[str, str] | None) -> None:
    assert layout.parse_branch_path(path) == expected
    if expected is not None:
        assert layout.branch_path(*expected) == path.rstrip("/")


def _table_with_branch(tmp_path: Path) -> tuple[str, str]:
    table, _, _ = compacted_history(tmp_path)
    table.create_branch("dev")
    write_on_branch(table, "dev", [(42, "dev")])
    return table.root, layout.branch_path(table.root, "dev")


def test_branch_directory_alone_is_clean(tmp_path: Path) -> None:
    root, branch_dir = _table_with_branch(tmp_path)
    [report] = validate(LocalFileIO(), branch_dir, DEEP_ALL).tables
    assert report.table == branch_dir and report.unreadable is None
    assert report.violations == ()
    assert report.checked["snapshots"] == 1 and report.checked["data files"] == 1
    [main] = validate(LocalFileIO(), root, DEEP_ALL).tables
    assert main.violations == () and main.checked["snapshots"] > report.checked["snapshots"]


def test_branch_directory_alone_still_finds_a_lost_data_file(tmp_path: Path) -> None:
    root, branch_dir = _table_with_branch(tmp_path)
    io = LocalFileIO()
    snapshot = metadata.read_snapshot(io, root, 1, "dev")
    [entry] = [
        e
        for m in scan.read_manifest_list(io, root, snapshot.delta_manifest_list)
        for e in scan.read_manifest(io, root, m.file_name)
    ]
    [lost] = list(Path(root).rglob(entry.file.file_name))
    lost.unlink()
    [report] = validate(io, branch_dir, DEEP_ALL).tables
    assert {v.code for v in report.violations} == {"DATA_FILE_MISSING"}
