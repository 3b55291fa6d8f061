"""Paimon 0.9's system tables (the Java harness) against the reference's 0.9 column sets, on the
same files: histories of every changelog producer written by the reference and by Java, a
partitioned table of many types, schema evolution, deletion vectors, tags, branches and
consumers. Field names, types and every value are compared (rows in a fixed order).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path

import pytest

from conformance.java.harness import Change, JavaHarness
from conformance.unit.reference.store.change_helpers import (
    PRODUCERS,
    sorted_changes,
    write_java_history,
    write_reference_history,
)
from reference.io import LocalFileIO
from reference.spec import types as t
from reference.spec.data import RowKind, Timestamp
from reference.system_tables import SYSTEM_TABLES_0_9, SystemTableVersion, read_system_table
from reference.table import Table

pytestmark = pytest.mark.java

V09 = SystemTableVersion.PAIMON_0_9


def assert_same(
    java: JavaHarness, root: Path, name: str, options: Mapping[str, str] | None = None
) -> None:
    expected = java.system_table(root, name, options=dict(options or {}))
    actual = read_system_table(LocalFileIO(), str(root), name, options, version=V09)
    assert actual.field_names == [f.name for f in expected.fields], name
    assert [str(f.type) for f in actual.fields] == [str(f.type) for f in expected.fields], name
    assert sorted_changes(actual.rows) == sorted_changes(expected.values()), (name, options)


def assert_all_same(java: JavaHarness, root: Path) -> None:
    for name in SYSTEM_TABLES_0_9:
        assert_same(java, root, name)
    for options in ({"scan.snapshot-id": "1"}, {"scan.tag-name": "t1"}):
        for name in ("files", "manifests", "partitions", "audit_log", "ro"):
            assert_same(java, root, name, options)
    last = len(java.list_snapshots(root))
    for between in (f"0,{last}", f"1,{last}", "t1,t2"):
        assert_same(java, root, "audit_log", {"incremental-between": between})


@pytest.mark.parametrize("producer", PRODUCERS)
@pytest.mark.parametrize("writer", ["reference", "java"])
def test_histories(java_harness: JavaHarness, tmp_path: Path, producer: str, writer: str) -> None:
    root = tmp_path / "t"
    if writer == "java":
        write_java_history(java_harness, root, producer)
    else:
        write_reference_history(root, producer)
    assert_all_same(java_harness, root)


MANY_TYPES = (
    t.DataField(0, "d", t.DateType()),
    t.DataField(1, "s", t.VarCharType(t.MAX_LENGTH)),
    t.DataField(2, "k", t.BigIntType(nullable=False)),
    t.DataField(3, "x", t.DoubleType()),
    t.DataField(4, "m", t.DecimalType(10, 3)),
    t.DataField(5, "ts", t.TimestampType(6)),
    t.DataField(6, "f", t.FloatType()),
    t.DataField(7, "b", t.BooleanType()),
)


def test_text_of_many_types(java_harness: JavaHarness, tmp_path: Path) -> None:
    stamp = Timestamp(1_700_000_000_123, 456_000)
    rows = [
        (19_997, "x", 1, 1e10, Decimal("1.500"), stamp, 0.1, True),
        (19_997, "x", 2, None, Decimal("-2.250"), None, None, False),
        (19_998, "", 3, -0.0, Decimal("0.000"), stamp, 3.0, None),
    ]
    keyed = tmp_path / "keyed"
    fields = (
        t.DataField(0, "d", t.DateType(nullable=False)),
        t.DataField(1, "s", t.VarCharType(t.MAX_LENGTH, nullable=False)),
        *MANY_TYPES[2:],
    )
    table = Table.create(
        LocalFileIO(),
        str(keyed),
        fields,
        partition_keys=["d", "s"],
        primary_keys=["d", "s", "k"],
        options={"bucket": "1"},
    )
    table.write_and_commit(rows)
    appended = tmp_path / "appended"
    table = Table.create(LocalFileIO(), str(appended), MANY_TYPES, partition_keys=["d", "s"])
    table.write_and_commit([*rows, (None, None, 4, 2.5, None, None, None, None)])
    for root in (keyed, appended):
        for name in ("files", "partitions", "manifests", "audit_log", "schemas", "options"):
            assert_same(java_harness, root, name)


def test_schema_evolution(java_harness: JavaHarness, tmp_path: Path) -> None:
    root = tmp_path / "t"
    fields = (t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType()))
    java_harness.create_table(root, fields, primary_keys=["k"], options={"bucket": "1"})
    java_harness.write(root, [(1, 10), (2, None)], commit=True)
    java_harness.alter_table(
        root,
        [
            Change.add_column("w", t.VarCharType(t.MAX_LENGTH)),
            Change.update_column_type("v", t.BigIntType()),
        ],
    )
    java_harness.write(root, [(3, 30, "c")], commit=True)
    for name in ("files", "schemas", "audit_log", "snapshots"):
        assert_same(java_harness, root, name)


def test_deletion_vectors_hide_level_zero(java_harness: JavaHarness, tmp_path: Path) -> None:
    root = tmp_path / "t"
    fields = (t.DataField(0, "k", t.IntType(nullable=False)), t.DataField(1, "v", t.IntType()))
    java_harness.create_table(
        root,
        fields,
        primary_keys=["k"],
        options={"bucket": "1", "deletion-vectors.enabled": "true", "write-only": "true"},
    )
    java_harness.write(root, [(1, 10), (2, 20)], commit=True)
    for name in ("files", "partitions", "audit_log", "ro"):
        assert_same(java_harness, root, name)


def test_tags_branches_and_consumers(java_harness: JavaHarness, tmp_path: Path) -> None:
    root = tmp_path / "t"
    table = write_reference_history(root, "none", buckets=1)
    java_harness.create_tag(root, "kept", snapshot_id=2, time_retained="90 min")
    table.create_branch("b1")
    table.create_branch("b2", from_tag="t1")
    table.reset_consumer("reader", 2)
    for name in ("tags", "branches", "consumers", "audit_log"):
        assert_same(java_harness, root, name)


def test_read_optimized_after_full_compaction(java_harness: JavaHarness, tmp_path: Path) -> None:
    root = tmp_path / "t"
    table = write_reference_history(root, "none", buckets=1)
    table.compact(full=True)
    table.write_and_commit([(9, "z"), (1, "gone")], [RowKind.INSERT, RowKind.DELETE])
    assert_same(java_harness, root, "ro")
    assert_same(java_harness, root, "audit_log")
