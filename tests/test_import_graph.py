"""The import graph of ``tsattn/``: no loops between files or packages, every edge points down.

Floors, lowest first (``docs/guide/contributing.md``, "What may import what"): data utilities and leaf layers, attention, nn,
training, estimators, analysis, then adapters / benchmarks / tuning, the commands and the command
line. An edge between two packages must go to a lower floor; inside a package the files form no
loop. Imports are read with ``ast`` (function-level imports count too); ``if TYPE_CHECKING:`` blocks
are not imports at run time and are skipped.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tsattn"

#: Every top-level unit of the package and its floor. A new package or module must be placed here.
FLOORS = {
    "tsattn._version": 0,
    "tsattn._filelock": 0,
    "tsattn._validation": 0,
    "tsattn._registry": 0,
    "tsattn._parallel": 0,
    "tsattn._plotting": 0,
    "tsattn.io": 1,
    "tsattn.datasets": 1,
    "tsattn.layers": 1,
    "tsattn.attention": 2,
    "tsattn.nn": 3,
    "tsattn.training": 4,
    "tsattn.estimators": 5,
    # the lazy facade (``from tsattn import TSClassifier``) stands for the estimators and attention
    "tsattn": 5.5,
    "tsattn.analysis": 6,
    "tsattn.plotting": 6,
    "tsattn.adapters": 7,
    "tsattn.benchmarks": 7,
    "tsattn.tuning": 7,
    "tsattn.commands": 8,
    "tsattn.cli": 9,
    "tsattn.__main__": 10,
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The tsattn modules that ``name`` (at ``path``) imports."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "tsattn")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if base.split(".")[0] == "tsattn":
                for alias in node.names:  # a submodule when one of that name exists
                    sub = f"{base}.{alias.name}"
                    found.add(sub if sub in modules else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return found


def _unit(module: str) -> str:
    """The package (or top-level module) holding ``module``; the root facade only for itself."""
    parts = module.split(".")
    return ".".join(parts[:2])


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, name, modules) for name, path in modules.items()}


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := dfs(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := dfs(node)):
            return found
    return None


def test_every_unit_has_a_floor(graph):
    missing = sorted({_unit(m) for m in graph} - set(FLOORS))
    assert not missing, f"place these in FLOORS (tests/test_import_graph.py): {missing}"


def test_no_loop_between_files(graph):
    assert _cycle(graph) is None, f"import loop: {' -> '.join(_cycle(graph))}"


def test_no_loop_between_packages(graph):
    packages: dict[str, set[str]] = {}
    for src, targets in graph.items():
        packages.setdefault(_unit(src), set()).update(
            _unit(t) for t in targets if _unit(t) != _unit(src)
        )
    assert _cycle(packages) is None, f"package loop: {' -> '.join(_cycle(packages))}"


def test_every_edge_between_packages_points_down(graph):
    upward = [
        f"{src} -> {dst}"
        for src, targets in graph.items()
        for dst in sorted(targets)
        if _unit(src) != _unit(dst) and FLOORS[_unit(dst)] >= FLOORS[_unit(src)]
    ]
    assert not upward, "imports pointing up or sideways:\n" + "\n".join(upward)


def test_the_check_finds_an_upward_edge():
    """The rule can fail: an attention module importing from nn is reported."""
    modules = _modules()
    fake = {"tsattn.attention.fake": {"tsattn.nn.heads"}, **{m: set() for m in modules}}
    bad = [
        (s, d) for s, ts in fake.items() for d in ts if FLOORS[_unit(d)] >= FLOORS[_unit(s)]
    ]
    assert bad == [("tsattn.attention.fake", "tsattn.nn.heads")]
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]


def test_package_init_does_not_need_import_order_directives():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "isort: off" not in text and "isort:skip" not in text, path
