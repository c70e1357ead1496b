"""TSRegressor(anchor='multirocket' / 'rocket'): a ridge on MultiRocket's / MiniRocket's features,
corrected by the network, which trains on the ridge's leave-one-out errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone

from tsattn import TSRegressor
from tsattn.estimators._rocket_anchor import RocketAnchor
from tsattn.io import to_series_batch

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_steps=20, batch_size=16,
            device="cpu")  # fmt: skip


def _data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2, 20)).cumsum(axis=2)
    return X, X[:, 0, -5:].mean(axis=1) - 0.5 * X[:, 1].std(axis=1) + 0.1 * rng.normal(size=n)


def _linear(n: int, seed: int):
    """Sine waves of random amplitude and level; the target is linear in the two, plus noise."""
    rng = np.random.default_rng(seed)
    amplitude, level = rng.uniform(0.5, 2.0, n), rng.normal(size=n)
    steps = np.arange(40)
    X = amplitude[:, None] * np.sin(steps / 3.0)[None] + level[:, None]
    X = X + 0.05 * rng.normal(size=X.shape)
    return X[:, None, :], 3.0 * amplitude - 2.0 * level + 0.1 * rng.normal(size=n)


def test_anchor_trains_on_exact_leave_one_out_predictions():
    """The fast path (RidgeCV's closed-form leave-one-out) against the slow reference: the ridge
    refitted without series i, at the chosen penalty, predicts series i as recorded."""
    from sklearn.linear_model import Ridge

    X, y = _data(30)
    anchor = RocketAnchor(seed=3)
    loo = anchor.fit(to_series_batch(X), y)
    assert loo.shape == (30, 1) and loo.dtype == np.float64
    features = anchor.transform_.transform(X).astype(np.float64) / anchor.scale_
    for i in (0, 11, 29):
        rest = np.delete(np.arange(30), i)
        ridge = Ridge(alpha=anchor.ridge_.alpha_).fit(features[rest], y[rest])
        assert loo[i, 0] == pytest.approx(ridge.predict(features[i:i + 1])[0], rel=1e-6, abs=1e-8)
    # not the in-sample fit, which is closer to the targets
    in_sample = anchor.predict(to_series_batch(X))[:, 0]
    assert np.mean((loo[:, 0] - y) ** 2) > np.mean((in_sample - y) ** 2)


def test_anchor_matches_aeons_minirocket_regressor():
    """The anchor alone is aeon's MiniRocketRegressor (same transform seed, scaling, penalties)."""
    from aeon.regression.convolution_based import MiniRocketRegressor

    X, y = _data(40)
    anchor = RocketAnchor(seed=5)
    anchor.fit(to_series_batch(X), y)
    peer = MiniRocketRegressor(random_state=5, n_jobs=1).fit(X, y)
    np.testing.assert_allclose(anchor.predict(to_series_batch(X[:8]))[:, 0], peer.predict(X[:8]),
                               rtol=1e-3, atol=1e-3 * y.std())  # fmt: skip


def test_multirocket_anchor_matches_aeons_multirocket_regressor():
    """``anchor='multirocket'`` alone is aeon's MultiRocketRegressor (same transform seed, scaling,
    penalties); series shorter than its 10 steps are padded, not refused."""
    from aeon.regression.convolution_based import MultiRocketRegressor

    X, y = _data(40)
    anchor = RocketAnchor(seed=5, transform="multirocket")
    anchor.fit(to_series_batch(X), y)
    peer = MultiRocketRegressor(random_state=5, n_jobs=1).fit(X, y)
    np.testing.assert_allclose(anchor.predict(to_series_batch(X[:8]))[:, 0], peer.predict(X[:8]),
                               rtol=1e-3, atol=1e-3 * y.std())  # fmt: skip
    est = TSRegressor(random_state=0, **TINY).fit(X[:, :, :7], y)  # the default anchor, 7 steps
    assert est.anchor_.transform == "multirocket" and est.anchor_.length_ == 10
    assert np.isfinite(est.predict(X[:3, :, :7])).all()
    with pytest.raises(ValueError, match="transform must be one of"):
        RocketAnchor(seed=0, transform="hydra")


def test_anchor_beats_the_mean_predictor_on_a_linear_task():
    X, y = _linear(120, seed=0)
    Xt, yt = _linear(60, seed=1)
    est = TSRegressor(anchor="rocket", random_state=0, **TINY).fit(X, y)
    rmse = np.sqrt(np.mean((est.predict(Xt) - yt) ** 2))
    mean_rmse = np.sqrt(np.mean((y.mean() - yt) ** 2))
    assert rmse < 0.3 * mean_rmse, (rmse, mean_rmse)


def test_prediction_is_the_ridges_plus_the_networks():
    X, y = _data(40)
    est = TSRegressor(anchor="rocket", random_state=0, **TINY).fit(X, y)
    ridge = est.anchor_.predict(to_series_batch(X[:6]))[:, 0]
    network = est._unscale(est._forward(X[:6]))[:, 0]
    np.testing.assert_allclose(est.predict(X[:6]), ridge + network)
    # the network learnt residuals: its targets' centre is near 0, not the targets' mean
    assert abs(est.target_mean_[0]) < 0.5 * abs(y.mean()) + 0.5 * y.std()
    assert TSRegressor(anchor="none", random_state=0, **TINY).fit(X, y).anchor_ is None
    # the defaults chosen by cross-validation (docs/results/regress/cv/)
    assert (TSRegressor().anchor, TSRegressor().validation_fraction, TSRegressor().loss) == (
        "multirocket", 0.2, "huber")


def test_clone_pickle_and_reproducibility_from_random_state():
    X, y = _data(40)
    est = TSRegressor(anchor="rocket", random_state=0, **TINY)
    copy = clone(est)
    assert copy.get_params()["anchor"] == "rocket" and not hasattr(copy, "anchor_")
    est.fit(X, y)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X[:6]), est.predict(X[:6]))
    np.testing.assert_array_equal(copy.fit(X, y).predict(X[:6]), est.predict(X[:6]))
    other = TSRegressor(anchor="rocket", random_state=1, **TINY).fit(X, y)
    assert not np.array_equal(other.anchor_.predict(to_series_batch(X[:6])),
                              est.anchor_.predict(to_series_batch(X[:6])))  # fmt: skip


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
    with pytest.raises(ValueError, match="anchor"):
        TSRegressor(anchor="ridge", **TINY).fit(X, y)


def test_one_training_series_is_refused_with_the_reason():
    X, y = _data(1)
    with pytest.raises(ValueError, match="at least 2 training series; got 1 sample"):
        TSRegressor(anchor="rocket", **TINY).fit(X, y)


def test_unequal_lengths_and_longer_series_at_predict():
    X, y = _data(30)
    ragged = [x[:, : 12 + i % 8] for i, x in enumerate(X)]  # 12-19 steps
    est = TSRegressor(random_state=0, **TINY).fit(ragged, y)
    longer = [x for x in X[:4]]  # 20 steps, longer than any training series
    assert np.isfinite(est.predict(longer)).all() and est.predict(ragged[:3]).shape == (3,)
    # the anchor sees a longer series cut to the training length
    cut = [x[:, :19] for x in longer]
    np.testing.assert_allclose(est.anchor_.predict(to_series_batch(longer)),
                               est.anchor_.predict(to_series_batch(cut)))  # fmt: skip
