"""The case runner, loader, requirements and filter rule (``conformance/cases/``).

The runner is exercised with a toy in-memory engine (last-write-wins primary-key tables and
append tables, snapshots as copies): it checks the runner's mechanics, not Paimon semantics.
The last tests load every checked-in case of ``fixtures/cases`` and check the contract.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conformance.cases import requirements
from conformance.cases.loader import (
    CASES_ROOT,
    CaseFormatError,
    KnownFailures,
    discover_cases,
    is_pattern_matching,
    load_case,
    load_known_failures,
    unknown_known_failures,
)
from conformance.cases.predicates import decode_filter, is_row_kept
from conformance.cases.runner import (
    FAILED,
    INFORMATIONAL,
    PASSED,
    SKIPPED,
    XFAILED,
    XPASSED,
    apply_alter_to_fields,
    apply_known_failure,
    run_case,
)
from conformance.engines import base as b
from conformance.engines.base import Change, EngineError, Filter, Rows, TimeTravel
from reference.spec import types as t
from reference.spec.data import RowKind, Value

# --------------------------------------------------------------------------------------------
# A toy engine
# --------------------------------------------------------------------------------------------


@dataclass
class ToyTable:
    fields: list[t.DataField]
    primary_keys: list[str]
    snapshots: list[list[tuple[Value, ...]]] = field(default_factory=list)
    times: list[int] = field(default_factory=list)
    tags: dict[str, int] = field(default_factory=dict)

    def key(self, row: tuple[Value, ...]) -> tuple[Value, ...]:
        names = [f.name for f in self.fields]
        return tuple(row[names.index(k)] for k in self.primary_keys)


class ToyEngine:
    """Last write wins per key; -D deletes; snapshots are full copies."""

    name = "toy"
    capabilities = frozenset(
        {
            b.CAP_WRITE,
            b.CAP_WRITE_ROW_KINDS,
            b.CAP_READ,
            b.CAP_PROJECTION,
            b.CAP_FILTER,
            b.CAP_TRAVEL_SNAPSHOT,
            b.CAP_TRAVEL_TAG,
            b.CAP_TRAVEL_TIMESTAMP,
            b.CAP_TAG,
            b.CAP_ALTER,
            b.CAP_PRIMARY_KEY,
            b.CAP_APPEND,
            b.CAP_BUCKET_FIXED,
            b.CAP_BUCKET_DYNAMIC,
            b.CAP_BUCKET_UNAWARE,
            b.merge_engine_capability("deduplicate"),
            b.format_capability("parquet"),
            b.system_table_capability("snapshots"),
            *(b.type_capability(r) for r in (t.TypeRoot.INTEGER, t.TypeRoot.VARCHAR)),
        }
    )

    def __init__(self) -> None:
        self.tables: dict[str, ToyTable] = {}
        self.clock = 1000

    def create_table(self, path, fields, partition_keys, primary_keys, options) -> None:  # type: ignore[no-untyped-def]
        if options.get("bucket") == "0":
            raise EngineError(b.ERROR_INVALID_TABLE, "bucket 0")
        self.tables[path] = ToyTable(list(fields), list(primary_keys))

    def write(self, path: str, rows: Sequence[Change], overwrite: Any = None) -> int | None:
        table = self.tables[path]
        state = list(table.snapshots[-1]) if table.snapshots else []
        for kind, row in rows:
            if table.primary_keys:
                state = [r for r in state if table.key(r) != table.key(row)]
            if kind.is_add:
                state.append(row)
        table.snapshots.append(state)
        self.clock += 10
        table.times.append(self.clock)
        return len(table.snapshots)

    def alter(self, path: str, changes: Sequence[Mapping[str, Any]]) -> None:
        table = self.tables[path]
        table.fields = list(apply_alter_to_fields(table.fields, changes))
        table.snapshots = [[(*r, None) for r in s] for s in table.snapshots]

    def create_tag(self, path: str, name: str, snapshot_id: int | None) -> None:
        table = self.tables[path]
        table.tags[name] = snapshot_id or len(table.snapshots)

    def read(self, path: str, travel: TimeTravel, projection, filter: Filter | None) -> Rows:  # type: ignore[no-untyped-def]
        table = self.tables[path]
        snapshot = len(table.snapshots)
        if travel.snapshot_id is not None:
            snapshot = travel.snapshot_id
        if travel.tag is not None:
            if travel.tag not in table.tags:
                raise EngineError(b.ERROR_NOT_FOUND, travel.tag)
            snapshot = table.tags[travel.tag]
        if travel.timestamp_millis is not None:
            snapshot = sum(1 for time in table.times if time <= travel.timestamp_millis)
        if snapshot > len(table.snapshots):
            raise EngineError(b.ERROR_NOT_FOUND, f"snapshot {snapshot}")
        rows = table.snapshots[snapshot - 1] if snapshot else []
        names = [f.name for f in table.fields]
        result = Rows(tuple(table.fields), [(RowKind.INSERT, r) for r in rows])
        if filter is not None:
            result = Rows(
                result.fields, [c for c in result.rows if is_row_kept(filter, c[1], names)]
            )
        return b.project_rows(result, projection) if projection else result

    def system_table(self, path: str, name: str) -> Rows:
        count = len(self.tables[path].snapshots)
        fields = (t.DataField(0, "snapshot_id", t.BigIntType(nullable=False)),)
        return Rows(fields, [(RowKind.INSERT, (i,)) for i in range(1, count + 1)])

    def compact(self, path: str, full: bool) -> int | None:
        raise NotImplementedError

    def expire(self, path, retain_max, retain_min, time_retained_millis) -> None:  # type: ignore[no-untyped-def]
        raise NotImplementedError

    def read_changes(self, path: str, from_snapshot: int, to_snapshot: int | None) -> Rows:
        raise NotImplementedError

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------------------------
# Writing cases
# --------------------------------------------------------------------------------------------

KV_FIELDS = [
    {"id": 0, "name": "k", "type": "INT NOT NULL"},
    {"id": 1, "name": "v", "type": "STRING"},
]


def expected_file(
    rows: list[list[Any]], columns=("k", "v"), types=("INT NOT NULL", "STRING")
) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    return {
        "columns": list(columns),
        "types": list(types),
        "order": "key",
        "row_kinds": "add-only",
        "rows": rows,
    }


def write_case(
    root: Path,
    steps: list[dict[str, Any]],
    expected: Mapping[str, dict[str, Any]] = {},
    *,
    case_id: str = "area-x/case_one",
    requires: Sequence[str] = (),
    options: Mapping[str, str] | None = None,
    expected_by: str = "spec",
    create_error: str | None = None,
) -> Path:
    directory = root / case_id
    directory.mkdir(parents=True)
    table = {
        "fields": KV_FIELDS,
        "partition_keys": [],
        "primary_keys": ["k"],
        "options": dict(options or {"bucket": "1"}),
    }
    computed = requirements.compute_requires(
        [t.parse_data_field(f) for f in KV_FIELDS], [], ["k"], table["options"], steps
    )
    document: dict[str, Any] = {
        "id": case_id,
        "area": case_id.split("/", maxsplit=1)[0],
        "description": "a test case",
        "spec_refs": [],
        "producer": None,
        "expected_by": expected_by,
        "requires": sorted(set(computed) | set(requires)),
        "table": table,
        "steps": steps,
    }
    if create_error:
        document["create_error"] = create_error
    (directory / "case.json").write_text(json.dumps(document), encoding="utf-8")
    for name, content in expected.items():
        (directory / "expected").mkdir(exist_ok=True)
        (directory / "expected" / name).write_text(json.dumps(content), encoding="utf-8")
    return directory


def run(root: Path, directory: Path, engine: Any = None):  # type: ignore[no-untyped-def]
    return run_case(load_case(directory, root), engine or ToyEngine(), root)


WRITE_1 = {"op": "write", "rows": [["+I", 1, "a"], ["+I", 2, "b"]]}
WRITE_2 = {"op": "write", "rows": [["+I", 2, "B"], ["-D", 1, "a"]]}


def test_a_matching_read_passes(tmp_path: Path) -> None:
    case = write_case(
        tmp_path,
        [WRITE_1, WRITE_2, {"op": "read", "expect": "expected/r.json"}],
        {"r.json": expected_file([["+I", 2, "B"]])},
    )
    outcome = run(tmp_path, case)
    assert (outcome.status, outcome.reason) == (PASSED, "")


def test_a_differing_read_fails_naming_the_step_and_rows(tmp_path: Path) -> None:
    case = write_case(
        tmp_path,
        [WRITE_1, {"op": "read", "expect": "expected/r.json"}],
        {"r.json": expected_file([["+I", 1, "a"]])},
    )
    outcome = run(tmp_path, case)
    assert outcome.status == FAILED
    assert outcome.reason.startswith("step 2 (read): expected/r.json: rows differ")
    assert 'unexpected: +I [2, "b"]' in outcome.reason


def test_time_travel_by_snapshot_tag_and_timestamp(tmp_path: Path) -> None:
    one = expected_file([["+I", 1, "a"], ["+I", 2, "b"]])
    case = write_case(
        tmp_path,
        [
            WRITE_1,
            {"op": "tag", "name": "t", "snapshot": 1},
            WRITE_2,
            {"op": "read", "snapshot": 1, "expect": "expected/one.json"},
            {"op": "read", "tag": "t", "expect": "expected/one.json"},
            {"op": "read", "timestamp_after_step": 0, "expect": "expected/one.json"},
        ],
        {"one.json": one},
    )

    class Clocked(ToyEngine):
        """Snapshot times are the wall clock, as the runner's marks are."""

        def write(self, path: str, rows: Sequence[Change], overwrite: Any = None) -> int | None:
            import time  # noqa: PLC0415

            snapshot = super().write(path, rows, overwrite)
            self.tables[path].times[-1] = time.time_ns() // 1_000_000
            return snapshot

    assert run(tmp_path, case, Clocked()).status == PASSED


def test_projection_and_filter_reach_the_engine(tmp_path: Path) -> None:
    case = write_case(
        tmp_path,
        [
            WRITE_1,
            {
                "op": "read",
                "projection": ["v"],
                "filter": {"op": "GREATER_THAN", "field": "k", "literals": [1]},
                "expect": "expected/r.json",
            },
        ],
        {"r.json": expected_file([["+I", "b"]], columns=("v",), types=("STRING",))},
    )
    assert run(tmp_path, case).status == PASSED


def test_alter_changes_the_columns_later_steps_decode(tmp_path: Path) -> None:
    case = write_case(
        tmp_path,
        [
            WRITE_1,
            {"op": "alter", "changes": [{"kind": "add_column", "name": "n", "type": "INT"}]},
            {"op": "write", "rows": [["+I", 3, "c", 30]]},
            {"op": "read", "expect": "expected/r.json"},
        ],
        {
            "r.json": expected_file(
                [["+I", 1, "a", None], ["+I", 2, "b", None], ["+I", 3, "c", 30]],
                columns=("k", "v", "n"),
                types=("INT NOT NULL", "STRING", "INT"),
            )
        },
    )
    assert run(tmp_path, case).status == PASSED


def test_a_missing_capability_skips_with_the_reason(tmp_path: Path) -> None:
    case = write_case(tmp_path, [WRITE_1, {"op": "compact", "full": True}])
    outcome = run(tmp_path, case)
    assert (outcome.status, outcome.reason) == (SKIPPED, "toy lacks: compact")


def test_read_like_steps_the_engine_cannot_run_are_left_out(tmp_path: Path) -> None:
    case = write_case(
        tmp_path,
        [
            WRITE_1,
            {
                "op": "read_changes",
                "from_snapshot": 0,
                "to_snapshot": None,
                "expect": "expected/c.json",
            },
            {"op": "read", "expect": "expected/r.json"},
        ],
        {
            "c.json": expected_file([["+I", 1, "a"], ["+I", 2, "b"]]),
            "r.json": expected_file([["+I", 1, "a"], ["+I", 2, "b"]]),
        },
    )
    outcome = run(tmp_path, case)
    assert outcome.status == PASSED
    assert outcome.reason == "steps left out: read_changes (step 2) (toy lacks: read-changes)"


def test_a_case_with_nothing_left_to_check_is_skipped(tmp_path: Path) -> None:
    case = write_case(
        tmp_path,
        [WRITE_1, {"op": "read_changes", "from_snapshot": 0, "to_snapshot": 1}],
    )
    assert run(tmp_path, case).status == SKIPPED


def test_expect_error_passes_on_an_error_and_fails_on_success(tmp_path: Path) -> None:
    refused = write_case(
        tmp_path,
        [
            WRITE_1,
            {"op": "expect_error", "step": {"op": "read", "tag": "nope"}, "code": "NOT_FOUND"},
        ],
        case_id="a/refused",
    )
    assert run(tmp_path, refused).status == PASSED
    wrong_code = write_case(
        tmp_path,
        [
            WRITE_1,
            {"op": "expect_error", "step": {"op": "read", "tag": "nope"}, "code": "INVALID_WRITE"},
        ],
        case_id="a/wrong_code",
    )
    outcome = run(tmp_path, wrong_code)
    assert outcome.status == FAILED
    assert "expected error INVALID_WRITE, got NOT_FOUND" in outcome.reason
    succeeded = write_case(
        tmp_path,
        [WRITE_1, {"op": "expect_error", "step": {"op": "read", "snapshot": 1}}],
        case_id="a/succeeded",
    )
    outcome = run(tmp_path, succeeded)
    assert outcome.status == FAILED
    assert "but the step succeeded" in outcome.reason


def test_create_error_cases(tmp_path: Path) -> None:
    refused = write_case(
        tmp_path, [], case_id="a/refused", options={"bucket": "0"}, create_error="INVALID_TABLE"
    )
    assert run(tmp_path, refused).status == PASSED
    accepted = write_case(tmp_path, [], case_id="a/accepted", create_error="INVALID_TABLE")
    outcome = run(tmp_path, accepted)
    assert outcome.status == FAILED
    assert "but it was created" in outcome.reason


def test_an_engine_crash_is_a_failure_with_its_location(tmp_path: Path) -> None:
    class Broken(ToyEngine):
        def read(self, *args: Any) -> Rows:
            raise ZeroDivisionError("boom")

    case = write_case(tmp_path, [WRITE_1, {"op": "read"}])
    outcome = run(tmp_path, case, Broken())
    assert outcome.status == FAILED
    assert outcome.reason.startswith("step 2 (read): ZeroDivisionError: boom\n  at test_runner.py:")


def test_reference_expectations_do_not_judge_the_reference(tmp_path: Path) -> None:
    class Reference(ToyEngine):
        name = "reference"

    case = write_case(
        tmp_path,
        [WRITE_1, {"op": "read", "expect": "expected/r.json"}],
        {"r.json": expected_file([])},
        expected_by="reference",
    )
    outcome = run(tmp_path, case, Reference())
    assert outcome.status == INFORMATIONAL
    assert "differs" in outcome.reason
    assert run(tmp_path, case).status == FAILED


def test_known_failures_become_xfail_and_stale_entries_xpass(tmp_path: Path) -> None:
    failing = write_case(
        tmp_path,
        [WRITE_1, {"op": "read", "expect": "expected/r.json"}],
        {"r.json": expected_file([])},
    )
    known = KnownFailures("toy", {"area-x/*": "a known bug"})
    outcome = apply_known_failure(run(tmp_path, failing), known)
    assert outcome.status == XFAILED
    assert outcome.reason.startswith("known failure: a known bug")
    passing = run(tmp_path, failing, ToyEngine())
    fixed = apply_known_failure(type(passing)(**{**passing.__dict__, "status": PASSED}), known)
    assert fixed.status == XPASSED


# --------------------------------------------------------------------------------------------
# Loader, requirements, filters
# --------------------------------------------------------------------------------------------


def test_the_loader_refuses_a_case_whose_id_is_not_its_directory(tmp_path: Path) -> None:
    directory = write_case(tmp_path, [WRITE_1])
    document = json.loads((directory / "case.json").read_text())
    document["id"] = "area-x/other"
    (directory / "case.json").write_text(json.dumps(document))
    with pytest.raises(CaseFormatError, match="is not the directory"):
        load_case(directory, tmp_path)


def test_the_loader_refuses_schema_violations(tmp_path: Path) -> None:
    directory = write_case(tmp_path, [{"op": "write", "rows": [["+X", 1, "a"]]}])
    with pytest.raises(CaseFormatError, match="steps/0"):
        load_case(directory, tmp_path)


def test_the_loader_refuses_a_missing_expected_file(tmp_path: Path) -> None:
    directory = write_case(tmp_path, [WRITE_1, {"op": "read", "expect": "expected/gone.json"}])
    with pytest.raises(CaseFormatError, match="missing expected file"):
        load_case(directory, tmp_path)


@pytest.mark.parametrize(
    ("case_id", "pattern", "matches"),
    [
        ("merge-engine/dedup", None, True),
        ("merge-engine/dedup", "merge-engine/*", True),
        ("merge-engine/dedup", "dedup", True),
        ("merge-engine/dedup", "tags/*,dedup", True),
        ("merge-engine/dedup", "tags/*", False),
        ("merge-engine/dedup", "*/first_row", False),
    ],
)
def test_case_patterns(case_id: str, pattern: str | None, matches: bool) -> None:
    assert is_pattern_matching(case_id, pattern) is matches


def test_requirements_of_a_table_and_its_steps() -> None:
    fields = [t.parse_data_field(f) for f in KV_FIELDS]
    steps = [
        {"op": "write", "rows": [["-D", 1, "a"]], "overwrite": {}},
        {"op": "read", "tag": "t", "filter": {"op": "IS_NULL", "field": "v"}},
        {
            "op": "expect_error",
            "step": {"op": "read_changes", "from_snapshot": 0, "to_snapshot": 1},
        },
        {"op": "system_table", "name": "files"},
    ]
    options = {
        "bucket": "-1",
        "merge-engine": "aggregation",
        "fields.v.aggregate-function": "listagg",
        "fields.x.aggregate-function": "count",
        "changelog-producer": "lookup",
        "file-index.bitmap.columns": "v",
        "file.format": "ORC",
    }
    needs = requirements.compute_requires(fields, ["p"], ["k"], options, steps)
    assert needs == {
        "write",
        "write-row-kinds",
        "overwrite",
        "read",
        "time-travel-tag",
        "filter",
        "read-changes",
        "system-table:files",
        "primary-key",
        "partition",
        "bucket-dynamic",
        "bucket-cross-partition",
        "merge-engine:aggregation",
        "aggregate:listagg",
        "changelog:lookup",
        "file-index",
        "file-index:bitmap",
        "format:orc",
        "type:integer",
        "type:varchar",
    }


def test_type_requirements_reach_nested_types() -> None:
    nested = t.DataField(
        0, "m", t.MapType(t.VarCharType(3), t.ArrayType(t.TimestampType(precision=6)))
    )
    assert requirements.type_requirements([nested]) == {
        "type:map",
        "type:varchar",
        "type:array",
        "type:timestamp_without_time_zone",
    }


FILTER_FIELDS = (
    t.DataField(0, "k", t.IntType()),
    t.DataField(1, "s", t.VarCharType(10)),
)


@pytest.mark.parametrize(
    ("filter_json", "row", "kept"),
    [
        ({"op": "EQUAL", "field": "k", "literals": [1]}, (1, "a"), True),
        ({"op": "EQUAL", "field": "k", "literals": [1]}, (None, "a"), False),
        ({"op": "NOT_EQUAL", "field": "k", "literals": [1]}, (None, "a"), False),
        ({"op": "EQUAL", "field": "k", "literals": [None]}, (1, "a"), False),
        ({"op": "IS_NULL", "field": "k"}, (None, "a"), True),
        ({"op": "IN", "field": "k", "literals": [None, 2]}, (2, "a"), True),
        ({"op": "NOT_IN", "field": "k", "literals": [3, None]}, (2, "a"), False),
        ({"op": "NOT_IN", "field": "k", "literals": [3]}, (2, "a"), True),
        ({"op": "STARTS_WITH", "field": "s", "literals": ["ü"]}, (1, "über"), True),
        ({"op": "LESS_OR_EQUAL", "field": "s", "literals": ["b"]}, (1, "ab"), True),
        (
            {
                "and": [
                    {"op": "IS_NOT_NULL", "field": "s"},
                    {"op": "GREATER_THAN", "field": "k", "literals": [0]},
                ]
            },
            (1, None),
            False,
        ),
        (
            {
                "or": [
                    {"op": "IS_NULL", "field": "s"},
                    {"op": "LESS_THAN", "field": "k", "literals": [0]},
                ]
            },
            (1, None),
            True,
        ),
    ],
)
def test_the_filter_rule(filter_json: dict[str, Any], row: tuple[Any, ...], kept: bool) -> None:
    assert is_row_kept(decode_filter(filter_json, FILTER_FIELDS), row, ["k", "s"]) is kept


# --------------------------------------------------------------------------------------------
# The checked-in cases
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def all_cases() -> list[Any]:
    return discover_cases(CASES_ROOT)


def test_every_case_loads_and_the_kit_has_enough_of_them(all_cases: list[Any]) -> None:
    assert len(all_cases) >= 150
    areas = {case.area for case in all_cases}
    for area in (
        "merge-engine",
        "sequence-field",
        "rowkind-field",
        "changelog-producer",
        "deletion-vectors",
        "file-index",
        "bucket",
        "partition",
        "schema-evolution",
        "time-travel",
        "tags",
        "expiration",
        "system-tables",
        "append",
        "data-types",
        "file-format",
    ):
        assert area in areas, area


def test_every_case_requires_at_least_what_its_table_and_steps_need(all_cases: list[Any]) -> None:
    for case in all_cases:
        if case.table is None:
            continue
        spec = case.table
        steps = case.steps if case.create_error is None else []
        needs = requirements.compute_requires(
            spec.fields,
            spec.partition_keys,
            spec.primary_keys,
            spec.options,
            steps,
            creates_table=case.table_dir is None,  # a format table's files may be checked in
        )
        assert needs <= case.requires, (case.id, sorted(needs - case.requires))


def test_known_failure_lists_name_existing_cases(all_cases: list[Any]) -> None:
    ids = [case.id for case in all_cases]
    for engine in ("reference", "java", "pypaimon", "spark"):
        known = load_known_failures(engine)
        assert unknown_known_failures(known, ids) == [], engine
