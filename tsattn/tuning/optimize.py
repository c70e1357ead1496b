""":func:`tune`: one Optuna study of an estimator's hyperparameters, scored on a validation split or
by cross-validation, pruned, and shared by every worker started on the same storage."""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sklearn.base import clone, is_classifier

from tsattn.training import Callback, TrainingDivergedError
from tsattn.tuning import study as liveness
from tsattn.tuning.folds import fit_fold, fold_median_pruner, make_folds
from tsattn.tuning.space import _decode, _optuna, check_space, search_space, suggest, trial_params
from tsattn.tuning.study import (
    fail_stale,
    finished_states,
    heartbeat,
    per_trial_sampler,
    resolve_storage,
    taken,
)

if TYPE_CHECKING:  # pragma: no cover
    import optuna

__all__ = ["tune", "best_params", "PruningCallback", "METRICS", "default_pruner"]

METRICS = {"loss": "minimize", "score": "maximize"}
#: User attribute of a running trial whose worker has checked its point against the others'.
CLAIMED = "claimed_point"
#: Consecutive draws of points already tried after which a worker takes the space as exhausted.
_MAX_DUPLICATES = 25


def default_pruner(max_epochs: int | None) -> optuna.pruners.BasePruner:
    """Median pruning that only stops a trial which has stalled (validation-split trials).

    A plain ``MedianPruner`` compares every epoch's best-so-far with the median of earlier trials
    at that epoch; trials of one model differ little and noisily early on, so nearly every trial
    lands above the median at some epoch and is cut, good settings among them. Here the median rule
    applies only after a quarter of ``max_epochs`` and to a trial whose validation metric has not
    improved for 10 epochs. Cross-validated trials use
    :func:`~tsattn.tuning.folds.fold_median_pruner` instead.
    """
    optuna = _optuna()
    median = optuna.pruners.MedianPruner(
        n_startup_trials=5, n_warmup_steps=max(10, (max_epochs or 0) // 4)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.pruners.PatientPruner(median, patience=10)


class PruningCallback(Callback):
    """Reports a validation metric to an Optuna trial after every round (an epoch, or the
    forecaster's ``round_steps_`` steps) and prunes weak trials.

    ``metric="loss"`` reports the validation loss (minimised); ``"score"`` the validation score
    (accuracy for classifiers, maximised). The study's direction must match.
    """

    def __init__(self, trial: optuna.Trial, metric: str = "loss") -> None:
        self.trial = trial
        self.metric = _check_metric(metric)

    def on_epoch_end(self, estimator: Any, record: dict) -> None:
        value = _epoch_metric(record, self.metric)
        self.trial.report(value, step=record["round"])
        if self.trial.should_prune():
            raise _optuna().TrialPruned(f"pruned after round {record['round']} ({value:.4g})")


def _check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {tuple(METRICS)}, got {metric!r}.")
    return metric


def _epoch_metric(record: Mapping[str, Any], metric: str) -> float:
    value = record.get(f"valid_{metric}")
    if value is None:
        raise ValueError(
            f"the validation {metric} is missing from the epoch record: tuning needs "
            "validation_fraction > 0" + (", and metric='score' a classifier." if metric == "score" else ".")
        )
    return float(value)


def best_params(study: optuna.Study) -> dict[str, Any]:
    """The best trial's parameters, ready for the estimator's constructor or ``set_params``
    (``attention`` among them when the study searched over it)."""
    return _decode(study.best_params)


class _GiveWay(Exception):
    """A trial that must not run: the study filled up in other workers, or its point was already
    tried. It ends as failed, marked in its user attributes, and never counts."""


class _QuietGiveWay(logging.Filter):
    """Drops Optuna's warning and traceback for trials that gave way: nothing went wrong."""

    def __init__(self) -> None:
        super().__init__()
        self.numbers: set[int] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(message.startswith(f"Trial {n} failed ") for n in self.numbers)


def _cv_label(cv: Any) -> str | None:
    return None if cv is None else str(cv) if isinstance(cv, int) else repr(cv)


def tune(
    estimator: Any,
    X: Any,
    y: Any = None,
    *,
    space: Mapping[str, Any] | str | None = None,
    n_trials: int = 20,
    timeout: float | None = None,
    cv: Any = None,
    n_jobs: int = 1,
    validation_fraction: float = 0.2,
    metric: str = "loss",
    storage: Any = None,
    study_name: str | None = None,
    pruner: Any = None,
    random_state: int | None = 0,
    show_progress_bar: bool = False,
) -> optuna.Study:
    """Tune ``estimator``'s hyperparameters with Optuna.

    Each trial clones ``estimator`` and sets the drawn values. With ``cv=None`` it holds out
    ``validation_fraction`` of ``(X, y)``, reports the validation metric after every epoch (the
    pruner can stop it) and scores the restored best epoch. With ``cv`` it fits the estimator as
    configured on each fold (:mod:`tsattn.tuning.folds`), reports each fold's score as it
    finishes, and scores the mean. Pass a forecaster's series as ``X`` with ``y=None``.

    Parameters
    ----------
    space : ``{parameter: optuna distribution}``; default :func:`search_space` for the estimator's
        attention and ``n_heads``. ``"auto"`` searches over every attention variant and the chosen
        variant's own hyperparameters together (``search_space("auto")``; a space holding
        ``attention`` as a categorical does the same over its variants).
    n_trials : finished (complete or pruned) trials the study should hold in total, whatever the
        number of workers sharing it; a resumed study runs only the missing ones. Failed trials
        do not count. A worker returns once the study holds them (waiting, if need be, for
        trials other workers are running), or after ``timeout`` seconds.
    cv : None (one validation split), a number of folds, or a scikit-learn splitter (collection
        estimators). Stratified folds for classifiers, time-ordered expanding folds for a
        forecaster; the same folds in every trial.
    n_jobs : folds fitted at once through joblib, in local processes or, inside
        ``joblib.parallel_config(backend="dask")``, on a Dask cluster.
    validation_fraction : with ``cv=None``, the part of the training data held out for scoring
        (the same split in every trial: it is drawn from the estimator's ``random_state``).
    metric : ``"loss"`` (default) minimises the held-out loss: cross-entropy for classifiers, MSE
        for regressors and forecasters. ``"score"`` maximises the held-out accuracy (classifiers
        only); on small validation parts accuracy ties across most trials, which the loss does not.
    storage, study_name : where trials are kept (:mod:`tsattn.tuning.study`); a storage needs a
        name, and the same name resumes the study.
    pruner : an Optuna pruner; default :func:`default_pruner` (validation split) or
        :func:`~tsattn.tuning.folds.fold_median_pruner` (cross-validation).
    random_state : seeds the sampler, per trial number: workers sharing a study draw different
        points, and one worker replays the same study.

    Returns the :class:`optuna.Study`; :func:`best_params` gives the best values.
    """
    optuna = _optuna()
    if not hasattr(estimator, "get_params") or not hasattr(estimator, "fit"):
        raise ValueError(f"estimator must be a tsattn estimator, got {type(estimator).__name__}.")
    if isinstance(n_trials, bool) or not isinstance(n_trials, int) or n_trials < 1:
        raise ValueError(f"n_trials must be a positive integer, got {n_trials!r}.")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer or -1, got {n_jobs!r}.")
    if cv is None and not 0.0 < float(validation_fraction) < 1.0:
        raise ValueError(
            f"validation_fraction must be in (0, 1): tuning scores trials on a held-out part; "
            f"got {validation_fraction!r}."
        )
    params = estimator.get_params(deep=False)
    n_heads = params.get("n_heads", 8)
    if space is None or isinstance(space, str):
        if space not in (None, "auto"):
            raise ValueError(f"space must be a dict of distributions, None or 'auto'; got {space!r}.")
        space = search_space(space or params.get("attention", "softmax"), n_heads=n_heads)
    check_space(estimator, space)
    if hasattr(estimator, "_validate"):  # the fixed parameters, before trials fail one by one
        clone(estimator)._validate()
    direction = METRICS[_check_metric(metric)]
    if metric == "score" and not is_classifier(estimator):
        raise ValueError(
            f"metric='score' (accuracy) needs a classifier; tune {type(estimator).__name__} with "
            "metric='loss'."
        )
    folds = None if cv is None else make_folds(estimator, X, y, cv)
    if storage is not None and not study_name:
        raise ValueError(
            "a storage needs a study_name: reruns resume the study of that name, and one storage "
            "can hold studies of several datasets or estimators, e.g. study_name='jv-bn_sh'."
        )
    study = optuna.create_study(
        storage=resolve_storage(storage),
        study_name=study_name,
        direction=direction,
        sampler=per_trial_sampler(random_state, conditional="attention" in space),
        pruner=pruner or (fold_median_pruner() if folds else default_pruner(params.get("max_epochs"))),
        load_if_exists=True,
    )
    if study.direction.name.lower() != direction:
        raise ValueError(
            f"study {study_name!r} in this storage was created to {study.direction.name.lower()}, "
            f"but metric={metric!r} needs {direction}; use another study_name."
        )
    _check_protocol(study, cv)
    base_callbacks = list(params.get("callbacks") or [])
    fit_args = (X,) if y is None else (X, y)
    duplicates = [0]  # in a row, in this worker
    quiet = _QuietGiveWay()

    def objective(trial: optuna.Trial) -> float:
        fail_stale(study)
        # Workers that asked for a trial at the same moment: the higher number gives way.
        if taken(study, before=trial.number) >= n_trials:
            study.stop()
            trial.set_user_attr("study_full", True)
            quiet.numbers.add(trial.number)
            raise _GiveWay(f"the study already holds {n_trials} finished or running trials")
        with heartbeat(study, trial):
            values = suggest(trial, space, n_heads)
            same = _same_point(study, trial)
            if same is not None:
                duplicates[0] += 1
                trial.set_user_attr("duplicate_of", same)
                quiet.numbers.add(trial.number)
                if duplicates[0] >= _MAX_DUPLICATES:
                    study.stop()
                    warnings.warn(f"{_MAX_DUPLICATES} draws in a row repeated points already tried: "
                                  "the search space looks exhausted; stopping this worker.",
                                  UserWarning, stacklevel=2)  # fmt: skip
                raise _GiveWay(f"trial {same} already tried these parameters")
            duplicates[0] = 0
            model = clone(estimator).set_params(**trial_params(estimator, values))
            if folds is not None:
                return _cross_validate(trial, model, X, y, folds, metric, n_jobs)
            model.set_params(validation_fraction=validation_fraction,
                             callbacks=[*base_callbacks, PruningCallback(trial, metric)])  # fmt: skip
            model.fit(*fit_args)
            if getattr(model, "interrupted_", False):
                raise KeyboardInterrupt  # Ctrl-C inside fit: stop the study, do not score a partial fit
            best = [r for r in model.history_ if r["best"]][-1]
            trial.set_user_attr("best_round", int(best["round"]))
            trial.set_user_attr("rounds", len(model.history_))
            return _epoch_metric(best, metric)

    def stop_when_full(study: optuna.Study, trial: Any) -> None:
        if taken(study) >= n_trials:  # MaxTrialsCallback, counting other workers' running trials
            study.stop()
        if trial.state in finished_states():
            rounds[-1][0] += 1
        elif trial.number not in quiet.numbers:
            rounds[-1][1] += 1

    rounds: list[list[int]] = []  # [finished, failed] trials of each optimize() call here

    logger = logging.getLogger("optuna.study._optimize")
    logger.addFilter(quiet)
    try:
        return _run(study, objective, stop_when_full, n_trials, timeout, duplicates, rounds,
                    show_progress_bar)  # fmt: skip
    finally:
        logger.removeFilter(quiet)


#: Exceptions that fail one trial and let the study go on: drawn values the estimator refuses
#: (e.g. s3's r not dividing d_model) and fits that diverge.
TRIAL_ERRORS = (ValueError, TrainingDivergedError)


def _run(study: Any, objective: Any, stop_when_full: Any, n_trials: int, timeout: float | None,
         duplicates: list[int], rounds: list[list[int]], show_progress_bar: bool) -> Any:
    """Run trials until the study holds ``n_trials`` finished ones (or ``timeout``); stop early
    when a round of trials here only failed (failed trials do not count, so it would not end)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while deadline is None or time.monotonic() < deadline:
        fail_stale(study)
        remaining = n_trials - taken(study)
        if remaining > 0:
            rounds.append([0, 0])
            study.optimize(
                objective, n_trials=remaining, callbacks=[stop_when_full],
                catch=(_GiveWay, *TRIAL_ERRORS),
                timeout=None if deadline is None else max(0.0, deadline - time.monotonic()),
                show_progress_bar=show_progress_bar,
            )  # fmt: skip
            finished, failed = rounds[-1]
            if duplicates[0] >= _MAX_DUPLICATES or (failed and not finished):
                if failed and not finished:
                    warnings.warn(f"the last {failed} trial(s) here all failed (see Optuna's log); "
                                  "stopping instead of retrying without end.", UserWarning,
                                  stacklevel=3)  # fmt: skip
                break
            continue
        if len(study.get_trials(deepcopy=False, states=finished_states())) >= n_trials:
            break
        # The rest are running in other workers: wait for them, and take over any whose worker died.
        pause = liveness.HEARTBEAT_S
        time.sleep(pause if deadline is None else min(pause, max(0.0, deadline - time.monotonic())))
    return study


def _check_protocol(study: optuna.Study, cv: Any) -> None:
    """Refuse to mix trials scored differently (one split / k folds) in one study."""
    label = _cv_label(cv)
    key = "tsattn_cv"
    if key not in study.user_attrs:
        if not study.trials:
            study.set_user_attr(key, label)
        return
    if study.user_attrs[key] != label:
        raise ValueError(
            f"study {study.study_name!r} was scored with cv={study.user_attrs[key]}, not "
            f"cv={label}; their scores cannot be compared: use another study_name."
        )


def _same_point(study: optuna.Study, trial: optuna.Trial) -> int | None:
    """The number of a trial that already holds ``trial``'s parameters: finished, or running and
    claimed. ``trial`` claims its point first (a user attribute) and then looks: of two workers
    that drew one point at the same moment, the one that claims later sees the earlier claim and
    gives way (both may give way; never both run)."""
    state = _optuna().trial.TrialState
    trial.set_user_attr(CLAIMED, True)
    mine = trial.params
    for t in study.get_trials(deepcopy=False, states=(*finished_states(), state.RUNNING)):
        if t.number == trial.number or t.params != mine:
            continue
        if t.state != state.RUNNING or t.user_attrs.get(CLAIMED):
            return t.number
    return None


def _cross_validate(trial: optuna.Trial, model: Any, X: Any, y: Any, folds: list, metric: str,
                    n_jobs: int) -> float:
    """Fit and score every fold through joblib; report each fold as it finishes."""
    from joblib import Parallel, delayed
    from joblib.parallel import get_active_backend

    from tsattn._parallel import usable_cores

    on_dask = type(get_active_backend()[0]).__name__ == "DaskDistributedBackend"
    threads = fold_threads(len(folds), n_jobs, usable_cores(), on_dask)

    def one(i: int, fold: Any) -> Any:
        return delayed(_indexed)(i, clone(model), X, y, fold, metric, threads[i])

    scores: dict[int, float] = {}
    results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
        one(i, fold) for i, fold in enumerate(folds)
    )
    try:
        for i, value in results:
            scores[i] = value
            trial.report(value, step=i)
            if len(scores) < len(folds) and trial.should_prune():
                raise _optuna().TrialPruned(f"pruned after {len(scores)} of {len(folds)} folds")
    finally:
        with warnings.catch_warnings():  # a pruned trial cancels its running folds on purpose
            warnings.filterwarnings("ignore", message=".*cancelled", category=UserWarning)
            results.close()
    values = [scores[i] for i in range(len(folds))]
    trial.set_user_attr("fold_values", values)
    return float(sum(values) / len(values))


def fold_threads(n_folds: int, n_jobs: int, cores: int, on_dask: bool = False) -> list[int | None]:
    """Torch threads for each of ``n_folds`` folds fitted ``n_jobs`` at a time on ``cores`` cores
    (None: torch's default, for serial folds; 1 on Dask workers). The cores are shared among the
    folds running at once, and the folds of an incomplete last round share them among fewer: with
    3 folds on 2 workers and 2 cores, the third fold runs alone on both cores."""
    if on_dask or n_jobs == 1:
        return [1 if on_dask else None] * n_folds
    workers = min(cores if n_jobs == -1 else n_jobs, n_folds)
    last_round = n_folds - n_folds % workers
    return [max(1, cores // (workers if i < last_round else n_folds - last_round))
            for i in range(n_folds)]  # fmt: skip


def _indexed(i: int, *args: Any) -> tuple[int, float]:
    return i, fit_fold(*args)
