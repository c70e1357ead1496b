"""The sktime adapters: sktime's own estimator checks (a representative subset by default, all of
them marked slow) and runs inside sktime's evaluation, pipelines and model selection."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sktime")

from sktime.utils.estimator_checks import check_estimator  # noqa: E402

from tsattn.adapters.sktime import (  # noqa: E402
    TSAttnClassifier,
    TSAttnForecaster,
    TSAttnRegressor,
)

# Fitting, params, pickling, side effects, tags. test_predict_time_index (216 cases, ~35 s here)
# and test_update_predict_predicted_index (~65 s) run in the slow, complete check.
SUBSET = [
    "test_fit_returns_self",
    "test_fit_does_not_overwrite_hyper_params",
    "test_methods_have_no_side_effects",
    "test_persistence_via_pickle",
    "test_predict_time_index_in_sample_full",
    "test_y_multivariate_raises_error",
    "test_set_params",
    "test_random_tags",
    "test_get_params",
    "test_clone",
]


def _assert_passed(results):
    failed = {k: v for k, v in results.items() if v != "PASSED"}
    assert results and not failed, failed


def test_sktime_checks_subset():
    _assert_passed(check_estimator(TSAttnForecaster, tests_to_run=SUBSET, verbose=False))


COLLECTION_SUBSET = [
    "test_fit_idempotent",
    "test_persistence_via_pickle",
    "test_methods_have_no_side_effects",
    "test_classifier_output",
    "test_regressor_output",
    "test_random_tags",
    "test_set_params",
]


@pytest.mark.parametrize("cls", [TSAttnClassifier, TSAttnRegressor])
def test_sktime_collection_checks_subset(cls):
    _assert_passed(check_estimator(cls, tests_to_run=COLLECTION_SUBSET, verbose=False))


@pytest.mark.slow
@pytest.mark.parametrize("cls", [TSAttnForecaster, TSAttnClassifier, TSAttnRegressor])
def test_sktime_checks_all(cls):
    # about 120 s, 20 s and 7 s here (890 checks with the panel and exogenous ones, 204, 110)
    _assert_passed(check_estimator(cls, verbose=False))


def test_classifier_probabilities_follow_sktime_class_order():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2, 12))
    y = np.array(["b", "a"] * 10)
    X[y == "a", :, 6:] += 3
    clf = TSAttnClassifier(**{**TSAttnClassifier.get_test_params()[0], "max_epochs": 20}).fit(X, y)
    proba = clf.predict_proba(X)
    assert list(clf.classes_) == ["a", "b"] and proba.shape == (20, 2)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(1)], clf.predict(X))


def test_runs_in_sktime_evaluate_and_pipeline():
    from sktime.forecasting.compose import TransformedTargetForecaster
    from sktime.forecasting.model_evaluation import evaluate
    from sktime.split import ExpandingWindowSplitter
    from sktime.transformations.series.detrend import Detrender

    t = np.arange(80)
    y = pd.Series(
        np.sin(2 * np.pi * t / 12) + 0.01 * t,
        index=pd.period_range("2000-01", periods=80, freq="M"),
    )
    params = TSAttnForecaster.get_test_params()[0]
    pipe = TransformedTargetForecaster(
        [("detrend", Detrender()), ("net", TSAttnForecaster(**params))]
    )
    cv = ExpandingWindowSplitter(fh=[1, 2, 3], initial_window=60, step_length=10)
    scores = evaluate(pipe, cv, y)
    assert len(scores) == 2 and np.isfinite(scores.iloc[:, 0]).all()


def test_fh_other_than_in_fit_raises():
    y = pd.Series(np.sin(np.arange(40.0)))
    f = TSAttnForecaster(**TSAttnForecaster.get_test_params()[0]).fit(y, fh=[1, 2])
    assert f.predict().shape == (2,)
    with pytest.raises(ValueError, match="fh"):
        f.predict(fh=[5])


def test_update_forecasts_from_the_new_data_without_sktime_keeping_it():
    y = pd.Series(np.sin(np.arange(60.0) / 3))
    f = TSAttnForecaster(**TSAttnForecaster.get_test_params()[0])
    f.set_config(remember_data=False)
    f.fit(y.iloc[:40], fh=[1, 2])
    f.update(y.iloc[40:], update_params=False)
    expected = f.forecaster_.predict(y.to_numpy()[:, None])[:, 0]
    pred = f.predict()
    assert list(pred.index) == [60, 61]
    np.testing.assert_allclose(pred.to_numpy(), expected, rtol=1e-6)


def test_adapter_defaults_are_the_wrapped_estimators_defaults():
    from tsattn import TSClassifier, TSForecaster, TSRegressor
    from tsattn.adapters.sktime import TSAttnClassifier, TSAttnForecaster, TSAttnRegressor

    for adapter, estimator in [
        (TSAttnClassifier, TSClassifier),
        (TSAttnRegressor, TSRegressor),
        (TSAttnForecaster, TSForecaster),
    ]:
        # every parameter of the estimator (but the forecaster's horizon, which fh sets), declared
        # there only, with its default
        theirs = estimator().get_params()
        theirs.pop("horizon", None)
        assert adapter().get_params() == theirs, adapter.__name__


def test_a_parameter_beyond_the_old_hand_picked_list_reaches_the_forecaster():
    y = pd.Series(np.sin(np.arange(40.0)))
    params = {**TSAttnForecaster.get_test_params()[0], "attention": "bn", "beta": 0.3,
              "weight_decay": 0.0}  # fmt: skip
    f = TSAttnForecaster(**params).fit(y, fh=[1, 2])
    assert f.forecaster_.beta == 0.3 and f.forecaster_.weight_decay == 0.0
    assert f.forecaster_.horizon == 2 and f.get_params()["beta"] == 0.3


def test_interval_api_is_the_forecasters_calibrated_quantiles():
    y = pd.DataFrame({"a": np.sin(np.arange(80.0) / 3), "b": np.cos(np.arange(80.0) / 5)})
    f = TSAttnForecaster(**TSAttnForecaster.get_test_params()[0]).fit(y, fh=[1, 3])
    assert f.get_tag("capability:pred_int")
    q = f.predict_quantiles(alpha=[0.1, 0.9])
    expected = f.forecaster_.predict_quantiles(y.to_numpy(), alpha=[0.1, 0.9])[[0, 2]]
    assert list(q.index) == [80, 82] and list(q.columns) == [("a", 0.1), ("a", 0.9),
                                                             ("b", 0.1), ("b", 0.9)]  # fmt: skip
    np.testing.assert_allclose(q.to_numpy(), expected.reshape(2, -1))
    interval = f.predict_interval(coverage=0.8)  # sktime derives it from the quantiles
    lower, upper = interval[("a", 0.8, "lower")], interval[("a", 0.8, "upper")]
    assert list(lower.index) == [80, 82] and (lower.to_numpy() < upper.to_numpy()).all()
    np.testing.assert_allclose(lower.to_numpy(), q[("a", 0.1)].to_numpy())


def test_the_season_is_read_off_the_index_sktime_passes():
    """sktime hands the adapter a frame on the series' own index (monthly ``PeriodIndex`` for the
    airline data): the wrapped forecaster reads 12 months per season from it, as it would if
    fitted directly (an array would give it none)."""
    from sktime.datasets import load_airline

    y = load_airline()
    f = TSAttnForecaster(**TSAttnForecaster.get_test_params()[0]).fit(y, fh=[1, 2, 3])
    assert f.forecaster_.period_ == 12
    assert f.predict().index.equals(pd.period_range("1961-01", periods=3, freq="M"))
