"""Every third-party module the product imports is declared in pyproject.toml, in the right extra.

A user installs ``paimon-kit`` (the core), ``paimon-kit[spark]`` (the PySpark engine and the main
job ``paimon-kit conformance``) or ``paimon-kit[test]``; a module that arrives only because some
other package happens to pull it in works on the developer's machine and fails on the user's.
These tests read the imports of the product modules (``reference``, ``spark_impl``,
``conformance`` outside its tests, ``bench``) from their syntax trees, map each third-party module
to the distribution that installs it, and check the declarations:

1. anything imported anywhere (module level, in a function, optional or not) is declared in the
   core dependencies or in some extra;
2. what ``reference`` imports at module level is in the core dependencies;
3. what the main job imports at module level (the modules reachable from ``paimon_kit.cli``,
   the built-in engines it must run and ``spark_impl``) is in the core or the ``spark`` extra.

Runtime needs that no import shows (pandas for PySpark's Arrow paths) are caught by the main job
run in a fresh venv by ``.ci/run``.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCT_PACKAGES = ("reference", "spark_impl", "conformance", "bench", "paimon_kit")
OWN_TOP_LEVEL = frozenset(PRODUCT_PACKAGES)
MAIN_JOB_ROOTS = (
    "paimon_kit.cli",
    "conformance.conformance_cli",
    "conformance.engines.reference_engine",
    "conformance.engines.java_engine",
    "conformance.engines.spark_engine",
)
"""Where ``pip install '.[spark]' && paimon-kit conformance`` starts: the console script, the
subcommand it dispatches to lazily and
the engines it must run (``pypaimon`` is a peer: without its package it is reported
unavailable, by design), and every module of ``spark_impl`` (Spark's Python workers import
them)."""
MAIN_JOB_EXTRAS = ("spark",)
NEWER_STDLIB = frozenset({"compression"})
"""Standard-library packages of Pythons newer than this one (``compression.zstd``: 3.14)."""
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception"})
REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")


@dataclass(frozen=True)
class Import:
    """One import of a third-party module by a product module."""

    module: str
    """The importing module, dotted (``spark_impl.write``)."""
    top_level: str
    """The imported module's top-level name (``numpy``)."""
    line: int
    module_level: bool
    """Run when the module is imported (not inside a function, not guarded by
    ``except ImportError``)."""


def is_test_file(path: Path) -> bool:
    parts = path.relative_to(ROOT).parts
    return "unit" in parts or path.name.startswith("test_") or path.name == "conftest.py"


def product_files() -> Iterator[Path]:
    for package in PRODUCT_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if not is_test_file(path):
                yield path


def module_name(path: Path) -> str:
    dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return dotted.removesuffix(".__init__")


def guards_import_error(node: ast.Try) -> bool:
    """Whether a ``try`` turns a failed import into something else (an optional import)."""
    for handler in node.handlers:
        names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if any(isinstance(n, ast.Name) and n.id in IMPORT_ERRORS for n in names):
            return True
    return False


def imported_names(node: ast.AST) -> list[str]:
    """The absolute module names an import statement names (relative imports are our own)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    return []


def is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` / ``if typing.TYPE_CHECKING:`` (imports for the type checker only)."""
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", None)
    return name == "TYPE_CHECKING"


STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")
"""The fields of a compound statement that hold statements (imports are statements)."""


def walk_imports(statements: list[ast.stmt], module_level: bool) -> Iterator[tuple[ast.AST, bool]]:
    """Every import statement in ``statements`` and the blocks below them, with whether it runs
    at import time (only statements are visited: an import is never inside an expression)."""
    for node in statements:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, module_level
            continue
        if isinstance(node, ast.If) and is_type_checking(node.test):
            continue
        inner = module_level and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        guarded = isinstance(node, ast.Try) and guards_import_error(node)
        for field in STATEMENT_LISTS:
            block = getattr(node, field, None) or []
            level = inner and not (guarded and field == "body")
            yield from walk_imports(block, level)


@cache
def file_imports(path: Path) -> tuple[tuple[str, int, bool], ...]:
    """(imported module, line, runs at import time) for each import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return tuple(
        (name, getattr(node, "lineno", 0), module_level)
        for node, module_level in walk_imports(tree.body, True)
        for name in imported_names(node)
    )


@cache
def all_imports() -> tuple[Import, ...]:
    found = []
    for path in product_files():
        for name, line, module_level in file_imports(path):
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top in OWN_TOP_LEVEL or top == "__future__":
                continue
            found.append(Import(module_name(path), top, line, module_level))
    return tuple(found)


@cache
def own_module_imports() -> dict[str, set[str]]:
    """Each product module -> the product modules it imports at import time."""
    edges: dict[str, set[str]] = {}
    for path in product_files():
        targets = edges.setdefault(module_name(path), set())
        for name, _, module_level in file_imports(path):
            if module_level and name.split(".")[0] in OWN_TOP_LEVEL:
                targets.add(name)
    return edges


def reachable(roots: tuple[str, ...]) -> set[str]:
    """The product modules imported when ``roots`` are (parents of a module included)."""
    edges = own_module_imports()
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            if prefix in edges and prefix not in seen:
                seen.add(prefix)
                todo.extend(edges[prefix])
    return seen


def normalize(name: str) -> str:
    """PEP 503 project-name normalization."""
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def declared() -> dict[str, frozenset[str]]:
    """``""`` (the core) and each extra -> the distributions it declares, self-references
    (``paimon-kit[spark]``) expanded."""
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    own = normalize(project["name"])
    raw = {"": project["dependencies"], **project["optional-dependencies"]}

    def expand(group: str) -> frozenset[str]:
        names: set[str] = set()
        for requirement in raw[group]:
            match = REQUIREMENT_NAME.match(requirement)
            assert match, f"pyproject.toml: cannot read the requirement {requirement!r}"
            name, extras = normalize(match.group(1)), match.group(2)
            if name == own:
                names |= expand("") | {n for e in (extras or "").split(",") for n in expand(e)}
            else:
                names.add(name)
        return frozenset(names)

    return {group: expand(group) for group in raw}


@cache
def distributions_of(top_level: str) -> frozenset[str]:
    return frozenset(normalize(d) for d in metadata.packages_distributions().get(top_level, []))


def undeclared(imports: list[Import], allowed: frozenset[str]) -> list[str]:
    """One line for each import whose distribution ``allowed`` does not declare."""
    problems = []
    for found in imports:
        if found.top_level in NEWER_STDLIB:
            continue
        dists = distributions_of(found.top_level)
        if not dists:
            problems.append(
                f"{found.module}:{found.line} imports {found.top_level}, which no installed "
                "distribution provides: declare it in pyproject.toml and install it"
            )
        elif not dists & allowed:
            problems.append(
                f"{found.module}:{found.line} imports {found.top_level} "
                f"(from {', '.join(sorted(dists))}), not declared where it is needed"
            )
    return problems


def test_every_imported_module_is_declared() -> None:
    """Rule 1: imported anywhere -> declared in the core or some extra."""
    everything = frozenset().union(*declared().values())
    assert undeclared(list(all_imports()), everything) == []


def test_reference_needs_only_the_core() -> None:
    """Rule 2: ``pip install paimon-kit`` is enough to import the reference."""
    imports = [i for i in all_imports() if i.module_level and i.module.startswith("reference")]
    assert undeclared(imports, declared()[""]) == []


def test_main_job_needs_only_the_spark_extra() -> None:
    """Rule 3: ``pip install 'paimon-kit[spark]'`` is enough for ``paimon-kit conformance``."""
    engine = tuple(m for m in own_module_imports() if m.startswith("spark_impl"))
    modules = reachable(MAIN_JOB_ROOTS + engine)
    assert "spark_impl.datasource" in modules and "conformance.cases.runner" in modules
    allowed = declared()[""].union(*(declared()[extra] for extra in MAIN_JOB_EXTRAS))
    imports = [i for i in all_imports() if i.module_level and i.module in modules]
    assert undeclared(imports, allowed) == []


def test_the_scan_sees_imports_in_functions_and_guarded_ones() -> None:
    """The scanner itself: a lazy import and an optional one are found, and not counted as
    running at import time."""
    source = (
        "import numpy\n"
        "try:\n    import boto3\nexcept ImportError:\n    boto3 = None\n"
        "def f():\n    import pandas\n"
    )
    tree = ast.parse(source)
    found = {imported_names(n)[0]: level for n, level in walk_imports(tree.body, True)}
    assert found == {"numpy": True, "boto3": False, "pandas": False}
