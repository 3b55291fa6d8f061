"""Case generators: one function per case family, each returning :class:`CaseSpec` records.

A family function is registered with :func:`family` and builds its cases with the step
helpers below. A read-like step's expectation is either :data:`ORACLE` (recorded from Paimon
0.9's Java implementation when the cases are generated) or hand-written rows (:class:`Hand`,
values in the JSON value encoding). ``scripts/generate_cases.py`` materializes the specs into
``fixtures/cases/`` (:mod:`conformance.cases.generators.build`); hand-written expectations
are cross-checked against Java there whenever Java implements the feature.

Adding a case = adding a ``CaseSpec`` to a family (or a new ``@family`` function in one of the
modules listed in :data:`FAMILY_MODULES`) and running the script.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reference.spec import types as t

JsonValue = Any
ORACLE = "oracle"
"""Expect what Java 0.9 returns."""
FAMILY_MODULES = (
    "conformance.cases.generators.merge_engines",
    "conformance.cases.generators.changelog",
    "conformance.cases.generators.storage",
    "conformance.cases.generators.table_ops",
    "conformance.cases.generators.data_types",
    "conformance.cases.generators.table_types",
)


@dataclass(frozen=True)
class Hand:
    """Hand-written expected rows: ``[["+I", v1, ...], ...]``; ``types`` (SQL strings) only
    where the builder cannot derive them (system tables)."""

    rows: Sequence[Sequence[JsonValue]]
    types: Sequence[str] | None = None


@dataclass(frozen=True)
class CaseSpec:
    """A case before it is materialized.

    ``steps`` are case-format step objects; read-like steps carry the private keys
    ``_expect`` (:data:`ORACLE` or :class:`Hand`), ``_order`` and ``_row_kinds``, which the
    builder turns into an expected file. ``setup`` steps run before ``steps``; with
    ``check_in_table`` Java runs them into a checked-in ``table/`` (``producer`` Java) and only
    ``steps`` are recorded, so engines that cannot write still read the table. ``java`` says
    whether Java 0.9 implements the case (else hand-written expectations are not
    cross-checked, and ``expected_by_reference`` marks cases only the reference can judge).
    ``create_error`` makes a case whose table must be refused (its steps are empty).
    """

    id: str
    area: str
    description: str
    spec_refs: Sequence[str]
    fields: Sequence[t.DataField]
    steps: Sequence[Mapping[str, Any]]
    primary_keys: Sequence[str] = ()
    partition_keys: Sequence[str] = ()
    options: Mapping[str, str] = field(default_factory=dict)
    setup: Sequence[Mapping[str, Any]] = ()
    check_in_table: bool = False
    java: bool = True
    expected_by_reference: bool = False
    extra_requires: Sequence[str] = ()
    create_error: str | None = None

    def __post_init__(self) -> None:
        if self.id.count("/") != 1:
            raise ValueError(f"case id {self.id!r} must be <area>/<name>")


Family = Callable[[], Iterable[CaseSpec]]
FAMILIES: dict[str, Family] = {}


def family(function: Family) -> Family:
    """Register a case family (its name is the function's)."""
    FAMILIES[function.__name__] = function
    return function


def load_families() -> dict[str, Family]:
    for module in FAMILY_MODULES:
        importlib.import_module(module)
    return FAMILIES


def all_specs() -> list[CaseSpec]:
    """Every case of every family, with unique ids."""
    specs = [spec for function in load_families().values() for spec in function()]
    seen: set[str] = set()
    for spec in specs:
        if spec.id in seen:
            raise ValueError(f"duplicate case id {spec.id}")
        seen.add(spec.id)
    return specs


# --------------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------------


NOT_NULL = " NOT NULL"
NESTED_OPENERS = ("ARRAY<", "MULTISET<", "MAP<", "ROW<")


def _split_top_level(text: str) -> list[str]:
    """Split at commas outside ``<>`` and ``()``."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return parts


def parse_type(text: str, ids: list[int] | None = None) -> t.DataType:
    """A type from SQL text, nested types included (``MAP<STRING, ARRAY<INT>> NOT NULL``);
    ROW fields take ids from ``ids`` (a one-element counter)."""
    text = text.strip()
    counter = ids if ids is not None else [0]
    nullable = not text.upper().endswith(NOT_NULL)
    body = text if nullable else text[: -len(NOT_NULL)].rstrip()
    upper = body.upper()
    opener = next((o for o in NESTED_OPENERS if upper.startswith(o)), None)
    if opener is None:
        return t.parse_sql_type(text)
    inner = body[len(opener) : -1]
    if opener == "ARRAY<":
        return t.ArrayType(parse_type(inner, counter), nullable=nullable)
    if opener == "MULTISET<":
        return t.MultisetType(parse_type(inner, counter), nullable=nullable)
    if opener == "MAP<":
        key, value = _split_top_level(inner)
        return t.MapType(parse_type(key, counter), parse_type(value, counter), nullable=nullable)
    fields = []
    for part in _split_top_level(inner):
        name, type_text = part.split(" ", 1)
        field_type = parse_type(type_text, counter)
        fields.append(t.DataField(counter[0], name, field_type))
        counter[0] += 1
    return t.RowType(tuple(fields), nullable=nullable)


def type_json(text: str) -> Any:
    """The schema JSON form of a type written as SQL text."""
    return t.type_to_json(parse_type(text))


def cols(*specs: str) -> list[t.DataField]:
    """Columns from ``"name TYPE"`` strings, numbered from 0 (nested ROW fields after them)."""
    counter = [len(specs)]
    fields = []
    for index, spec in enumerate(specs):
        name, type_text = spec.split(" ", 1)
        fields.append(t.DataField(index, name, parse_type(type_text, counter)))
    return fields


def table_case(
    case_id: str,
    description: str,
    refs: Sequence[str],
    columns: Sequence[str],
    steps: Sequence[Mapping[str, Any]],
    **table: Any,
) -> CaseSpec:
    """A case over a table of ``columns`` (``"name TYPE"`` strings); its area is the id's
    prefix, and ``table`` sets the other :class:`CaseSpec` fields (keys, options, setup, ...)."""
    return CaseSpec(
        id=case_id,
        area=case_id.split("/", maxsplit=1)[0],
        description=description,
        spec_refs=refs,
        fields=cols(*columns),
        steps=steps,
        **table,
    )


ONE_BUCKET: Mapping[str, str] = {"bucket": "1"}


def keyed_case(
    case_id: str,
    description: str,
    refs: Sequence[str],
    columns: Sequence[str],
    steps: Sequence[Mapping[str, Any]],
    *,
    primary_keys: Sequence[str] = ("k",),
    options: Mapping[str, str] | None = None,
    **table: Any,
) -> CaseSpec:
    """A :func:`table_case` over a primary-key table (key ``k`` unless told) in one bucket
    unless ``options`` say otherwise; without a primary key, no bucket is set."""
    default = ONE_BUCKET if primary_keys else {}
    return table_case(
        case_id,
        description,
        refs,
        columns,
        steps,
        primary_keys=primary_keys,
        options={**default, **(options or {})},
        **table,
    )


def ins(*values: JsonValue) -> list[JsonValue]:
    return ["+I", *values]


def upd(*values: JsonValue) -> list[JsonValue]:
    return ["+U", *values]


def before(*values: JsonValue) -> list[JsonValue]:
    return ["-U", *values]


def delete(*values: JsonValue) -> list[JsonValue]:
    return ["-D", *values]


def write(
    rows: Sequence[Sequence[JsonValue]], overwrite: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    step: dict[str, Any] = {"op": "write", "rows": [list(r) for r in rows]}
    if overwrite is not None:
        step["overwrite"] = dict(overwrite)
    return step


def inserts(*rows: Sequence[JsonValue]) -> dict[str, Any]:
    """A write of plain rows (all +I)."""
    return write([ins(*r) for r in rows])


def compact(full: bool = True) -> dict[str, Any]:
    return {"op": "compact", "full": full}


def alter(*changes: Mapping[str, Any]) -> dict[str, Any]:
    return {"op": "alter", "changes": [dict(c) for c in changes]}


def tag(name: str, snapshot: int | None = None) -> dict[str, Any]:
    return {"op": "tag", "name": name, "snapshot": snapshot}


def expire(
    retain_max: int | None = None, retain_min: int | None = None, time_retained_millis: int = 0
) -> dict[str, Any]:
    return {
        "op": "expire",
        "retain_max": retain_max,
        "retain_min": retain_min,
        "time_retained_millis": time_retained_millis,
    }


def read(
    expect: Hand | str = ORACLE,
    *,
    snapshot: int | None = None,
    tag: str | None = None,
    timestamp_after_step: int | None = None,
    timestamp_millis: int | None = None,
    projection: Sequence[str] | None = None,
    filter: Mapping[str, Any] | None = None,
    order: str = "key",
    row_kinds: str = "add-only",
) -> dict[str, Any]:
    """A batch read; default policies: rows by key, +I and +U equal."""
    step: dict[str, Any] = {"op": "read"}
    for key, value in (
        ("snapshot", snapshot),
        ("tag", tag),
        ("timestamp_after_step", timestamp_after_step),
        ("timestamp_millis", timestamp_millis),
        ("projection", None if projection is None else list(projection)),
        ("filter", None if filter is None else dict(filter)),
    ):
        if value is not None:
            step[key] = value
    return {**step, "_expect": expect, "_order": order, "_row_kinds": row_kinds}


def read_changes(
    from_snapshot: int,
    to_snapshot: int | None,
    expect: Hand | str = ORACLE,
    *,
    order: str = "multiset",
    row_kinds: str = "exact",
) -> dict[str, Any]:
    return {
        "op": "read_changes",
        "from_snapshot": from_snapshot,
        "to_snapshot": to_snapshot,
        "_expect": expect,
        "_order": order,
        "_row_kinds": row_kinds,
    }


def system_table(
    name: str, columns: Sequence[str], expect: Hand | str = ORACLE, *, order: str = "multiset"
) -> dict[str, Any]:
    return {
        "op": "system_table",
        "name": name,
        "columns": list(columns),
        "_expect": expect,
        "_order": order,
        "_row_kinds": "ignore",
    }


def expect_error(step: Mapping[str, Any], code: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"op": "expect_error", "step": dict(step)}
    if code is not None:
        error["code"] = code
    return error


def create_view(
    name: str, query: str, *, comment: str | None = None, columns: Sequence[str] | None = None
) -> dict[str, Any]:
    step: dict[str, Any] = {"op": "create_view", "name": name, "query": query}
    if comment is not None:
        step["comment"] = comment
    if columns is not None:
        step["columns"] = list(columns)
    return step


def drop_view(name: str) -> dict[str, Any]:
    return {"op": "drop_view", "name": name}


def show_views(expect: Hand) -> dict[str, Any]:
    """Every view (``name``, ``query``, ``comment``, ``columns``), compared as a multiset."""
    return {"op": "show_views", "_expect": expect, "_order": "multiset", "_row_kinds": "ignore"}


def leaf(op: str, field_name: str, *literals: JsonValue) -> dict[str, Any]:
    """A filter leaf in the case encoding."""
    value: dict[str, Any] = {"op": op, "field": field_name}
    if op not in ("IS_NULL", "IS_NOT_NULL"):
        value["literals"] = list(literals)
    return value


def all_of(*children: Mapping[str, Any]) -> dict[str, Any]:
    return {"and": [dict(c) for c in children]}


def any_of(*children: Mapping[str, Any]) -> dict[str, Any]:
    return {"or": [dict(c) for c in children]}
