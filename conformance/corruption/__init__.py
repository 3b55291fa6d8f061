"""A corpus of broken tables for the validator: each a copy of a valid table with one fault.

``generate_corpus(out_dir, source_root)`` writes ``<out_dir>/<case_id>/table/`` (the broken
copy) and ``<out_dir>/<case_id>/case.json`` (what the validator must report) for every case of
:mod:`conformance.corruption.cases`. Sources are Java-written tables: those of the third-party
directory (``paimon-cpp/parquet/<name>.db/<name>``) and, for features they lack, golden tables
of ``fixtures/cases``; they are read, never modified.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from conformance.corruption.cases import CASES, CorruptionCase
from conformance.corruption.surgery import copy_table

CASE_FILE = "case.json"
TABLE_DIR = "table"
SOURCE_SUBDIR = Path("paimon-cpp") / "parquet"
FIXTURE_SOURCE_PREFIX = "fixtures:"
FIXTURE_CASES = Path(__file__).resolve().parent.parent.parent / "fixtures" / "cases"


@dataclass(frozen=True)
class GeneratedCase:
    """One written case: where its table is and what the validator must report."""

    case_id: str
    source: str
    code: str
    file: str
    description: str
    deep: bool
    table: Path

    def to_json(self) -> dict[str, object]:
        return {
            "case_id": self.case_id,
            "source": self.source,
            "producer": "paimon-java (a Java-written table), corrupted by paimon-kit",
            "expected": {"code": self.code, "file": self.file},
            "description": self.description,
            "validate_options": {"deep": self.deep, "all_snapshots": True},
        }


def source_table(third_party: Path, name: str) -> Path:
    """A third-party table by name, or ``fixtures:<area>/<case>``: a golden table."""
    if name.startswith(FIXTURE_SOURCE_PREFIX):
        return FIXTURE_CASES / name[len(FIXTURE_SOURCE_PREFIX) :] / TABLE_DIR
    return third_party / SOURCE_SUBDIR / f"{name}.db" / name


def generate_case(case: CorruptionCase, out_dir: Path, third_party: Path) -> GeneratedCase:
    case_dir = out_dir / case.case_id
    table = case_dir / TABLE_DIR
    copy_table(source_table(third_party, case.source), table)
    expected_file = case.corrupt(table)
    generated = GeneratedCase(
        case.case_id, case.source, case.code, expected_file, case.description, case.deep, table
    )
    (case_dir / CASE_FILE).write_text(json.dumps(generated.to_json(), indent=2) + "\n")
    return generated


def generate_corpus(
    out_dir: Path, third_party: Path, only: Iterable[str] | None = None
) -> list[GeneratedCase]:
    """Write every case (or the named ones) under ``out_dir``, which must not hold them yet.
    Cases whose source table is absent are left out."""
    wanted = None if only is None else set(only)
    out_dir.mkdir(parents=True, exist_ok=True)
    return [
        generate_case(case, out_dir, third_party)
        for case in CASES
        if (wanted is None or case.case_id in wanted)
        and source_table(third_party, case.source).is_dir()
    ]
