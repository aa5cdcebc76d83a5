"""The shape of the package: no import cycle among the modules of ``src/brecha``, no source file over 600
lines (docs/ARCHITECTURE.md, "Data flows one way").

The import graph is read from the source with ``ast``, not by importing: every ``import`` and
``from ... import`` counts, at module level and inside functions (a lazy import is still a dependency;
it only hides a cycle until the function runs). Relative imports are resolved. ``import a.b`` and
``from a import b`` (b a submodule) are edges to the submodule ``a.b``; ``from a import name`` (a name
defined in ``a/__init__.py``) is an edge to the package ``a``. Imports under ``if TYPE_CHECKING:`` are left
out: they never run, they only name a type for annotations.

A cycle is a strongly connected component of more than one module (Tarjan's algorithm); the failure
lists each one with the import statements (file and line) that close it.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "brecha"
MAX_LINES = 600


def module_names(root: Path) -> dict[str, Path]:
    """{dotted module name: file} for every .py file of the package at ``root`` (``pkg/__init__.py`` is
    ``pkg``)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST):
    """Every Import / ImportFrom node, at any depth, except those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _known(name: str, modules) -> str | None:
    """``name`` if it is a module of the package, else its nearest enclosing module (``a.b.attr`` -> ``a.b``),
    or None outside the package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _targets(module: str, path: Path, node, modules) -> list[str]:
    """The modules one import statement of ``module`` depends on."""
    if isinstance(node, ast.Import):
        return [t for t in (_known(a.name, modules) for a in node.names) if t]
    if node.level:
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        parts = package.split(".")
        parts = parts[:len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    out = []
    for alias in node.names:
        target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else _known(base, modules)
        if target:
            out.append(target)
    return out


def import_graph(root: Path) -> dict[str, dict[str, int]]:
    """{module: {imported module: line of the first import statement}} inside the package at ``root``."""
    modules = module_names(root)
    graph: dict[str, dict[str, int]] = {m: {} for m in modules}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _import_nodes(tree):
            for target in _targets(module, path, node, modules):
                if target != module:
                    line = graph[module].get(target, node.lineno)
                    graph[module][target] = min(line, node.lineno)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan 1972), each sorted, in order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def describe(component: list[str], graph, root: Path, base: Path | None = None) -> str:
    """One cycle as text: its modules, then each import inside it as ``file:line: a -> b`` (the file
    relative to ``base``, by default the folder holding the package)."""
    modules = module_names(root)
    lines = [" <-> ".join(component)]
    for a in component:
        for b, line in sorted(graph[a].items()):
            if b in component:
                lines.append(f"    {modules[a].relative_to(base or root.parent)}:{line}: {a} -> {b}")
    return "\n".join(lines)


def test_no_import_cycle_among_the_modules_of_brecha():
    graph = import_graph(PACKAGE)
    assert len(graph) > 50 and sum(len(t) for t in graph.values()) > 100  # the graph was read at all
    found = cycles(graph)
    assert not found, "import cycles (move what the modules share below both, or merge them):\n" + "\n".join(
        describe(c, graph, PACKAGE, PACKAGE.parents[1]) for c in found)


def test_no_source_file_over_600_lines():
    sizes = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in PACKAGE.rglob("*.py")}
    over = sorted((n, str(p.relative_to(PACKAGE.parent.parent))) for p, n in sizes.items() if n > MAX_LINES)
    assert not over, f"source files over {MAX_LINES} lines (split each along an idea):\n" + "\n".join(
        f"    {path}: {n}" for n, path in over)


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_the_graph_sees_lazy_relative_and_package_imports(tmp_path):
    """The detector on a small package whose cycles are known: a lazy import inside a function closes
    a <-> b; ``from .sub import thing`` (a name of sub/__init__) is an edge to the package ``pkg.sub``,
    whose __init__ imports c back; ``from . import d`` is an edge to the submodule d; an import under
    ``if TYPE_CHECKING:`` is no edge; ``import pkg.sub.e`` is an edge to pkg.sub.e."""
    root = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "import os\n\ndef f():\n    from . import b\n    return b\n",
        "pkg/b.py": "from .a import f\n",
        "pkg/c.py": "from .sub import thing\nfrom . import d\n",
        "pkg/d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import x\n",
        "pkg/sub/__init__.py": "from ..c import y\nthing = 1\n",
        "pkg/sub/e.py": "import pkg.d\n",
        "pkg/f.py": "import pkg.sub.e\n",
    })
    graph = import_graph(root)
    assert graph["pkg.a"] == {"pkg.b": 4}
    assert graph["pkg.c"] == {"pkg.sub": 1, "pkg.d": 2}
    assert graph["pkg.d"] == {}
    assert graph["pkg.sub.e"] == {"pkg.d": 1}
    assert graph["pkg.f"] == {"pkg.sub.e": 1}
    assert cycles(graph) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.sub"]]
    text = describe(["pkg.a", "pkg.b"], graph, root)
    assert text.splitlines() == ["pkg.a <-> pkg.b", f"    {Path('pkg/a.py')}:4: pkg.a -> pkg.b",
                                 f"    {Path('pkg/b.py')}:1: pkg.b -> pkg.a"]
