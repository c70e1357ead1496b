"""Every notebook runs top to bottom in quick mode (``TSATTN_QUICK=1``) in the default test run
(each in well under a minute), and in full mode, as a user runs it, under ``-m slow``.

Each notebook runs in a fresh Jupyter kernel of *this* Python (a kernel spec written for the test,
so no ``python3`` kernel installed elsewhere can stand in) that imports *this* checkout's tsattn
(``PYTHONPATH``), without a display (``DISPLAY`` and ``MPLBACKEND`` removed: matplotlib's inline
backend draws with Agg into PNG outputs). A cell that raises fails the test. Cells tagged
``plot-...`` must have produced a PNG, and each notebook must hold the plots it promises
(:data:`PLOTS`). The stored notebooks carry no outputs (strip them with
``.venv/bin/python scripts/strip_notebooks.py``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import time
from pathlib import Path

import nbclient
import nbformat
import pytest

from tests.helpers import REPO_ROOT as ROOT

NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))

#: Tags of the cells whose figures each notebook must show (every ``plot-`` cell needs a PNG).
PLOTS = {
    "quickstart.ipynb": {"plot-training-curves"},
    "tuning.ipynb": {"plot-optuna"},
    "attention_zoo.ipynb": {"plot-zoo-accuracy", "plot-attention-maps", "plot-efficiency"},
    "forecasting.ipynb": {"plot-forecast-test", "plot-forecast-future", "plot-sktime"},
    "cross_validation.ipynb": {"plot-grid-search"},
    "panels.ipynb": {"plot-m4-forecasts", "plot-epf-forecast"},
}
#: Optional packages a notebook imports (beyond the core dependencies); all come with
#: ``bash scripts/bootstrap.sh test``.
REQUIRES = {
    "tuning.ipynb": ("optuna",),
    "cross_validation.ipynb": ("optuna",),
    "forecasting.ipynb": ("sktime", "statsmodels"),
}
#: Notebooks reading a forecasting set, found in ../shared/datasets (read only, offline).
NEEDS_SHARED_DATA = {"forecasting.ipynb", "panels.ipynb"}
#: A notebook's quick mode should take well under a minute here; this bound catches one that
#: lost its quick mode (full runs take many minutes), with room for a busy machine.
QUICK_BUDGET_S = 300
#: Full mode trains every model with its defaults: the longest notebook takes about 20 minutes.
FULL_CELL_TIMEOUT_S = 3600
KERNEL = "tsattn-notebook-tests"

PROBE = """\
import json, os, sys
import matplotlib
import matplotlib.pyplot as plt
from matplotlib.backends.backend_agg import FigureCanvasAgg
import tsattn
_fig = plt.figure()
print(json.dumps({"executable": sys.executable, "tsattn": tsattn.__file__,
                  "backend": matplotlib.get_backend(), "display": os.environ.get("DISPLAY"),
                  "agg_canvas": isinstance(_fig.canvas, FigureCanvasAgg)}))
plt.close(_fig)
"""


def test_there_are_notebooks_and_each_promises_its_plots():
    assert len(NOTEBOOKS) >= 5, [p.name for p in NOTEBOOKS]
    assert {p.name for p in NOTEBOOKS} == set(PLOTS), "add the new notebook's plots to PLOTS"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_clean_with_a_quick_mode(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    dirty = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and (c.outputs or c.execution_count is not None)]  # fmt: skip
    assert not dirty, (
        f"{path.name}: cells {dirty} carry outputs; run .venv/bin/python scripts/strip_notebooks.py"
    )
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "TSATTN_QUICK" in code, f"{path.name} has no quick mode (TSATTN_QUICK)"
    # public API only: no private module or name of tsattn, data through tsattn.datasets
    private = re.findall(r"tsattn(?:\.\w+)*\._\w+|from tsattn[\w.]* import .*\b_\w+", code)
    assert not private, f"{path.name} uses private names: {private}"
    assert "tsattn.datasets" in code and "read_csv" not in code, path.name
    tags = {t for c in nb.cells for t in c.metadata.get("tags", [])}
    assert PLOTS[path.name] <= tags, f"{path.name} lacks cells tagged {PLOTS[path.name] - tags}"


@pytest.fixture(
    params=[pytest.param(True, id="quick"), pytest.param(False, id="full", marks=pytest.mark.slow)]
)
def kernel_env(request, tmp_path, monkeypatch, shared_datasets_if_any):
    """A kernel spec running this Python, and the kernel's environment: quick mode (or full mode,
    slow), this checkout first on the path, no display, one thread per kernel (pytest -n 2 runs two
    side by side)."""
    spec_dir = tmp_path / "jupyter" / "kernels" / KERNEL
    spec_dir.mkdir(parents=True)
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "tsattn tests", "language": "python"}  # fmt: skip
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    env = dict(os.environ)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "MPLBACKEND"):
        env.pop(name, None)
    threads = os.environ.get("TSATTN_TEST_THREADS", "1")
    env.update(
        TSATTN_QUICK="1" if request.param else "0",
        PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])]),
        OMP_NUM_THREADS=threads,
        MKL_NUM_THREADS=threads,
        TSATTN_OFFLINE="1",  # nothing downloads: the sets come with aeon or from ../shared
        TSATTN_DATA_DIR=str(shared_datasets_if_any or tmp_path / "data"),
        MPLCONFIGDIR=str(tmp_path / "mpl"),
    )
    workdir = tmp_path / "run"  # files a notebook writes land here, not in the repository
    workdir.mkdir()
    return env, workdir, request.param


@pytest.mark.integration
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, kernel_env, request):
    for module in REQUIRES.get(path.name, ()):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{path.name} needs {module}: bash scripts/bootstrap.sh test")
    if path.name in NEEDS_SHARED_DATA:
        request.getfixturevalue("shared_datasets")  # skips without the shared folder
    env, workdir, quick = kernel_env
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    client = nbclient.NotebookClient(
        nb, timeout=QUICK_BUDGET_S if quick else FULL_CELL_TIMEOUT_S, kernel_name=KERNEL,
        resources={"metadata": {"path": str(workdir)}},
    )  # fmt: skip
    start = time.perf_counter()
    client.execute(env=env)  # a cell that raises raises CellExecutionError here
    seconds = time.perf_counter() - start
    print(f"{path.name}: {seconds:.1f} s in {'quick' if quick else 'full'} mode")

    probe = json.loads(_text(nb.cells[-1]).strip().splitlines()[-1])
    assert Path(probe["executable"]).resolve() == Path(sys.executable).resolve(), probe
    assert Path(probe["tsattn"]).resolve().is_relative_to(ROOT), probe
    assert probe["display"] is None and probe["agg_canvas"], probe
    assert "inline" in probe["backend"], probe

    tagged = {}
    for cell in nb.cells:
        for tag in cell.metadata.get("tags", []):
            if tag.startswith("plot-"):
                tagged[tag] = any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))
    missing = sorted(tag for tag, has_png in tagged.items() if not has_png)
    assert not missing, f"{path.name}: no PNG output in the cells tagged {missing}"
    assert PLOTS[path.name] <= set(tagged)
    assert not quick or seconds < QUICK_BUDGET_S, f"{path.name} took {seconds:.0f} s in quick mode"


def _text(cell) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.get("output_type") == "stream")
