"""Histories for the maintenance tests: writes, compactions, changelog, snapshots on disk.

Compactions and changelog files are made by hand (``commit_helpers``): a compaction of an
append table rewrites every live file of bucket 0 as one file; expected rows are tracked by
the tests themselves, never read back through the code under test.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from conformance.unit.reference.store.commit_helpers import (
    APPEND_FIELDS,
    append_file,
    create_table,
    message,
)
from reference.spec.data import Row
from reference.spec.data_file import DataFileMeta
from reference.spec.snapshot import Snapshot
from reference.store import metadata
from reference.store.commit import read_live_entries
from reference.store.query import TimeTravel, read_table
from reference.table import Table

HINTS = ("EARLIEST", "LATEST")


def bucketed_append_table(root: Path | str, **options: str) -> Table:
    """``id INT, v STRING`` in one bucket (``bucket-key = id``), Parquet files."""
    return create_table(
        str(root),
        APPEND_FIELDS,
        options={"bucket": "1", "bucket-key": "id", **options},
    )


def live_files(table: Table) -> list[DataFileMeta]:
    latest = table.latest_snapshot()
    if latest is None:
        return []
    return [entry.file for entry in read_live_entries(table.file_io, table.root, latest)]


def commit_compaction(table: Table, rows: Sequence[Row]) -> list[Snapshot]:
    """Replace every live file by one file holding ``rows`` (the caller's model of them)."""
    before = live_files(table)
    after = [append_file(table, rows)] if rows else []
    return table.commit([message(table, before=before, after=after)])


def commit_with_changelog(table: Table, rows: Sequence[Row]) -> list[Snapshot]:
    """Append ``rows`` with a changelog file of the same rows."""
    data = append_file(table, rows)
    changelog = append_file(table, rows)
    return table.commit([message(table, new=[data], changelog=[changelog])])


def sorted_rows(rows: Sequence[Row]) -> list[Row]:
    return sorted(rows, key=repr)


def read_values(table: Table, travel: TimeTravel, branch: str = "main") -> list[Row]:
    result = read_table(table.file_io, table.root, travel, branch=branch)
    return sorted_rows([row for _, row in result.rows])


def list_table_files(root: Path | str) -> set[str]:
    """Every file below ``root``, relative, hints excluded (their content is compared apart)."""
    found: set[str] = set()
    for directory, _, names in os.walk(root):
        for name in names:
            if name not in HINTS:
                found.add(os.path.relpath(os.path.join(directory, name), root))
    return found


def copy_table(source: Path | str, target: Path | str) -> Path:
    shutil.copytree(source, target)
    return Path(target)


def snapshot_ids(table: Table, branch: str = "main") -> list[int]:
    return metadata.list_snapshot_ids(table.file_io, table.root, branch)
