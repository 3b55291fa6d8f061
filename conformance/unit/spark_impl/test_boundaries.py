"""spark_impl's boundary with the reference: it may import the reference's pure codecs and
records (``reference.spec``), the file IO, the errors and the path layout, but plans, merges,
compacts and writes with its own code, or differential tests against the reference would
prove nothing. The check is transitive: every reference module spark_impl imports (at module
level or inside a function) is followed through its own imports, and any module reached
outside the allowed set fails, with the chain that reached it. So no spark_impl module
reaches the reference's store, merge engines, table, catalog, validator, system tables or
format-table reader, directly or through an allowed module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import reference
import spark_impl

ALLOWED = ("reference.spec", "reference.io", "reference.errors", "reference.layout")
"""Module prefixes of the reference that spark_impl may reach."""
MODULES = sorted(Path(spark_impl.__file__).parent.glob("*.py"))
REFERENCE_ROOT = Path(reference.__file__).parent


def module_file(module: str, root: Path = REFERENCE_ROOT) -> Path | None:
    """The source file of a ``reference...`` module (``None``: no such module)."""
    parts = module.split(".")[1:]
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if parts and candidate.is_file():
            return candidate
    return root / "__init__.py" if not parts else None


def imported_reference_modules(path: Path, root: Path = REFERENCE_ROOT) -> list[str]:
    """Every ``reference...`` module a source file imports, anywhere in it (``from reference
    import x`` counts as ``reference.x`` when ``x`` is a module, else as ``reference``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend(a.name for a in node.names if a.name.split(".")[0] == "reference")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != "reference":
                continue
            for alias in node.names:
                child = f"{node.module}.{alias.name}"
                found.append(child if module_file(child, root) is not None else node.module)
    return found


def is_allowed(module: str) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in ALLOWED)


def forbidden_reach(path: Path, root: Path = REFERENCE_ROOT) -> list[list[str]]:
    """The import chains from ``path`` to each reference module outside :data:`ALLOWED`,
    following the allowed modules' own imports."""
    chains: dict[str, list[str]] = {m: [m] for m in imported_reference_modules(path, root)}
    pending = list(chains)
    bad = []
    while pending:
        module = pending.pop()
        if not is_allowed(module):
            bad.append(chains[module])
            continue
        source = module_file(module, root)
        if source is None:
            continue
        for reached in imported_reference_modules(source, root):
            if reached not in chains:
                chains[reached] = [*chains[module], reached]
                pending.append(reached)
    return sorted(bad)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_spark_impl_reaches_only_reference_codecs(path: Path) -> None:
    assert forbidden_reach(path) == []


def test_the_check_sees_forbidden_imports(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from reference.store import scan\nfrom reference import table, layout\n"
        "import reference.merge.engine\n",
        encoding="utf-8",
    )
    forbidden = [c[-1] for c in forbidden_reach(source)]
    assert sorted(forbidden) == [
        "reference.merge.engine",
        "reference.store.scan",
        "reference.table",
    ]


def test_the_check_is_transitive(tmp_path: Path) -> None:
    """An allowed module that imports a forbidden one is caught, with the chain; imports
    inside functions count."""
    root = tmp_path / "reference"
    (root / "spec").mkdir(parents=True)
    (root / "store").mkdir()
    for package in (root, root / "spec", root / "store"):
        (package / "__init__.py").write_text("", encoding="utf-8")
    (root / "spec" / "codec.py").write_text(
        "def f():\n    from reference.store.scan import plan\n", encoding="utf-8"
    )
    (root / "store" / "scan.py").write_text("plan = 1\n", encoding="utf-8")
    source = tmp_path / "m.py"
    source.write_text("from reference.spec.codec import f\n", encoding="utf-8")
    assert forbidden_reach(source, root) == [["reference.spec.codec", "reference.store.scan"]]
