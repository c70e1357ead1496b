"""Shared studies with real worker processes on real SQLite and journal storage: exact trial counts,
different points per worker with one random_state, and a worker killed mid-trial (SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

optuna = pytest.importorskip("optuna")

from tsattn.tuning import resolve_storage  # noqa: E402

STATE = optuna.trial.TrialState
#: Seconds without a heartbeat after which a rerun worker fails a trial (production: 60).
STALE_S = 8

# argv: storage, n_trials, start time, max_epochs, heartbeat seconds, stale-after seconds
WORKER = """
import sys, time
import optuna
import tsattn.tuning.study as shared
from aeon.datasets import load_basic_motions
from tsattn import TSClassifier
from tsattn.tuning import search_space, tune
storage, n_trials, start, epochs, beat, stale = sys.argv[1:7]
shared.HEARTBEAT_S, shared.STALE_AFTER_S = int(beat), int(stale)
optuna.logging.set_verbosity(optuna.logging.WARNING)
X, y = load_basic_motions(split="train")
est = TSClassifier(attention="bn", d_model=8, n_heads=2, n_layers=1, dim_feedforward=16,
                   max_epochs=int(epochs), max_steps=None, random_state=0)
time.sleep(max(0.0, float(start) - time.time()))  # the workers open the storage together
# beta alone: 23 grid points, so two workers drawing the same one is likely without the rules
tune(est, X[:, :, ::4], y, space=search_space("bn", training=False), n_trials=int(n_trials),
     storage=storage, study_name="shared", random_state=0)
"""


def _start(storage, n_trials=4, start=0.0, epochs=3, beat=10, stale=60):
    args = [storage, n_trials, start, epochs, beat, stale]
    return subprocess.Popen([sys.executable, "-c", WORKER, *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def _finish(proc, timeout=300):
    _, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]


def _load(storage):
    return optuna.load_study(study_name="shared", storage=resolve_storage(storage))


@pytest.mark.parametrize("name", ["study.db", "study.journal"])
def test_three_workers_record_exactly_n_trials_with_distinct_points(tmp_path, name):
    """Issue 17: 3 workers with one random_state drew 2 distinct points in 6 trials, and SQLite
    said "database is locked" in 1 run of 3."""
    storage = tmp_path / name
    start = time.time() + 10  # after all three have imported torch and loaded the data
    procs = [_start(storage, start=start) for _ in range(3)]
    for proc in procs:
        _finish(proc)
    study = _load(storage)
    complete = study.get_trials(states=(STATE.COMPLETE,))
    assert len(complete) == 4
    assert len({t.params["beta"] for t in complete}) == 4
    for t in study.get_trials(states=(STATE.FAIL,)):  # only trials that gave way, never trained
        assert "study_full" in t.user_attrs or "duplicate_of" in t.user_attrs
    assert not study.get_trials(states=(STATE.RUNNING, STATE.WAITING, STATE.PRUNED))


@pytest.mark.parametrize("name", ["study.db", "study.journal"])
def test_a_worker_killed_mid_trial_loses_nothing(tmp_path, name):
    storage = tmp_path / name
    victim = _start(storage, epochs=20, beat=1, stale=3)  # trials of a few seconds
    deadline = time.time() + 180
    while True:
        assert time.time() < deadline and victim.poll() is None, "no trial running to kill"
        if storage.exists() and storage.stat().st_size:
            try:
                trials = _load(storage).trials
            except Exception:  # noqa: BLE001 - the study is not created yet
                trials = []
            done = [t for t in trials if t.state == STATE.COMPLETE]
            running = [t for t in trials if t.state == STATE.RUNNING and t.params]
            if done and running:
                break
        time.sleep(0.2)
    os.kill(victim.pid, signal.SIGKILL)
    victim.communicate()
    before = {t.number: t.value for t in _load(storage).get_trials(states=(STATE.COMPLETE,))}
    killed = next(t for t in _load(storage).trials if t.state == STATE.RUNNING)

    # the killed trial's last heartbeat is now older than the next worker's stale limit, which
    # is long enough that a loaded machine delaying that worker's own heartbeats does not
    # fail its rerun of the trial (3 s did under two CPU-bound processes beside the tests)
    time.sleep(STALE_S)
    _finish(_start(storage, epochs=20, beat=1, stale=STALE_S))
    study = _load(storage)
    assert len(study.get_trials(states=(STATE.COMPLETE,))) == 4
    assert study.trials[killed.number].state == STATE.FAIL  # not left running forever
    kept = {t.number: t.value for t in study.trials if t.number in before}
    assert kept == before  # the killed worker's finished trials are all still there
    rerun = [t for t in study.trials if t.user_attrs.get("retry_of") == killed.number]
    why = [(t.number, t.state.name, t.params, t.user_attrs) for t in study.trials]  # on failure
    assert len(rerun) == 1 and rerun[0].params == killed.params and rerun[0].state == STATE.COMPLETE, why
    assert not study.get_trials(states=(STATE.RUNNING, STATE.WAITING))
