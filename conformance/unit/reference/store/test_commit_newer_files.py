"""Re-committing files that a newer writer described (``_VALUE_STATS_COLS`` and friends).

Oracle: pypaimon 2.1 (an independent writer following Paimon main) writes the table; the
reference compacts it; the rows must stay what pypaimon itself reads, and the manifest that
deletes pypaimon's files must keep their description (reference.spec.manifest
``compute_entries_field_set``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import RowKind
from reference.spec.manifest import FieldSet, compute_file_field_set
from reference.spec.snapshot import CommitKind
from reference.store import metadata
from reference.table import Table

FIELDS = [t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.VarCharType())]


def test_the_reference_compacts_a_table_pypaimon_wrote(tmp_path: Path) -> None:
    pytest.importorskip("pypaimon")
    from conformance.engines.base import LATEST  # noqa: PLC0415
    from conformance.engines.pypaimon_engine import PypaimonEngine  # noqa: PLC0415

    engine = PypaimonEngine()
    root = str(tmp_path / "wh" / "db.db" / "t")
    engine.create_table(root, FIELDS, [], ["k"], {"bucket": "1"})
    engine.write(root, [(RowKind.INSERT, (1, "a")), (RowKind.INSERT, (2, "b"))])
    engine.write(root, [(RowKind.INSERT, (1, "c"))])
    expected = sorted(tuple(row) for _, row in engine.read(root, LATEST, None, None).rows)

    table = Table.open(LocalFileIO(), root)
    plan = table.read().plan
    assert plan is not None
    files = [meta for split in plan.splits for meta in split.files]
    newer = [meta for meta in files if compute_file_field_set(meta) is not FieldSet.PAIMON_0_9]
    table.compact(full=True)

    snapshot = metadata.read_latest_snapshot(LocalFileIO(), root)
    assert snapshot is not None and snapshot.commit_kind is CommitKind.COMPACT
    assert sorted(row for _, row in table.read().rows) == expected
    assert newer, "pypaimon describes its files with a newer field set"
