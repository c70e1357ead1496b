"""Optuna tuning: spaces from the registry, real studies on SQLite and journal storage, pruning, resume."""

from __future__ import annotations

import json

import numpy as np
import pytest
from aeon.datasets import load_basic_motions

optuna = pytest.importorskip("optuna")

from tsattn import TSClassifier, TSRegressor  # noqa: E402
from tsattn.cli import main  # noqa: E402
from tsattn.tuning import (  # noqa: E402
    best_params,
    default_pruner,
    resolve_storage,
    scale_presets,
    search_space,
    tune,
)

TINY = dict(d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=4, random_state=0)
FINISHED = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)


@pytest.fixture(scope="module")
def motions():
    X, y = load_basic_motions(split="train")
    return X[:, :, ::4], y  # 40 series, 4 classes, 25 steps


def test_search_space_comes_from_the_registry():
    assert set(search_space("bn")) == {"beta", "lr", "dropout", "weight_decay"}
    assert search_space("softmax", training=False) == {}
    assert set(search_space("s3", training=False)) == {"r", "s1", "s2"}
    assert set(search_space("bn_sh", training=False)) == {"beta", "scales"}
    beta = search_space("bn")["beta"]
    assert (beta.low, beta.high, beta.step) == (0.1, 1.2, 0.05)  # 001 Tables 12-13
    with pytest.raises(ValueError, match="Valid names"):
        search_space("nope")


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8])
def test_scale_presets_have_one_factor_per_head(n_heads):
    presets = [tuple(int(s) for s in p.split(",")) for p in scale_presets(n_heads)]
    assert len(presets) == len(set(presets)) >= 3
    for scales in presets:
        assert len(scales) == n_heads
        assert list(scales) == sorted(scales)
        if n_heads > 1:
            assert scales[0] == 1  # one full-resolution head
    if n_heads == 8:
        assert (1, 1, 2, 2, 4, 4, 8, 8) in presets  # the papers' choice (001 J.1)


def test_tune_on_sqlite_records_trials_and_resumes(motions, tmp_path):
    X, y = motions
    storage = tmp_path / "study.db"
    est = TSClassifier(attention="bn_sh", **TINY)
    study = tune(est, X, y, n_trials=3, storage=storage, study_name="bn_sh")
    assert storage.is_file()
    trials = study.get_trials(states=FINISHED)
    assert len(trials) == 3
    for t in trials:
        assert t.value > 0  # the validation cross-entropy
        assert 1 <= t.user_attrs["best_round"] <= t.user_attrs["rounds"] <= 4
        assert 0.1 <= t.params["beta"] <= 1.2
    params = best_params(study)
    assert isinstance(params["scales"], tuple) and len(params["scales"]) == 2
    TSClassifier(attention="bn_sh", **{**TINY, **params})  # the constructor takes them as they are
    # a second run on the same storage continues the study up to 5 finished trials in total
    again = tune(est, X, y, n_trials=5, storage=storage, study_name="bn_sh")
    assert len(again.get_trials(states=FINISHED)) == 5
    assert [t.number for t in again.trials[:3]] == [t.number for t in trials]


def test_journal_file_storage_is_shared_between_workers(motions, tmp_path):
    X, y = motions
    path = tmp_path / "shared" / "journal.log"
    est = TSClassifier(attention="bn", **TINY)
    tune(est, X, y, space=search_space("bn", training=False), n_trials=2, storage=path,
         study_name="jv")
    # another worker (process or machine) opening the same file sees the trials
    seen = optuna.load_study(study_name="jv", storage=resolve_storage(path))
    assert len(seen.get_trials(states=FINISHED)) == 2


def test_pruned_trials_stop_training_early(motions):
    X, y = motions
    est = TSClassifier(attention="bn", **{**TINY, "max_epochs": 6})
    # a cross-entropy is never below 0, so this pruner prunes at the first reported epoch
    pruner = optuna.pruners.ThresholdPruner(upper=-1.0)
    study = tune(est, X, y, n_trials=2, pruner=pruner,
                 space=search_space("bn", training=False))
    assert [t.state for t in study.trials] == [optuna.trial.TrialState.PRUNED] * 2
    assert all(t.last_step == 1 for t in study.trials)


def test_regressor_minimises_the_validation_loss(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2, 20))
    y = X[:, 0].mean(axis=1) + 0.1 * rng.normal(size=40)
    study = tune(TSRegressor(**TINY), X, y, n_trials=2,
                 space=search_space("softmax", n_heads=2))
    assert study.direction == optuna.study.StudyDirection.MINIMIZE
    assert all(t.value > 0 for t in study.trials)
    # a study created for a classifier cannot be resumed by a regressor
    storage = tmp_path / "s.db"
    tune(TSClassifier(**TINY), X, (y > 0).astype(int), n_trials=1, storage=storage, study_name="s",
         space=search_space("softmax", n_heads=2), metric="score")
    with pytest.raises(ValueError, match="maximize"):
        tune(TSRegressor(**TINY), X, y, n_trials=1, storage=storage, study_name="s")


def test_forecaster_is_tuned_on_the_tail_of_its_series():
    from tsattn import TSForecaster

    t = np.arange(160)
    series = np.stack([np.sin(2 * np.pi * t / 8), np.cos(2 * np.pi * t / 12)], axis=1)
    est = TSForecaster(attention="s3", d_model=16, n_heads=2, n_layers=1, dim_feedforward=16,
                       max_epochs=3, horizon=6, context_length=16, patch_len=4, random_state=0)
    space = search_space("s3", n_heads=2, training=False)
    study = tune(est, series, n_trials=2, space=space)  # y=None: the series is X
    assert study.direction == optuna.study.StudyDirection.MINIMIZE
    assert all(t.value > 0 and set(t.params) == {"r", "s1", "s2"} for t in study.trials)


def test_ctrl_c_stops_the_study_and_keeps_finished_trials(motions, tmp_path, ctrl_c_on_fit):
    X, y = motions
    storage = tmp_path / "study.db"
    est = TSClassifier(attention="bn", callbacks=[ctrl_c_on_fit(fit=2, epoch=2)], **TINY)
    space = search_space("bn", training=False)
    with pytest.raises(KeyboardInterrupt), pytest.warns(UserWarning, match="interrupted"):
        tune(est, X, y, n_trials=4, storage=storage, study_name="c", space=space)
    study = optuna.load_study(study_name="c", storage=resolve_storage(storage))
    states = [t.state for t in study.trials]
    assert states == [optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL]
    resumed = tune(est, X, y, n_trials=4, storage=storage, study_name="c", space=space)
    assert len(resumed.get_trials(states=FINISHED)) == 4


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"space": {"nonsense": None}}, "not a parameter of TSClassifier"),
        ({"space": {"beta": (0.1, 1.2)}}, "optuna Float"),
        ({"space": {"random_state": optuna.distributions.IntDistribution(0, 3)}}, "set by tune"),
        ({"n_trials": 0}, "n_trials"),
        ({"validation_fraction": 0.0}, "validation_fraction"),
        ({"storage": 3, "study_name": "s"}, "storage must be"),
        ({"metric": "auc"}, "metric must be one of"),
        ({"storage": "x.db"}, "needs a study_name"),
    ],
)
def test_bad_arguments_raise_clear_errors(motions, kwargs, match):
    X, y = motions
    with pytest.raises(ValueError, match=match):
        tune(TSClassifier(attention="bn", **TINY), X, y, **kwargs)


def test_accuracy_metric_maximises_and_needs_a_classifier(motions):
    X, y = motions
    study = tune(TSClassifier(attention="bn", **TINY), X, y, n_trials=2, metric="score",
                 space=search_space("bn", training=False))
    assert study.direction == optuna.study.StudyDirection.MAXIMIZE
    assert all(0.0 <= t.value <= 1.0 for t in study.trials)
    with pytest.raises(ValueError, match="needs a classifier"):
        tune(TSRegressor(**TINY), X, np.arange(len(X), dtype=float), metric="score")


def test_tune_command_writes_results_and_resumes(tmp_path, capsys):
    storage = tmp_path / "tune.db"
    argv = ["tune", "--dataset", "BasicMotions", "--attention", "bn", "--trials", "2",
            "--storage", str(storage), "--max-epochs", "3", "--no-training-params",
            "--param", "d_model=8", "--param", "n_heads=2", "--param", "n_layers=1",
            "--param", "dim_feedforward=16", "--evaluate", "--out", str(tmp_path / "out"), "-q"]
    assert main(argv) == 0
    report = json.loads((tmp_path / "out" / "best_params.json").read_text())
    assert report["finished_trials"] == 2
    assert set(report["best_params"]) == {"beta"}
    assert 0.0 <= report["test_accuracy"] <= 1.0
    assert (tmp_path / "out" / "history.png").stat().st_size > 0
    assert "test accuracy" in capsys.readouterr().out
    argv[argv.index("--trials") + 1] = "3"
    assert main(argv) == 0
    assert json.loads((tmp_path / "out" / "best_params.json").read_text())["finished_trials"] == 3


def test_tune_command_rejects_unknown_attention(capsys):
    assert main(["tune", "--attention", "nope", "-q"]) == 2
    assert "Valid:" in capsys.readouterr().err


def test_default_pruner_spares_improving_trials_and_cuts_stalled_ones():
    """A plain median rule would cut the first curve below; the default waits for a stall."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", pruner=default_pruner(max_epochs=40))
    for _ in range(5):  # finished trials whose loss falls as 1/epoch
        trial = study.ask()
        for epoch in range(1, 41):
            trial.report(1.0 / epoch, epoch)
        study.tell(trial, 1.0 / 40)

    def first_pruned_epoch(curve):
        trial = study.ask()
        for epoch in range(1, 41):
            trial.report(curve(epoch), epoch)
            if trial.should_prune():
                study.tell(trial, state=optuna.trial.TrialState.PRUNED)
                return epoch
        study.tell(trial, curve(40))
        return None

    # always 10% above the median, but improving every epoch: a plain median rule would cut it
    assert first_pruned_epoch(lambda e: 1.1 / e) is None
    # best at epoch 5 (0.5), worse ever after: cut once 10 epochs have passed without a new best
    assert first_pruned_epoch(lambda e: 0.5 + 0.01 * abs(e - 5)) == 16


def test_tune_command_tunes_a_regressor_on_a_tser_dataset(tmp_path, capsys):
    out = tmp_path / "covid"
    argv = ["tune", "--dataset", "Covid3Month", "--attention", "softmax", "--trials", "2",
            "--max-epochs", "3", "--param", "d_model=8", "--param", "n_heads=2",
            "--param", "n_layers=1", "--param", "dim_feedforward=16", "--evaluate",
            "--out", str(out), "-q"]
    assert main(argv) == 0
    report = json.loads((out / "best_params.json").read_text())
    assert report["task"] == "regression" and report["estimator"] == "TSRegressor"
    assert set(report["best_params"]) == {"lr", "dropout", "weight_decay"}
    assert report["best_validation_loss"] > 0 and report["test_rmse"] > 0
    assert "test rmse" in capsys.readouterr().out
    assert main([*argv[:-1], "--metric", "score", "-q"]) == 2
    assert "regression dataset" in capsys.readouterr().err


def test_running_trials_of_live_workers_hold_their_place_and_stale_ones_are_failed(
    motions, tmp_path, monkeypatch
):
    """A trial another worker is running counts toward n_trials (else each worker finishes one
    more trial than the study needs); one left RUNNING by a killed worker is failed once its
    heartbeat is STALE_AFTER_S old, and its parameters run again."""
    import tsattn.tuning.study as shared

    X, y = motions
    storage = tmp_path / "s.journal"
    study = optuna.create_study(storage=resolve_storage(storage), study_name="s")
    running = study.ask()  # another worker's trial, or one of a worker that was killed
    running.suggest_float("beta", 0.1, 1.2, step=0.05)
    est = TSClassifier(attention="bn", **TINY)
    space = search_space("bn", training=False)
    done = tune(est, X, y, space=space, n_trials=2, storage=storage, study_name="s", timeout=5)
    assert len(done.get_trials(states=FINISHED)) == 1  # the running trial holds the second place
    assert shared.taken(done) == 2
    assert shared.taken(done, before=running.number) == 1  # a later trial gives way to it
    # its worker has since died: no heartbeat for more than STALE_AFTER_S (it never beat; it
    # started more than 5 s ago), while this worker's own trials beat every second
    monkeypatch.setattr(shared, "HEARTBEAT_S", 1)
    monkeypatch.setattr(shared, "STALE_AFTER_S", 3)
    done = tune(est, X, y, space=space, n_trials=2, storage=storage, study_name="s")
    states = {t.number: t.state for t in done.trials}
    assert states[running.number] == optuna.trial.TrialState.FAIL
    assert len(done.get_trials(states=FINISHED)) == 2
    retried = [t for t in done.trials if t.user_attrs.get("retry_of") == running.number]
    assert len(retried) == 1 and retried[0].params == running.params
