"""The target on LEAR's scale (``target_transform='asinh'``,
:class:`tsattn.estimators.forecaster.scales.AsinhScale`)."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
import torch

from tests.estimators.test_forecast_panel import FAST, future_rows, panel
from tsattn import TSForecaster
from tsattn.estimators.forecaster.scales import MAD_NORMAL, REACH, AsinhScale


def test_the_scale_is_each_columns_median_and_mad_and_sinh_undoes_it():
    rng = np.random.default_rng(0)
    # target, a covariate, a 0/1 flag (mostly 0: its MAD is zero)
    a = np.column_stack([rng.standard_normal(200) ** 3, rng.standard_normal(200),
                         (rng.random(200) < 0.2).astype(float)])  # fmt: skip
    b = np.column_stack([np.zeros(50), rng.standard_normal(50), np.zeros(50)])
    scale = AsinhScale().fit([a, None, b], 1)
    both = np.concatenate([a, b])
    centre = np.median(both, axis=0)
    mad = MAD_NORMAL * np.median(np.abs(both - centre), axis=0)
    assert scale.active.tolist() == [True, True, False]
    assert scale.centre[:2] == pytest.approx(centre[:2]) and scale.scale[:2] == pytest.approx(mad[:2])
    out = scale.forward(a, 1)
    assert out[:, :2] == pytest.approx(np.arcsinh((a[:, :2] - centre[:2]) / mad[:2]))
    assert out[:, 2] == pytest.approx(a[:, 2])  # the flag as given
    assert scale.forward(a[:, 1:], 1, [1, 2]) == pytest.approx(out[:, 1:])  # some columns only
    assert scale.limit == pytest.approx([REACH * np.abs(out[:, 0]).max()])
    back = scale.inverse(out[None, :, :1])  # (n, H, C)
    assert back[0, :, 0] == pytest.approx(a[:, 0])
    quantiles = scale.inverse(np.stack([out[None, :, :1]] * 3, axis=-1))  # (n, H, C, q)
    assert quantiles[0, :, 0, 2] == pytest.approx(a[:, 0])
    huge = scale.inverse(np.full((1, 2, 1), 1e6))  # held within the reach: no overflow
    assert huge.ravel() == pytest.approx(np.repeat(np.sinh(scale.limit) * scale.scale[0] + scale.centre[0], 2))
    # a target with more than half its values alike: the MAD is 0, the channel divided by 1
    flat = AsinhScale().fit([np.r_[np.zeros(30), np.ones(10)][:, None]], 1)
    assert flat.active.tolist() == [True] and flat.scale.tolist() == [1.0]


def test_with_covariates_the_forecast_is_blended_on_the_asinh_scale():
    df = panel(lengths=(200, 160, 180))
    kw = dict(horizon=12, context_length=48, future_covariates=["load_fc"], **FAST)
    model = TSForecaster(**kw).fit(df)  # 'auto'
    assert model.asinh_scale_ is not None and model.anchor_ == "lear"
    assert TSForecaster(target_transform=None, **kw).fit(df).asinh_scale_ is None
    x_next = future_rows(model)
    parts = model.predict_components(X=x_next)
    assert parts["forecast"].y.to_numpy() == pytest.approx(model.predict(X=x_next).y.to_numpy())
    # each part back on the scale the model blends on: standardised per series, then asinh
    ids = parts["forecast"].unique_id.map({s: i for i, s in enumerate(model.series_ids_)}).to_numpy()
    mean, std = model.series_mean_[ids, 0], model.series_scale_[ids, 0]
    s = model.asinh_scale_

    def on_scale(part):
        return np.arcsinh(((part.y.to_numpy() - mean) / std - s.centre[0]) / s.scale[0])

    blend = model.blend_
    assert on_scale(parts["forecast"]) == pytest.approx(
        blend * on_scale(parts["network"]) + (1 - blend) * on_scale(parts["anchor"]), abs=1e-6)
    lower, upper = model.predict_interval(X=x_next, coverage=0.8)
    assert (lower.y.to_numpy() <= upper.y.to_numpy()).all()
    again = pickle.loads(pickle.dumps(model))
    assert again.predict(X=x_next).y.to_numpy() == pytest.approx(model.predict(X=x_next).y.to_numpy())


def test_one_series_batches_and_a_panel_without_covariates():
    df = panel(lengths=(200,))
    y, x = df.y.to_numpy(), df[["load_fc", "temp"]].to_numpy()
    model = TSForecaster(horizon=12, context_length=48, future_covariates=["load_fc"], **FAST).fit(
        y[:-12], pd.DataFrame(x[:-12], columns=["load_fc", "temp"]))
    assert model.asinh_scale_ is not None
    ctx = np.stack([y[i : i + 48] for i in (100, 120)])
    x_win = np.stack([x[i : i + 60] for i in (100, 120)])
    batch = model.predict(ctx, X=x_win)
    assert batch.shape == (2, 12, 1) and np.isfinite(batch).all()
    # the anchor alone, by hand: every column standardised, then asinh, the horizon's load too
    sc = model.asinh_scale_
    full = np.stack([y[i : i + 60] for i in (100, 120)])[..., None]
    z = (np.concatenate([full, x_win], axis=2) - model.series_mean_) / model.series_scale_
    z = np.arcsinh((z - sc.centre) / sc.scale)
    z[:, 48:, 0] = 0.0  # the target's horizon rows
    z[:, 48:, 2] = 0.0  # the past-only covariate's
    with torch.no_grad():
        by_hand = model.module_.anchor(torch.tensor(z, dtype=torch.float32)).double().numpy()
    by_hand = np.sinh(by_hand) * sc.scale[0] + sc.centre[0]
    by_hand = by_hand * model.series_scale_[0, 0] + model.series_mean_[0, 0]
    anchor = model.predict_components(ctx, X=x_win)["anchor"]
    assert anchor == pytest.approx(by_hand, rel=1e-4, abs=1e-4)
    # LEAR's scale asked for by name without covariates; 'auto' leaves such a panel alone
    plain = panel()[["unique_id", "ds", "y"]]
    asked = TSForecaster(horizon=12, context_length=48, target_transform="asinh", **FAST).fit(plain)
    assert asked.asinh_scale_ is not None and asked.log_series_ is None
    assert np.isfinite(asked.predict().y).all()
    assert TSForecaster(horizon=12, context_length=48, **FAST).fit(plain).asinh_scale_ is None


def test_a_scale_pickled_under_its_former_module_loads():
    """Models saved before issue 76 name the asinh scale's class by its former module."""
    scale = AsinhScale().fit([np.random.default_rng(0).standard_normal((50, 2))], 1)
    blob = pickle.dumps(scale, protocol=0).replace(b"tsattn.estimators.forecaster.scales",
                                                   b"tsattn.estimators._asinh_scale")  # fmt: skip
    assert b"tsattn.estimators._asinh_scale" in blob
    old = pickle.loads(blob)
    assert isinstance(old, AsinhScale) and old.centre == pytest.approx(scale.centre)
