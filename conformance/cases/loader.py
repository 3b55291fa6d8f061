"""Finding, validating and decoding case directories (``fixtures/cases/<area>/<case>/``), and
the known-failure lists (``conformance/known_failures/<engine>.json``).

See ``conformance/cases/FORMAT.md`` for the directory contract and
``conformance/cases/case.schema.json`` for the JSON Schema of ``case.json``.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from reference.spec import types as t

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CASES_ROOT = PROJECT_ROOT / "fixtures" / "cases"
SCHEMA_PATH = Path(__file__).with_name("case.schema.json")
KNOWN_FAILURES_DIR = Path(__file__).resolve().parents[1] / "known_failures"
CASE_FILE = "case.json"
TABLE_DIR = "table"
EXPECTED_BY_JAVA = "paimon-java 0.9.0"
EXPECTED_BY_SPEC = "spec"
EXPECTED_BY_REFERENCE = "reference"
GLOB_CHARACTERS = "*?["


class CaseFormatError(ValueError):
    """A case directory breaks the contract (the message names the case and the rule)."""


@dataclass(frozen=True)
class TableSpec:
    """The table a case creates before its steps."""

    fields: tuple[t.DataField, ...]
    partition_keys: tuple[str, ...] = ()
    primary_keys: tuple[str, ...] = ()
    options: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    """One decoded case directory."""

    id: str
    area: str
    description: str
    spec_refs: tuple[str, ...]
    producer: str | None
    expected_by: str
    requires: frozenset[str]
    table: TableSpec | None
    steps: tuple[Mapping[str, Any], ...]
    directory: Path
    create_error: str | None = None

    @property
    def table_dir(self) -> Path | None:
        """The checked-in table, if the case has one."""
        candidate = self.directory / TABLE_DIR
        return candidate if candidate.is_dir() else None


# --------------------------------------------------------------------------------------------
# Decoding
# --------------------------------------------------------------------------------------------


def decode_fields(fields: Iterable[Any]) -> tuple[t.DataField, ...]:
    return tuple(t.parse_data_field(f) for f in fields)


def decode_table(document: Mapping[str, Any]) -> TableSpec:
    return TableSpec(
        fields=decode_fields(document["fields"]),
        partition_keys=tuple(document.get("partition_keys", ())),
        primary_keys=tuple(document.get("primary_keys", ())),
        options={str(k): str(v) for k, v in document.get("options", {}).items()},
    )


def encode_table(table: TableSpec) -> dict[str, Any]:
    return {
        "fields": [t.field_to_json(f) for f in table.fields],
        "partition_keys": list(table.partition_keys),
        "primary_keys": list(table.primary_keys),
        "options": dict(table.options),
    }


@cache
def _validator() -> Any:
    """A JSON Schema validator of ``case.json``, or ``None`` without ``jsonschema``."""
    try:
        import jsonschema  # type: ignore[import-untyped]  # noqa: PLC0415 (optional)
    except ImportError:
        return None
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def validate_case_document(document: Mapping[str, Any], where: str) -> None:
    """Raise :class:`CaseFormatError` if ``document`` breaks ``case.schema.json``."""
    validator = _validator()
    if validator is None:
        return
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        location = "/".join(str(p) for p in first.path) or "(top)"
        raise CaseFormatError(f"{where}: {location}: {first.message}")


def load_case(directory: Path, root: Path = CASES_ROOT) -> Case:
    """Decode and check one case directory."""
    path = directory / CASE_FILE
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise CaseFormatError(f"{path}: {error}") from None
    validate_case_document(document, str(path))
    relative = directory.relative_to(root).as_posix()
    if document["id"] != relative:
        raise CaseFormatError(f"{path}: id {document['id']!r} is not the directory {relative!r}")
    has_table_dir = (directory / TABLE_DIR).is_dir()
    table = document.get("table")
    if (table is None) == (not has_table_dir) and not is_format_table_files(table, has_table_dir):
        raise CaseFormatError(f"{path}: give exactly one of 'table' and a table/ directory")
    for step in document["steps"]:
        expect = step.get("expect") or step.get("step", {}).get("expect")
        if expect and not (directory / expect).is_file():
            raise CaseFormatError(f"{path}: missing expected file {expect}")
    return Case(
        id=document["id"],
        area=document["area"],
        description=document["description"],
        spec_refs=tuple(document["spec_refs"]),
        producer=document["producer"],
        expected_by=document["expected_by"],
        requires=frozenset(document["requires"]),
        table=None if table is None else decode_table(table),
        steps=tuple(document["steps"]),
        directory=directory,
        create_error=document.get("create_error"),
    )


def is_pattern_matching(case_id: str, pattern: str | None) -> bool:
    """``pattern`` is a glob (``merge-engine/*``) or, without glob characters, a substring;
    several patterns may be joined with commas."""
    if not pattern:
        return True
    for part in (p.strip() for p in pattern.split(",")):
        if not part:
            continue
        if any(c in part for c in GLOB_CHARACTERS):
            if fnmatch.fnmatchcase(case_id, part):
                return True
        elif part in case_id:
            return True
    return False


def discover_cases(root: Path = CASES_ROOT, pattern: str | None = None) -> list[Case]:
    """Every case under ``root`` whose id matches ``pattern``, sorted by id."""
    if not root.is_dir():
        return []
    directories = sorted(p.parent for p in root.glob(f"*/*/{CASE_FILE}"))
    cases = []
    for directory in directories:
        case_id = directory.relative_to(root).as_posix()
        if is_pattern_matching(case_id, pattern):
            cases.append(load_case(directory, root))
    return cases


# --------------------------------------------------------------------------------------------
# Known failures
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnownFailures:
    """Case id (or glob) -> reason, for one engine."""

    engine: str
    entries: Mapping[str, str]

    def reason_for(self, case_id: str) -> str | None:
        if case_id in self.entries:
            return self.entries[case_id]
        for pattern, reason in self.entries.items():
            if any(c in pattern for c in GLOB_CHARACTERS) and fnmatch.fnmatchcase(case_id, pattern):
                return reason
        return None


def is_format_table_files(table: Mapping[str, Any] | None, has_table_dir: bool) -> bool:
    """A format table's checked-in files: ``table/`` holds the plain files, ``table`` the
    schema a catalog would keep for them (a format table has no metadata of its own)."""
    options = (table or {}).get("options") or {}
    return has_table_dir and str(options.get("type", "")).strip().lower() == "format-table"


def known_failures_path(engine: str, directory: Path = KNOWN_FAILURES_DIR) -> Path:
    return directory / f"{engine}.json"


def load_known_failures(engine: str, directory: Path = KNOWN_FAILURES_DIR) -> KnownFailures:
    """The engine's list; empty if it has none. Format: ``{"engine": name, "failures":
    {case id or glob: reason}}``."""
    path = known_failures_path(engine, directory)
    if not path.is_file():
        return KnownFailures(engine, {})
    document = json.loads(path.read_text(encoding="utf-8"))
    failures = document.get("failures", {})
    if not isinstance(failures, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v for k, v in failures.items()
    ):
        raise CaseFormatError(f"{path}: 'failures' must map case ids to non-empty reasons")
    return KnownFailures(engine, failures)


def unknown_known_failures(known: KnownFailures, case_ids: Sequence[str]) -> list[str]:
    """Entries that name no existing case (stale entries)."""
    ids = set(case_ids)
    stale = []
    for pattern in known.entries:
        if any(c in pattern for c in GLOB_CHARACTERS):
            if not any(fnmatch.fnmatchcase(i, pattern) for i in ids):
                stale.append(pattern)
        elif pattern not in ids:
            stale.append(pattern)
    return stale
