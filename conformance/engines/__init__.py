"""Engine adapters of the conformance kit (the protocol is :mod:`conformance.engines.base`).

Built-in engines are named (``reference``, ``java``, ``pypaimon``, ``spark``); a third-party
adapter is named ``module:Class`` (a class whose no-argument constructor builds the engine).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from conformance.engines.base import Engine, EngineUnavailable

BUILTIN_ENGINES = {
    "reference": "conformance.engines.reference_engine:ReferenceEngine",
    "java": "conformance.engines.java_engine:JavaEngine",
    "pypaimon": "conformance.engines.pypaimon_engine:PypaimonEngine",
    "spark": "conformance.engines.spark_engine:SparkEngine",
}
"""Name -> ``module:Class`` of the engines shipped with the kit, in matrix column order."""


def resolve_engine_class(spec: str) -> Callable[[], Engine]:
    """The class named by a built-in name or ``module:Class``; :class:`EngineUnavailable` if
    its module cannot be imported (a missing optional dependency)."""
    target = BUILTIN_ENGINES.get(spec, spec)
    if ":" not in target:
        known = ", ".join(BUILTIN_ENGINES)
        raise ValueError(f"unknown engine {spec!r}: use one of {known} or module:Class")
    module_name, class_name = target.split(":", 1)
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise EngineUnavailable(f"cannot import {module_name}: {error}") from error
    factory: Callable[[], Engine] = getattr(module, class_name)
    return factory


def load_engine(spec: str) -> Engine:
    """Build the engine; :class:`EngineUnavailable` says why it cannot run here."""
    engine = resolve_engine_class(spec)()
    if not isinstance(engine, Engine):
        raise TypeError(f"{spec} does not implement conformance.engines.base.Engine")
    return engine


__all__ = ["BUILTIN_ENGINES", "Engine", "EngineUnavailable", "load_engine", "resolve_engine_class"]
