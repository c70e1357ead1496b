"""Optuna tuning of the estimators' hyperparameters: search spaces from the registry, validation
splits or cross-validation, pruning, and studies shared by many workers.

- :func:`search_space` (:mod:`~tsattn.tuning.space`): the distributions of an attention variant's
  own hyperparameters (each variant declares its tuning ranges in its own file) plus ``lr``,
  ``dropout`` and ``weight_decay``; ``search_space("auto")`` or a list of variants makes the
  variant itself a categorical, each trial drawing the chosen variant's parameters.
- :func:`tune` (:mod:`~tsattn.tuning.optimize`): a real Optuna study scored on a validation split
  (pruned per epoch) or with ``cv=k`` folds (pruned per fold, folds run through joblib, on Dask
  inside ``joblib.parallel_config(backend="dask")``).
- Storage and workers (:mod:`~tsattn.tuning.study`): SQLite files, journal files, database URLs;
  ``n_trials`` is the study's total across workers; a killed worker's trial is failed after
  :data:`~tsattn.tuning.study.STALE_AFTER_S` seconds and its parameters run again; workers with
  one ``random_state`` draw different points.
- :class:`TSSearchCV` (:mod:`~tsattn.tuning.search`): the same as a scikit-learn search
  estimator, for ``Pipeline``, ``clone`` and nested ``cross_val_score``.

Studies resume: running the same ``study_name`` on the same storage again continues up to
``n_trials`` finished trials. Ctrl-C stops the study after recording the trials already finished;
the interrupted trial is marked failed, and the next run picks up from there.

Example
-------
>>> from tsattn import TSClassifier
>>> from tsattn.tuning import tune, best_params
>>> study = tune(TSClassifier(attention="bn"), X, y, cv=3, n_trials=30,
...              storage="tuning.db", study_name="jv-bn")  # doctest: +SKIP
>>> TSClassifier(attention="bn", **best_params(study)).fit(X, y)  # doctest: +SKIP
"""

from tsattn.attention.base import scale_presets
from tsattn.tuning.folds import fold_median_pruner
from tsattn.tuning.optimize import METRICS, PruningCallback, best_params, default_pruner, tune
from tsattn.tuning.search import TSSearchCV
from tsattn.tuning.space import search_space
from tsattn.tuning.study import HEARTBEAT_S, STALE_AFTER_S, resolve_storage

__all__ = [
    "search_space",
    "scale_presets",
    "tune",
    "best_params",
    "TSSearchCV",
    "PruningCallback",
    "METRICS",
    "default_pruner",
    "fold_median_pruner",
    "resolve_storage",
    "HEARTBEAT_S",
    "STALE_AFTER_S",
]
