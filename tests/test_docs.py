"""The documentation site builds with warnings as errors, and every public object has its page.

A broken docstring (bad reST, an unterminated literal, a numpydoc section gone wrong) fails here.
The build writes its generated sources under docs/ (git ignores them) and its HTML under tmp_path.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tsattn
from tests.helpers.product import require

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _conf_packages() -> list[str]:
    namespace: dict = {}
    text = (DOCS / "conf.py").read_text(encoding="utf-8")
    start = text.index("PACKAGES = [")
    exec(text[start : text.index("]", start) + 1], namespace)  # the list alone, not the build
    return namespace["PACKAGES"]


def _public_packages() -> set[str]:
    """``tsattn`` and every public module of it that declares ``__all__`` (an ``__all__``-less
    package such as ``tsattn.adapters`` stands for its public modules)."""
    found = {"tsattn"}
    for info in pkgutil.walk_packages(tsattn.__path__, "tsattn."):
        if any(part.startswith("_") for part in info.name.split(".")) or info.name in {
            "tsattn.cli"
        }:
            continue
        parent = info.name.rsplit(".", 1)[0]
        module = importlib.import_module(info.name)
        if not hasattr(module, "__all__"):
            continue
        # a module whose package re-exports it is documented on the package's page
        if parent == "tsattn" or not hasattr(importlib.import_module(parent), "__all__"):
            found.add(info.name)
    return found


def test_every_public_package_has_an_api_page():
    listed = set(_conf_packages())
    public = _public_packages()
    assert public <= listed, f"add to PACKAGES in docs/conf.py: {sorted(public - listed)}"


@pytest.mark.integration
def test_the_site_builds_with_warnings_as_errors(tmp_path):
    require(["sphinx", "numpydoc", "myst_nb", "pydata_sphinx_theme"], "docs")
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, f"sphinx-build failed:\n{result.stderr[-6000:]}"
    html = tmp_path / "html"
    for name in _conf_packages():
        module = importlib.import_module(name)
        assert (html / "api" / f"{name}.html").is_file()
        for export in module.__all__:
            obj = getattr(module, export)
            if callable(obj) and not isinstance(obj, type(sys)):
                pages = list((html / "api" / "generated").glob(f"*.{export}.html"))
                assert pages, f"{name}.{export} has no page"
    for page in ("guide/attention", "guide/persistence", "install", "changelog"):
        assert (html / f"{page}.html").is_file()
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert notebooks and all((html / "notebooks" / f"{n}.html").is_file() for n in notebooks)
    assert not (html / "results").exists(), "docs/results/ holds records, not pages"
    print(f"docs built in {time.perf_counter() - start:.1f} s")


def test_a_missing_docs_extra_fails_in_ci_and_skips_elsewhere(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"no_such_module_xyz not installed.*\[docs\]"):
        require(["no_such_module_xyz"], "docs")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        require(["no_such_module_xyz"], "docs")
