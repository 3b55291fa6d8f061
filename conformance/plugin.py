"""pytest plugin of paimon-kit (entry point ``paimon_kit``): the conformance cases as tests.

Any test that takes the ``conformance_case`` and ``conformance_engine`` fixtures (the kit's
``conformance/test_cases.py`` does) is parametrized over every case x engine::

    pytest conformance/test_cases.py                                  # the built-in engines
    pytest conformance/test_cases.py --paimon-engines reference,java
    pytest --pyargs conformance.test_cases --paimon-engine mypkg.adapter:MyEngine \\
           --paimon-cases-dir checkout/fixtures/cases --paimon-known-failures known.json

``--paimon-engine module:Class`` adds a third-party adapter (a class implementing
:class:`conformance.engines.base.Engine`); when one is given, the built-in engines run only if
``--paimon-engines`` names them. A case the engine lacks a capability for is skipped with the
reason; a known failure (``conformance/known_failures/<engine>.json``, or
``--paimon-known-failures``) is a strict xfail, so a fixed bug fails until its entry goes.
Java runs get the ``java`` marker, Spark runs ``spark``; an engine class may name
``slow_capabilities``, and a case needing one is also marked ``slow`` on it (Spark's writing
cases: ``pytest -m "spark and slow" conformance/test_cases.py``). One engine instance serves
the whole session (one JVM, one SparkSession).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance.cases.loader import (
    CASES_ROOT,
    Case,
    KnownFailures,
    discover_cases,
    load_known_failures,
)
from conformance.engines import BUILTIN_ENGINES, load_engine, resolve_engine_class
from conformance.engines.base import Engine, EngineUnavailable

ENGINE_MARKERS = {"java": "java", "spark": "spark"}
CASE_FIXTURE = "conformance_case"
ENGINE_NAME_FIXTURE = "conformance_engine_name"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("paimon-kit")
    group.addoption(
        "--paimon-engine",
        action="append",
        default=[],
        metavar="MODULE:CLASS",
        help="an extra engine adapter to run the conformance cases against",
    )
    group.addoption(
        "--paimon-engines",
        default=None,
        metavar="NAMES",
        help=f"built-in engines to run (comma-separated: {', '.join(BUILTIN_ENGINES)})",
    )
    group.addoption(
        "--paimon-cases",
        default=None,
        metavar="PATTERN",
        help="only cases whose id matches (glob or substring, comma-separated)",
    )
    group.addoption(
        "--paimon-cases-dir",
        default=None,
        metavar="DIR",
        help="the cases directory (default: the kit's fixtures/cases)",
    )
    group.addoption(
        "--paimon-known-failures",
        default=None,
        metavar="FILE",
        help="known failures of the extra engines (JSON: {engine, failures: {case: reason}})",
    )


# --------------------------------------------------------------------------------------------
# Collection
# --------------------------------------------------------------------------------------------


def selected_engines(config: pytest.Config) -> list[str]:
    """Built-in names and ``module:Class`` specs, in run order."""
    extras: list[str] = list(config.getoption("--paimon-engine"))
    names = config.getoption("--paimon-engines")
    if names is None:
        builtins = [] if extras else list(BUILTIN_ENGINES)
    else:
        builtins = [n.strip() for n in names.split(",") if n.strip()]
    return [*builtins, *extras]


def engine_label(spec: str) -> str:
    """The engine's ``name`` (read from its class without building it), else the spec."""
    if spec in BUILTIN_ENGINES:
        return spec
    try:
        return str(getattr(resolve_engine_class(spec), "name", spec))
    except EngineUnavailable:
        return spec


def known_failures_for(config: pytest.Config, spec: str) -> KnownFailures:
    """The kit's list for a built-in engine; ``--paimon-known-failures`` for an extra one."""
    label = engine_label(spec)
    extra = config.getoption("--paimon-known-failures")
    if spec in BUILTIN_ENGINES or not extra:
        return load_known_failures(label)
    document = json.loads(Path(extra).read_text(encoding="utf-8"))
    return KnownFailures(label, dict(document.get("failures", {})))


def slow_capabilities_of(spec: str) -> frozenset[str]:
    """An engine class's optional ``slow_capabilities``: a case needing one of them is in the
    ``slow`` tier on that engine (Spark jobs that write)."""
    try:
        found = getattr(resolve_engine_class(spec), "slow_capabilities", frozenset())
    except EngineUnavailable:
        return frozenset()
    return frozenset(found)


def cases_for(config: pytest.Config) -> list[Case]:
    directory = config.getoption("--paimon-cases-dir")
    root = Path(directory) if directory else CASES_ROOT
    return discover_cases(root, config.getoption("--paimon-cases"))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if CASE_FIXTURE not in metafunc.fixturenames:
        return
    config = metafunc.config
    cases = cases_for(config)
    params = []
    for spec in selected_engines(config):
        known = known_failures_for(config, spec)
        label = engine_label(spec)
        slow = slow_capabilities_of(spec)
        for case in cases:
            marks: list[Any] = []
            if label in ENGINE_MARKERS:
                marks.append(getattr(pytest.mark, ENGINE_MARKERS[label]))
            if case.requires & slow:
                marks.append(pytest.mark.slow)
            reason = known.reason_for(case.id)
            if reason is not None:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            params.append(pytest.param(spec, case, id=f"{label}-{case.id}", marks=marks))
    metafunc.parametrize((ENGINE_NAME_FIXTURE, CASE_FIXTURE), params)


# --------------------------------------------------------------------------------------------
# Engines: one per session
# --------------------------------------------------------------------------------------------


class EngineCache:
    """Engines built on first use; an engine that cannot start skips its tests."""

    def __init__(self) -> None:
        self.engines: dict[str, Engine] = {}
        self.unavailable: dict[str, str] = {}

    def get(self, spec: str, request: pytest.FixtureRequest) -> Engine:
        if spec in self.unavailable:
            pytest.skip(f"{spec} unavailable: {self.unavailable[spec]}")
        if spec not in self.engines:
            try:
                self.engines[spec] = self._build(spec, request)
            except EngineUnavailable as error:
                self.unavailable[spec] = str(error)
                pytest.skip(f"{spec} unavailable: {error}")
        return self.engines[spec]

    @staticmethod
    def _build(spec: str, request: pytest.FixtureRequest) -> Engine:
        if spec == "java":
            harness = _suite_java_harness(request)
            if harness is not None:
                from conformance.engines.java_engine import JavaEngine  # noqa: PLC0415

                return JavaEngine(harness)
        return load_engine(spec)

    def close(self) -> None:
        for engine in self.engines.values():
            engine.close()
        self.engines.clear()


def _suite_java_harness(request: pytest.FixtureRequest) -> Any:
    """The suite's shared JVM (the ``java_harness`` fixture) when the suite defines it."""
    try:
        return request.getfixturevalue("java_harness")
    except pytest.FixtureLookupError:
        return None


@pytest.fixture(scope="session")
def conformance_engines() -> Iterator[EngineCache]:
    cache = EngineCache()
    yield cache
    cache.close()


@pytest.fixture
def conformance_engine(
    conformance_engine_name: str, conformance_engines: EngineCache, request: pytest.FixtureRequest
) -> Engine:
    """The engine of this parametrized test (built once per session)."""
    return conformance_engines.get(conformance_engine_name, request)
