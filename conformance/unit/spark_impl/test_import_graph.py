"""spark_impl's modules import each other in one direction (docs/architecture.md): no import
cycle, counting imports placed inside functions (an import moved into a function to dodge a
cycle still ties the two modules together). Imports of third-party packages (``pyspark``,
``py4j``, loaded lazily) are not part of the graph."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

import spark_impl

PACKAGE = "spark_impl"
PACKAGE_DIR = Path(spark_impl.__file__).parent


def module_names(package_dir: Path, package: str) -> set[str]:
    return {
        package if p.stem == "__init__" else f"{package}.{p.stem}" for p in package_dir.glob("*.py")
    }


def imported_modules(path: Path, package: str, modules: set[str]) -> set[str]:
    """The package's modules ``path`` imports anywhere in it (module level or in a function):
    ``import p.x``, ``from p.x import y``, ``from p import x`` and relative imports; ``from p
    import name`` of a non-module name is an import of the package itself."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = f"{package}.{base}" if base else package
            if base != package and not base.startswith(package + "."):
                continue
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.add(child if child in modules else base)
    return found


def import_graph(package_dir: Path, package: str) -> dict[str, set[str]]:
    modules = module_names(package_dir, package)
    graph = {}
    for path in package_dir.glob("*.py"):
        name = package if path.stem == "__init__" else f"{package}.{path.stem}"
        graph[name] = imported_modules(path, package, modules) - {name}
    return graph


def find_cycles(graph: Mapping[str, set[str]]) -> list[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[tuple[str, ...]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(tuple(sorted(component)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components)


def test_spark_impl_has_no_import_cycle() -> None:
    """Issue 21: no cycle is tolerated (a shared piece moves to a module below both)."""
    assert find_cycles(import_graph(PACKAGE_DIR, PACKAGE)) == []


def test_the_check_sees_a_cycle(tmp_path: Path) -> None:
    """A cycle closed by an import inside a function (and through ``from p import x`` and a
    relative import) is found; a lazy third-party import is not part of the graph."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("from pkg import b\nimport pyspark\n", encoding="utf-8")
    (package / "b.py").write_text("from .c import f\n", encoding="utf-8")
    (package / "c.py").write_text(
        "def f():\n    from pkg.a import g  # noqa: PLC0415\n    import py4j\n",
        encoding="utf-8",
    )
    (package / "d.py").write_text("from pkg.a import g\n", encoding="utf-8")
    graph = import_graph(package, "pkg")
    assert graph["pkg.c"] == {"pkg.a"}
    assert find_cycles(graph) == [("pkg.a", "pkg.b", "pkg.c")]
    (package / "c.py").write_text("def f():\n    import py4j\n", encoding="utf-8")
    assert find_cycles(import_graph(package, "pkg")) == []
