"""TSClassifier / TSRegressor: input formats, errors, training loop, persistence, sklearn workflows."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import torch
from aeon.datasets import load_covid_3month, load_japanese_vowels
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from tests.helpers.series import toy_series as _toy
from tsattn import TSClassifier, TSRegressor
from tsattn.training import Callback

TINY = dict(
    d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_epochs=4, validation_fraction=0.2,
    random_state=0,
)


@pytest.fixture(scope="module")
def vowels():
    X, y = load_japanese_vowels(split="train")
    Xt, yt = load_japanese_vowels(split="test")
    return X, y, Xt, yt


# ----------------------------------------------------------------------------- input formats
def test_unequal_lengths_list_equals_nan_padding():
    X, y = _toy()
    lengths = [12 - (i % 5) for i in range(len(X))]
    as_list = [X[i, :, : lengths[i]] for i in range(len(X))]
    padded = X.copy()
    for i, L in enumerate(lengths):
        padded[i, :, L:] = np.nan
    a = TSClassifier(**TINY).fit(as_list, y)
    b = TSClassifier(**TINY).fit(padded, y)
    np.testing.assert_allclose(a.predict_proba(as_list), b.predict_proba(padded), rtol=1e-5, atol=1e-6)
    assert a.series_length_ == 12 and not a.equal_length_


@pytest.mark.parametrize("head", ["meanmax", "pool"])
def test_prediction_of_a_series_does_not_depend_on_batch_padding(vowels, head):
    X, y, Xt, _ = vowels
    clf = TSClassifier(**{**TINY, "head": head}).fit(X, y)
    short = [s for s in Xt if s.shape[1] < 10][:3]
    long = [s for s in Xt if s.shape[1] == max(x.shape[1] for x in Xt)][:1]
    alone = clf.predict_proba(short)
    with_long = clf.predict_proba(short + long)[: len(short)]
    np.testing.assert_allclose(alone, with_long, rtol=1e-5, atol=1e-6)


def test_meanmax_head_pools_mean_and_max_over_real_steps_only():
    from tsattn.nn.heads import PoolingHead

    torch.manual_seed(0)
    head = PoolingHead(4, 3, dropout=0.0, with_max=True).eval()
    h = torch.randn(2, 5, 4)
    h[1, 3:] = 100.0  # padding of the second series: must not reach its max or mean
    mask = torch.tensor([[True] * 5, [True, True, True, False, False]])
    gelu = torch.nn.functional.gelu
    feats = torch.stack([
        torch.cat([gelu(h[0]).mean(0), gelu(h[0]).amax(0)]),
        torch.cat([gelu(h[1, :3]).mean(0), gelu(h[1, :3]).amax(0)]),
    ])  # fmt: skip
    expected = feats @ head.linear.weight.T + head.linear.bias
    torch.testing.assert_close(head(h, mask), expected)
    torch.testing.assert_close(head(h[:1]), expected[:1])  # no mask: every step is real
    assert PoolingHead(4, 3, 0.0).linear.in_features == 4  # "pool": the mean only


def test_univariate_2d_equals_3d():
    X, y = _toy(c=1)
    a = TSClassifier(**TINY).fit(X[:, 0, :], y).predict_proba(X[:, 0, :])
    b = TSClassifier(**TINY).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_aeon_collection_formats(vowels):
    from aeon.utils.conversion import convert_collection

    X, y, Xt, _ = vowels
    clf = TSClassifier(**TINY).fit(X, y)
    df = convert_collection(Xt[:10], "df-list")
    np.testing.assert_allclose(clf.predict_proba(df), clf.predict_proba(Xt[:10]), rtol=1e-5, atol=1e-6)


def test_regressor_on_covid3month_beats_mean():
    X, y = load_covid_3month(split="train")
    Xt, yt = load_covid_3month(split="test")
    reg = TSRegressor(**{**TINY, "max_epochs": 30, "lr": 3e-3}).fit(X, y)
    pred = reg.predict(Xt)
    assert pred.shape == yt.shape and np.isfinite(pred).all()
    two = TSRegressor(**TINY).fit(X, np.c_[y, -y]).predict(Xt)
    assert two.shape == (len(Xt), 2)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "X_fn, match",
    [
        (lambda X: X[0, 0], "1-D"),
        (lambda X: X[..., None], "4 dimension"),
        (lambda X: X[:0], "empty"),
        (lambda X: np.where(np.arange(12) == 5, np.nan, X), "NaN at time step 5"),
        (lambda X: np.where(np.arange(12) == 3, np.inf, X), "infinite"),
        (lambda X: [X[0], X[1, :1]] + list(X[2:]), "channels"),
    ],
)
def test_bad_X_at_fit(X_fn, match):
    X, y = _toy()
    with pytest.raises(ValueError, match=match):
        TSClassifier(**TINY).fit(X_fn(X), y)


def test_bad_y():
    X, y = _toy()
    with pytest.raises(ValueError, match="only 1 class"):
        TSClassifier(**TINY).fit(X, np.array(["a"] * len(X)))
    with pytest.warns(UserWarning, match="cannot carve a stratified validation split"):
        clf = TSClassifier(**TINY).fit(X[:4], np.array(["a", "b", "c", "c"]))
    assert all(r["valid_loss"] is None for r in clf.history_)
    with pytest.raises(ValueError, match="y has 5 labels"):
        TSClassifier(**TINY).fit(X, y[:5])
    with pytest.raises(ValueError, match="NaN or infinite"):
        TSRegressor(**TINY).fit(X, np.r_[np.nan, np.ones(len(X) - 1)])


def test_mismatch_at_predict():
    X, y = _toy()
    clf = TSClassifier(**TINY).fit(X, y)
    with pytest.raises(ValueError, match="1 channel\\(s\\) but TSClassifier was fitted on 2"):
        clf.predict(X[:, :1])
    with pytest.raises(ValueError, match="differs from the length 12"):
        clf.predict(X[:, :, :10])
    flat = TSClassifier(**TINY, head="flatten").fit([s[:, :8] for s in X[:12]] + list(X[12:14]), y[:14])
    with pytest.raises(ValueError, match="head='flatten'"):
        flat.predict([np.ones((2, 20))])


def test_not_fitted():
    with pytest.raises(NotFittedError):
        TSClassifier().predict(np.ones((2, 1, 5)))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"attention": "sofmax"}, "Unknown attention 'sofmax'.*softmax.*Valid names"),
        ({"attention": "sh", "n_heads": 2, "scales": (1, 2, 4)}, "3 entries but n_heads=2"),
        ({"attention": "sh", "scales": (1, 0)}, "positive integers"),
        ({"attention": "sh", "scales": (1, 1.5)}, "positive integers"),
        ({"d_model": 15}, "not divisible by n_heads"),
        ({"norm": "group"}, "norm must be"),
        ({"max_epochs": 0}, "max_epochs"),
        ({"validation_fraction": 1.0}, "validation_fraction"),
        ({"device": "tpu"}, "device"),
    ],
)
def test_bad_parameters(params, match):
    X, y = _toy()
    with pytest.raises(ValueError, match=match):
        TSClassifier(**{**TINY, **params}).fit(X, y)


def test_ignored_hyperparameter_warns():
    X, y = _toy()
    with pytest.warns(UserWarning, match="'softmax' ignores beta=0.5"):
        TSClassifier(**TINY, beta=0.5).fit(X, y)


# ----------------------------------------------------------------------------- training loop
def test_history_early_stopping_and_restore_best():
    X, y = _toy(n=40)
    clf = TSClassifier(**{**TINY, "max_epochs": 50, "patience": 3}).fit(X, y)
    assert clf.n_epochs_ == len(clf.history_) <= 50
    assert all(r["valid_loss"] is not None for r in clf.history_)
    # Classification selects on validation accuracy, ties broken by the lower validation loss.
    best = min(clf.history_, key=lambda r: (-r["valid_score"], r["valid_loss"]))
    assert clf.best_epoch_ == best["epoch"]
    reg = TSRegressor(**{**TINY, "max_epochs": 8, "patience": None}).fit(X, np.arange(40.0))
    assert all(r["valid_score"] is None for r in reg.history_)
    best_reg = min(reg.history_, key=lambda r: r["valid_loss"])
    assert reg.best_epoch_ == best_reg["epoch"]
    if clf.n_epochs_ < 50:
        assert clf.n_epochs_ - clf.best_epoch_ == 3


def test_ctrl_c_keeps_best_weights_and_a_usable_model(ctrl_c_on_fit):
    X, y = _toy(n=40)
    cb = ctrl_c_on_fit(fit=1, epoch=3)
    plateau = {**TINY, "lr_schedule": "plateau"}  # a schedule that does not depend on the budget
    with pytest.warns(UserWarning, match="interrupted after 3 epoch"):
        clf = TSClassifier(**{**plateau, "max_epochs": 20}, callbacks=[cb]).fit(X, y)
    assert clf.interrupted_ and clf.n_epochs_ == 3
    assert clf.predict(X).shape == (40,)
    # The restored weights are the best epoch's: rerunning to that epoch gives the same model.
    ref = TSClassifier(**{**plateau, "max_epochs": clf.best_epoch_, "patience": None}).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict_proba(X), rtol=1e-5, atol=1e-6)


def test_ctrl_c_with_the_decaying_schedule_keeps_the_last_epoch(ctrl_c_on_fit):
    X, y = _toy(n=40)
    with pytest.warns(UserWarning, match="interrupted after 3 epoch"):
        # no validation split: the decaying schedule's rule (keep the last epoch) applies
        clf = TSClassifier(**{**TINY, "max_epochs": 20, "validation_fraction": 0.0},
                           callbacks=[ctrl_c_on_fit(fit=1, epoch=3)]).fit(X, y)  # fmt: skip
    assert clf.lr_schedule == "warmup_cosine" and clf.interrupted_ and clf.best_epoch_ == 3
    assert np.isfinite(clf.predict_proba(X)).all()


def test_callback_can_stop_training():
    class StopAt2(Callback):
        def on_epoch_end(self, estimator, record):
            return record["epoch"] == 2

    X, y = _toy()
    clf = TSClassifier(**{**TINY, "max_epochs": 10}, callbacks=[StopAt2()]).fit(X, y)
    assert clf.n_epochs_ == 2


def test_progress_bar_when_verbose(capsys):
    X, y = _toy()
    TSClassifier(**TINY, verbose=1).fit(X, y)
    assert "epoch" in capsys.readouterr().err


def test_probabilities_sum_to_one_for_sklearn_metrics():
    from sklearn.metrics import log_loss

    X, y = _toy()
    clf = TSClassifier(**TINY).fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.dtype == np.float64
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # sklearn warns when rows do not sum to one
        log_loss(y, proba, labels=clf.classes_)


def test_same_random_state_same_predictions():
    X, y = _toy()
    a = TSClassifier(**TINY).fit(X, y).predict_proba(X)
    b = TSClassifier(**TINY).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    c = TSClassifier(**{**TINY, "random_state": 1}).fit(X, y).predict_proba(X)
    assert not np.array_equal(a, c)


def test_fit_leaves_global_torch_rng_alone():
    X, y = _toy()
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    TSClassifier(**TINY).fit(X, y)
    np.testing.assert_array_equal(torch.rand(3), expected)


# ----------------------------------------------------------------------------- persistence
def test_pickle_roundtrip(tmp_path):
    X, y = _toy()
    clf = TSClassifier(**TINY, attention="bn_sh", scales=(1, 2)).fit(X, y)
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(clf))
    loaded = pickle.loads(path.read_bytes())
    np.testing.assert_array_equal(loaded.predict_proba(X), clf.predict_proba(X))
    assert loaded.history_ == clf.history_


@pytest.mark.skipif(torch.cuda.is_available(), reason="simulates a CPU-only machine")
def test_model_saved_for_cuda_loads_on_cpu_only_machine():
    X, y = _toy()
    clf = TSClassifier(**TINY).fit(X, y)
    expected = clf.predict_proba(X)
    clf.device = "cuda"  # as if it had been fitted on a GPU machine
    blob = pickle.dumps(clf)
    with pytest.warns(UserWarning, match="loading it on the CPU"):
        loaded = pickle.loads(blob)
    assert loaded.device_.type == "cpu"
    np.testing.assert_allclose(loaded.predict_proba(X), expected, rtol=1e-6)


def test_trained_network_can_switch_attention():
    from tsattn.nn import TSTransformer

    X, y = _toy()
    clf = TSClassifier(**TINY).fit(X, y)
    params = dict(clf.network_params_)
    for name in ("bn", "sh", "bn_sh"):
        params["attention"] = name
        params["attention_params"] = {"scales": (1, 2)} if "sh" in name else {}
        TSTransformer(**params).load_state_dict(clf.module_.state_dict(), strict=True)


# ----------------------------------------------------------------------------- sklearn workflows
def test_clone_pipeline_cross_val_score(vowels):
    X, y, _, _ = vowels
    clf = TSClassifier(**TINY, attention="bn_sh")
    assert clone(clf).get_params() == clf.get_params()
    pipe = Pipeline([("scale", FunctionTransformer(lambda X: [2.0 * s for s in X])), ("clf", clf)])
    scores = cross_val_score(pipe, X[:90], y[:90], cv=3)
    assert scores.shape == (3,) and np.all(scores >= 0)


def test_grid_search_over_attention_and_beta(vowels):
    X, y, Xt, yt = vowels
    grid = GridSearchCV(
        TSClassifier(**{**TINY, "max_epochs": 12}),
        param_grid={"attention": ["bn", "bn_sh"], "beta": [0.3, 0.6]},
        cv=2,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no "ignored hyperparameter" warnings here
        grid.fit(X[::3], y[::3])  # 90 series, every class
    assert set(grid.best_params_) == {"attention", "beta"}
    assert grid.score(Xt[::4], yt[::4]) > 2 / 9  # twice chance on 9 classes


def test_head_diversity_of_a_fitted_estimator(vowels):
    from tsattn.analysis import estimator_head_diversity

    X, y, Xt, _ = vowels
    clf = TSClassifier(**{**TINY, "n_layers": 2}, attention="bn_sh").fit(X[:60], y[:60])
    result = estimator_head_diversity(clf, Xt[:20])
    assert len(result["per_layer"]) == 2
    assert result["mean"] > 0 and result["std"] >= 0
    with pytest.raises(NotFittedError):
        estimator_head_diversity(TSClassifier(), Xt[:2])


def test_s3_max_len_follows_the_training_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2, 600))
    y = np.array(["a", "b"] * 6)
    def filter_len(clf):  # s3's Fourier filter spans the attention's tokens (the trunk sizes it)
        return clf.module_.encoder.layers[0].attention.max_len

    clf = TSClassifier(**{**TINY, "max_epochs": 1}, attention="s3").fit(X, y)
    assert filter_len(clf) == clf.n_tokens_ == clf.module_.tokenizer.n_tokens(600)
    assert clf.predict(X).shape == (12,)
    short = TSClassifier(**{**TINY, "max_epochs": 1}, attention="s3").fit(X[:, :, :40], y)
    assert filter_len(short) == short.n_tokens_
    ragged = [s[:, : 30 + i] for i, s in enumerate(X)]
    unequal = TSClassifier(**{**TINY, "max_epochs": 1}, attention="s3").fit(ragged, y)
    assert filter_len(unequal) == unequal.module_.tokenizer.n_tokens(512)  # room for longer series
    assert unequal.predict([s[:, :400] for s in X[:2]]).shape == (2,)
    with pytest.warns(UserWarning, match="ignores max_len=64"):
        TSClassifier(**{**TINY, "max_epochs": 1}, max_len=64).fit(X[:, :, :20], y)
