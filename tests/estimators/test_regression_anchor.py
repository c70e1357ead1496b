"""TSRegressor(anchor='rocket'): a ridge on MiniRocket's features, corrected by the network, which
trains on the ridge's leave-one-out errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tsattn import TSRegressor
from tsattn._input import to_series_batch
from tsattn.estimators._rocket_anchor import RocketAnchor

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_steps=20, batch_size=16,
            device="cpu")  # fmt: skip


def _data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2, 20)).cumsum(axis=2)
    return X, X[:, 0, -5:].mean(axis=1) - 0.5 * X[:, 1].std(axis=1) + 0.1 * rng.normal(size=n)


def test_anchor_trains_on_exact_leave_one_out_predictions():
    from sklearn.linear_model import Ridge

    X, y = _data(30)
    anchor = RocketAnchor(seed=3)
    loo = anchor.fit(to_series_batch(X), y)
    assert loo.shape == (30, 1)
    features = anchor.transform_.transform(X) / anchor.scale_
    for i in (0, 11, 29):  # the ridge refitted without series i predicts it as recorded
        rest = np.delete(np.arange(30), i)
        ridge = Ridge(alpha=anchor.ridge_.alpha_).fit(features[rest], y[rest])
        assert loo[i, 0] == pytest.approx(ridge.predict(features[i:i + 1])[0], rel=1e-6, abs=1e-8)


def test_prediction_is_the_ridges_plus_the_networks():
    X, y = _data(40)
    est = TSRegressor(anchor="rocket", random_state=0, **TINY).fit(X, y)
    ridge = est.anchor_.predict(to_series_batch(X[:6]))[:, 0]
    network = est._unscale(est._forward(X[:6]))[:, 0]
    np.testing.assert_allclose(est.predict(X[:6]), ridge + network)
    # the network learnt residuals: its targets' centre is near 0, not the targets' mean
    assert abs(est.target_mean_[0]) < 0.5 * abs(y.mean()) + 0.5 * y.std()
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_allclose(again.predict(X[:6]), est.predict(X[:6]))
    assert TSRegressor(random_state=0, **TINY).fit(X, y).anchor_ is None


def test_anchor_with_several_targets_short_series_and_intervals():
    X, y = _data(40)
    X = X[:, :, :6]  # shorter than MiniRocket's 9 steps: padded
    Y = np.stack([y, 2 * y], axis=1)
    est = TSRegressor(anchor="rocket", validation_fraction=0.25, random_state=0, **TINY).fit(X, Y)
    assert est.predict(X[:3]).shape == (3, 2)
    lower, upper = est.predict_interval(X[:3], coverage=0.8)
    assert lower.shape == (3, 2) and (upper > lower).all()
    with pytest.raises(ValueError, match="y contains NaN"):
        TSRegressor(anchor="rocket", **TINY).fit(X, np.full(40, np.nan))
