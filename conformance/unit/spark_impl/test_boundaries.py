"""spark_impl's boundary with the reference: it may import the reference's pure codecs and
records (``reference.spec``, the file IO, errors, path layout, the format-table file codecs)
but plans, merges, compacts and writes with its own code, or differential tests against the
reference would prove nothing. No spark_impl module imports the reference's store, merge
engines, table, catalog, validator or system tables."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import spark_impl

ALLOWED = (
    "reference.spec",
    "reference.io",
    "reference.errors",
    "reference.layout",
    "reference.format_table",
)
"""Module prefixes of the reference that spark_impl may import."""
MODULES = sorted(Path(spark_impl.__file__).parent.glob("*.py"))


def imported_reference_modules(path: Path) -> list[str]:
    """Every ``reference...`` module a source file imports (``from reference import x``
    counts as ``reference.x``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend(a.name for a in node.names if a.name.split(".")[0] == "reference")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "reference":
                found.extend(f"reference.{a.name}" for a in node.names)
            elif node.module.startswith("reference."):
                found.append(node.module)
    return found


def is_allowed(module: str) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in ALLOWED)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_spark_impl_imports_only_reference_codecs(path: Path) -> None:
    assert [m for m in imported_reference_modules(path) if not is_allowed(m)] == []


def test_the_check_sees_forbidden_imports(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from reference.store import scan\nfrom reference import table, layout\n"
        "import reference.merge.engine\n",
        encoding="utf-8",
    )
    forbidden = [m for m in imported_reference_modules(source) if not is_allowed(m)]
    assert sorted(forbidden) == ["reference.merge.engine", "reference.store", "reference.table"]
