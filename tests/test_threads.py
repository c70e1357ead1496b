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


def test_cores_left_counts_idle_cores_and_the_process_own():
    from tsattn._parallel import cores_left

    n = __import__("os").cpu_count()
    # over 1 s of n cores: half idle, a quarter ours, a quarter another process's
    assert cores_left((0.0, 0.0, 0.0), (0.5 * n, 1.0 * n, 0.25 * n)) == pytest.approx(0.75 * n)
    assert cores_left((1.0, 5.0, 2.0), (1.0, 5.0, 2.0)) is None


def test_the_thread_budget_keeps_the_faster_count_within_the_free_cores(monkeypatch):
    import tsattn.training.threads as threads

    left = iter([0.6, 1.9, 1.8])  # cores left to the fit at each check after the trial
    ticks = iter(range(0, 1000, 3))  # three seconds between steps: every step checks
    block = {2: iter([0.5, 0.4]), 1: iter([0.3, 0.35])}  # one thread steps faster here
    clock = {"t": 0.0}

    def perf_counter():  # each trial block lasts what ``block`` says for the count it ran on
        return clock["t"]

    monkeypatch.setattr(threads, "cpu_sample", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(threads, "cores_left", lambda first, second: next(left))
    monkeypatch.setattr(threads.time, "monotonic", lambda: next(ticks))
    monkeypatch.setattr(threads.time, "perf_counter", perf_counter)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        budget = threads.ThreadBudget(limit=2, block=1, retrial=1000)
        budget.on_train_begin(None)
        for step in range(1, 5):  # the trial: 2, 1, 2, 1 threads, one step each
            clock["t"] += next(block[torch.get_num_threads()])
            budget.on_step_end(None, step)
        assert len(budget.trials) == 1 and torch.get_num_threads() == 1
        assert {n: pytest.approx(t) for n, t in budget.trials[0].items()} == {2: [0.5, 0.4], 1: [0.3, 0.35]}
        for step in range(5, 8):  # then the free cores cap the count chosen, one
            budget.on_step_end(None, step)
        assert torch.get_num_threads() == 1
        assert budget.changes == [(1, 1), (2, 2), (3, 1)]  # the trial's own changes only
    finally:
        torch.set_num_threads(before)


def test_the_thread_budget_gives_way_to_a_neighbour_and_takes_the_core_again(monkeypatch):
    import tsattn.training.threads as threads

    left = iter([1.9, 0.7, 1.6])
    ticks = iter(range(0, 1000, 3))
    monkeypatch.setattr(threads, "cpu_sample", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(threads, "cores_left", lambda first, second: next(left))
    monkeypatch.setattr(threads.time, "monotonic", lambda: next(ticks))
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        budget = threads.ThreadBudget(limit=2, block=1)
        budget.on_train_begin(None)
        budget._plan = []  # no trial: two threads stay the best count
        for step in range(1, 4):
            budget.on_step_end(None, step)
        assert budget.changes == [(2, 1), (3, 2)] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
