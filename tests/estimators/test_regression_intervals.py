"""TSRegressor: split-conformal prediction intervals, the Huber loss and the target scalings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tsattn import TSRegressor

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_steps=60, batch_size=16,
            device="cpu")  # fmt: skip


def _data(n: int, seed: int = 0, noise: float = 0.3):
    """Series whose target is their mean level plus noise: learnable in a few steps."""
    rng = np.random.default_rng(seed)
    level = rng.normal(size=n)
    X = level[:, None, None] + 0.2 * rng.normal(size=(n, 1, 24))
    return X, 3.0 * level + noise * rng.normal(size=n)


def test_interval_is_the_conformal_quantile_of_the_validation_errors():
    X, y = _data(120)
    est = TSRegressor(validation_fraction=0.25, random_state=0, **TINY).fit(X, y)
    errors = est.interval_errors_
    assert errors.shape == (30, 1) and (np.diff(errors[:, 0]) >= 0).all()
    lower, upper = est.predict_interval(X[:5], coverage=0.8)
    pred = est.predict(X[:5])
    half = errors[math.ceil(31 * 0.8) - 1, 0]  # the 25th smallest of 30
    np.testing.assert_allclose(upper - pred, half)
    np.testing.assert_allclose(pred - lower, half)
    # a wider level never gives a narrower interval
    lo95, up95 = est.predict_interval(X[:5], coverage=0.95)
    assert (up95 - lo95 >= upper - lower).all()


def test_interval_covers_new_series_about_as_asked():
    X, y = _data(200, seed=1)
    Xn, yn = _data(400, seed=2)
    est = TSRegressor(validation_fraction=0.3, random_state=0, **TINY).fit(X, y)
    lower, upper = est.predict_interval(Xn, coverage=0.9)
    covered = np.mean((lower <= yn) & (yn <= upper))
    assert 0.75 <= covered <= 1.0, covered
    assert np.mean(upper - lower) < 4 * np.std(yn)  # not a trivially wide interval


def test_interval_for_several_targets_has_predicts_shape():
    X, y = _data(80)
    Y = np.stack([y, -2 * y + 5], axis=1)
    est = TSRegressor(validation_fraction=0.25, random_state=0, **TINY).fit(X, Y)
    lower, upper = est.predict_interval(X[:7])
    assert lower.shape == upper.shape == (7, 2)
    assert est.interval_errors_.shape == (20, 2)
    assert (upper >= lower).all()


def test_interval_needs_a_validation_split_and_a_valid_level():
    X, y = _data(40)
    est = TSRegressor(validation_fraction=0.0, random_state=0, **TINY).fit(X, y)
    assert est.interval_errors_ is None
    with pytest.raises(ValueError, match="validation_fraction > 0"):
        est.predict_interval(X)
    est = TSRegressor(validation_fraction=0.25, random_state=0, **TINY).fit(X, y)
    for bad in (0, 1, 1.5, -0.1):
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            est.predict_interval(X, coverage=bad)
    with pytest.warns(UserWarning, match="too few for a 0.99 interval"):
        lower, upper = est.predict_interval(X, coverage=0.99)  # 10 errors: rank 11 > 10
    np.testing.assert_allclose(upper - est.predict(X), est.interval_errors_[-1, 0])


def test_targets_are_standardised_for_training_and_mapped_back():
    X, y = _data(80)
    y = 1000.0 + 50.0 * y  # far from 0 and wide: the network learns them standardised
    # the network alone: with the default anchor it would scale the anchor's residuals instead
    est = TSRegressor(anchor="none", random_state=0, **{**TINY, "max_steps": 150}).fit(X, y)
    np.testing.assert_allclose(est.target_mean_, [y.mean()])
    np.testing.assert_allclose(est.target_scale_, [y.std()])
    rmse = np.sqrt(np.mean((est.predict(X) - y) ** 2))
    assert rmse < 0.6 * y.std(), rmse


def test_huber_loss_is_used_and_differs_from_mse():
    import torch

    out, target = torch.zeros(4, 1), torch.tensor([[0.5], [-0.5], [3.0], [-3.0]])
    mse = TSRegressor(loss="mse")._loss(out, target)
    huber = TSRegressor(loss="huber")._loss(out, target)
    # Huber: 0.5 * e**2 within 1, |e| - 0.5 beyond
    assert float(huber) == pytest.approx((0.125 + 0.125 + 2.5 + 2.5) / 4)
    assert float(mse) == pytest.approx((0.25 + 0.25 + 9 + 9) / 4)
    with pytest.raises(ValueError, match="loss"):
        TSRegressor(loss="l1", **TINY).fit(*_data(20))
