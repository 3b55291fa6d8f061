"""The generator of the large timing table (``conformance/corruption/big_table.py``), at a small
size: it writes a valid table (the validator finds nothing, deep) whose row count and layout
are the ones it announces, and the reference reader returns those rows."""

from __future__ import annotations

from pathlib import Path

from conformance.corruption.big_table import BUCKETS, FILES_PER_BUCKET, PARTITIONS, write_big_table
from reference.io import LocalFileIO
from reference.store.query import read_table
from reference.validate import ValidateOptions, validate_table

SIZE = 2**18


def test_small_big_table_is_valid(tmp_path: Path) -> None:
    summary = write_big_table(tmp_path / "big", SIZE)
    assert summary.files == len(PARTITIONS) * BUCKETS * FILES_PER_BUCKET
    assert SIZE // 2 < summary.data_bytes < SIZE * 2
    report = validate_table(
        LocalFileIO(), str(summary.path), ValidateOptions(all_snapshots=True, deep=True)
    )
    assert report.violations == ()
    assert report.checked["rows read"] == summary.rows
    assert report.checked["snapshots"] == len(PARTITIONS)
    result = read_table(LocalFileIO(), str(summary.path))
    assert sorted(row[0] for _, row in result.rows) == list(range(summary.rows))
