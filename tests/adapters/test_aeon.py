"""The aeon adapters: every one of aeon's own estimator checks (about 2 s for both adapters here, so
all of them run by default), real aeon data of equal and unequal length, and runs inside aeon and
scikit-learn workflows."""

from __future__ import annotations

import sys

import numpy as np
import pytest

pytest.importorskip("aeon")

from aeon.datasets import (  # noqa: E402
    load_basic_motions,
    load_covid_3month,
    load_japanese_vowels,
)
from aeon.testing.estimator_checking import parametrize_with_checks  # noqa: E402

from tsattn.adapters.aeon import TSAttnAeonClassifier, TSAttnAeonRegressor  # noqa: E402

TINY = TSAttnAeonClassifier._get_test_params()[0]


# 40 checks per adapter (both test parameter sets; equal- and unequal-length, univariate and
# multivariate data as np-list and numpy3D). None is skipped or expected to fail. The two
# ``check_*_against_expected_results`` checks pass trivially: aeon stores reference outputs only
# for its own estimators.
@parametrize_with_checks([TSAttnAeonClassifier, TSAttnAeonRegressor])
def test_aeon_estimator_checks(check):
    check()


def test_classifier_on_basic_motions():
    X, y = load_basic_motions(split="train")
    Xt, _ = load_basic_motions(split="test")
    clf = TSAttnAeonClassifier(**TINY).fit(X, y)
    pred, proba = clf.predict(Xt), clf.predict_proba(Xt)
    assert list(clf.classes_) == sorted(set(y)) and clf.n_classes_ == 4
    assert pred.shape == (len(Xt),) and set(pred) <= set(y)
    assert proba.shape == (len(Xt), 4)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(1)], pred)
    np.testing.assert_array_equal(clf.estimator_.classes_, clf.classes_)
    np.testing.assert_allclose(proba, clf.estimator_.predict_proba(Xt))


def test_probabilities_follow_aeon_class_order():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2, 12))
    y = np.array(["b", "a"] * 10)
    X[y == "a", :, 6:] += 3
    clf = TSAttnAeonClassifier(**{**TINY, "max_epochs": 50, "batch_size": 4}).fit(X, y)
    proba = clf.predict_proba(X)
    assert list(clf.classes_) == ["a", "b"] and proba.shape == (20, 2)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(1)], clf.predict(X))
    # The separable toy is learnt, so column 0 is the probability of "a", not only the argmax.
    assert (proba[y == "a", 0] > 0.5).all() and (proba[y == "b", 0] < 0.5).all()


def test_probability_columns_are_mapped_to_aeon_order():
    """Should the wrapped estimator order its classes differently, the columns follow aeon's."""

    class Wrapped:
        classes_ = np.array(["b", "c", "a"])

        def predict_proba(self, X):
            return np.tile([0.2, 0.7, 0.1], (len(X), 1))

    clf = TSAttnAeonClassifier(**TINY)
    clf.classes_ = np.array(["a", "b", "c"])
    clf.estimator_ = Wrapped()
    np.testing.assert_allclose(clf._predict_proba(np.zeros((2, 1, 5))), [[0.1, 0.2, 0.7]] * 2)


def test_unequal_length_japanese_vowels_are_passed_whole():
    X, y = load_japanese_vowels(split="train")
    Xt, yt = load_japanese_vowels(split="test")
    assert isinstance(X, list) and len({s.shape[1] for s in X}) > 1
    clf = TSAttnAeonClassifier(**{**TINY, "max_epochs": 20}).fit(X, y)
    assert clf.metadata_["unequal_length"]
    # aeon handed over the list untouched: no padding or truncation before the network's own.
    assert not clf.estimator_.equal_length_
    assert clf.estimator_.series_length_ == max(s.shape[1] for s in X)
    proba = clf.predict_proba(Xt)
    np.testing.assert_allclose(proba, clf.estimator_.predict_proba(Xt))
    assert proba.shape == (len(Xt), 9)
    # 20 epochs of the tiny network learn well above chance (1/9); 0.63 here.
    assert (clf.predict(Xt) == yt).mean() > 0.3


def test_regressor_on_covid_3month():
    X, y = load_covid_3month(split="train")
    Xt, _ = load_covid_3month(split="test")
    reg = TSAttnAeonRegressor(**TINY).fit(X, y)
    pred = reg.predict(Xt)
    assert pred.shape == (len(Xt),) and np.isfinite(pred).all()
    np.testing.assert_allclose(pred, reg.estimator_.predict(Xt))


def test_every_parameter_reaches_the_wrapped_estimator():
    X, y = load_basic_motions(split="train")
    clf = TSAttnAeonClassifier(**{**TINY, "attention": "bn", "beta": 0.3, "label_smoothing": 0.0})
    clf.fit(X, y)
    assert clf.estimator_.beta == 0.3 and clf.estimator_.attention == "bn"
    assert clf.estimator_.label_smoothing == 0.0 and clf.estimator_.d_model == TINY["d_model"]
    assert TSAttnAeonClassifier("bn").attention == "bn"  # positional as the estimator's
    with pytest.raises(TypeError, match="estimator_params"):
        TSAttnAeonClassifier(estimator_params={"beta": 0.3})


def test_runs_in_sklearn_cross_validation_and_aeon_pipelines():
    from aeon.classification.compose import ClassifierPipeline
    from aeon.transformations.collection import Normalizer
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    X, y = load_basic_motions(split="train")
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(TSAttnAeonClassifier(**TINY), X, y, cv=cv)
    assert scores.shape == (3,) and ((0 <= scores) & (scores <= 1)).all()

    pipe = ClassifierPipeline([Normalizer()], TSAttnAeonClassifier(**TINY)).fit(X, y)
    assert pipe.predict_proba(X).shape == (len(X), 4)

    # aeon's own train estimate: cross-validated predictions of clones.
    train_pred = TSAttnAeonClassifier(**TINY).fit_predict(X, y, cv_size=3)
    assert train_pred.shape == (len(X),) and set(train_pred) <= set(y)

    Xr, yr = load_covid_3month(split="train")
    r2 = cross_val_score(TSAttnAeonRegressor(**TINY), Xr, yr, cv=3)
    assert r2.shape == (3,) and np.isfinite(r2).all()


def test_adapter_defaults_are_the_wrapped_estimators_defaults():
    from tsattn import TSClassifier, TSRegressor

    for adapter, estimator in [
        (TSAttnAeonClassifier, TSClassifier),
        (TSAttnAeonRegressor, TSRegressor),
    ]:
        # every parameter of the estimator, declared there only, with its default
        assert adapter().get_params() == estimator().get_params(), adapter.__name__


def test_missing_aeon_gives_a_clear_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "aeon.classification.base", None)
    monkeypatch.delitem(sys.modules, "tsattn.adapters.aeon")
    with pytest.raises(ImportError, match=r"needs aeon.*pip install aeon"):
        import tsattn.adapters.aeon  # noqa: F401
