"""Default values on read (``reference.store.read`` rule 7, 0.9 ``fields.<f>.default-value``).

Oracles: the seed's partial-update example (seed 003: with ``'fields.b.default-value'='0'`` the
table reads ``1, 1, 0, 1``) and the rule as Java 0.9's ``DefaultValueAssigner`` states it: the
fill happens after the merge, before the filter, and a filter on a defaulted field never prunes
a file (``conformance/differential`` compares the same reads with Java 0.9 itself).
"""

from __future__ import annotations

from pathlib import Path

from reference.io import LocalFileIO
from reference.spec import predicate as p
from reference.spec import types as t
from reference.spec.data import RowKind
from reference.table import Table

FIELDS = [
    t.DataField(0, "k", t.IntType(nullable=False)),
    t.DataField(1, "a", t.IntType()),
    t.DataField(2, "b", t.IntType()),
    t.DataField(3, "c", t.IntType()),
]
SEED_OPTIONS = {"merge-engine": "partial-update", "fields.b.default-value": "0", "bucket": "1"}


def _seed_table(root: Path) -> Table:
    table = Table.create(LocalFileIO(), str(root), FIELDS, primary_keys=["k"], options=SEED_OPTIONS)
    table.write_and_commit([(1, 1, None, None)])
    table.write_and_commit([(1, None, None, 1)])
    return table


def test_the_seed_partial_update_example_reads_the_default(tmp_path: Path) -> None:
    assert _seed_table(tmp_path / "t").read().rows == [(RowKind.INSERT, (1, 1, 0, 1))]


def test_a_filter_sees_the_default_and_does_not_prune_on_it(tmp_path: Path) -> None:
    table = _seed_table(tmp_path / "t")
    assert table.read(predicate=p.equal("b", 0)).rows == [(RowKind.INSERT, (1, 1, 0, 1))]
    assert table.read(predicate=p.Leaf(p.PredicateOp.IS_NULL, "b")).rows == []


def test_incremental_reads_and_audit_log_fill_defaults(tmp_path: Path) -> None:
    table = _seed_table(tmp_path / "t")
    changes = table.read_changes({"incremental-between": "0,2"}).changes
    assert changes and all(row[2] == 0 for _, row in changes)


def test_without_defaults_nulls_stay_null(tmp_path: Path) -> None:
    options = {k: v for k, v in SEED_OPTIONS.items() if "default" not in k}
    table = Table.create(
        LocalFileIO(), str(tmp_path / "t"), FIELDS, primary_keys=["k"], options=options
    )
    table.write_and_commit([(1, 1, None, None)])
    assert table.read().rows == [(RowKind.INSERT, (1, 1, None, None))]
