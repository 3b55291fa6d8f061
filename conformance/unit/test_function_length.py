"""Product functions are short enough to read at once (issue 21): no function or method in
``reference/``, ``spark_impl/`` or ``paimon_kit/`` spans more than ``MAX_LINES`` lines, from its
``def`` line to its last line, docstring included. A longer one is split into named steps."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("reference", "spark_impl", "paimon_kit")
MAX_LINES = 60


def long_functions(path: Path, limit: int = MAX_LINES) -> list[str]:
    """``file:function (lines)`` for every function of ``path`` longer than ``limit`` lines."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                found.append(f"{path.name}:{node.name} ({length} lines)")
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_product_function_is_longer_than_the_limit(package: str) -> None:
    sources = sorted((ROOT / package).rglob("*.py"))
    assert sources, f"no sources under {package}/"
    assert [f for path in sources for f in long_functions(path)] == []


def test_the_check_sees_a_long_function(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    source.write_text(f"def short():\n    return 1\n\n\ndef long():\n{body}", encoding="utf-8")
    assert long_functions(source) == [f"m.py:long ({MAX_LINES + 1} lines)"]
