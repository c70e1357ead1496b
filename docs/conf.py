"""Sphinx configuration of tsattn's documentation site.

Build (``pip install -e '.[docs]'``), warnings as errors, as ``tests/test_docs.py`` does::

    sphinx-build -W --keep-going -b html docs docs/_build/html

The API reference is generated from the package: one page per public package listing what its
``__all__`` exports (each object documented once, under the first package that exports it), and
one page per exported object from its numpydoc docstring. The variants table of the attention
guide comes from :func:`tsattn.attention.variants_table`. The notebooks are rendered as committed
(outputs stripped), not executed. Everything generated lands in folders that git ignores.
"""

from __future__ import annotations

import importlib
import inspect
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # document this checkout, not another installed tsattn

import tsattn  # noqa: E402
from tsattn.attention import (  # noqa: E402
    choosing_table,
    get_attention_class,
    list_attention,
    variants_table,
)

project = "tsattn"
author = "the tsattn developers"
copyright = "the tsattn developers"
release = tsattn.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
# results/ holds the experiments' records (README, CSV, logs): linked by path, not built
# guide/_*.md are pieces that pages include
exclude_patterns = ["_build", "results", "guide/_*", "**/.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc sections state the types
numpydoc_show_class_members = False  # the templates list the members with autodoc
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # rendered as committed; tests/test_notebooks.py executes them

html_theme = "pydata_sphinx_theme"
html_title = f"tsattn {release}"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
html_static_path: list[str] = []

# ----------------------------------------------------------------------------- generated sources
#: The public packages, in the order of the API reference (the floors of docs/guide/contributing.md, top first).
#: ``tests/test_docs.py`` checks that every public package of tsattn is here.
PACKAGES = [
    "tsattn",
    "tsattn.estimators",
    "tsattn.estimators.persistence",
    "tsattn.estimators.forecaster",
    "tsattn.attention",
    "tsattn.attention.functional",
    "tsattn.attention.weights",
    "tsattn.nn",
    "tsattn.layers",
    "tsattn.training",
    "tsattn.io",
    "tsattn.datasets",
    "tsattn.tuning",
    "tsattn.adapters.aeon",
    "tsattn.adapters.sktime",
    "tsattn.analysis",
    "tsattn.plotting",
    "tsattn.benchmarks",
    "tsattn.commands",
]


def _write(path: Path, text: str) -> None:
    """Write ``text`` unless ``path`` holds it already (so Sphinx sees no change)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _template(obj) -> str:
    return "class.rst" if inspect.isclass(obj) else "function.rst"


def _api_pages() -> tuple[list[str], set[str]]:
    """Write ``api/<package>.rst`` for every package of :data:`PACKAGES`; return their names and
    the names of the object pages that autosummary will write under ``api/generated/``."""
    documented: dict[int, str] = {}
    pages = []
    stubs = set()
    for name in PACKAGES:
        module = importlib.import_module(name)
        lines = [name, "=" * len(name), "", f".. automodule:: {name}", "   :no-members:", "",
                 f".. currentmodule:: {name}", ""]  # fmt: skip
        groups: dict[str, list[str]] = {}
        again = []
        for export in module.__all__:
            obj = getattr(module, export)
            if inspect.ismodule(obj):
                again.append(f":mod:`{obj.__name__}`")
                continue
            if not (inspect.isclass(obj) or callable(obj)):
                groups.setdefault("data.rst", []).append(export)
                continue
            if id(obj) in documented:
                role = "class" if inspect.isclass(obj) else "func"
                again.append(f":{role}:`{documented[id(obj)]}`")
                continue
            documented[id(obj)] = f"{name}.{export}"
            groups.setdefault(_template(obj), []).append(export)
        stubs |= {f"{name}.{export}.rst" for names in groups.values() for export in names}
        for template, names in groups.items():
            lines += _autosummary(template, names)
        if again:
            lines += [f"Also exported here: {', '.join(again)}.", ""]
        if name == "tsattn.attention":
            classes = [get_attention_class(variant) for variant in list_attention()]
            lines += ["Variants", "--------", "", "One class per registered name "
                      "(:func:`list_attention`); the attention guide gives their formulas.", ""]
            lines += _autosummary("class.rst", [
                f"~{c.__module__.removeprefix(name + '.')}.{c.__qualname__}" for c in classes])
            stubs |= {f"{c.__module__}.{c.__qualname__}.rst" for c in classes}
        _write(DOCS / "api" / f"{name}.rst", "\n".join(lines))
        pages.append(name)
    return pages, stubs


def _remove_stale(folder: Path, pattern: str, keep: set[str]) -> None:
    """Delete the generated files of ``folder`` that nothing generates any more (a renamed object's
    page would otherwise stay, outside every toctree)."""
    for path in folder.glob(pattern):
        if path.name not in keep:
            path.unlink()


def _autosummary(template: str, names: list[str]) -> list[str]:
    """An autosummary table of ``names`` whose pages autosummary writes from ``template``."""
    return [".. autosummary::", "   :toctree: generated", f"   :template: autosummary/{template}",
            "   :nosignatures:", "", *(f"   {n}" for n in names), ""]  # fmt: skip


def _generate() -> None:
    pages, stubs = _api_pages()
    _remove_stale(DOCS / "api", "*.rst", {f"{p}.rst" for p in pages} | {"index.rst"})
    _remove_stale(DOCS / "api" / "generated", "*.rst", stubs)
    _write(DOCS / "api" / "index.rst", "\n".join([
        "API reference", "=============", "",
        "Every object that a public package exports (its ``__all__``), generated from the",
        "docstrings. Imports point down the list: estimators build on the networks (``nn``), which",
        "build on the attention variants and layers.", "",
        ".. toctree::", "   :maxdepth: 1", "", *(f"   {p}" for p in pages), ""]))  # fmt: skip
    _write(DOCS / "guide" / "_variants.md", variants_table())
    _write(DOCS / "guide" / "_choosing.md", choosing_table())
    # the notebooks live in notebooks/ at the root; Sphinx reads sources under docs/ only
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    _remove_stale(DOCS / "notebooks", "*.ipynb", {n.name for n in notebooks})
    for notebook in notebooks:
        target = DOCS / "notebooks" / notebook.name
        if not target.is_file() or target.read_bytes() != notebook.read_bytes():
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(notebook, target)


_ESTIMATOR_PARAMS = {name for cls in (tsattn.TSClassifier, tsattn.TSRegressor, tsattn.TSForecaster)
                     for name in cls().get_params()}  # fmt: skip


def _skip_foreign(app, what, name, obj, skip, options):
    """Leave out the class members that another library defines (scikit-learn's ``score`` and
    metadata-routing methods, torch's ``Module`` methods, aeon's and sktime's base methods): the
    class pages inherit members, but those are documented, and cross-referenced, by their owners."""
    if what != "class" or skip:
        return None
    if name in _ESTIMATOR_PARAMS and not callable(obj):
        return True  # the estimators' parameters: documented in the Parameters section
    target = getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj
    module = getattr(target, "__module__", None)
    if isinstance(module, str) and module.split(".")[0] != "tsattn":
        return True
    if module is None and (inspect.isbuiltin(target) or inspect.ismethoddescriptor(target)):
        return True  # e.g. the exceptions' with_traceback and add_note
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign)


# when conf.py is read, before Sphinx lists the sources and autosummary writes the object pages
_generate()
