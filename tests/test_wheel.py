"""The package as a user gets it: ``python -m build`` makes an sdist and, from it, a wheel; the
wheel installs with no extra into a fresh virtual environment, where the three estimators fit and
predict, a saved model loads, and nothing imports matplotlib (the ``bench`` extra).

The environment is made without ``--system-site-packages`` (the test environment has matplotlib),
so pip resolves the wheel's real dependencies. torch is pinned to the version running the tests:
on the project's machines that is a local CPU build (a plain resolve could pick a newer torch and
its CUDA packages). About a minute and a half on two cores.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import torch

from tests.helpers.product import require
from tsattn._version import __version__

ROOT = Path(__file__).resolve().parents[1]
# what a source checkout holds that the build does not read (and is large or machine-made)
IGNORED = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", "build", "dist",
                                 "_build", "results", ".pytest_cache", ".ruff_cache")  # fmt: skip

USER_SCRIPT = r"""
import importlib.metadata, importlib.util, json, sys, warnings
import numpy as np
import pandas as pd

assert importlib.util.find_spec("matplotlib") is None, "matplotlib is in the core environment"
import tsattn
from tsattn import TSClassifier, TSForecaster, TSRegressor
from tsattn.datasets import catalogue
from tsattn.estimators import InconsistentVersionWarning

warnings.simplefilter("error", InconsistentVersionWarning)  # same versions: a silent load

tiny = dict(d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=2, max_steps=None,
            random_state=0, device="cpu")
rng = np.random.default_rng(0)
X = rng.normal(size=(16, 2, 12))
y = np.array(["a", "b"] * 8)
clf = TSClassifier(**tiny).fit(X, y)
reg = TSRegressor(**tiny).fit(X, np.linspace(0, 1, 16))
t = np.arange(80)
frame = pd.DataFrame(np.stack([np.sin(t / 3), np.cos(t / 5)], axis=1),
                     index=pd.date_range("2021-01-01", periods=80, freq="h"))
fc = TSForecaster(**tiny, horizon=4, context_length=16).fit(frame)
loaded = TSClassifier.load(clf.save("model.tsattn"))
assert (loaded.predict(X) == clf.predict(X)).all()
try:
    from tsattn.analysis import plot_ratios
    plot_ratios(pd.DataFrame({"variant": ["softmax"], "N": [8], "D": [8], "t": [1.0]}), "p.png",
                metrics=("t",))
    plot_error = ""
except ImportError as err:
    plot_error = str(err)
print(json.dumps({
    "file": tsattn.__file__, "version": tsattn.__version__,
    "metadata_version": importlib.metadata.version("tsattn"),
    "classes": list(map(str, clf.classes_)), "regression": list(reg.predict(X).shape),
    "forecast": list(fc.predict().shape), "published": len(catalogue()["published"]),
    "plot_error": plot_error,
}))
"""


def _run(cmd: list, cwd: Path, timeout: int = 600) -> str:
    result = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                            timeout=timeout)  # fmt: skip
    assert result.returncode == 0, f"{cmd} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
    return result.stdout


@pytest.mark.integration
def test_the_wheel_installs_with_no_extra_and_fits_every_estimator(tmp_path):
    require(["build"], "test")
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=IGNORED)
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--outdir", dist, source], cwd=tmp_path)  # sdist, then wheel

    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    assert wheel.name == f"tsattn-{__version__}-py3-none-any.whl", "one version, from _version.py"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"tsattn-{__version__}.dist-info/METADATA").decode()
    assert {"tsattn/datasets/catalogue.json", "tsattn/py.typed"} <= names
    assert not any(n.startswith(("tests/", "docs/", "notebooks/")) for n in names)
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    core = [r for r in requires if "extra ==" not in r]
    assert not any("matplotlib" in r for r in core), core
    assert any("matplotlib" in r and 'extra == "bench"' in r for r in requires)
    with tarfile.open(sdist) as archive:
        assert f"tsattn-{__version__}/CHANGELOG.md" in archive.getnames()

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=tmp_path)
    python = venv / "bin" / "python"
    torch_pin = f"torch=={torch.__version__.split('+')[0]}"
    _run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", torch_pin, wheel],
         cwd=tmp_path)  # fmt: skip

    work = tmp_path / "work"  # not the checkout: tsattn must come from the installed wheel
    work.mkdir()
    report = json.loads(_run([python, "-c", USER_SCRIPT], cwd=work).strip().splitlines()[-1])
    assert report["file"].startswith(str(venv)), report["file"]
    assert report["version"] == report["metadata_version"] == __version__
    assert report["classes"] == ["a", "b"] and report["regression"] == [16]
    assert report["forecast"] == [4, 2] and report["published"] > 0
    assert "pip install 'tsattn[bench]'" in report["plot_error"], report["plot_error"]
    assert "usage: tsattn" in _run([venv / "bin" / "tsattn", "--help"], cwd=work)
