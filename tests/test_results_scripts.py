"""The scripts under ``docs/results/`` use tsattn's public API only: no private module
(``tsattn.estimators._anchor``) and no private name (``from tsattn.benchmarks.forecast import
_Data``), so a change inside the package cannot silently break the record of how a result was
made. Read with ``ast``; function-level imports count too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


def private_imports(source: str) -> list[str]:
    """The private tsattn modules and names that ``source`` imports, as written."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
            names: list[str] = []
        elif isinstance(node, ast.ImportFrom) and not node.level:
            modules, names = [node.module or ""], [a.name for a in node.names]
        else:
            continue
        for module in modules:
            if module.split(".")[0] != "tsattn":
                continue
            if any(part.startswith("_") for part in module.split(".")):
                found.append(module)
            found.extend(f"{module}.{n}" for n in names if n.startswith("_"))
    return found


@pytest.mark.parametrize("source, found", [
    ("from tsattn.estimators import _anchor", ["tsattn.estimators._anchor"]),
    ("import tsattn.estimators._anchor as a", ["tsattn.estimators._anchor"]),
    ("from tsattn.estimators._intervals import LEVELS", ["tsattn.estimators._intervals"]),
    ("def f():\n    from tsattn.benchmarks.forecast import BenchmarkData, _Data",
     ["tsattn.benchmarks.forecast._Data"]),
    ("from tsattn.estimators import anchors\nfrom _common import setup\nimport numpy._core", []),
    ("from tsattn.nn.forecasting import LinearAnchor\nfrom __future__ import annotations", []),
])  # fmt: skip
def test_the_scan_tells_private_imports_from_public_ones(source, found):
    assert private_imports(source) == found


def test_no_results_script_imports_a_private_part_of_tsattn():
    scripts = sorted(RESULTS.rglob("*.py"))
    assert len(scripts) > 10, "docs/results/ holds the scripts behind the results"
    hits = [f"{p.relative_to(RESULTS)}: {m}" for p in scripts
            for m in private_imports(p.read_text(encoding="utf-8"))]  # fmt: skip
    assert not hits, ("scripts under docs/results/ import private tsattn parts; use the public "
                      "API (make the piece public if a script needs it):\n" + "\n".join(hits))
