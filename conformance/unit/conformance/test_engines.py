"""The engine adapters (``conformance/engines/``): protocol, capabilities, value conversions,
and a third-party adapter run through the pytest plugin in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest

from conformance.engines import BUILTIN_ENGINES, load_engine, resolve_engine_class
from conformance.engines import base as b
from conformance.engines.base import Engine, EngineError, EngineUnavailable, Rows
from conformance.engines.reference_engine import compute_capabilities, to_schema_change
from reference.spec import schema as s
from reference.spec import types as t
from reference.spec.data import RowKind, Timestamp

PROJECT_ROOT = Path(__file__).resolve().parents[3]

KNOWN_PREFIXES = (
    b.MERGE_ENGINE_PREFIX,
    b.CHANGELOG_PREFIX,
    b.FORMAT_PREFIX,
    b.TYPE_PREFIX,
    b.SYSTEM_TABLE_PREFIX,
    b.AGGREGATE_PREFIX,
    b.FILE_INDEX_PREFIX,
    b.FORMAT_TABLE_PREFIX,
)
PLAIN_CAPABILITIES = {
    value for name, value in vars(b).items() if name.startswith("CAP_") and isinstance(value, str)
}


def is_known_capability(capability: str) -> bool:
    return capability in PLAIN_CAPABILITIES or capability.startswith(KNOWN_PREFIXES)


# --------------------------------------------------------------------------------------------
# Protocol and registry
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["reference", "pypaimon"])
def test_in_process_engines_implement_the_protocol(name: str) -> None:
    engine = load_engine(name)
    assert isinstance(engine, Engine)
    assert engine.name == name
    unknown = [c for c in engine.capabilities if not is_known_capability(c)]
    assert unknown == []
    engine.close()


@pytest.mark.parametrize("name", list(BUILTIN_ENGINES))
def test_builtin_engine_classes_declare_known_capabilities(name: str) -> None:
    try:
        engine_class = resolve_engine_class(name)
    except EngineUnavailable as error:
        pytest.skip(str(error))
    capabilities = getattr(engine_class, "capabilities", None)
    if capabilities is None:  # computed per instance (the reference)
        capabilities = compute_capabilities()
    assert all(is_known_capability(c) for c in capabilities)


def test_engine_names_must_be_known_or_module_class() -> None:
    with pytest.raises(ValueError, match="unknown engine"):
        load_engine("nope")
    with pytest.raises(EngineUnavailable, match="cannot import"):
        load_engine("no_such_module_anywhere:Engine")


def test_a_module_class_spec_loads_a_third_party_adapter() -> None:
    engine = load_engine("docs.example_adapter:ExampleEngine")
    assert engine.name == "example"
    assert b.CAP_WRITE in engine.capabilities


def test_reference_capabilities_follow_the_table_api() -> None:
    class Bare:
        pass

    class WithCompaction:
        def compact(self) -> None:
            pass

    assert b.CAP_COMPACT not in compute_capabilities(Bare)
    assert b.CAP_DELETION_VECTORS not in compute_capabilities(Bare)
    assert {b.CAP_COMPACT, b.CAP_DELETION_VECTORS} <= compute_capabilities(WithCompaction)


# --------------------------------------------------------------------------------------------
# Conversions
# --------------------------------------------------------------------------------------------


def test_schema_changes_map_to_the_reference_records() -> None:
    change = to_schema_change({"kind": "add_column", "name": "c", "type": "INT", "after": "k"})
    assert change == s.AddColumn(("c",), t.IntType(), None, s.Move("c", s.MoveKind.AFTER, "k"))
    assert to_schema_change({"kind": "rename_column", "name": "a", "new_name": "b"}) == (
        s.RenameColumn(("a",), "b")
    )
    assert to_schema_change({"kind": "update_column_position", "name": "a", "first": True}) == (
        s.UpdateColumnPosition(s.Move("a", s.MoveKind.FIRST))
    )
    with pytest.raises(ValueError, match="unknown alter change"):
        to_schema_change({"kind": "rename_table"})


def test_java_changes_and_error_classes() -> None:
    java_engine = pytest.importorskip("conformance.engines.java_engine")
    from conformance.java.harness import JavaHarnessError  # noqa: PLC0415

    assert java_engine.to_java_change({"kind": "drop_column", "name": "x"}) == {
        "action": "drop_column",
        "name": "x",
    }
    missing = JavaHarnessError(
        "read", error="java.lang.IllegalArgumentException: Tag 'x' doesn't exist."
    )
    classified = java_engine.classify(missing, None)
    assert isinstance(classified, EngineError)
    assert classified.code == b.ERROR_NOT_FOUND
    bad = JavaHarnessError("create", error="java.lang.IllegalArgumentException: bucket 0")
    assert java_engine.classify(bad, b.ERROR_INVALID_TABLE).code == b.ERROR_INVALID_TABLE  # type: ignore[union-attr]
    crash = JavaHarnessError("read", error="java.lang.NullPointerException: x")
    assert java_engine.classify(crash, b.ERROR_INVALID_TABLE) is crash


def test_arrow_columns_become_internal_values() -> None:
    fields = (
        t.DataField(0, "ts", t.TimestampType(precision=9)),
        t.DataField(1, "d", t.DateType()),
        t.DataField(2, "tm", t.TimeType(precision=3)),
        t.DataField(3, "m", t.MapType(t.VarCharType(5), t.IntType())),
        t.DataField(4, "r", t.RowType((t.DataField(9, "x", t.IntType()),))),
        t.DataField(5, "dec", t.DecimalType(5, 2)),
    )
    table = pa.table(
        {
            # -1 ms + 1 ns before the epoch is -999_999 ns.
            "ts": pa.array([-999_999, None], pa.timestamp("ns")),
            "d": pa.array([-1, 19000], pa.date32()),
            "tm": pa.array([45_296_000_000, 1_000], pa.time64("us")),
            "m": pa.array([[("a", 1)], None], pa.map_(pa.string(), pa.int32())),
            "r": pa.array([{"x": 7}, None], pa.struct([("x", pa.int32())])),
            "dec": pa.array([Decimal("1.50"), None], pa.decimal128(5, 2)),
        }
    )
    assert b.arrow_to_changes(table, fields) == [
        (RowKind.INSERT, (Timestamp(-1, 1), -1, 45_296_000, {"a": 1}, (7,), Decimal("1.50"))),
        (RowKind.INSERT, (None, 19000, 1, None, None, None)),
    ]


def test_pypaimon_arrow_values_keep_nanoseconds() -> None:
    engine = pytest.importorskip("conformance.engines.pypaimon_engine")
    fields = [
        t.DataField(0, "ts", t.TimestampType(precision=9)),
        t.DataField(1, "ltz", t.LocalZonedTimestampType(precision=3)),
        t.DataField(2, "a", t.ArrayType(t.VarCharType(t.MAX_LENGTH))),
    ]
    rows = [(Timestamp(1_700_000_000_123, 456_789), Timestamp(-5, 0), ["x", None])]
    table = engine.rows_to_arrow(rows, fields)
    assert table.column("ts").type == pa.timestamp("ns")
    assert table.column("ts").cast(pa.int64()).to_pylist() == [1_700_000_000_123_456_789]
    assert table.column("ltz").type == pa.timestamp("ms", tz="UTC")
    assert b.arrow_to_changes(table, fields) == [(RowKind.INSERT, rows[0])]


def test_project_rows_reorders_columns() -> None:
    fields = (t.DataField(0, "a", t.IntType()), t.DataField(1, "b", t.IntType()))
    projected = b.project_rows(Rows(fields, [(RowKind.INSERT, (1, 2))]), ["b", "a"])
    assert projected.column_names == ["b", "a"]
    assert projected.rows == [(RowKind.INSERT, (2, 1))]


# --------------------------------------------------------------------------------------------
# A third-party adapter through the plugin
# --------------------------------------------------------------------------------------------


def test_the_example_adapter_runs_through_the_pytest_plugin(tmp_path: Path) -> None:
    """What ``docs/conformance.md`` tells adapter authors to run, on three small cases."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "conformance/test_cases.py",
        "--paimon-engine=docs.example_adapter:ExampleEngine",
        "--paimon-cases=merge-engine/dedup_latest_wins,append/multiple_commits,tags/tag_latest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--basetemp={tmp_path / 'run'}",
    ]
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    result = subprocess.run(
        command, check=False, cwd=PROJECT_ROOT, capture_output=True, text=True, env=env, timeout=300
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    # tags/tag_latest needs tags, which the example engine does not declare: skipped.
    assert "2 passed, 1 skipped" in output, output
