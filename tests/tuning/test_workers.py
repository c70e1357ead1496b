"""Shared studies with real worker processes on real SQLite and journal storage: exact trial counts,
different points per worker with one random_state, a worker killed mid-trial (SIGKILL), and
workers opening a new storage at the same moment."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from importlib.util import find_spec

import pytest

optuna = pytest.importorskip("optuna")

from tsattn.tuning import resolve_storage  # noqa: E402
from tsattn.tuning import study as shared  # noqa: E402

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


@pytest.mark.integration
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


@pytest.mark.integration
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


# argv: folder, worker id, rounds. Per round: wait until all three workers are at the start line,
# then open a fresh SQLite storage the way tune() does and run one trivial trial.
OPENER = """
import json, sys, time
from pathlib import Path
import optuna
from tsattn.tuning import resolve_storage
folder, me, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
optuna.logging.set_verbosity(optuna.logging.WARNING)
for r in range(rounds):
    (folder / f"ready-{r}-{me}").touch()
    while len(list(folder.glob(f"ready-{r}-*"))) < 3:
        time.sleep(0.001)
    try:
        study = optuna.create_study(storage=resolve_storage(f"sqlite:///{folder}/r{r}.db"),
                                    study_name="s", load_if_exists=True)
        study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=1)
        print(json.dumps([r, None]), flush=True)
    except Exception as err:
        print(json.dumps([r, f"{type(err).__name__}: {err}"]), flush=True)
"""


@pytest.mark.integration
def test_three_workers_opening_a_new_sqlite_url_together_all_get_it(tmp_path):
    """Issue 37: three tune(storage="sqlite:///new.db") started at once failed about 1 run in 9
    with "UNIQUE constraint failed: alembic_version.version_num" (Optuna writing its tables twice,
    optuna#1092, #4621), reported as a wrong address. 20 rounds, each on a fresh file."""
    rounds = 20
    procs = [subprocess.Popen([sys.executable, "-c", OPENER, str(tmp_path), str(i), str(rounds)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(3)]  # fmt: skip
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err[-3000:]
        results += [json.loads(line) for line in out.splitlines()]
    failed = [(r, why) for r, why in results if why]
    assert len(results) == 3 * rounds and not failed, f"{len(failed)} failures: {failed[:3]}"
    for r in range(rounds):
        study = optuna.load_study(study_name="s", storage=resolve_storage(tmp_path / f"r{r}.db"))
        assert len(study.get_trials(states=(STATE.COMPLETE,))) == 3


def _integrity_error():
    from sqlalchemy.exc import IntegrityError

    return IntegrityError("INSERT INTO alembic_version", {}, Exception("UNIQUE constraint failed"))


def test_a_schema_clash_is_retried(monkeypatch):
    """Database servers have no file to lock: a clash with another worker creating the tables is
    tried again, and the second try finds them."""
    monkeypatch.setattr(shared.time, "sleep", lambda s: None)
    calls = []

    def connect():
        calls.append(1)
        if len(calls) < 3:
            raise _integrity_error()
        return "opened"

    assert shared._open("postgresql://db/x", connect) == "opened" and len(calls) == 3


def test_a_lasting_schema_clash_names_its_cause_not_the_address(monkeypatch):
    monkeypatch.setattr(shared.time, "sleep", lambda s: None)

    def connect():
        raise _integrity_error()

    with pytest.raises(ValueError, match="cannot be opened: other processes kept creating its "
                       "tables.*IntegrityError.*optuna create-study") as info:  # fmt: skip
        shared._open("postgresql://db/x", connect)
    assert "address" not in str(info.value)


@pytest.mark.parametrize("url, cause", [
    ("postgresql://nohost.invalid/db", "its database driver is not installed"),
    ("nosuch://host/db", "not a database address"),
])  # fmt: skip
def test_a_storage_that_cannot_be_opened_says_why(url, cause):
    if url.startswith("postgresql") and any(map(find_spec, ("psycopg", "psycopg2"))):
        pytest.skip("a PostgreSQL driver is installed here")
    with pytest.raises(ValueError, match=f"cannot be opened: {cause}"):
        resolve_storage(url)


def test_a_sqlite_url_gets_the_file_lock_and_wal(tmp_path):
    """sqlite:/// URLs are SQLite files like .db paths: locked while opened, write-ahead log."""
    storage = resolve_storage(f"sqlite:///{tmp_path}/sub/u.db")
    assert (tmp_path / "sub" / ".u.db.lock").exists()
    with storage.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
