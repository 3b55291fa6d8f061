"""Every conformance case on every engine, one parametrized test each.

The parametrization (cases x engines, known failures as strict xfail, ``java`` / ``spark``
markers) comes from the ``paimon_kit`` pytest plugin (:mod:`conformance.plugin`); see its
options (``--paimon-engines``, ``--paimon-engine module:Class``, ``--paimon-cases``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cases.loader import Case
from conformance.cases.runner import FAILED, INFORMATIONAL, SKIPPED, run_case
from conformance.engines.base import Engine


def test_case(conformance_case: Case, conformance_engine: Engine, tmp_path: Path) -> None:
    outcome = run_case(conformance_case, conformance_engine, tmp_path)
    if outcome.status == SKIPPED:
        pytest.skip(outcome.reason)
    if outcome.status == INFORMATIONAL:
        pytest.skip(f"not judged: {outcome.reason}")
    if outcome.status == FAILED:
        pytest.fail(f"{conformance_case.id} on {outcome.engine}: {outcome.reason}", pytrace=False)
