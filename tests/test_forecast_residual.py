"""``TSForecaster(residual=True)``: the network trained on what its anchor misses."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pandas as pd
import pytest
import torch

from tsattn import TSForecaster
from tsattn.estimators import _anchor

TINY = dict(attention="softmax", d_model=8, n_heads=2, n_layers=1, dim_feedforward=16,
            max_steps=5, random_state=0, device="cpu", patch_len=4)  # fmt: skip


def _weekly(n=700, seed=0):
    """Two channels with a 52-week season of their own shapes, a drift and noise."""
    rng = np.random.default_rng(seed)
    phase = 2 * np.pi * np.arange(n) / 52
    values = np.stack([np.exp(2 * np.cos(phase)) / 3, np.sin(phase - 1.0) ** 3], axis=1)
    values += 0.002 * np.arange(n)[:, None] + 0.1 * rng.normal(size=(n, 2))
    return pd.DataFrame(values, index=pd.date_range("2000-01-02", periods=n, freq="W"))


def _windows(values, context, horizon, step=3):
    starts = range(0, len(values) - context - horizon + 1, step)
    return (np.stack([values[i : i + context] for i in starts]),
            np.stack([values[i + context : i + context + horizon] for i in starts]))  # fmt: skip


@pytest.mark.parametrize("anchor", ["cycle", "nlinear"])
def test_residual_network_matches_its_formula(anchor):
    """``out = A(x - Q) + Q + blend * (net(x - Q) - mean_t(x - Q))`` with ``A`` the anchor's
    linear map, ``Q`` the anchor's seasonal profile placed at the window's phase (none for a
    plain ridge) and ``net`` the same network de-normalised as without ``residual``."""
    y = _weekly()
    f = TSForecaster(12, 20, **TINY, anchor=anchor, residual=True).fit(y.iloc[:600], y_val=y.iloc[580:])
    net = f.module_
    assert f.anchor_ == anchor and 0.0 <= f.blend_ <= 1.0
    assert (net.anchor.period > 1) == (anchor == "cycle")
    if anchor == "cycle":  # the anchor's profile, the training rows' mean at each phase
        np.testing.assert_allclose(net.season.numpy(), _anchor.cycle_profile(
            f._scale(y.to_numpy()[:600]), 52), rtol=1e-5, atol=1e-6)  # fmt: skip
    x = torch.as_tensor(f._scale(y.to_numpy()[600:]), dtype=torch.float32)
    x = torch.stack([x[:20], x[30:50] + 0.5, x[61:81]])
    twin = copy.deepcopy(net)
    twin.residual = False
    twin.blend.fill_(1.0)  # the network alone, as it is read without residual
    if anchor == "cycle":  # the network removes the profile, not the anchor
        assert bool(net.season_active) and not bool(net.anchor.use_cycle)
    with torch.inference_mode():
        out, plain = net(x).numpy(), twin(x).numpy()
        if anchor == "cycle":
            net.anchor.use_cycle.fill_(True)  # the anchor as it forecasts alone
        simple = net.anchor(x).numpy()
        phases = net.anchor.phases(x) if anchor == "cycle" else torch.zeros(3, dtype=torch.long)
    q = (net.season.numpy()[(phases.numpy()[:, None] + np.arange(32)) % 52] if anchor == "cycle"
         else np.zeros((3, 32, 2)))  # fmt: skip
    level = (x.numpy() - q[:, :20]).mean(axis=1, keepdims=True)
    expected = simple + f.blend_ * (plain - q[:, 20:] - level)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
    g = pickle.loads(pickle.dumps(f))  # the anchor, profile, switch and share travel with it
    np.testing.assert_allclose(g.predict(x.numpy()), f.predict(x.numpy()), rtol=1e-6)


def test_residual_anchor_is_the_one_that_errs_least_alone():
    """With ``anchor='auto'`` the candidate kept is the one whose forecast alone errs least on the
    validation windows (each candidate's, forced, scored with the network's share set to 0, in
    the standardised units the estimator compares them in)."""
    y = _weekly()
    train, valid = y.iloc[:560], y.iloc[540:]
    auto = TSForecaster(12, 20, **TINY, residual=True).fit(train, y_val=valid)
    contexts, targets = _windows(valid.to_numpy(), 20, 12, step=1)
    errors = {}
    for name in ("linear", "nlinear", "last", "cycle", "ncycle"):
        f = TSForecaster(12, 20, **TINY, anchor=name, residual=True).fit(train, y_val=valid)
        f.module_.blend.fill_(0.0)
        errors[name] = float(np.mean(((f.predict(contexts) - targets) / f.channel_scale_) ** 2))
    assert auto.anchor_ == min(errors, key=errors.get), errors


def test_residual_network_learns_what_its_anchor_misses():
    """The last value repeated misses a 12-step cycle entirely; the network, trained on the
    anchor's misses for 100 steps, recovers most of it and keeps its full share."""
    rng = np.random.default_rng(0)
    y = np.sin(2 * np.pi * np.arange(2000) / 12)[:, None] + 0.2 * rng.normal(size=(2000, 1))
    contexts, targets = _windows(y[1600:], 24, 12)
    f = TSForecaster(12, 24, **{**TINY, "max_steps": 100}, anchor="last", residual=True)
    full = f.fit(y[:1600]).mse(contexts, targets)
    f.module_.blend.fill_(0.0)
    assert full < 0.3 * f.mse(contexts, targets) and f.blend_ > 0.9, (full, f.blend_)


def test_residual_needs_an_anchor_and_no_deseasonalize():
    y = _weekly(300)
    for params in (dict(anchor=None), dict(deseasonalize=True)):
        with pytest.raises(ValueError, match="residual=True trains the network on the anchor"):
            TSForecaster(12, 20, **TINY, residual=True, **params).fit(y)
