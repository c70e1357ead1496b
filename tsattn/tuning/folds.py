"""Cross-validated trials: the folds, one fold's fit and score, and the pruner that compares folds.

Folds (:func:`make_folds`): ``cv=k`` is a stratified ``k``-fold split for classifiers and a
``k``-fold split for regressors, both shuffled with a fixed seed (every trial and every worker of
a study sees the same folds), or any scikit-learn splitter; for a forecaster, ``k`` time-ordered
expanding folds: the series is cut into ``k + 1`` blocks, fold ``i`` fits on blocks ``0..i`` and
scores every forecast whose targets lie in block ``i + 1``, its contexts reaching back into the
fitted part. Each fold fits the estimator as it is configured (its own ``validation_fraction``,
step budget and schedule): a cross-validated trial scores the procedure the final model uses.

Scores (:func:`fit_fold`): ``metric="loss"`` is the held-out cross-entropy for classifiers, the
MSE for regressors, and for forecasters the MSE in the fold's standardised units (the training
loss's unit, so channels of different scales weigh alike); ``"score"`` the accuracy.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
from sklearn.base import is_classifier

from tsattn.tuning.space import _optuna

__all__ = ["make_folds", "fit_fold", "fold_median_pruner"]


def _is_forecaster(estimator: Any) -> bool:
    return hasattr(estimator, "horizon") and hasattr(estimator, "context_length")


def make_folds(estimator: Any, X: Any, y: Any, cv: Any) -> list[tuple[Any, Any]]:
    """The ``(fit, held-out)`` parts of each fold: index arrays for collections, ``(fit_end,
    held_end)`` step positions for a forecaster's series. Refuses folds that cannot be fitted."""
    if _is_forecaster(estimator):
        return _expanding_folds(estimator, X, cv)
    from tsattn.io import kfold

    if y is None:
        raise ValueError(f"{type(estimator).__name__} needs y for cross-validation.")
    y = np.asarray(y)
    if isinstance(cv, int) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(f"cv must be at least 2 folds (or None for one validation split), got {cv}.")
    elif not (hasattr(cv, "split") and hasattr(cv, "get_n_splits")):
        raise ValueError(f"cv must be None, a number of folds >= 2 or a scikit-learn splitter; got {cv!r}.")
    if is_classifier(estimator) and isinstance(cv, int):
        _, counts = np.unique(y, return_counts=True)
        if counts.min() < cv:
            raise ValueError(
                f"cv={cv}: the smallest class has {counts.min()} series, fewer than the folds, so some "
                "folds would fit without it; use fewer folds."
            )
    if isinstance(cv, int):
        return kfold(y, cv, is_classifier(estimator))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(cv.split(np.zeros((len(y), 1)), y))


def _expanding_folds(estimator: Any, X: Any, cv: Any) -> list[tuple[int, int]]:
    from tsattn.estimators.forecaster.params import series_context
    from tsattn.io import as_series

    if isinstance(cv, bool) or not isinstance(cv, int) or cv < 1:
        raise ValueError(
            f"a forecaster is cross-validated on time-ordered expanding folds: give cv as a number "
            f"of folds >= 1, got {cv!r}."
        )
    n_steps = len(as_series(X, "y")[0])
    block = n_steps // (cv + 1)
    need = series_context(estimator) + estimator.horizon
    if block < need:
        raise ValueError(
            f"cv={cv} cuts the {n_steps}-step series into {cv + 1} blocks of {block} steps, fewer "
            f"than context_length + horizon = {need} that the first fold needs to fit; use fewer "
            "folds or a shorter context_length / horizon."
        )
    ends = [n_steps - (cv - i) * block for i in range(cv + 1)]
    return [(ends[i], ends[i + 1]) for i in range(cv)]


def fit_fold(estimator: Any, X: Any, y: Any, fold: tuple[Any, Any], metric: str,
             threads: int | None = None) -> float:
    """Fit ``estimator`` (a fresh clone) on the fit part of ``fold`` and score the held-out part.

    ``threads`` sets torch's threads for the fit (in a worker process), restored afterwards."""
    import torch

    before = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # e.g. classes thin in a small fold
            if _is_forecaster(estimator):
                return _forecast_fold(estimator, X, fold)
            return _collection_fold(estimator, X, y, fold, metric)
    finally:
        torch.set_num_threads(before)


def _collection_fold(estimator: Any, X: Any, y: Any, fold: tuple[Any, Any], metric: str) -> float:
    from sklearn.utils import _safe_indexing

    fit, held = fold
    y = np.asarray(y)
    model = estimator.fit(_safe_indexing(X, fit), y[fit])
    _check_not_interrupted(model)
    X_held, y_held = _safe_indexing(X, held), y[held]
    if metric == "score":
        return float(np.mean(np.asarray(model.predict(X_held)) == y_held))
    if is_classifier(model):
        proba = np.asarray(model.predict_proba(X_held), dtype=np.float64)
        col = {c: i for i, c in enumerate(model.classes_)}
        p = np.array([proba[i, col[c]] if c in col else 0.0 for i, c in enumerate(y_held)])
        return float(-np.mean(np.log(np.clip(p, 1e-7, 1.0))))
    pred = np.asarray(model.predict(X_held), dtype=np.float64).reshape(len(held), -1)
    return float(np.mean((pred - np.asarray(y_held, dtype=np.float64).reshape(len(held), -1)) ** 2))


def _forecast_fold(estimator: Any, X: Any, fold: tuple[int, int]) -> float:
    from tsattn.datasets.forecasting import sliding_windows
    from tsattn.io import as_series

    fit_end, held_end = fold
    values = as_series(X, "y")[0]
    model = estimator.fit(values[:fit_end])
    _check_not_interrupted(model)
    contexts, targets = sliding_windows(
        values[fit_end - model.context_length_ : held_end], model.context_length_, model.horizon
    )
    errors = (model.predict(np.asarray(contexts)) - np.asarray(targets)) / model.channel_scale_
    return float(np.mean(errors**2))


def _check_not_interrupted(model: Any) -> None:
    if getattr(model, "interrupted_", False):
        raise KeyboardInterrupt  # Ctrl-C inside fit: stop the study, do not score a partial fit


def fold_median_pruner(n_startup_trials: int = 5) -> Any:
    """Prunes a cross-validated trial whose mean over the folds it has finished is worse than the
    median, over the complete trials, of their means over the same folds.

    Folds differ in difficulty, so a trial is compared with others on the same folds, whichever
    order its folds finished in (they may run in parallel). Nothing is pruned before
    ``n_startup_trials`` trials are complete.
    """
    return _pruner_class()(n_startup_trials)


@functools.cache
def _pruner_class() -> type:
    optuna = _optuna()

    class FoldMedianPruner(optuna.pruners.BasePruner):
        def __init__(self, n_startup_trials: int) -> None:
            self.n_startup_trials = n_startup_trials

        def prune(self, study: Any, trial: Any) -> bool:
            folds = trial.intermediate_values
            if not folds:
                return False
            complete = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
            means = [
                np.mean([t.intermediate_values[f] for f in folds]) for t in complete
                if all(f in t.intermediate_values for f in folds)
            ]  # fmt: skip
            if len(means) < self.n_startup_trials:
                return False
            mine, median = float(np.mean(list(folds.values()))), float(np.median(means))
            minimize = study.direction == optuna.study.StudyDirection.MINIMIZE
            return mine > median if minimize else mine < median

    return FoldMedianPruner
