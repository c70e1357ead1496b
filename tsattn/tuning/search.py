""":class:`TSSearchCV`: :func:`~tsattn.tuning.tune` as a scikit-learn search estimator.

Optuna's own ``optuna_integration.OptunaSearchCV`` was weighed and not taken: its space is flat
(no attention variant with the chosen variant's parameters under it), it only maximises a
scorer, prunes only estimators with ``partial_fit`` (ours report per fold instead), and counts
``n_trials`` per process, not per shared study. This one runs :func:`tune` with cross-validation,
so it has all of those, then refits the best parameters on all the data.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from tsattn.tuning.optimize import best_params, tune
from tsattn.tuning.space import trial_params
from tsattn.tuning.study import finished_states

__all__ = ["TSSearchCV"]


def _best_has(name: str):
    def check(self: TSSearchCV) -> bool:
        if hasattr(self, "best_estimator_"):
            return hasattr(self.best_estimator_, name)
        return hasattr(self.estimator, name)

    return check


class TSSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Cross-validated Optuna search over a tsattn estimator's flat parameters.

    ``fit(X, y)`` runs ``tune(estimator, X, y, space=space, cv=cv, ...)`` and, with ``refit``,
    fits ``estimator`` with the best parameters on all of ``X, y`` as ``best_estimator_``;
    ``predict``, ``predict_proba`` and ``score`` use it. Works in a ``Pipeline``, with ``clone``
    and inside ``cross_val_score`` (nested cross-validation: each outer fold runs its own study,
    so leave ``storage`` out there, or every outer fold resumes the same study).

    Parameters
    ----------
    estimator : a tsattn estimator (``TSClassifier``, ``TSRegressor``, ``TSForecaster``).
    space : as in :func:`~tsattn.tuning.tune`: None (the estimator's attention's space), ``"auto"``
        (the attention variant too) or ``{flat parameter: optuna distribution}``.
    n_trials, cv, metric, n_jobs, timeout, storage, study_name, pruner, random_state : passed to
        :func:`~tsattn.tuning.tune`.
    refit : fit ``best_estimator_`` on all the data after the search.

    Attributes
    ----------
    study_ : the Optuna study; ``best_params_`` its best parameters; ``best_score_`` the best
        cross-validated value, higher is better (the negated loss for ``metric="loss"``, as
        scikit-learn's ``neg_log_loss``); ``best_estimator_`` the refitted model.
    """

    def __init__(
        self,
        estimator: Any,
        space: Mapping[str, Any] | str | None = None,
        *,
        n_trials: int = 20,
        cv: Any = 3,
        metric: str = "loss",
        n_jobs: int = 1,
        timeout: float | None = None,
        storage: Any = None,
        study_name: str | None = None,
        pruner: Any = None,
        random_state: int | None = 0,
        refit: bool = True,
    ) -> None:
        self.estimator = estimator
        self.space = space
        self.n_trials = n_trials
        self.cv = cv
        self.metric = metric
        self.n_jobs = n_jobs
        self.timeout = timeout
        self.storage = storage
        self.study_name = study_name
        self.pruner = pruner
        self.random_state = random_state
        self.refit = refit

    def fit(self, X: Any, y: Any = None) -> TSSearchCV:
        """Run the study on ``X, y`` (a forecaster: the series as ``X``); returns ``self``."""
        self.study_ = tune(
            self.estimator, X, y, space=self.space, n_trials=self.n_trials, cv=self.cv,
            metric=self.metric, n_jobs=self.n_jobs, timeout=self.timeout, storage=self.storage,
            study_name=self.study_name, pruner=self.pruner, random_state=self.random_state,
        )  # fmt: skip
        complete = self.study_.get_trials(deepcopy=False, states=finished_states()[:1])
        if not complete:
            raise ValueError(
                f"no trial of the study completed ({len(self.study_.trials)} trials, all pruned or "
                "failed): no best parameters. See study_.trials_dataframe()."
            )
        self.best_params_ = best_params(self.study_)
        value = float(self.study_.best_value)
        self.best_score_ = -value if self.metric == "loss" else value
        self.n_trials_ = len(self.study_.get_trials(deepcopy=False, states=finished_states()))
        if self.refit:
            model = clone(self.estimator)
            model.set_params(**trial_params(model, self.best_params_))
            self.best_estimator_ = model.fit(X) if y is None else model.fit(X, y)
            for name in ("classes_", "n_features_in_"):
                if hasattr(self.best_estimator_, name):
                    setattr(self, name, getattr(self.best_estimator_, name))
        return self

    def _fitted(self) -> Any:
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_

    @available_if(_best_has("predict"))
    def predict(self, *args: Any, **kwargs: Any) -> Any:
        """``best_estimator_.predict``."""
        return self._fitted().predict(*args, **kwargs)

    @available_if(_best_has("predict_proba"))
    def predict_proba(self, X: Any) -> Any:
        """``best_estimator_.predict_proba``."""
        return self._fitted().predict_proba(X)

    @available_if(_best_has("score"))
    def score(self, X: Any, y: Any = None) -> float:
        """``best_estimator_.score``: accuracy, R^2, or a forecaster's negative MSE."""
        return self._fitted().score(X, y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = copy.deepcopy(inner.classifier_tags)
        tags.regressor_tags = copy.deepcopy(inner.regressor_tags)
        tags.input_tags = copy.deepcopy(inner.input_tags)
        tags.non_deterministic = inner.non_deterministic
        return tags
