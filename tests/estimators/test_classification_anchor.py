"""TSClassifier(anchor='hydra-multirocket'): a ridge on Hydra's and MultiRocket's features (aeon's
MultiRocketHydraClassifier), whose leave-one-out scores the network corrects in logit space."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.metrics import log_loss

from tsattn import TSClassifier
from tsattn.estimators._rocket_anchor import RocketAnchor
from tsattn.estimators.classification import TEMPERATURES, _temperature
from tsattn.io import to_series_batch

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_steps=20, batch_size=16,
            device="cpu", anchor="hydra-multirocket")  # fmt: skip


def _data(n: int, seed: int = 0, length: int = 30):
    """Three classes of noisy waves: a sine, a square wave and a ramp, random level and phase."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    t = np.arange(length) / 4.0 + rng.uniform(0, 6, (n, 1))
    waves = np.stack([np.sin(t), np.sign(np.sin(t)), (t % 3) - 1.5], axis=0)  # (3, n, length)
    X = waves[y, np.arange(n)] + rng.normal(size=(n, 1)) + 0.3 * rng.normal(size=(n, length))
    return X[:, None, :], np.array(["ramp", "sine", "square"])[y]


def test_leave_one_out_scores_are_exact_and_the_temperature_minimises_their_log_loss():
    """The fast paths against slow references: each series' recorded score is the ridge refitted
    without it (at the chosen penalty), and the temperature is the grid's lowest log-loss."""
    from sklearn.linear_model import Ridge

    X, y = _data(36)
    codes = np.unique(y, return_inverse=True)[1]
    onehot = np.where(codes[:, None] == np.arange(3), 1.0, -1.0)
    anchor = RocketAnchor(seed=2, transform="hydra-multirocket")
    loo = anchor.fit(to_series_batch(X), onehot)
    assert loo.shape == (36, 3) and loo.dtype == np.float64
    arrays = np.asarray(X, dtype=np.float64)
    features = np.concatenate([
        anchor.hydra_.transform(arrays),
        anchor.transform_.transform(arrays).astype(np.float64) / anchor.scale_,
    ], axis=1)  # fmt: skip
    for i in (0, 17, 35):
        rest = np.delete(np.arange(36), i)
        ridge = Ridge(alpha=anchor.ridge_.alpha_).fit(features[rest], onehot[rest])
        np.testing.assert_allclose(
            loo[i], ridge.predict(features[i : i + 1])[0], rtol=1e-5, atol=1e-7
        )
    best = min(TEMPERATURES, key=lambda t: log_loss(codes, torch.softmax(
        torch.from_numpy(t * loo), dim=1).numpy(), labels=[0, 1, 2]))  # fmt: skip
    assert _temperature(loo, codes) == pytest.approx(best)


def test_anchor_alone_is_aeons_multirocket_hydra_classifier():
    """Same transforms and seed, the same sparse scaling of Hydra's counts, the same penalties:
    the ridge's labels are aeon's MultiRocketHydraClassifier's."""
    from aeon.classification.convolution_based import MultiRocketHydraClassifier

    X, y = _data(60)
    Xt, _ = _data(40, seed=1)
    codes, classes = np.unique(y, return_inverse=True)[1], np.unique(y)
    anchor = RocketAnchor(seed=4, transform="hydra-multirocket")
    anchor.fit(to_series_batch(X), np.where(codes[:, None] == np.arange(3), 1.0, -1.0))
    ours = classes[anchor.predict(to_series_batch(Xt)).argmax(axis=1)]
    peer = MultiRocketHydraClassifier(random_state=4, n_jobs=1).fit(X, y).predict(Xt)
    assert np.mean(ours == peer) >= 0.95, np.mean(ours == peer)


def test_probabilities_are_the_softmax_of_the_networks_logits_plus_the_anchors():
    X, y = _data(40)
    est = TSClassifier(random_state=0, **TINY).fit(X, y)
    assert est.anchor_temperature_ in TEMPERATURES and est.anchor_.transform == "hydra-multirocket"
    network = est._forward(X[:6]).double()
    anchor = torch.from_numpy(est.anchor_.predict(to_series_batch(X[:6])) * est.anchor_temperature_)
    expected = torch.softmax(network + anchor, dim=1).numpy()
    np.testing.assert_allclose(est.predict_proba(X[:6]), expected, rtol=1e-10)
    assert list(est.predict(X[:6])) == list(est.classes_[expected.argmax(axis=1)])
    plain = TSClassifier(**{**TINY, "anchor": "none"}, random_state=0).fit(X, y)
    assert plain.anchor_ is None and plain.anchor_temperature_ is None
    # the defaults chosen together by cross-validation on TRAIN (docs/results/classify_cv/, hmr0)
    assert (TSClassifier().anchor, TSClassifier().label_smoothing) == ("hydra-multirocket", 0.0)


def test_the_anchor_carries_a_task_the_tiny_network_cannot_learn_in_20_steps():
    X, y = _data(90)
    Xt, yt = _data(60, seed=1)
    anchored = TSClassifier(random_state=0, **TINY).fit(X, y)
    alone = anchored.classes_[anchored.anchor_.predict(to_series_batch(Xt)).argmax(axis=1)]
    assert np.mean(alone == yt) > 0.9
    assert anchored.score(Xt, yt) > 0.9


def test_fit_leaves_torchs_global_generator_and_threads_as_they_were():
    """aeon's Hydra seeds torch's global generator and sets its threads; the fit restores both."""
    X, y = _data(30)
    threads = torch.get_num_threads()
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    TSClassifier(random_state=0, **TINY).fit(X, y)
    np.testing.assert_array_equal(torch.rand(3), expected)
    assert torch.get_num_threads() == threads


def test_clone_pickle_reproducibility_short_series_and_a_validation_split():
    X, y = _data(40, length=8)  # shorter than MultiRocket's 10 steps: padded
    est = TSClassifier(random_state=0, validation_fraction=0.25, **TINY)
    copy = clone(est)
    assert copy.get_params()["anchor"] == "hydra-multirocket" and not hasattr(copy, "anchor_")
    est.fit(X, y)
    assert est.anchor_.length_ == 10 and est.predict_proba(X[:4]).shape == (4, 3)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict_proba(X[:5]), est.predict_proba(X[:5]))
    np.testing.assert_array_equal(copy.fit(X, y).predict_proba(X[:5]), est.predict_proba(X[:5]))
    with pytest.raises(ValueError, match="anchor"):
        TSClassifier(**{**TINY, "anchor": "rocket"}).fit(X, y)
    with pytest.raises(ValueError, match="needs at least 2 classes"):
        TSClassifier(**TINY).fit(X[:1], y[:1])


def test_the_anchor_runs_numbas_loops_on_workqueue_threads_in_a_fresh_process():
    """numba's OpenMP threads would spin beside torch's during the training that follows."""
    import subprocess
    import sys

    code = ("import numpy as np, numba; from tsattn import TSClassifier; "
            "X = np.random.default_rng(0).normal(size=(20, 1, 30)); "
            "TSClassifier(max_steps=2, d_model=16, n_heads=2, device='cpu').fit(X, np.arange(20) % 2); "
            "print(numba.threading_layer())")  # fmt: skip
    env = {k: v for k, v in __import__("os").environ.items() if k != "NUMBA_THREADING_LAYER"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip().splitlines()[-1] == "workqueue"


def test_a_training_set_above_large_n_warns_at_the_users_fit_and_names_the_way_out(monkeypatch):
    import warnings

    from tsattn import TSRegressor
    from tsattn.estimators import _rocket_anchor

    X, y = _data(30)
    monkeypatch.setattr(_rocket_anchor, "LARGE_N", 29)
    with pytest.warns(UserWarning, match="30 training series.*anchor='none'") as seen:
        TSClassifier(random_state=0, **{**TINY, "max_steps": 2}).fit(X, y)
    assert [w.filename for w in seen if "anchor='none'" in str(w.message)] == [__file__]
    reg = TSRegressor(random_state=0, **{**TINY, "max_steps": 2, "anchor": "rocket"})
    with pytest.warns(UserWarning, match="TSRegressor's anchor"):
        reg.fit(X, np.arange(30.0))
    monkeypatch.setattr(_rocket_anchor, "LARGE_N", 30)  # at the limit: silent
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*grow with their number")
        TSClassifier(random_state=0, **{**TINY, "max_steps": 2}).fit(X, y)
