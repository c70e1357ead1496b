"""On a CUDA machine: every attention variant gives on the GPU what it gives on the CPU (where
``tests/attention/test_shared.py`` holds it to its reference), ``device="auto"`` picks the GPU,
fits with one ``random_state`` agree there (to rounding; bit for bit under torch's deterministic
algorithms), and a model fitted there loads on a machine without one. Skipped where CUDA is absent
(CI); run on a GPU machine with ``python -m pytest -m gpu`` (every GPU test, here and elsewhere).
"""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from tests.helpers import REPO_ROOT
from tests.helpers.reference_attention import TEST_CONFIGS
from tests.helpers.series import toy_series as _toy_series
from tsattn import TSClassifier, TSForecaster, TSRegressor, list_attention
from tsattn.attention import build_attention
from tsattn.nn.forecasting import window_phases

pytestmark = pytest.mark.gpu  # skipped without CUDA (conftest.py)

D_MODEL, N_HEADS = 16, 4
CUDA = torch.device("cuda")
TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_epochs=3, random_state=0)


def _cases():
    for name in list_attention():
        for i, cfg in enumerate(TEST_CONFIGS.get(name, [{}])):
            yield pytest.param(name, cfg, id=f"{name}-{i}")


def _inputs(b=3, n=11):
    g = torch.Generator().manual_seed(1)
    x = torch.randn(b, n, D_MODEL, generator=g, dtype=torch.float64)
    mask = torch.ones(b, n, dtype=torch.bool)
    mask[1, 7:] = False
    mask[2, 3:] = False
    return x, mask


@pytest.mark.parametrize("name,cfg", list(_cases()))
def test_variant_on_the_gpu_matches_the_cpu(name, cfg):
    torch.manual_seed(0)
    cpu = build_attention(name, D_MODEL, N_HEADS, **cfg).double().eval()
    gpu = copy.deepcopy(cpu).to(CUDA)
    x, mask = _inputs()
    xc, xg = x.clone().requires_grad_(), x.to(CUDA).requires_grad_()
    out_c, out_g = cpu(xc, mask), gpu(xg, mask.to(CUDA))
    torch.testing.assert_close(out_g.cpu()[mask], out_c[mask], rtol=1e-7, atol=1e-9)
    out_c[mask].sum().backward()
    out_g[mask.to(CUDA)].sum().backward()
    torch.testing.assert_close(xg.grad.cpu(), xc.grad, rtol=1e-6, atol=1e-8)
    for (pname, pc), pg in zip(cpu.named_parameters(), gpu.parameters(), strict=True):
        if pc.grad is not None:
            torch.testing.assert_close(pg.grad.cpu(), pc.grad, rtol=1e-6, atol=1e-8, msg=pname)


def _toy(n=40, seed=0):
    return _toy_series(n=n, c=2, length=30, seed=seed)


@pytest.mark.parametrize("attention", ["softmax", "bn_sh", "s3", "long_short"])
def test_classifier_fits_on_the_gpu_by_default_and_reproducibly(attention):
    """CUDA's backward kernels add in a varying order (atomics), so refits agree to rounding."""
    X, y = _toy()
    a = TSClassifier(attention=attention, **TINY).fit(X, y)
    assert a.device_.type == "cuda"
    assert all(p.device.type == "cuda" for p in a.module_.parameters())
    proba = a.predict_proba(X)
    assert proba.dtype == np.float64 and np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)
    b = TSClassifier(attention=attention, **TINY).fit(X, y)
    np.testing.assert_allclose(b.predict_proba(X), proba, rtol=1e-3, atol=1e-4)
    assert [r["train_loss"] for r in b.history_] == pytest.approx(
        [r["train_loss"] for r in a.history_], rel=1e-4
    )
    c = TSClassifier(attention=attention, **{**TINY, "random_state": 1}).fit(X, y)
    assert not np.allclose(c.predict_proba(X), proba, rtol=1e-3, atol=1e-4)  # the check can fail


def _run_python(script: str, *args: str, **env: str) -> str:
    root = str(REPO_ROOT)
    full = {**os.environ, **env}
    full["PYTHONPATH"] = os.pathsep.join([root, full.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], env=full,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.integration
def test_fits_are_bit_identical_under_torchs_deterministic_algorithms():
    """What the README tells a user who needs bit-identical GPU refits (cuBLAS needs its workspace
    setting before CUDA starts, hence a fresh process)."""
    out = _run_python(
        """
        import numpy as np, torch
        from tsattn import TSClassifier
        torch.use_deterministic_algorithms(True)
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 3, 64)); y = np.arange(40) % 2; X[y == 1, :, 32:] += 1
        for attention in ("bn_sh", "softmax", "s3", "long_short"):
            kw = dict(attention=attention, max_steps=40, random_state=0)
            a, b = (TSClassifier(**kw).fit(X, y) for _ in range(2))
            assert a.device_.type == "cuda"
            assert np.array_equal(a.predict_proba(X), b.predict_proba(X)), attention
        print("identical")
        """,
        CUBLAS_WORKSPACE_CONFIG=":4096:8",
    )
    assert "identical" in out


def test_the_default_classifier_learns_on_the_gpu():
    X, y = _toy(n=60, seed=3)
    Xt, yt = _toy(n=60, seed=4)
    clf = TSClassifier(random_state=0, max_steps=300).fit(X, y)
    assert clf.device_.type == "cuda"
    assert clf.score(Xt, yt) >= 0.9


def test_unequal_lengths_and_bf16_on_the_gpu():
    X, y = _toy()
    series = [X[i, :, : 30 - (i % 7)] for i in range(len(X))]
    clf = TSClassifier(**TINY, precision="bf16-mixed").fit(series, y)
    proba = clf.predict_proba(series)
    assert np.isfinite(proba).all()
    assert all(p.dtype == torch.float32 for p in clf.module_.parameters())


def test_regressor_on_the_gpu():
    X, _ = _toy()
    target = X[:, 0, 15:].mean(axis=1)
    reg = TSRegressor(**TINY).fit(X, target)
    assert reg.device_.type == "cuda"
    pred = reg.predict(X)
    assert pred.shape == target.shape and np.isfinite(pred).all()


def test_forecaster_on_the_gpu_matches_its_own_refit_and_gives_intervals():
    t = np.arange(300)
    series = np.stack([np.sin(2 * np.pi * t / 12), np.cos(2 * np.pi * t / 8)], axis=1)
    kw = dict(horizon=6, context_length=24, max_epochs=2, random_state=0)
    f = TSForecaster(**kw).fit(series)
    assert f.device_.type == "cuda"
    point = f.predict()
    assert point.shape == (6, 2) and np.isfinite(point).all()
    np.testing.assert_allclose(TSForecaster(**kw).fit(series).predict(), point, rtol=1e-5, atol=1e-6)
    lo, hi = f.predict_interval(coverage=0.8)
    assert np.all(lo <= hi)


def test_the_seasonal_anchor_on_the_gpu_matches_the_same_module_on_the_cpu():
    """anchor='cycle' fitted on the GPU: its profile buffers live there, and the module copied to
    the CPU gives the same phases and forecasts (the anchor's argmin and einsums on both)."""
    rng = np.random.default_rng(0)
    t = np.arange(600)
    shape = np.where(t % 24 < 6, 2.0, 0.0)[:, None] * np.array([1.0, -0.5])
    series = shape + 0.1 * rng.normal(size=(600, 2))
    f = TSForecaster(horizon=12, context_length=16, max_epochs=2, random_state=0, anchor="cycle",
                     period=24).fit(series)  # fmt: skip
    assert f.device_.type == "cuda" and f.anchor_ == "cycle" and f.period_ == 24
    anchor = f.module_.anchor
    assert anchor.cycle.device.type == "cuda" and bool(anchor.use_cycle)
    contexts = np.stack([series[i : i + 16] for i in range(400, 580, 7)])
    x = torch.tensor((contexts - f.channel_mean_) / f.channel_scale_, dtype=torch.float32)
    on_cpu = copy.deepcopy(f.module_).cpu().eval()
    with torch.inference_mode():
        assert torch.equal(window_phases(anchor.cycle, x.cuda()).cpu(),
                           window_phases(on_cpu.anchor.cycle, x))  # fmt: skip
        np.testing.assert_allclose(anchor(x.cuda()).cpu().numpy(), on_cpu.anchor(x).numpy(),
                                   rtol=1e-5, atol=1e-5)  # fmt: skip
    point = f.predict(contexts)
    f.device = "cpu"
    moved = pickle.loads(pickle.dumps(f))
    np.testing.assert_allclose(moved.predict(contexts), point, rtol=1e-4, atol=1e-4)


@pytest.mark.integration
def test_a_model_fitted_on_the_gpu_loads_and_predicts_on_a_machine_without_one(tmp_path):
    X, y = _toy()
    for device, warns in (("auto", False), ("cuda", True)):
        clf = TSClassifier(attention="bn_sh", device=device, **TINY).fit(X, y)
        (tmp_path / "model.pkl").write_bytes(pickle.dumps(clf))
        np.save(tmp_path / "X.npy", X)
        np.save(tmp_path / "proba.npy", clf.predict_proba(X))
        out = _run_python(
            """
            import pickle, sys, warnings
            from pathlib import Path
            import numpy as np
            import torch
            assert not torch.cuda.is_available()
            d = Path(sys.argv[1])
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                clf = pickle.loads((d / "model.pkl").read_bytes())
            assert clf.device_.type == "cpu", clf.device_
            print("warned" if any("loading it on the CPU" in str(w.message) for w in caught) else "quiet")
            proba = clf.predict_proba(np.load(d / "X.npy"))
            np.testing.assert_allclose(proba, np.load(d / "proba.npy"), rtol=1e-4, atol=1e-5)
            """,
            str(tmp_path),
            CUDA_VISIBLE_DEVICES="",
        )
        assert ("warned" if warns else "quiet") in out, (device, out)


def test_attention_maps_come_back_on_the_cpu():
    X, y = _toy()
    clf = TSClassifier(attention="bn_sh", **TINY).fit(X, y)
    maps = clf.attention_maps(X[:5])
    assert isinstance(maps, np.ndarray) and np.isfinite(maps).all()


def test_a_model_fitted_on_the_cpu_moves_to_the_gpu_by_its_device_parameter():
    X, y = _toy()
    clf = TSClassifier(**TINY, device="cpu").fit(X, y)
    expected = clf.predict_proba(X)
    clf.device = "cuda"
    moved = pickle.loads(pickle.dumps(clf))
    assert next(moved.module_.parameters()).device.type == "cuda"
    np.testing.assert_allclose(moved.predict_proba(X), expected, rtol=1e-4, atol=1e-5)
