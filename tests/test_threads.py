"""Torch threads per fit: the cores other processes leave free, one per parallel worker, restored
after (no timing asserted)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tsattn import TSClassifier, TSForecaster
from tsattn._parallel import free_cores, usable_cores
from tsattn.training import Callback

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_steps=4, random_state=0)


class _Threads(Callback):
    """Records torch's thread count at every epoch's end."""

    def __init__(self):
        self.seen = []

    def on_epoch_end(self, estimator, record):
        self.seen.append(torch.get_num_threads())


def _data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(12, 2, 32)), np.arange(12) % 2


def test_free_cores_counts_idle_usable_cores():
    assert 1 <= free_cores(interval=0.02) <= usable_cores()


@pytest.mark.parametrize("n_threads", [1, 3])
def test_a_fit_runs_on_its_n_threads_and_gives_them_back(n_threads):
    before = torch.get_num_threads()
    probe = _Threads()
    clf = TSClassifier(n_threads=n_threads, callbacks=[probe], **TINY).fit(*_data())
    assert set(probe.seen) == {n_threads} and clf.n_threads_ == n_threads
    assert torch.get_num_threads() == before


def test_auto_takes_the_free_cores_within_torchs_own_setting(monkeypatch):
    import tsattn.estimators.base as base

    before = torch.get_num_threads()
    monkeypatch.setattr(base, "free_cores", lambda: 1)  # another process holds the rest
    probe = _Threads()
    clf = TSClassifier(callbacks=[probe], **TINY).fit(*_data())
    assert clf.n_threads_ == 1 and set(probe.seen) == {1} and torch.get_num_threads() == before
    monkeypatch.setattr(base, "free_cores", lambda: 64)  # never more than torch's own setting
    assert TSClassifier(**TINY).fit(*_data()).n_threads_ == before
    assert TSClassifier(n_threads=None, **TINY).fit(*_data()).n_threads_ is None


def test_the_forecaster_takes_the_same_parameter():
    y = np.cumsum(np.random.default_rng(0).normal(size=(200, 2)), axis=0)
    est = TSForecaster(8, 16, n_threads=1, **TINY).fit(y)
    assert est.n_threads_ == 1 and est.predict().shape == (8, 2)


def test_parallel_folds_fit_on_one_thread_each():
    from sklearn.model_selection import cross_validate

    X, y = _data()
    out = cross_validate(TSClassifier(**TINY), X, y, cv=2, n_jobs=2, return_estimator=True)
    assert [est.n_threads_ for est in out["estimator"]] == [1, 1]  # joblib's workers: one each
