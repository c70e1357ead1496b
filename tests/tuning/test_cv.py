"""Cross-validated trials, the attention variant as a searched choice, the scikit-learn search
estimator, and the bad input refused before any trial."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
import torch
from aeon.datasets import load_basic_motions

optuna = pytest.importorskip("optuna")

from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import KFold, cross_val_score  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402

from tsattn import TSClassifier, TSForecaster, TSRegressor  # noqa: E402
from tsattn.attention import get_attention_class, list_attention  # noqa: E402
from tsattn.tuning import TSSearchCV, best_params, search_space, tune  # noqa: E402
from tsattn.tuning.folds import make_folds  # noqa: E402

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=16, max_steps=12, random_state=0)
STATE = optuna.trial.TrialState
# Parallel folds score what serial ones do: bit for bit on the CPU; where device="auto" trains on
# CUDA, whose backward kernels add in a varying order, to rounding (as the refits of
# tests/training/test_cuda.py).
REL = 1e-4 if torch.cuda.is_available() else 1e-6


@pytest.fixture(scope="module")
def motions():
    X, y = load_basic_motions(split="train")
    return X[:, :, ::4], y  # 40 series, 4 classes, 25 steps


def test_cv_scores_are_the_mean_of_stratified_folds_reported_one_by_one(motions):
    X, y = motions
    # the network alone: BasicMotions' anchor can classify a fold perfectly (cross-entropy 0)
    study = tune(TSClassifier(attention="bn", anchor="none", **TINY), X, y, cv=3, n_trials=2,
                 space=search_space("bn", training=False))  # fmt: skip
    for t in study.trials:
        folds = t.user_attrs["fold_values"]
        assert len(folds) == 3 and all(v > 0 for v in folds)  # held-out cross-entropies
        assert t.intermediate_values == dict(enumerate(folds))  # each fold told to the pruner
        assert t.value == pytest.approx(np.mean(folds))
    for fit, held in make_folds(TSClassifier(), X, y, 3):
        assert len(set(fit) & set(held)) == 0
        assert set(np.unique(y[held])) == set(np.unique(y))  # stratified


@contextlib.contextmanager
def torch_threads(n):
    """Fit on ``n`` torch threads, as the parallel workers do: float32 sums split over a different
    number of threads round differently, and the rounding grows over training (CI once saw 1.5e-4)."""
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@pytest.mark.integration
def test_cv_folds_run_in_parallel_with_the_same_scores(motions):
    X, y = motions
    est, space = TSClassifier(attention="bn", **TINY), search_space("bn", training=False)
    from tsattn._parallel import usable_cores

    with torch_threads(max(1, usable_cores() // 2)):  # as each of the 2 joblib workers
        serial = tune(est, X, y, cv=2, n_trials=1, space=space)
    parallel = tune(est, X, y, cv=2, n_trials=1, space=space, n_jobs=2)
    assert parallel.trials[0].params == serial.trials[0].params
    assert parallel.trials[0].user_attrs["fold_values"] == pytest.approx(
        serial.trials[0].user_attrs["fold_values"], rel=REL)  # fmt: skip


@pytest.mark.integration
def test_cv_folds_on_a_dask_local_cluster(motions):
    pytest.importorskip("distributed")
    from tsattn._parallel import parallel_backend

    X, y = motions
    est, space = TSClassifier(attention="bn", **TINY), search_space("bn", training=False)
    with parallel_backend(2, "local") as n_workers:
        study = tune(est, X, y, cv=2, n_trials=1, space=space, n_jobs=n_workers)
    assert n_workers == 2 and len(study.trials[0].user_attrs["fold_values"]) == 2
    with torch_threads(1):  # as each Dask worker
        serial = tune(est, X, y, cv=2, n_trials=1, space=space)
    # abs: a fold's log-loss near 0 (the default anchor certain) differs by ~1e-7 between BLAS
    # thread counts, a large relative difference
    assert study.trials[0].user_attrs["fold_values"] == pytest.approx(
        serial.trials[0].user_attrs["fold_values"], rel=REL, abs=1e-6)  # fmt: skip


def test_folds_are_pruned_against_other_trials_on_the_same_folds(motions):
    X, y = motions
    # every loss is above 0, so a pruner with upper=0 prunes after the first fold
    study = tune(TSClassifier(attention="bn", **TINY), X, y, cv=3, n_trials=2,
                 space=search_space("bn", training=False),
                 pruner=optuna.pruners.ThresholdPruner(upper=0.0))  # fmt: skip
    assert [t.state for t in study.trials] == [STATE.PRUNED] * 2
    assert all(len(t.intermediate_values) == 1 for t in study.trials)


def test_fold_median_pruner_compares_means_over_the_same_folds():
    from tsattn.tuning import fold_median_pruner

    study = optuna.create_study(direction="minimize", pruner=fold_median_pruner(n_startup_trials=2))
    for folds in ([1.0, 3.0, 2.0], [1.2, 2.8, 2.0]):
        trial = study.ask()
        for i, v in enumerate(folds):
            trial.report(v, i)
        study.tell(trial, float(np.mean(folds)))
    trial = study.ask()
    trial.report(2.0, 1)  # fold 1 first: better than 3.0 and 2.8 on that fold
    assert not trial.should_prune()
    trial.report(1.5, 0)  # folds 0 and 1: mean 1.75, the others' 2.0 and 2.0
    assert not trial.should_prune()
    worse = study.ask()
    worse.report(1.6, 0)  # fold 0 alone: worse than 1.0 and 1.2, though easy in absolute terms
    assert worse.should_prune()


def test_regressor_and_forecaster_cross_validate():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2, 16))
    y = X[:, 0].mean(axis=1)
    study = tune(TSRegressor(**TINY), X, y, cv=KFold(2), n_trials=1,
                 space={"lr": optuna.distributions.FloatDistribution(1e-3, 3e-3)})  # fmt: skip
    assert len(study.trials[0].user_attrs["fold_values"]) == 2 and study.trials[0].value > 0

    t = np.arange(200)
    series = np.stack([np.sin(2 * np.pi * t / 8), 10 * np.cos(2 * np.pi * t / 12)], axis=1)
    est = TSForecaster(horizon=4, context_length=16, attention="s3", patch_len=4, d_model=16,
                       n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=2,
                       random_state=0)  # fmt: skip
    folds = make_folds(est, series, None, 3)
    assert folds == [(50, 100), (100, 150), (150, 200)]  # expanding, time-ordered
    study = tune(est, series, cv=3, n_trials=1, space=search_space("s3", n_heads=2, training=False))
    assert len(study.trials[0].user_attrs["fold_values"]) == 3 and study.trials[0].value > 0
    with pytest.raises(ValueError, match="blocks of 40 steps"):
        make_folds(TSForecaster(horizon=24, context_length=24), series, None, 4)


def test_auto_space_searches_the_variant_and_its_own_parameters(motions):
    X, y = motions
    space = search_space("auto", n_heads=2)
    assert list(space["attention"].choices) == list_attention()
    assert set(space) == {"attention", "lr", "dropout", "weight_decay"}  # nothing variant-specific
    est = TSClassifier(attention="bn", beta=0.3, **TINY)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        study = tune(est, X, y, n_trials=6, random_state=1,
                     space={"attention": search_space(["bn", "sh", "softmax"])["attention"]})
    assert not [w for w in caught if "ignores" in str(w.message)]  # beta=0.3 cleared for sh
    seen = set()
    for t in study.get_trials(states=(STATE.COMPLETE, STATE.PRUNED)):
        variant = t.params["attention"]
        seen.add(variant)
        own = {hp.name for hp in get_attention_class(variant).hyperparameters
               if hp.space is not None}  # fmt: skip
        assert {k.split(":")[1] for k in t.params if k != "attention"} == own  # from its file
        assert all(k.startswith(f"{variant}:") for k in t.params if k != "attention")
    assert len(seen) >= 2
    params = best_params(study)
    assert params["attention"] in {"bn", "sh", "softmax"} and ":" not in "".join(params)


def test_a_range_given_for_a_variant_parameter_applies_to_the_variants_that_take_it(motions):
    X, y = motions
    space = {"attention": optuna.distributions.CategoricalDistribution(["bn", "linear_bn"]),
             "beta": optuna.distributions.FloatDistribution(0.5, 0.55)}  # fmt: skip
    study = tune(TSClassifier(**TINY), X, y, space=space, n_trials=2, cv=2)
    for t in study.trials:
        assert 0.5 <= t.params[f"{t.params['attention']}:beta"] <= 0.55


def test_search_estimator_in_pipeline_clone_and_nested_cv(motions):
    X, y = motions
    search = TSSearchCV(TSClassifier(attention="bn", **TINY), search_space("bn", training=False),
                        n_trials=2, cv=2)  # fmt: skip
    copy = clone(search)
    assert copy.get_params()["estimator__attention"] == "bn" and not hasattr(copy, "study_")
    pipe = Pipeline([("search", search)]).fit(X, y)
    fitted = pipe.named_steps["search"]
    assert fitted.n_trials_ == 2 and set(fitted.best_params_) == {"beta"}
    assert fitted.best_score_ < 0  # the negated cross-entropy: higher is better
    assert fitted.best_estimator_.beta == fitted.best_params_["beta"]
    assert list(fitted.classes_) == sorted(set(y))
    assert pipe.predict_proba(X).shape == (40, 4)
    assert 0.0 <= pipe.score(X, y) <= 1.0
    scores = cross_val_score(clone(search), X, y, cv=2)  # nested: a study per outer fold
    assert scores.shape == (2,) and np.all((scores >= 0) & (scores <= 1))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"space": {"beta": optuna.distributions.FloatDistribution(0.1, 1.0)}},
         "not a hyperparameter of attention 'softmax'.*bn, bn_sh"),
        ({"space": {"attention": optuna.distributions.CategoricalDistribution(["sh", "softmax"]),
                    "beta": optuna.distributions.FloatDistribution(0.1, 1.0)}},
         "not a hyperparameter of the variants searched"),
        ({"space": {"attention": optuna.distributions.CategoricalDistribution(["bnn"])}},
         "Unknown attention 'bnn'"),
        ({"space": "everything"}, "None or 'auto'"),
        ({"cv": 1}, "at least 2 folds"),
        ({"cv": 20}, "smallest class has 10"),
        ({"cv": "3"}, "scikit-learn splitter"),
        ({"n_jobs": 0}, "n_jobs"),
        ({"storage": "postgresql://nobody@127.0.0.1:9/none", "study_name": "s"},
         "cannot be opened"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_before_any_trial(motions, kwargs, match, monkeypatch):
    X, y = motions

    def no_training(*args, **kw):
        raise AssertionError("training started")

    monkeypatch.setattr(TSClassifier, "fit", no_training)
    with pytest.raises(ValueError, match=match):
        tune(TSClassifier(**TINY), X, y, n_trials=1, **kwargs)


def test_unwritable_storage_is_refused(motions, tmp_path):
    X, y = motions
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="cannot be written"):
        tune(TSClassifier(**TINY), X, y, storage=blocker / "s.db", study_name="s")


def test_a_study_is_not_resumed_with_another_protocol(motions, tmp_path):
    X, y = motions
    est, space = TSClassifier(attention="bn", **TINY), search_space("bn", training=False)
    tune(est, X, y, cv=2, n_trials=1, space=space, storage=tmp_path / "s.db", study_name="s")
    with pytest.raises(ValueError, match="scored with cv=2, not cv=None"):
        tune(est, X, y, n_trials=2, space=space, storage=tmp_path / "s.db", study_name="s")


def test_trials_whose_values_the_estimator_refuses_fail_and_the_study_goes_on(motions):
    X, y = motions
    # s3 needs r to divide d_model=16: r=32 fails its trial, r=4 runs
    space = {"r": optuna.distributions.CategoricalDistribution([4, 32])}
    est = TSClassifier(attention="s3", **TINY)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # it may stop with r=32 the only point left
        study = tune(est, X, y, space=space, n_trials=2, cv=2)
    assert len(study.get_trials(states=(STATE.COMPLETE,))) == 1  # r=4 once: no point twice
    with pytest.warns(UserWarning, match="all failed"):  # only r=32 left: it stops, not loops
        tune(est, X, y, space={"r": optuna.distributions.CategoricalDistribution([32])},
             n_trials=1, cv=2)  # fmt: skip
    with pytest.raises(ValueError, match="d_model"):  # a fixed value: refused before any trial
        tune(TSClassifier(attention="s3", **{**TINY, "r": 32}), X, y, space={}, n_trials=1, cv=2)


def test_tune_command_cross_validates_and_searches_the_variant(tmp_path, capsys):
    import json

    from tsattn.cli import main

    out = tmp_path / "out"
    argv = ["tune", "--dataset", "BasicMotions", "--attention", "auto", "--trials", "2",
            "--cv", "2", "--no-training-params", "--param", "d_model=16", "--param", "n_heads=2",
            "--param", "n_layers=1", "--param", "max_steps=8", "--evaluate", "--out", str(out),
            "-q"]  # fmt: skip
    assert main(argv) == 0
    report = json.loads((out / "best_params.json").read_text())
    assert report["cv"] == 2 and report["finished_trials"] == 2 and "best_cv_loss" in report
    assert report["best_params"]["attention"] in list_attention()
    assert 0.0 <= report["test_accuracy"] <= 1.0


@pytest.mark.parametrize(("extra", "match"), [
    (["--scheduler", "local"], "give --cv K as well"),
    (["--cv", "2", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
    (["--cv", "1"], "at least 2 folds"),
    (["--attention", "auto", "--param", "beta=0.5"], "only for a single --attention"),
])  # fmt: skip
def test_tune_command_refuses_bad_scale_out_arguments(capsys, tmp_path, extra, match):
    from tsattn.cli import main

    assert main(["tune", "--dataset", "BasicMotions", "--trials", "1", "--param", "d_model=16",
                 "--param", "n_heads=2", "--param", "max_steps=2", "--out", str(tmp_path), "-q",
                 *extra]) == 2  # fmt: skip
    assert match in capsys.readouterr().err
    assert not (tmp_path / "trials.csv").exists()


def test_fold_threads_share_the_cores_among_the_folds_running_at_once():
    from tsattn.tuning.optimize import fold_threads

    assert fold_threads(3, 2, cores=2) == [1, 1, 2]  # the third fold runs alone on both cores
    assert fold_threads(5, 2, cores=8) == [4, 4, 4, 4, 8]
    assert fold_threads(3, 3, cores=2) == [1, 1, 1]
    assert fold_threads(2, 4, cores=8) == [4, 4]  # 2 folds use 2 of the 4 workers
    assert fold_threads(3, -1, cores=4) == [1, 1, 1]  # -1: a worker per core, 3 at once
    assert fold_threads(3, 1, cores=4) == [None] * 3  # serial: torch's own default
    assert fold_threads(3, 2, cores=4, on_dask=True) == [1] * 3


@pytest.mark.integration
def test_a_pruned_trial_cancels_its_parallel_folds_without_a_warning(motions):
    X, y = motions
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the network alone, so the first fold's loss is above 0 (the anchor can reach 0)
        study = tune(TSClassifier(attention="bn", anchor="none", **TINY), X, y, cv=3, n_trials=1,
                     n_jobs=2, space=search_space("bn", training=False),
                     pruner=optuna.pruners.ThresholdPruner(upper=0.0))  # fmt: skip
    assert [t.state for t in study.trials] == [STATE.PRUNED]
    assert not [w for w in caught if "cancelled" in str(w.message)], [str(w.message) for w in caught]
