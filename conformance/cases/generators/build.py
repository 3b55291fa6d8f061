"""Materializing :class:`CaseSpec` records into case directories.

For each spec the builder replays the steps on the oracle engine (Java 0.9 through
:class:`~conformance.engines.java_engine.JavaEngine`; the reference for the few cases only it
implements), records :data:`ORACLE` expectations from its results, cross-checks hand-written
expectations against it (a disagreement is reported, never silently recorded), and writes
``case.json``, ``expected/*.json`` and, for ``check_in_table`` specs, the Java-written
``table/`` (kept across runs unless rebuilt, so regenerating does not churn binary files).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.cases.compare import (
    Expected,
    compare_rows,
    decode_expected,
    encode_expected,
)
from conformance.cases.generators import ORACLE, CaseSpec, Hand
from conformance.cases.loader import (
    CASE_FILE,
    EXPECTED_BY_JAVA,
    EXPECTED_BY_REFERENCE,
    EXPECTED_BY_SPEC,
    TABLE_DIR,
    TableSpec,
    encode_table,
)
from conformance.cases.requirements import compute_requires
from conformance.cases.runner import READ_LIKE_OPS, CaseRun, read_checked_in_fields
from conformance.engines.base import VIEW_FIELDS, Engine, Rows
from conformance.java.values import encode_value
from reference.spec import types as t
from reference.spec.data import RowKind

PRIVATE_KEYS = ("_expect", "_order", "_row_kinds")
GENERATOR_KEY = "generator"


@dataclass
class BuildReport:
    """What one generation run did."""

    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# JSON layout
# --------------------------------------------------------------------------------------------


MAX_LINE = 100


def format_json(value: Any, indent: int = 0) -> str:
    """JSON that keeps short values (a row, a type) on one line, so diffs stay readable."""
    compact = json.dumps(value, ensure_ascii=False, allow_nan=False)
    if len(compact) + 2 * indent <= MAX_LINE or not isinstance(value, (dict, list)) or not value:
        return compact
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {format_json(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    items = [pad + format_json(v, indent + 1) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(format_json(value) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Expectations
# --------------------------------------------------------------------------------------------


def _sort_key(row: Sequence[Any]) -> str:
    return json.dumps(row, sort_keys=True)


def expected_from_rows(rows: Rows, order: str, row_kinds: str) -> Expected:
    """An expected file recording what the oracle returned."""
    changes = list(rows.rows)
    types = tuple(f.type for f in rows.fields)
    if order != "ordered":
        changes.sort(
            key=lambda c: _sort_key(
                [
                    c[0].short_string,
                    *(encode_value(v, ty) for v, ty in zip(c[1], types, strict=True)),
                ]
            )
        )
    if row_kinds == "add-only":
        changes = [
            (RowKind.INSERT if kind == RowKind.UPDATE_AFTER else kind, row) for kind, row in changes
        ]
    return Expected(tuple(rows.column_names), types, order, row_kinds, tuple(changes))


def expected_from_hand(
    hand: Hand, columns: Sequence[t.DataField], order: str, row_kinds: str
) -> Expected:
    """An expected file from hand-written rows, typed by ``columns`` (or ``hand.types``)."""
    types: list[Any] = [t.type_to_json(f.type) for f in columns]
    if hand.types is not None:
        types = list(hand.types)
    rows = [list(r) for r in hand.rows]
    if order != "ordered":
        rows.sort(key=_sort_key)
    document = {
        "columns": [f.name for f in columns],
        "types": types,
        "order": order,
        "row_kinds": row_kinds,
        "rows": rows,
    }
    return decode_expected(document)


def _columns_of_step(
    step: Mapping[str, Any], current: Sequence[t.DataField], oracle: Rows | None
) -> Sequence[t.DataField]:
    if oracle is not None:
        return oracle.fields
    if step["op"] == "read" and step.get("projection"):
        by_name = {f.name: f for f in current}
        return [by_name[n] for n in step["projection"]]
    if step["op"] == "system_table":
        return [t.DataField(i, n, t.VarCharType()) for i, n in enumerate(step["columns"])]
    if step["op"] == "show_views":
        return VIEW_FIELDS
    return current


# --------------------------------------------------------------------------------------------
# One case
# --------------------------------------------------------------------------------------------


def public_step(step: Mapping[str, Any], expect_path: str | None) -> dict[str, Any]:
    """The step as ``case.json`` records it."""
    cleaned = {k: v for k, v in step.items() if k not in PRIVATE_KEYS}
    if "step" in cleaned:
        cleaned["step"] = public_step(cleaned["step"], None)
    if expect_path is not None:
        cleaned["expect"] = expect_path
    return cleaned


def compute_expect_path(index: int, step: Mapping[str, Any]) -> str | None:
    """Where the expected rows of the step at ``index`` go (read-like steps only)."""
    if step["op"] not in READ_LIKE_OPS:
        return None
    return f"expected/step-{index + 1:02d}.json"


def compute_case_document(spec: CaseSpec, generator: str) -> dict[str, Any]:
    """The ``case.json`` of ``spec`` (made by the family ``generator``): the recorded steps
    with their expected files; a refused table's steps have none."""
    if spec.create_error is not None:
        steps = [public_step(step, None) for step in spec.steps]
    else:
        steps = [
            public_step(step, compute_expect_path(index, step))
            for index, step in enumerate(recorded_steps(spec))
        ]
    return case_document(spec, steps, generator)


def expected_by(spec: CaseSpec) -> str:
    if spec.expected_by_reference:
        return EXPECTED_BY_REFERENCE
    uses_oracle = any(step.get("_expect") == ORACLE for step in recorded_steps(spec))
    return EXPECTED_BY_JAVA if uses_oracle else EXPECTED_BY_SPEC


def recorded_steps(spec: CaseSpec) -> list[Mapping[str, Any]]:
    """The steps ``case.json`` lists: without a checked-in table, setup and steps alike."""
    return list(spec.steps) if spec.check_in_table else [*spec.setup, *spec.steps]


def needs_oracle(spec: CaseSpec) -> bool:
    return spec.check_in_table or any(
        step.get("_expect") == ORACLE for step in recorded_steps(spec)
    )


def _has_timestamp_reads(steps: Sequence[Mapping[str, Any]]) -> bool:
    return any(step.get("timestamp_after_step") is not None for step in steps)


def replay(
    spec: CaseSpec, engine: Engine, table_path: Path, checked_in: Path | None
) -> tuple[list[Rows | None], list[Sequence[t.DataField]]]:
    """Create (or copy) the table, run setup and steps; each step's rows and the columns in
    force at each step."""
    if checked_in is not None:
        shutil.copytree(checked_in, table_path)
        fields: Sequence[t.DataField] = read_checked_in_fields(table_path)
        setup: Sequence[Mapping[str, Any]] = ()
    else:
        engine.create_table(
            str(table_path),
            spec.fields,
            spec.partition_keys,
            spec.primary_keys,
            dict(spec.options),
        )
        fields = spec.fields
        setup = ()
    setup_run = CaseRun(engine, str(table_path), tuple(fields))
    for index, step in enumerate(setup):
        setup_run.perform(index, step)
    steps = recorded_steps(spec)
    run = CaseRun(
        engine,
        str(table_path),
        setup_run.fields,
        pause_after_mutations=_has_timestamp_reads(steps),
    )
    results: list[Rows | None] = []
    columns: list[Sequence[t.DataField]] = []
    for index, step in enumerate(steps):
        columns.append(run.fields)
        results.append(run.perform(index, step))
    return results, columns


def replay_without_oracle(spec: CaseSpec) -> list[Sequence[t.DataField]]:
    """The columns in force at each step, without running an engine."""
    from conformance.cases.runner import apply_alter_to_fields  # noqa: PLC0415

    fields: tuple[t.DataField, ...] = tuple(spec.fields)
    columns: list[Sequence[t.DataField]] = []
    for step in recorded_steps(spec):
        columns.append(fields)
        if step["op"] == "alter":
            fields = apply_alter_to_fields(fields, step["changes"])
    return columns


def build_case(
    spec: CaseSpec,
    out_root: Path,
    oracle: Engine | None,
    report: BuildReport,
    *,
    generator: str,
    rebuild_tables: bool = False,
) -> None:
    """Write (or, without the oracle it needs, keep) one case directory."""
    case_dir = out_root / spec.id
    if oracle is None and needs_oracle(spec):
        report.kept.append(f"{spec.id} (needs the oracle engine)")
        return
    if spec.create_error is not None:
        _build_create_error_case(spec, case_dir, oracle, report, generator)
        return
    with tempfile.TemporaryDirectory(prefix="gen-case-") as scratch:
        staging = Path(scratch) / "case"
        staging.mkdir()
        existing_table = case_dir / TABLE_DIR
        checked_in: Path | None = None
        if spec.check_in_table:
            if existing_table.is_dir() and not rebuild_tables:
                checked_in = Path(scratch) / "kept-table"
                shutil.copytree(existing_table, checked_in)
            else:
                assert oracle is not None
                checked_in = Path(scratch) / "built-table"
                _build_checked_in_table(spec, oracle, checked_in)
            shutil.copytree(checked_in, staging / TABLE_DIR)
        all_steps = recorded_steps(spec)
        results: list[Rows | None]
        if oracle is not None:
            results, columns = replay(spec, oracle, Path(scratch) / "replay", checked_in)
        else:
            results, columns = [None] * len(all_steps), replay_without_oracle(spec)
        for index, step in enumerate(all_steps):
            expect_path = compute_expect_path(index, step)
            if expect_path is not None:
                expected = _expectation(spec, step, results[index], columns[index], report)
                write_json(staging / expect_path, encode_expected(expected))
        write_json(staging / CASE_FILE, compute_case_document(spec, generator))
        if case_dir.exists():
            shutil.rmtree(case_dir)
        case_dir.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staging, case_dir)
    report.written.append(spec.id)


def _is_refused(spec: CaseSpec, oracle: Engine, scratch: Path) -> bool:
    """Whether the oracle refuses the table at creation or at the first step."""
    path = str(scratch / "t")
    try:
        oracle.create_table(
            path, spec.fields, spec.partition_keys, spec.primary_keys, dict(spec.options)
        )
    except Exception:
        return True
    if not spec.steps:
        return False
    try:
        CaseRun(oracle, path, tuple(spec.fields)).perform(0, spec.steps[0])
    except Exception:
        return True
    return False


def _build_create_error_case(
    spec: CaseSpec, case_dir: Path, oracle: Engine | None, report: BuildReport, generator: str
) -> None:
    """A table the oracle must refuse; a table it accepts is a disagreement."""
    if oracle is not None and spec.java:
        with tempfile.TemporaryDirectory(prefix="gen-case-") as scratch:
            if not _is_refused(spec, oracle, Path(scratch)):
                report.disagreements.append(f"{spec.id} create: Java 0.9 accepted the table")
    if case_dir.exists():
        shutil.rmtree(case_dir)
    write_json(case_dir / CASE_FILE, compute_case_document(spec, generator))
    report.written.append(spec.id)


def _build_checked_in_table(spec: CaseSpec, oracle: Engine, path: Path) -> None:
    oracle.create_table(
        str(path), spec.fields, spec.partition_keys, spec.primary_keys, dict(spec.options)
    )
    run = CaseRun(oracle, str(path), tuple(spec.fields))
    for index, step in enumerate(spec.setup):
        run.perform(index, step)


def _expectation(
    spec: CaseSpec,
    step: Mapping[str, Any],
    oracle_rows: Rows | None,
    current: Sequence[t.DataField],
    report: BuildReport,
) -> Expected:
    expect = step["_expect"]
    order, row_kinds = step["_order"], step["_row_kinds"]
    if expect == ORACLE:
        if oracle_rows is None:
            raise ValueError(f"{spec.id}: no oracle result for a {step['op']} step")
        return expected_from_rows(oracle_rows, order, row_kinds)
    assert isinstance(expect, Hand)
    columns = _columns_of_step(step, current, oracle_rows)
    expected = expected_from_hand(expect, columns, order, row_kinds)
    if oracle_rows is not None and spec.java and not spec.expected_by_reference:
        mismatch = compare_rows(expected, oracle_rows)
        if mismatch is not None:
            report.disagreements.append(
                f"{spec.id} step {step['op']}: Java 0.9 disagrees with the hand-written "
                f"expectation: {mismatch.describe()}"
            )
    return expected


def case_document(
    spec: CaseSpec, steps: Sequence[Mapping[str, Any]], generator: str
) -> dict[str, Any]:
    creates_table = not spec.check_in_table
    requires = compute_requires(
        spec.fields,
        spec.partition_keys,
        spec.primary_keys,
        spec.options,
        steps,
        creates_table=creates_table,
    ) | frozenset(spec.extra_requires)
    document: dict[str, Any] = {
        "id": spec.id,
        "area": spec.area,
        "description": spec.description,
        "spec_refs": list(spec.spec_refs),
        "producer": "paimon-java 0.9.0" if spec.check_in_table else None,
        "expected_by": expected_by(spec),
        "requires": sorted(requires),
    }
    if creates_table:
        document["table"] = encode_table(
            TableSpec(
                tuple(spec.fields),
                tuple(spec.partition_keys),
                tuple(spec.primary_keys),
                dict(spec.options),
            )
        )
    document["steps"] = list(steps)
    if spec.create_error is not None:
        document["create_error"] = spec.create_error
    document[GENERATOR_KEY] = generator
    return document


def remove_stale(out_root: Path, keep: set[str]) -> list[str]:
    """Delete generated case directories whose spec no longer exists (hand-made ones, without
    a ``generator`` key, are left alone)."""
    removed = []
    for case_file in sorted(out_root.glob(f"*/*/{CASE_FILE}")):
        case_id = case_file.parent.relative_to(out_root).as_posix()
        if case_id in keep:
            continue
        document = json.loads(case_file.read_text(encoding="utf-8"))
        if GENERATOR_KEY in document:
            shutil.rmtree(case_file.parent)
            removed.append(case_id)
    return removed
