"""The target's scale chain (:mod:`tsattn.estimators.forecaster.scales`), and the recipe for a new
scaling followed once: a toy scale registered in this module and trained through the estimator."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tests.estimators.test_forecast_panel import FAST
from tsattn import TSForecaster
from tsattn.estimators.forecaster import scales
from tsattn.estimators.forecaster.scales import (
    Floor,
    ScaleChain,
    Standardise,
    TargetScale,
    list_scales,
    register_scale,
)


def test_the_chain_undoes_its_stages_in_reverse_order():
    rng = np.random.default_rng(0)
    rows = [np.exp(rng.standard_normal((40, 1))) for _ in range(3)]
    chain = ScaleChain(series=scales.LogScale(), floor=True, standardised=scales.AsinhScale())
    mask = chain.select(rows, 1, 16)
    logged = chain.to_series_scale(rows, 1, mask, "y", ["a", "b", "c"])
    mean, scale = Standardise.stats(logged)
    standardised = [(r - m) / s for r, m, s in zip(logged, mean, scale, strict=True)]
    chain.fit_standardised(standardised, 1)
    network = np.stack([chain.to_standardised(r[-8:], 1) for r in standardised])  # (3, 8, 1)
    contexts = np.stack([r[-16:] for r in logged])
    back = chain.inverse(network, mean, scale, Floor.lows(logged), mask, contexts)
    np.testing.assert_allclose(back, np.stack([r[-8:] for r in rows]), rtol=1e-12)
    with pytest.raises(ValueError, match=r"at or below zero \(-[0-9.]+ in b\)"):
        chain.to_series_scale([rows[0], -rows[1]], 1, np.ones(2, bool), "y", ["a", "b"])
    assert {"log", "asinh"} <= set(list_scales())


# ----------------------------------------------------------------------------- the recipe
class CubeRoot(TargetScale):
    """A toy scale: the cube root of every series' targets (any sign), cubed back."""

    summary = "toy: the cube root"
    position = "series"

    def forward(self, values, n_targets, columns=None):
        out = np.array(values, dtype=np.float64, copy=True)
        out[..., :n_targets] = np.cbrt(out[..., :n_targets])
        return out

    def inverse(self, out, contexts=None):
        return out**3


@pytest.fixture
def cube_root():
    register_scale("cube_root")(CubeRoot)  # step 1 of the recipe: one class, registered
    try:
        yield "cube_root"
    finally:
        scales._SCALES.pop("cube_root")


def test_a_new_scale_is_one_registered_class(cube_root):
    """The recipe of :mod:`tsattn.estimators.forecaster.scales` followed once: the toy scale is a
    value of ``target_transform``, the network trains on the cube roots (each series standardised
    after them), forecasts come back cubed, and the model pickles."""
    t = np.arange(300)
    y = (10 + 3 * np.sin(2 * np.pi * t / 24)) ** 3
    model = TSForecaster(horizon=12, context_length=48, target_transform=cube_root, **FAST).fit(y)
    assert isinstance(model.fit_plan_.scales.series, CubeRoot)
    train = np.cbrt(y[:270])  # the validation tail (ceil(0.1 * 300) rows) held out
    assert model.series_mean_[0, 0] == pytest.approx(train.mean())
    out = model.predict()
    assert out.shape == (12,) and np.all((out > 300) & (out < 3000))  # cubes of about 7..13
    np.testing.assert_allclose(pickle.loads(pickle.dumps(model)).predict(), out, rtol=1e-6)
    with pytest.raises(ValueError, match=r"target_transform must be 'auto', None or one of "
                                         r"\[.*'cube_root'.*\]; got 'cube_rot'"):
        TSForecaster(target_transform="cube_rot", **FAST).fit(y)
