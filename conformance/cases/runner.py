"""Running one case against one engine, and classifying the outcome.

:func:`run_case` creates the case's table (or copies its checked-in ``table/``) in a fresh
directory, replays the steps through the engine and compares every read with its expected file
(:mod:`conformance.cases.compare`). The outcome is one of:

* ``passed`` / ``failed`` (with the first failing step and why). Read-like steps needing a
  capability the engine lacks are left out when the rest of the case can run
  (:func:`plan_steps`); such a pass says which steps it left out;
* ``skipped``: the engine lacks a capability the case itself requires (the reason names
  them), or nothing would be left to check;
* ``informational``: the expected results were produced by the reference itself
  (``expected_by: reference``, for features only the reference implements), so its run is
  reported but not judged;
* after :func:`apply_known_failure`: ``xfailed`` (a listed failure that still fails) and
  ``xpassed`` (a listed failure that passes: the list is stale, which strict mode fails).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from conformance.cases.compare import compare_rows, load_expected
from conformance.cases.loader import EXPECTED_BY_REFERENCE, Case, KnownFailures, decode_fields
from conformance.cases.predicates import decode_filter
from conformance.cases.requirements import step_requirements
from conformance.engines import base as b
from conformance.engines.base import (
    Change,
    Engine,
    EngineError,
    Rows,
    TimeTravel,
    ViewEngine,
    project_fields,
    project_rows,
)
from conformance.java.values import decode_value
from reference.spec import types as t
from reference.spec.data import RowKind, Value

PASSED = "passed"
FAILED = "failed"
SKIPPED = "skipped"
INFORMATIONAL = "informational"
XFAILED = "xfailed"
XPASSED = "xpassed"
STATUSES = (PASSED, FAILED, SKIPPED, INFORMATIONAL, XFAILED, XPASSED)
TIME_MARK_GAP_SECONDS = 0.005
"""Pause after a mutating step of a case with timestamp reads, so no later commit shares the
millisecond recorded for the step."""
MUTATING_OPS = frozenset({"write", "compact", "alter", "tag", "expire"})
VIEW_OPS = frozenset({"create_view", "drop_view", "show_views"})
READ_LIKE_OPS = frozenset({"read", "read_changes", "system_table", "show_views"})
MAX_REASON_LINES = 12
DEFAULT_TIMESTAMP_PRECISION = 9
TABLE_PATH_PARTS = ("warehouse", "default.db", "case_table")
"""Where a run puts its table: the layout of a filesystem catalog, so catalog-based engines
(pypaimon) find it as ``default.case_table`` of the warehouse."""


@dataclass(frozen=True)
class Outcome:
    """The result of one case on one engine."""

    case_id: str
    area: str
    engine: str
    status: str
    reason: str = ""
    expected_by: str = ""
    seconds: float = 0.0

    @property
    def is_problem(self) -> bool:
        """A result a person should look at (anything but a pass)."""
        return self.status != PASSED


class StepFailure(Exception):
    """A step's result differs from the expectation (not an engine crash)."""


# --------------------------------------------------------------------------------------------
# Schema tracking (to decode the values of later steps after ALTER TABLE)
# --------------------------------------------------------------------------------------------


def _insert_at(
    fields: list[t.DataField], new: t.DataField, change: Mapping[str, Any]
) -> list[t.DataField]:
    if change.get("first"):
        return [new, *fields]
    after = change.get("after")
    if after:
        index = [f.name for f in fields].index(after) + 1
        return [*fields[:index], new, *fields[index:]]
    return [*fields, new]


def apply_alter_to_fields(
    fields: Sequence[t.DataField], changes: Sequence[Mapping[str, Any]]
) -> tuple[t.DataField, ...]:
    """The columns after ``changes`` (names, types and order; ids are approximate)."""
    current = list(fields)
    for change in changes:
        kind = change["kind"]
        names = [f.name for f in current]
        if kind == "add_column":
            new = t.DataField(
                max((f.id for f in current), default=-1) + 1,
                change["name"],
                t.parse_data_type(change["type"]),
            )
            current = _insert_at(current, new, change)
        elif kind == "drop_column":
            current.pop(names.index(change["name"]))
        elif kind == "rename_column":
            index = names.index(change["name"])
            current[index] = replace(current[index], name=change["new_name"])
        elif kind == "update_column_type":
            index = names.index(change["name"])
            current[index] = replace(current[index], type=t.parse_data_type(change["type"]))
        elif kind == "update_column_nullability":
            index = names.index(change["name"])
            old = current[index]
            current[index] = replace(old, type=old.type.copy(nullable=bool(change["nullable"])))
        elif kind == "update_column_position":
            moved = current.pop(names.index(change["name"]))
            current = _insert_at(current, moved, change)
    return tuple(current)


def read_checked_in_fields(table_dir: Path) -> tuple[t.DataField, ...]:
    """The columns of the latest schema file of a checked-in table."""
    schema_files = sorted(
        (table_dir / "schema").glob("schema-*"), key=lambda p: int(p.name.split("-")[1])
    )
    if not schema_files:
        raise ValueError(f"{table_dir}: no schema files")
    return decode_fields(json.loads(schema_files[-1].read_text(encoding="utf-8"))["fields"])


# --------------------------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------------------------


def decode_changes(rows: Sequence[Sequence[Any]], fields: Sequence[t.DataField]) -> list[Change]:
    """``[["+I", v1, v2], ...]`` to ``(RowKind, row)`` pairs."""
    changes = []
    for encoded in rows:
        if len(encoded) != len(fields) + 1:
            raise ValueError(f"row {list(encoded)!r} does not match {len(fields)} columns")
        values = tuple(decode_value(v, f.type) for v, f in zip(encoded[1:], fields, strict=True))
        changes.append((RowKind.from_short_string(encoded[0]), values))
    return changes


def decode_partition(
    spec: Mapping[str, Any] | None, fields: Sequence[t.DataField]
) -> dict[str, Value] | None:
    if spec is None:
        return None
    types = {f.name: f.type for f in fields}
    return {name: decode_value(value, types[name]) for name, value in spec.items()}


@dataclass
class CaseRun:
    """The mutable state of one replay: the engine, the table, its columns, the time marks.

    ``expected_dir`` holds the expected files (the case directory); without it reads are
    performed but not checked (the generator records their results instead).
    """

    engine: Engine
    path: str
    fields: tuple[t.DataField, ...]
    expected_dir: Path | None = None
    pause_after_mutations: bool = False
    marks: dict[int, int] = field(default_factory=dict)

    @property
    def timestamp_precision(self) -> int:
        return int(getattr(self.engine, "timestamp_precision", DEFAULT_TIMESTAMP_PRECISION))

    def travel(self, step: Mapping[str, Any]) -> TimeTravel:
        timestamp = step.get("timestamp_millis")
        after = step.get("timestamp_after_step")
        if after is not None:
            if after not in self.marks:
                raise ValueError(f"timestamp_after_step {after} names no earlier mutating step")
            timestamp = self.marks[after]
        return TimeTravel(step.get("snapshot"), step.get("tag"), timestamp)

    def check(self, step: Mapping[str, Any], actual: Rows) -> None:
        if self.expected_dir is None or "expect" not in step:
            return
        expected = load_expected(self.expected_dir / step["expect"])
        mismatch = compare_rows(expected, actual, self.timestamp_precision)
        if mismatch is not None:
            raise StepFailure(f"{step['expect']}: {mismatch.describe()}")

    def perform(self, index: int, step: Mapping[str, Any]) -> Rows | None:
        """Run one step; the rows of a read-like step (unchecked), else ``None``."""
        op = step["op"]
        engine, path = self.engine, self.path
        result: Rows | None = None
        if op == "write":
            engine.write(
                path,
                decode_changes(step["rows"], self.fields),
                decode_partition(step.get("overwrite"), self.fields),
            )
        elif op == "compact":
            engine.compact(path, bool(step.get("full", True)))
        elif op == "alter":
            engine.alter(path, step["changes"])
            self.fields = apply_alter_to_fields(self.fields, step["changes"])
        elif op == "tag":
            engine.create_tag(path, step["name"], step.get("snapshot"))
        elif op == "expire":
            engine.expire(
                path,
                step.get("retain_max"),
                step.get("retain_min"),
                step.get("time_retained_millis"),
            )
        elif op == "read":
            filter_json = step.get("filter")
            predicate = None if filter_json is None else decode_filter(filter_json, self.fields)
            result = engine.read(path, self.travel(step), step.get("projection"), predicate)
        elif op == "read_changes":
            result = engine.read_changes(path, step["from_snapshot"], step["to_snapshot"])
        elif op == "system_table":
            result = self.system_table(step)
        elif op in VIEW_OPS:
            result = self.perform_view(step)
        elif op == "expect_error":
            self.perform_expect_error(index, step)
        else:
            raise ValueError(f"unknown step op {op!r}")
        if op in MUTATING_OPS:
            self.marks[index] = time.time_ns() // 1_000_000
            if self.pause_after_mutations:
                time.sleep(TIME_MARK_GAP_SECONDS)
        return result

    def perform_view(self, step: Mapping[str, Any]) -> Rows | None:
        """``create_view`` / ``drop_view`` / ``show_views`` (engines declaring ``view``)."""
        engine = self.engine
        if not isinstance(engine, ViewEngine):
            raise StepFailure(f"{engine.name} declares '{b.CAP_VIEW}' but has no view methods")
        op = step["op"]
        if op == "create_view":
            columns = step.get("columns")
            fields = self.fields if columns is None else project_fields(self.fields, columns)
            engine.create_view(self.path, step["name"], step["query"], step.get("comment"), fields)
            return None
        if op == "drop_view":
            engine.drop_view(self.path, step["name"])
            return None
        return engine.show_views(self.path)

    def system_table(self, step: Mapping[str, Any]) -> Rows:
        rows = self.engine.system_table(self.path, step["name"])
        columns = step.get("columns")
        if columns is None:
            return rows
        missing = [c for c in columns if c not in rows.column_names]
        if missing:
            raise StepFailure(f"system table {step['name']} has no column {missing}")
        return project_rows(rows, columns)

    def run_step(self, index: int, step: Mapping[str, Any]) -> None:
        """Perform one step and check its rows against the expected file."""
        result = self.perform(index, step)
        if result is not None:
            self.check(step, result)

    def perform_expect_error(self, index: int, step: Mapping[str, Any]) -> None:
        """The inner step must fail; a classified error must carry the expected code (an
        unclassified exception is accepted: adapters classify what they can)."""
        try:
            self.perform(index, step["step"])
        except EngineError as error:
            if step.get("code") and error.code != step["code"]:
                raise StepFailure(
                    f"expected error {step['code']}, got {error.code}: {error.message}"
                ) from None
            return
        except StepFailure:
            raise
        except Exception:
            return
        raise StepFailure(f"expected an error ({step.get('code', 'any')}), but the step succeeded")


# --------------------------------------------------------------------------------------------
# A case
# --------------------------------------------------------------------------------------------


def missing_capabilities(case: Case, engine: Engine) -> list[str]:
    return sorted(case.requires - engine.capabilities)


@dataclass(frozen=True)
class StepPlan:
    """Which steps an engine runs: read-like steps needing a capability it lacks are left out
    (their checks are independent), as long as something is still checked."""

    skipped_steps: tuple[int, ...]
    missing: tuple[str, ...]
    """Capabilities missing for the case as a whole (empty: the case runs)."""

    def describe_skipped(self, case: Case) -> str:
        ops = [f"{case.steps[i]['op']} (step {i + 1})" for i in self.skipped_steps]
        return "steps left out: " + ", ".join(ops) if ops else ""


def plan_steps(case: Case, engine: Engine) -> StepPlan:
    """Leave out read-like steps whose own needs are missing; the case still needs the rest."""
    missing = case.requires - engine.capabilities
    if not missing:
        return StepPlan((), ())
    skipped: list[int] = []
    explained: set[str] = set()
    for index, step in enumerate(case.steps):
        if step["op"] not in READ_LIKE_OPS:
            continue
        lacking = step_requirements(step) & missing
        if lacking:
            skipped.append(index)
            explained |= lacking
    needed_by_others = set().union(
        *(step_requirements(s) for s in case.steps if s["op"] not in READ_LIKE_OPS)
    )
    still_missing = (missing - explained) | (missing & needed_by_others)
    checks_left = [
        s for i, s in enumerate(case.steps) if i not in skipped and s["op"] in READ_LIKE_OPS
    ]
    if still_missing or not checks_left:
        return StepPlan((), tuple(sorted(missing)))
    return StepPlan(tuple(skipped), ())


def _first_lines(text: str) -> str:
    lines = text.strip().splitlines()
    if len(lines) > MAX_REASON_LINES:
        lines = [*lines[:MAX_REASON_LINES], "..."]
    return "\n".join(lines)


def _describe_exception(error: BaseException) -> str:
    if isinstance(error, (StepFailure, EngineError)):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _prepare_table(case: Case, engine: Engine, path: Path) -> tuple[t.DataField, ...]:
    if case.table_dir is not None:
        shutil.copytree(case.table_dir, path)
        if case.table is None:
            return read_checked_in_fields(path)
    assert case.table is not None  # created, or registered over a format table's files
    spec = case.table
    engine.create_table(
        str(path), spec.fields, spec.partition_keys, spec.primary_keys, dict(spec.options)
    )
    return spec.fields


def _has_timestamp_reads(case: Case) -> bool:
    def uses(step: Mapping[str, Any]) -> bool:
        inner = step.get("step")
        return step.get("timestamp_after_step") is not None or (inner is not None and uses(inner))

    return any(uses(step) for step in case.steps)


def expect_create_error(case: Case, engine: Engine, path: Path) -> tuple[str, str]:
    """A table that must be refused: at creation, or (for an engine that validates lazily) by
    the case's first step, which must then fail."""
    assert case.table is not None
    spec = case.table
    try:
        engine.create_table(
            str(path), spec.fields, spec.partition_keys, spec.primary_keys, dict(spec.options)
        )
    except EngineError as error:
        if error.code != case.create_error:
            return FAILED, f"expected {case.create_error}, got {error.code}: {error.message}"
        return PASSED, ""
    except Exception:
        return PASSED, ""
    refused = f"expected the table to be refused ({case.create_error}), but it was created"
    if not case.steps:
        return FAILED, refused
    run = CaseRun(engine, str(path), spec.fields, case.directory)
    try:
        run.perform(0, case.steps[0])
    except Exception:
        return PASSED, ""
    return FAILED, f"{refused}, and its first step succeeded"


def execute_case(
    case: Case, engine: Engine, directory: Path, skipped_steps: Sequence[int] = ()
) -> tuple[str, str]:
    """Run the steps (but ``skipped_steps``) in ``directory``; ``(PASSED | FAILED, reason)``."""
    table_path = directory.joinpath(*TABLE_PATH_PARTS)
    table_path.parent.mkdir(parents=True)
    if case.create_error is not None:
        return expect_create_error(case, engine, table_path)
    try:
        fields = _prepare_table(case, engine, table_path)
    except Exception as error:
        return FAILED, _first_lines(f"creating the table: {_describe_exception(error)}")
    run = CaseRun(engine, str(table_path), fields, case.directory, _has_timestamp_reads(case))
    for index, step in enumerate(case.steps):
        if index in skipped_steps:
            continue
        try:
            run.run_step(index, step)
        except Exception as error:
            where = f"step {index + 1} ({step['op']})"
            detail = _describe_exception(error)
            if not isinstance(error, (StepFailure, EngineError)):
                frames = traceback.extract_tb(error.__traceback__)
                if frames:
                    last = frames[-1]
                    detail += f"\n  at {Path(last.filename).name}:{last.lineno} in {last.name}"
            return FAILED, _first_lines(f"{where}: {detail}")
    return PASSED, ""


def run_case(case: Case, engine: Engine, workdir: Path | None = None) -> Outcome:
    """Run ``case`` on ``engine`` in a fresh directory (removed afterwards)."""
    start = time.monotonic()

    def outcome(status: str, reason: str) -> Outcome:
        return Outcome(
            case.id, case.area, engine.name, status, reason, case.expected_by,
            time.monotonic() - start,
        )  # fmt: skip

    plan = plan_steps(case, engine)
    if plan.missing:
        return outcome(SKIPPED, f"{engine.name} lacks: {', '.join(plan.missing)}")
    directory = Path(tempfile.mkdtemp(prefix="case-", dir=workdir))
    try:
        status, reason = execute_case(case, engine, directory, plan.skipped_steps)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    if status == PASSED and plan.skipped_steps:
        lacking = sorted(case.requires - engine.capabilities)
        reason = f"{plan.describe_skipped(case)} ({engine.name} lacks: {', '.join(lacking)})"
    if case.expected_by == EXPECTED_BY_REFERENCE and engine.name == EXPECTED_BY_REFERENCE:
        verdict = "agrees" if status == PASSED else f"differs: {reason}"
        return outcome(INFORMATIONAL, f"expected results come from the reference ({verdict})")
    return outcome(status, reason)


def apply_known_failure(outcome: Outcome, known: KnownFailures) -> Outcome:
    """Mark a listed case: a failure becomes ``xfailed``, a pass ``xpassed``."""
    reason = known.reason_for(outcome.case_id)
    if reason is None or outcome.status in (SKIPPED, INFORMATIONAL):
        return outcome
    if outcome.status == FAILED:
        return replace(outcome, status=XFAILED, reason=f"known failure: {reason}\n{outcome.reason}")
    return replace(
        outcome, status=XPASSED, reason=f"listed as a known failure but passed: {reason}"
    )
