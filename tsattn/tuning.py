"""Optuna tuning of the estimators' hyperparameters: search spaces from the registry, pruning, storage.

:func:`search_space` gives the distributions for an attention variant's own hyperparameters (each
variant declares its tuning space in its own file, so a new variant's are found without listing
them here) plus the training ones (``lr``, ``dropout``, ``weight_decay``). :func:`tune` runs a real Optuna
study on a validation part carved from the training data (the estimator's own
``validation_fraction`` carve, stratified for classifiers, the same split for every trial), reports
the validation metric after every epoch so a pruner can stop weak trials, and stores every trial in
``storage``:

- ``None``: in memory;
- a path ending in ``.db``/``.sqlite``/``.sqlite3``: SQLite (one machine, several processes);
- any other path: Optuna's journal file (several machines sharing a file system);
- a database URL (``postgresql://...``, ``mysql://...``, ``sqlite:///...``) or an Optuna storage.

Studies resume: running the same ``study_name`` on the same storage again continues up to
``n_trials`` finished (complete or pruned) trials in total, and several workers started on one
storage share the trials: a worker starts a trial only while the finished trials and the ones
running in live workers are fewer than ``n_trials``, so the study ends with exactly ``n_trials``
(failed trials do not count; a trial in a worker that died without a word, e.g. ``kill -9``,
stops counting once it has shown no sign of life for :data:`STALE_AFTER_S` seconds).
Ctrl-C stops the study after recording the trials already finished; the interrupted trial is marked
failed, and the next run picks up from there.

Example
-------
>>> from tsattn import TSClassifier
>>> from tsattn.tuning import tune, best_params, search_space
>>> study = tune(TSClassifier(attention="bn"), X, y, n_trials=30,
...              storage="tuning.db", study_name="jv-bn")  # doctest: +SKIP
>>> TSClassifier(attention="bn", **best_params(study)).fit(X, y)  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sklearn.base import clone, is_classifier

from tsattn._filelock import file_lock
from tsattn.attention import get_attention_class
from tsattn.attention.base import scale_presets  # noqa: F401 - part of this module's API
from tsattn.attention.hyperparameters import Choice, FloatRange
from tsattn.training import Callback

if TYPE_CHECKING:  # pragma: no cover
    import optuna

__all__ = [
    "search_space",
    "scale_presets",
    "tune",
    "best_params",
    "PruningCallback",
    "METRICS",
    "default_pruner",
    "resolve_storage",
    "STALE_AFTER_S",
]

#: A running trial that has reported no epoch for this long (seconds) is taken for one left by a
#: dead worker and no longer holds a place among the study's ``n_trials``.
STALE_AFTER_S = 1800.0

_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
_SEQUENCE_PARAMS = ("scales", "key_scales")  # tuned as strings like "1,1,2,2", passed as tuples


def _optuna():
    try:
        import optuna
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("tuning needs Optuna: pip install 'tsattn[tune]'") from err
    return optuna


def _attention_space(name: str, n_heads: int) -> dict[str, Any]:
    """Distributions for the hyperparameters a variant declares with a tuning space."""
    dist = _optuna().distributions
    space: dict[str, Any] = {}
    for hp in get_attention_class(name).hyperparameters:
        if isinstance(hp.space, FloatRange):
            space[hp.name] = dist.FloatDistribution(
                hp.space.low, hp.space.high, step=hp.space.step, log=hp.space.log
            )
        elif isinstance(hp.space, Choice):
            space[hp.name] = dist.CategoricalDistribution(hp.space.options(n_heads))
    return space


def search_space(attention: str, n_heads: int = 8, training: bool = True) -> dict[str, Any]:
    """Optuna distributions for tuning an estimator that uses ``attention``.

    Parameters
    ----------
    attention : a registered variant (``tsattn.attention.list_attention()``).
    n_heads : the estimator's head count; ``scales`` presets have one factor per head.
    training : also tune ``lr`` (log-uniform 1e-4..3e-3), ``dropout`` (0..0.3) and ``weight_decay``
        (log-uniform 1e-4..0.1).

    Returns ``{estimator parameter name: optuna distribution}``; edit or extend it freely and pass
    it to :func:`tune`.
    """
    get_attention_class(attention)  # a clear error listing the valid names
    space = _attention_space(attention, n_heads)
    if training:
        dist = _optuna().distributions
        space.update(
            lr=dist.FloatDistribution(1e-4, 3e-3, log=True),
            dropout=dist.FloatDistribution(0.0, 0.3, step=0.05),
            weight_decay=dist.FloatDistribution(1e-4, 1e-1, log=True),
        )
    return space


def default_pruner(max_epochs: int) -> optuna.pruners.BasePruner:
    """Median pruning that only stops a trial which has stalled.

    A plain ``MedianPruner`` compares every epoch's best-so-far with the median of earlier trials
    at that epoch; trials of one model differ little and noisily early on, so nearly every trial
    lands above the median at some epoch and is cut, good settings among them. Here the median rule applies
    only after a quarter of ``max_epochs`` and to a trial whose validation metric has not improved
    for 10 epochs.
    """
    import warnings

    optuna = _optuna()
    median = optuna.pruners.MedianPruner(n_startup_trials=5, n_warmup_steps=max(10, max_epochs // 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.pruners.PatientPruner(median, patience=10)


def resolve_storage(storage: Any) -> Any:
    """An Optuna storage (or URL) for ``storage``: None, a path, a database URL or a storage."""
    optuna = _optuna()
    if storage is None or isinstance(storage, optuna.storages.BaseStorage):
        return storage
    if not isinstance(storage, (str, Path)):
        raise ValueError(
            "storage must be None, a file path (.db for SQLite, anything else for a journal file), "
            f"a database URL or an optuna storage; got {type(storage).__name__}."
        )
    text = str(storage)
    if "://" in text:
        return text
    path = Path(text).expanduser().resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() in _SQLITE_SUFFIXES:
        # Optuna writes the schema on the first connection; workers started together would race
        # on it (sqlite3.IntegrityError), so connections are opened one at a time. The busy
        # timeout lets concurrent workers wait for each other's writes instead of failing.
        with file_lock(path):
            return optuna.storages.RDBStorage(
                f"sqlite:///{path}", engine_kwargs={"connect_args": {"timeout": 60}}
            )
    from optuna.storages.journal import JournalFileBackend

    return optuna.storages.JournalStorage(JournalFileBackend(str(path)))


class PruningCallback(Callback):
    """Reports a validation metric to an Optuna trial after every epoch and prunes weak trials.

    ``metric="loss"`` reports the validation loss (minimised); ``"score"`` the validation score
    (accuracy for classifiers, maximised). The study's direction must match.
    """

    def __init__(self, trial: optuna.Trial, metric: str = "loss") -> None:
        self.trial = trial
        self.metric = _check_metric(metric)

    def on_epoch_end(self, estimator: Any, record: dict) -> None:
        value = _epoch_metric(record, self.metric)
        self.trial.report(value, step=record["epoch"])
        self.trial.set_user_attr(_ALIVE, time.time())  # the trial's worker is alive
        if self.trial.should_prune():
            raise _optuna().TrialPruned(f"pruned after epoch {record['epoch']} ({value:.4g})")


METRICS = {"loss": "minimize", "score": "maximize"}


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


def _check_space(estimator: Any, space: Mapping[str, Any]) -> None:
    optuna = _optuna()
    valid = estimator.get_params(deep=False)
    for name, dist in space.items():
        if name not in valid:
            raise ValueError(
                f"{name!r} in the search space is not a parameter of {type(estimator).__name__}; "
                f"valid: {', '.join(sorted(valid))}."
            )
        kinds = (
            optuna.distributions.FloatDistribution,
            optuna.distributions.IntDistribution,
            optuna.distributions.CategoricalDistribution,
        )
        if not isinstance(dist, kinds):
            raise ValueError(
                f"the search space maps {name!r} to {dist!r}; give an optuna Float-, Int- or "
                "CategoricalDistribution, e.g. optuna.distributions.FloatDistribution(0.1, 1.2)."
            )
        if name in ("validation_fraction", "callbacks", "random_state"):
            raise ValueError(f"{name!r} is set by tune() itself and cannot be tuned.")


def _suggest(trial: optuna.Trial, name: str, dist: Any) -> Any:
    """``trial.suggest_*`` for one distribution of the space."""
    d = _optuna().distributions
    if isinstance(dist, d.FloatDistribution):
        return trial.suggest_float(name, dist.low, dist.high, step=dist.step, log=dist.log)
    if isinstance(dist, d.IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, step=dist.step, log=dist.log)
    return trial.suggest_categorical(name, dist.choices)


def _decode(params: Mapping[str, Any]) -> dict[str, Any]:
    """Trial values to estimator parameters (``"1,2"`` -> ``(1, 2)`` for per-head scales)."""
    out = dict(params)
    for name in _SEQUENCE_PARAMS:
        if isinstance(out.get(name), str):
            out[name] = tuple(int(s) for s in out[name].split(","))
    return out


_ALIVE = "alive_at"  # user attribute: time.time() of a running trial's last epoch


class _StudyFull(Exception):
    """A trial was started after the study had filled up in other workers (it ends as failed)."""


def _finished_states() -> tuple:
    state = _optuna().trial.TrialState
    return (state.COMPLETE, state.PRUNED)


def _taken(study: optuna.Study, before: int | None = None) -> int:
    """Finished trials plus the running trials of live workers (numbered below ``before``)."""
    state = _optuna().trial.TrialState
    now = time.time()
    n = 0
    for t in study.get_trials(deepcopy=False, states=(*_finished_states(), state.RUNNING)):
        if t.state != state.RUNNING:
            n += 1
        elif before is None or t.number < before:
            started = t.datetime_start.timestamp() if t.datetime_start else now
            n += now - t.user_attrs.get(_ALIVE, started) < STALE_AFTER_S
    return n


def best_params(study: optuna.Study) -> dict[str, Any]:
    """The best trial's parameters, ready for the estimator's constructor or ``set_params``."""
    return _decode(study.best_params)


def tune(
    estimator: Any,
    X: Any,
    y: Any = None,
    *,
    space: Mapping[str, Any] | None = None,
    n_trials: int = 20,
    timeout: float | None = None,
    validation_fraction: float = 0.2,
    metric: str = "loss",
    storage: Any = None,
    study_name: str | None = None,
    pruner: Any = None,
    random_state: int | None = 0,
    show_progress_bar: bool = False,
) -> optuna.Study:
    """Tune ``estimator``'s hyperparameters with Optuna on a validation part of ``(X, y)``.

    Each trial clones ``estimator``, sets the suggested values and ``validation_fraction``, fits on
    the rest of the data and scores the restored best epoch on the validation part. Pass a
    forecaster's series as ``X`` with ``y=None``.

    Parameters
    ----------
    space : ``{parameter: optuna distribution}``; default :func:`search_space` for the estimator's
        attention and ``n_heads``.
    n_trials : finished (complete or pruned) trials the study should hold in total, whatever the
        number of workers sharing it; a resumed study runs only the missing ones. Failed trials do
        not count. ``timeout`` (seconds) stops earlier.
    validation_fraction : the part of the training data held out for scoring (same split in every
        trial: it is drawn from the estimator's ``random_state``).
    metric : ``"loss"`` (default) minimises the validation loss: cross-entropy for classifiers, MSE
        for regressors and forecasters. ``"score"`` maximises the validation accuracy (classifiers
        only); on small validation parts accuracy ties at 1.0 across most trials and stops telling
        them apart, which the loss does not.
    storage, study_name : where trials are kept (module docstring); a storage needs a name, and
        the same name resumes the study.
    pruner : an Optuna pruner; default :func:`default_pruner`.
    random_state : seeds the TPE sampler.

    Returns the :class:`optuna.Study`; :func:`best_params` gives the best values.
    """
    optuna = _optuna()
    if not hasattr(estimator, "get_params") or not hasattr(estimator, "fit"):
        raise ValueError(f"estimator must be a tsattn estimator, got {type(estimator).__name__}.")
    if isinstance(n_trials, bool) or not isinstance(n_trials, int) or n_trials < 1:
        raise ValueError(f"n_trials must be a positive integer, got {n_trials!r}.")
    if not 0.0 < float(validation_fraction) < 1.0:
        raise ValueError(
            f"validation_fraction must be in (0, 1): tuning scores trials on a held-out part; "
            f"got {validation_fraction!r}."
        )
    params = estimator.get_params(deep=False)
    if space is None:
        space = search_space(params.get("attention", "softmax"), n_heads=params.get("n_heads", 8))
    _check_space(estimator, space)
    direction = METRICS[_check_metric(metric)]
    if metric == "score" and not is_classifier(estimator):
        raise ValueError(
            f"metric='score' (accuracy) needs a classifier; tune {type(estimator).__name__} with "
            "metric='loss'."
        )
    if storage is not None and not study_name:
        raise ValueError(
            "a storage needs a study_name: reruns resume the study of that name, and one storage "
            "can hold studies of several datasets or estimators, e.g. study_name='jv-bn_sh'."
        )
    study = optuna.create_study(
        storage=resolve_storage(storage),
        study_name=study_name,
        direction=direction,
        sampler=optuna.samplers.TPESampler(seed=random_state),
        pruner=pruner or default_pruner(params.get("max_epochs", 100)),
        load_if_exists=True,
    )
    if study.direction.name.lower() != direction:
        raise ValueError(
            f"study {study_name!r} in this storage was created to {study.direction.name.lower()}, "
            f"but metric={metric!r} needs {direction}; use another study_name."
        )
    remaining = n_trials - _taken(study)
    if remaining <= 0:
        return study
    base_callbacks = list(params.get("callbacks") or [])
    fit_args = (X,) if y is None else (X, y)

    def objective(trial: optuna.Trial) -> float:
        # Workers that asked for a trial at the same moment: the higher number gives way.
        if _taken(study, before=trial.number) >= n_trials:
            study.stop()
            trial.set_user_attr("study_full", True)
            raise _StudyFull(f"the study already holds {n_trials} finished or running trials")
        trial.set_user_attr(_ALIVE, time.time())
        values = {name: _suggest(trial, name, dist) for name, dist in space.items()}
        model = clone(estimator).set_params(
            **_decode(values),
            validation_fraction=validation_fraction,
            callbacks=[*base_callbacks, PruningCallback(trial, metric)],
        )
        model.fit(*fit_args)
        if getattr(model, "interrupted_", False):
            raise KeyboardInterrupt  # Ctrl-C inside fit: stop the study, do not score a partial fit
        best = next(r for r in model.history_ if r["epoch"] == model.best_epoch_)
        trial.set_user_attr("best_epoch", int(model.best_epoch_))
        trial.set_user_attr("epochs", len(model.history_))
        return _epoch_metric(best, metric)

    def stop_when_full(study: optuna.Study, trial: Any) -> None:
        if _taken(study) >= n_trials:  # MaxTrialsCallback, counting other workers' running trials
            study.stop()

    study.optimize(
        objective,
        n_trials=remaining,
        timeout=timeout,
        callbacks=[stop_when_full],
        catch=(_StudyFull,),
        show_progress_bar=show_progress_bar,
    )
    return study
