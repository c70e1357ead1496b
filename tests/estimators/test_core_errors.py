"""No silent wrong answers from the estimator core (issue #13, items 2, 4, 5, 6, 8, 9, 10).

Each test failed before its fix: a diverging fit left a NaN model, strings passed as booleans were
True, huge regression targets gave infinite predictions, an impossible validation split was
silent, numpy integers were refused, odd labels raised a raw TypeError, and the forecaster's
zero-window and wrong-channel calls failed deep inside numpy or torch.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV

from tests.helpers.series import toy_series as _toy
from tsattn import TSClassifier, TSForecaster, TSRegressor
from tsattn.training import Callback, TrainingDivergedError

TINY = dict(d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=3, random_state=0,
            device="cpu")  # fmt: skip



# ----------------------------------------------------------------------------- 2: divergence
@pytest.mark.parametrize("Estimator", [TSClassifier, TSRegressor])
def test_a_diverging_fit_raises_and_leaves_no_fitted_model(Estimator):
    X, y = _toy(n=96)
    target = y if Estimator is TSClassifier else X[:, 0].mean(axis=1)
    model = Estimator(**{**TINY, "lr": 1e6, "batch_size": 8})
    with pytest.raises(TrainingDivergedError, match=r"diverged at epoch 1.*learning rate.*lr=1000000"):
        model.fit(X, target)
    with pytest.raises(NotFittedError):
        model.predict(X)


def test_divergence_after_good_epochs_keeps_the_finite_best_weights():
    class Poison(Callback):  # weights turn NaN after epoch 2, as an exploding step would do
        def on_epoch_end(self, estimator, record):
            if record["epoch"] == 2:
                next(estimator.module_.parameters()).data.fill_(float("nan"))

    X, y = _toy()
    with pytest.warns(RuntimeWarning, match="diverged at epoch 3.*kept the weights of epoch [12]"):
        clf = TSClassifier(**{**TINY, "max_epochs": 6, "lr_schedule": "plateau"}, callbacks=[Poison()]).fit(X, y)
    assert clf.best_epoch_ <= 2 and clf.n_epochs_ == 3
    assert np.isfinite(clf.predict_proba(X)).all()


@pytest.mark.parametrize("lr", [float("inf"), float("nan"), 0.0, -1e-3])
def test_a_learning_rate_that_is_not_a_finite_positive_number_is_refused(lr):
    X, y = _toy()
    with pytest.raises(ValueError, match="lr must be a finite number > 0"):
        TSClassifier(**{**TINY, "lr": lr}).fit(X, y)


# ----------------------------------------------------------------------------- 4: booleans
@pytest.mark.parametrize("name", ["learn_beta", "bn_standardize"])
def test_booleans_given_as_strings_are_refused(name):
    X, y = _toy()
    with pytest.raises(ValueError, match=f"{name} must be True or False or None, got 'False'"):
        TSClassifier(**TINY, attention="bn", **{name: "False"}).fit(X, y)
    TSClassifier(**TINY, attention="bn", **{name: np.bool_(False)}).fit(X, y)


def test_forecaster_booleans_given_as_strings_are_refused():
    y = np.sin(np.arange(80.0))[:, None]
    with pytest.raises(ValueError, match="channel_independent must be True or False"):
        TSForecaster(horizon=4, context_length=8, patch_len=4, channel_independent="False",
                     **TINY).fit(y)  # fmt: skip


# ----------------------------------------------------------------------------- 5: regression targets
def test_huge_regression_targets_give_finite_predictions_on_their_scale():
    X, _ = _toy()
    y = X[:, 0].mean(axis=1)
    small = TSRegressor(**TINY).fit(X, y).predict(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        huge = TSRegressor(**TINY).fit(X, y * 1e200).predict(X)
    assert np.isfinite(huge).all()
    np.testing.assert_allclose(huge / 1e200, small, rtol=1e-4, atol=1e-6)


def test_regression_targets_without_columns_are_refused():
    X, _ = _toy()
    with pytest.raises(ValueError, match=r"shape \(24, 0\): no target per series"):
        TSRegressor(**TINY).fit(X, np.zeros((24, 0)))


# ----------------------------------------------------------------------------- 6: validation split
@pytest.mark.parametrize("Estimator", [TSClassifier, TSRegressor])
def test_a_validation_fraction_that_leaves_too_little_training_data_warns(Estimator):
    X, y = _toy()
    target = y if Estimator is TSClassifier else X[:, 0].mean(axis=1)
    with pytest.warns(UserWarning, match="validation_fraction=0.95 of 24 series leaves 1"):
        model = Estimator(**{**TINY, "validation_fraction": 0.95}).fit(X, target)
    assert all(r["valid_loss"] is None for r in model.history_)


# ----------------------------------------------------------------------------- 8: numpy integers
def test_numpy_integers_are_accepted_for_sizes():
    X, y = _toy()
    clf = TSClassifier(**{**TINY, "d_model": np.int64(8), "n_heads": np.int64(2),
                          "max_epochs": np.int32(2)}).fit(X, y)  # fmt: skip
    assert clf.predict(X).shape == (24,)
    grid = GridSearchCV(TSClassifier(**TINY), {"d_model": np.array([8, 16])}, cv=2).fit(X, y)
    assert grid.best_params_["d_model"] in (8, 16)


# ----------------------------------------------------------------------------- 9: labels
@pytest.mark.parametrize(
    "labels, match",
    [
        (["a", None] * 12, r"missing or non-finite label.*position\(s\) \[1, 3, 5, 7, 9\]"),
        ([1.0, np.nan] * 12, "missing or non-finite label"),
        (np.array(["a", np.nan] * 12, dtype=object), "missing or non-finite label"),
        (["a", 1] * 12, r"mixes label types: str \(e.g. 'a'\), number \(e.g. 1\)"),
        (np.array(["a", 2.5] * 12, dtype=object), "mixes label types"),
    ],
)
def test_missing_or_mixed_labels_are_refused_clearly(labels, match):
    X, _ = _toy()
    with pytest.raises(ValueError, match=match):
        TSClassifier(**TINY).fit(X, labels)


# ----------------------------------------------------------------------------- 10: forecaster calls
@pytest.fixture(scope="module")
def forecaster():
    t = np.arange(120.0)
    y = np.stack([np.sin(t / 3), np.cos(t / 5)], axis=1)
    return TSForecaster(horizon=4, context_length=8, patch_len=4, attention="softmax",
                        **TINY).fit(y), y  # fmt: skip


def test_forecaster_refuses_zero_windows(forecaster):
    f, _ = forecaster
    with pytest.raises(ValueError, match=r"y_context has 0 windows \(shape \(0, 8, 2\)\)"):
        f.predict(np.zeros((0, 8, 2)))


def test_forecaster_scoring_with_the_wrong_channels_is_refused(forecaster):
    f, y = forecaster
    contexts = np.stack([y[i : i + 8] for i in range(5)])
    targets = np.stack([y[i + 8 : i + 12] for i in range(5)])
    with pytest.raises(ValueError, match=r"y_true_windows must have shape .* = \(5, 4, 2\); got \(5, 4, 1\)"):
        f.score(contexts, targets[:, :, :1])
    with pytest.raises(ValueError, match="1 channel.*fitted on 2"):
        f.mse(contexts[:, :, :1], targets)
    assert f.mse(contexts, targets) >= 0
