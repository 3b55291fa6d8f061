"""The case generators and the checked-in cases agree: every generated case exists under
``fixtures/cases/`` with the ``case.json`` its generator function describes (table, steps,
requirements, expected-file names), and no generated case directory lacks a generator.

The expected rows themselves are checked when the cases run (``conformance/test_cases.py``)
and cross-checked against Java when ``scripts/generate_cases.py`` rebuilds them.
"""

from __future__ import annotations

import json

import pytest

from conformance.cases.generators import CaseSpec, load_families
from conformance.cases.generators.build import GENERATOR_KEY, compute_case_document
from conformance.cases.loader import CASE_FILE, CASES_ROOT


def generated_specs() -> list[tuple[str, CaseSpec]]:
    return [(name, spec) for name, family in load_families().items() for spec in family()]


SPECS = generated_specs()


@pytest.mark.parametrize(("generator", "spec"), SPECS, ids=[spec.id for _, spec in SPECS])
def test_checked_in_case_is_what_its_generator_describes(generator: str, spec: CaseSpec) -> None:
    case_file = CASES_ROOT / spec.id / CASE_FILE
    assert case_file.is_file(), f"run: python scripts/generate_cases.py --only '{spec.id}'"
    checked_in = json.loads(case_file.read_text(encoding="utf-8"))
    assert checked_in == compute_case_document(spec, generator)


def test_every_generated_case_directory_has_a_generator() -> None:
    ids = {spec.id for _, spec in SPECS}
    generated = [
        path.parent.relative_to(CASES_ROOT).as_posix()
        for path in sorted(CASES_ROOT.glob(f"*/*/{CASE_FILE}"))
        if GENERATOR_KEY in json.loads(path.read_text(encoding="utf-8"))
    ]
    assert [case_id for case_id in generated if case_id not in ids] == []


def test_expected_files_named_by_cases_exist() -> None:
    missing = [
        f"{spec.id}/{step['expect']}"
        for _, spec in SPECS
        for step in compute_case_document(spec, "")["steps"]
        if "expect" in step and not (CASES_ROOT / spec.id / step["expect"]).is_file()
    ]
    assert missing == []
