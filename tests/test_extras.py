"""Lean core: fitting needs only the core dependencies; a plot without matplotlib (the ``bench``
extra) raises an ImportError that names the extra. The wheel test (``tests/test_wheel.py``) checks
the same in a fresh environment without matplotlib."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pandas as pd
import pytest

from tsattn._plotting import pyplot
from tsattn.analysis import plot_ratios

ROOT = Path(__file__).resolve().parents[1]
tomllib = pytest.importorskip("tomllib", reason="Python < 3.11 has no tomllib")


def _extras() -> tuple[list[str], dict[str, list[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["dependencies"], project["optional-dependencies"]


def test_matplotlib_is_the_bench_extra_not_a_core_dependency():
    core, extras = _extras()
    assert not any(dep.startswith("matplotlib") for dep in core)
    assert any(dep.startswith("matplotlib") for dep in extras["bench"])


def test_a_plot_without_matplotlib_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises
    with pytest.raises(ImportError, match=r"tsattn's plot needs matplotlib.*tsattn\[bench\]"):
        pyplot("tsattn's plot")
    df = pd.DataFrame({"variant": ["softmax"], "N": [8], "D": [16], "flops_train": [1.0]})
    with pytest.raises(ImportError, match=r"plot_ratios needs matplotlib.*pip install 'tsattn\[bench\]'"):
        plot_ratios(df, tmp_path / "p.png", metrics=("flops_train",))


def test_the_test_bootstrap_installs_every_extra_the_tests_import():
    text = (ROOT / "scripts" / "bootstrap.sh").read_text(encoding="utf-8")
    for extra in ("test", "sktime", "tune", "stats", "dask", "bench", "docs"):
        assert extra in text.split('extras="[', 1)[1].split("]", 1)[0].split(","), extra


def test_every_matplotlib_import_goes_through_the_plotting_module():
    """So that every plot without the extra fails with the message naming it."""
    direct = []
    for path in sorted((ROOT / "tsattn").rglob("*.py")):
        if path.name == "_plotting.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n == "matplotlib" or n.startswith("matplotlib.") for n in names):
                direct.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not direct, f"use tsattn._plotting.pyplot(...) instead of importing matplotlib: {direct}"
