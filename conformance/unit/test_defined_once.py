"""The spec's vocabulary is defined once: no constant or enum is declared twice in the product.

Issue 21: a constant written in two modules (``NANOS_PER_MILLI = 1_000_000`` eleven times, the
roll-check interval four times, the 21 aggregate function kinds as two identical enums) drifts the
day one copy changes. Each spec constant has one home in ``reference.spec`` or
``reference.layout``; every other module imports it.

These tests read the syntax trees of ``reference/`` and ``spark_impl/`` and fail when

1. the same module-level name is assigned the same literal value in two modules (a literal: a
   number, string, bytes, bool or None, a tuple / list / set / frozenset of literals, or arithmetic
   over number literals, such as ``86_400 * 1_000``);
2. two ``Enum`` classes declare the same set of member names.

A self-test on a temporary tree proves the scan catches both. ``ALLOWED`` lists the true
coincidences (the same name and value meaning different things), each with the reason.
"""

from __future__ import annotations

import ast
import operator
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED_PACKAGES = ("reference", "spark_impl")

# (name, repr(value)) pairs that may stand in more than one module: true coincidences, where the
# same name and value mean different things and sharing them would couple unrelated rules.
ALLOWED: dict[tuple[str, str], str] = {}

ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})
_BINARY_OPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_,
}


class NotLiteral(Exception):
    """The expression is not a literal the scan compares (a call, a name, a comprehension...)."""


def literal_value(node: ast.expr) -> Any:
    """The value of a literal: constants, containers, number arithmetic; else NotLiteral."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -literal_value(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY_OPS:
        left, right = literal_value(node.left), literal_value(node.right)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (left, right)):
            raise NotLiteral
        return _BINARY_OPS[type(node.op)](left, right)
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(literal_value(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return frozenset(literal_value(e) for e in node.elts)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("frozenset", "set", "tuple")
        and len(node.args) <= 1
        and not node.keywords
    ):
        return frozenset(literal_value(node.args[0])) if node.args else frozenset()
    raise NotLiteral


def canonical(value: Any) -> str:
    """A stable text for a value: sets sorted, so two spellings of one set compare equal."""
    if isinstance(value, frozenset):
        return "{" + ", ".join(sorted(canonical(v) for v in value)) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(canonical(v) for v in value) + ")"
    return f"{type(value).__name__}:{value!r}"


def module_constants(tree: ast.Module) -> Iterator[tuple[str, str, int]]:
    """(name, canonical value, line) of each module-level assignment of a literal to one name."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        else:
            continue
        if not isinstance(target, ast.Name) or target.id.startswith("__"):
            continue
        try:
            yield target.id, canonical(literal_value(value)), stmt.lineno
        except NotLiteral:
            continue


def enum_member_sets(tree: ast.Module) -> Iterator[tuple[str, frozenset[str], int]]:
    """(class name, member names, line) of each Enum class anywhere in the module."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = {
            b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases
        }
        if not bases & ENUM_BASES:
            continue
        members = frozenset(
            t.id
            for stmt in node.body
            if isinstance(stmt, ast.Assign)
            for t in stmt.targets
            if isinstance(t, ast.Name) and not t.id.startswith("_")
        )
        if members:
            yield node.name, members, node.lineno


def product_files(root: Path, packages: tuple[str, ...]) -> Iterator[tuple[str, ast.Module]]:
    """(path relative to root, syntax tree) of every Python file under the packages."""
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            yield str(path.relative_to(root)), ast.parse(path.read_text(encoding="utf-8"))


def duplicate_constants(root: Path, packages: tuple[str, ...] = SCANNED_PACKAGES) -> list[str]:
    """One line per (name, value) assigned at module level in two or more modules."""
    places: dict[tuple[str, str], list[str]] = defaultdict(list)
    for rel, tree in product_files(root, packages):
        for name, value, line in module_constants(tree):
            places[(name, value)].append(f"{rel}:{line}")
    return [
        f"{name} = {value} in {', '.join(where)}"
        for (name, value), where in sorted(places.items())
        if len({w.rsplit(":", 1)[0] for w in where}) > 1 and (name, value) not in ALLOWED
    ]


def duplicate_enums(root: Path, packages: tuple[str, ...] = SCANNED_PACKAGES) -> list[str]:
    """One line per set of enum member names declared by two or more Enum classes."""
    places: dict[frozenset[str], list[str]] = defaultdict(list)
    for rel, tree in product_files(root, packages):
        for name, members, line in enum_member_sets(tree):
            places[members].append(f"{rel}:{line} {name}")
    return [
        f"enum members {sorted(members)} in {'; '.join(where)}"
        for members, where in places.items()
        if len(where) > 1
    ]


def test_no_constant_defined_twice() -> None:
    found = duplicate_constants(ROOT)
    assert not found, "defined twice (import it from its one home instead):\n" + "\n".join(found)


def test_no_enum_defined_twice() -> None:
    found = duplicate_enums(ROOT)
    assert not found, "enum declared twice:\n" + "\n".join(found)


def test_allow_list_entries_still_occur_twice() -> None:
    """A stale allow-list entry would let a future real duplicate of that name through unseen."""
    places: dict[tuple[str, str], set[str]] = defaultdict(set)
    for rel, tree in product_files(ROOT, SCANNED_PACKAGES):
        for name, value, _ in module_constants(tree):
            places[(name, value)].add(rel)
    stale = [key for key in ALLOWED if len(places.get(key, ())) < 2]
    assert not stale, f"allow-list entries no longer duplicated: {stale}"


@pytest.fixture
def fake_tree(tmp_path: Path) -> Path:
    """A tiny product tree with one duplicated constant, one duplicated enum and near misses."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text(
        "import enum\n"
        "NANOS_PER_MILLI = 1_000_000\n"
        "KINDS = frozenset({'sum', 'max'})\n"
        "OTHER = 1\n"
        "class Kind(enum.Enum):\n"
        "    SUM = 'sum'\n"
        "    MAX = 'max'\n"
    )
    (pkg / "sub" / "b.py").write_text(
        "from enum import Enum\n"
        "NANOS_PER_MILLI: int = 1000 * 1000\n"
        "KINDS = {'max', 'sum'}\n"
        "OTHER = 2\n"
        "def f():\n"
        "    class Fn(str, Enum):\n"
        "        MAX = 'max'\n"
        "        SUM = 'sum'\n"
        "    return Fn\n"
    )
    return tmp_path


def test_self_test_catches_a_constant_written_twice(fake_tree: Path) -> None:
    found = duplicate_constants(fake_tree, ("pkg",))
    assert [line.split(" = ")[0] for line in found] == ["KINDS", "NANOS_PER_MILLI"]
    assert "pkg/a.py:2" in found[1] and "pkg/sub/b.py:2" in found[1]


def test_self_test_catches_an_enum_declared_twice(fake_tree: Path) -> None:
    found = duplicate_enums(fake_tree, ("pkg",))
    assert len(found) == 1
    assert "pkg/a.py:5 Kind" in found[0] and "pkg/sub/b.py:6 Fn" in found[0]
