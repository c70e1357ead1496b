"""sktime interface to :class:`tsattn.TSForecaster` (one series, or a panel or hierarchy as one
global model, with exogenous ``X``), :class:`tsattn.TSClassifier` and :class:`tsattn.TSRegressor`,
for sktime pipelines, tuning and evaluation.

>>> from tsattn.adapters.sktime import TSAttnForecaster  # doctest: +SKIP
>>> TSAttnForecaster(context_length=24, attention="softmax").fit(y, fh=[1, 2, 3]).predict()  # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tsattn.adapters._collection import TEST_PARAMS, CollectionAdapterMixin, mirror_parameters
from tsattn.adapters._panel_frames import PanelLayout, is_panel
from tsattn.estimators import TSClassifier, TSForecaster, TSRegressor
from tsattn.io.panel import ID, TARGET, TIME

try:
    from sktime.classification.base import BaseClassifier
    from sktime.datatypes import update_data
    from sktime.forecasting.base import BaseForecaster, ForecastingHorizon
    from sktime.regression.base import BaseRegressor
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tsattn.adapters.sktime needs sktime, which is not installed: pip install 'tsattn[sktime]'"
    ) from err

__all__ = ["TSAttnForecaster", "TSAttnClassifier", "TSAttnRegressor"]


@mirror_parameters(TSForecaster, skip=("horizon",))
class TSAttnForecaster(BaseForecaster):
    """sktime forecaster wrapping :class:`tsattn.TSForecaster`: one series, or a panel or
    hierarchy of series as ONE global model, with exogenous ``X``.

    The network's horizon is the largest step of the ``fh`` given to ``fit`` (required there,
    out-of-sample steps; ``predict`` forecasts that ``fh``, sktime refusing another) from the last
    ``context_length`` observations seen (``update`` appends data to ``y_seen_`` and ``X_seen_``
    and, with ``update_params=True``, refits on all of it). ``predict_quantiles`` and
    ``predict_interval`` (sktime's interval API) return
    :meth:`tsattn.TSForecaster.predict_quantiles`, calibrated on the validation errors.

    **Panels and hierarchies** (sktime's ``pd-multiindex`` and ``pd_multiindex_hier`` frames) are
    not split into one model per series: every instance (and every column of ``y``, each its own
    series) becomes a series of one long frame, and one network is trained on all of them
    (``forecaster_.series_ids_``: the instance levels joined by ``/``). Each series is forecast
    from its own last row (series of unequal lengths and ends are fine; ``fh`` counts from
    there). A ``PeriodIndex`` time level is read as the periods' start times and given back as
    periods. Several ``y`` columns in a panel need ``channel_independent=True`` (the default).

    **Exogenous** ``X`` (``T`` rows beside ``y``; for a panel, a frame on the same instance and
    time levels) goes to :meth:`tsattn.TSForecaster.fit`. Its columns are past-only unless
    named in ``future_covariates`` (column names as text, or positions): past-only columns are
    read up to the forecast origin, from the rows kept from ``fit``/``update``; the future-known
    ones are also read on the horizon, from ``predict``'s ``X``, which must then cover steps 1 ..
    ``horizon`` after the cutoff (sktime's convention: ``X`` covers ``fh``).

    Parameters
    ----------
    **params
        Every parameter of :class:`tsattn.TSForecaster` but ``horizon`` (attention
        hyperparameters such as ``beta`` and ``future_covariates`` included), with its defaults:
        the signature is the estimator's own.

    Attributes
    ----------
    forecaster_ : TSForecaster
        The fitted estimator (one network for every series of a panel).
    y_seen_, X_seen_ : pd.DataFrame or None
        The data of ``fit`` and ``update`` (sktime's inner frames), the source of the contexts.

    Examples
    --------
    >>> from sktime.datasets import load_airline
    >>> from tsattn.adapters.sktime import TSAttnForecaster
    >>> y = load_airline()
    >>> model = TSAttnForecaster(context_length=24, attention="softmax", max_steps=20)
    >>> y_pred = model.fit(y, fh=[1, 2, 3]).predict()  # doctest: +SKIP

    A hierarchy with a covariate known ahead (``X_future`` covers the 3 steps after the cutoff)::

        model = TSAttnForecaster(context_length=24, future_covariates=["load_fc"])
        model.fit(y_hier, X=X_hier, fh=[1, 2, 3]).predict(X=X_future)
    """

    _tags = {
        "authors": ["tsattn developers"],
        "python_dependencies": ["torch"],
        "capability:multivariate": True,
        "capability:exogenous": True,
        "capability:unequal_length": True,
        "capability:insample": False,
        "capability:missing_values": False,
        "capability:random_state": True,
        "capability:pred_int": True,
        "capability:pred_int:insample": False,
        "y_inner_mtype": ["pd.DataFrame", "pd-multiindex", "pd_multiindex_hier"],
        "X_inner_mtype": ["pd.DataFrame", "pd-multiindex", "pd_multiindex_hier"],
        "requires-fh-in-fit": True,
        "fit_is_empty": False,
    }

    def _fit(self, y: pd.DataFrame, X=None, fh=None):
        steps = self._steps(fh)
        self.forecaster_ = TSForecaster(horizon=int(steps.max()), **self.get_params(deep=False))
        # Own copies of the data seen: sktime 1.3 stops keeping it in ``_y``/``_X`` by default.
        self.y_seen_, self.X_seen_ = y, X
        self._refit()
        return self

    def _refit(self) -> None:
        y, X = self.y_seen_, self.X_seen_
        if is_panel(y):
            if y.shape[1] > 1 and not self.channel_independent:
                raise ValueError(
                    f"y is a panel with {y.shape[1]} columns: a panel's columns are forecast as "
                    "separate series of the one network, while channel_independent=False asks "
                    "to mix them; set channel_independent=True, or fit one model per column."
                )
            self.layout_ = PanelLayout.of(y)
            long_x = None if X is None else self.layout_.long_covariates(X)
            self.forecaster_.fit(self.layout_.long_target(y), long_x)
        else:  # the frame: period='auto' reads the season off its index
            self.forecaster_.fit(y, None if X is None else self._past_rows())
        self._contexts_changed = False

    def _update(self, y: pd.DataFrame, X=None, update_params: bool = True):
        if is_panel(y):
            self.layout_ = PanelLayout.of(y, previous=self.layout_)
        self.y_seen_ = update_data(self.y_seen_, y)
        if self.X_seen_ is not None:  # a model fitted without X reads none
            self.X_seen_ = update_data(self.X_seen_, X)
        if update_params:
            self._refit()
        else:
            self._contexts_changed = True
        return self

    def _steps(self, fh) -> np.ndarray:
        steps = np.asarray(fh.to_relative(self.cutoff), dtype=np.int64)
        if (steps < 1).any():
            raise NotImplementedError(
                f"TSAttnForecaster forecasts out of sample only; fh has steps {steps.tolist()}, "
                "pass steps >= 1."
            )
        return steps

    def _check_within_horizon(self, fh) -> np.ndarray:
        steps = self._steps(fh)
        horizon = self.forecaster_.horizon
        if steps.max() > horizon:
            raise ValueError(
                f"fh reaches {int(steps.max())} steps ahead but the model was fitted for at most "
                f"{horizon}; fit again with this fh."
            )
        return steps

    # ------------------------------------------------------------------ inputs of predict
    def _inputs(self, X) -> tuple:
        """``(y, X)`` for the wrapped forecaster's predict methods: the contexts seen and the
        covariates, past rows from ``X_seen_`` and future rows from ``predict``'s ``X``."""
        est = self.forecaster_
        future = [est.covariates_[j] for j in est.future_]
        if is_panel(self.y_seen_):
            y_long = None
            if self._contexts_changed:  # update without refitting: forecast from every row seen
                y_long = self._with_covariates(self.layout_.long_target(self.y_seen_))
            if not future:
                return y_long, None
            if X is None:
                raise ValueError(self._needs_x(future))
            return y_long, self.layout_.long_covariates(X)
        y = self.y_seen_.to_numpy(dtype=np.float64)
        if not est.covariates_:
            return y, None
        past = self._past_rows().to_numpy(dtype=np.float64)
        if not future:
            return y, past
        return y, np.vstack([past, self._future_rows(X, future)])

    def _past_rows(self) -> pd.DataFrame:
        """The rows of ``X_seen_`` at ``y_seen_``'s time points (one series)."""
        missing = ~self.y_seen_.index.isin(self.X_seen_.index)
        if missing.any():
            raise ValueError(f"X has no row for {int(missing.sum())} time point(s) of y seen "
                             f"(e.g. {self.y_seen_.index[missing][0]}); pass X to fit and update "
                             "with every row of y.")  # fmt: skip
        return self.X_seen_.loc[self.y_seen_.index]

    def _needs_x(self, future: list) -> str:
        horizon = self.forecaster_.horizon
        return (f"predict needs X with the future covariates {future} on steps 1 .. {horizon} "
                f"after the cutoff {self.cutoff[0]} (the model's horizon, the largest step of "
                "fit's fh), whatever fh predict is given; pass X covering them.")  # fmt: skip

    def _future_rows(self, X, future: list) -> np.ndarray:
        """The ``horizon`` rows of ``X`` after the cutoff, in ``X_seen_``'s columns."""
        if X is None:
            raise ValueError(self._needs_x(future))
        horizon = self.forecaster_.horizon
        index = ForecastingHorizon(np.arange(1, horizon + 1)).to_absolute_index(self.cutoff)
        absent = index[~index.isin(X.index)]
        if len(absent):
            raise ValueError(f"{self._needs_x(future)} X lacks {list(absent)}.")
        columns = [c for c in self.X_seen_.columns if c not in X.columns]
        if columns:
            raise ValueError(f"predict's X lacks the column(s) {columns} that fit's X has.")
        return X.loc[index, self.X_seen_.columns].to_numpy(dtype=np.float64)

    def _with_covariates(self, y_long: pd.DataFrame) -> pd.DataFrame:
        """``y_long`` with the covariate columns of ``X_seen_`` beside each row."""
        if self.X_seen_ is None or not self.forecaster_.covariates_:
            return y_long
        joined = y_long.merge(self.layout_.long_covariates(self.X_seen_), on=[ID, TIME], how="left")
        missing = joined[self.forecaster_.covariates_].isna().any(axis=1).to_numpy()
        if missing.any():
            row = joined[missing].iloc[0]
            raise ValueError(f"X has no row for series {row[ID]!r} at {row[TIME]} (and "
                             f"{int(missing.sum()) - 1} more rows of y seen); pass X to update "
                             "with the rows of y.")  # fmt: skip
        return joined

    # ------------------------------------------------------------------ predict
    def _predict(self, fh, X=None):
        steps = self._check_within_horizon(fh)
        y, x = self._inputs(X)
        forecast = self.forecaster_.predict(y, X=x)
        if is_panel(self.y_seen_):
            return self.layout_.from_long(forecast, steps, [TARGET], self.y_seen_.columns)
        index = fh.to_absolute_index(self.cutoff)
        return pd.DataFrame(forecast[steps - 1], index=index, columns=self.y_seen_.columns)

    def _predict_quantiles(self, fh, X, alpha):
        steps = self._check_within_horizon(fh)
        y, x = self._inputs(X)
        quantiles = self.forecaster_.predict_quantiles(y, alpha=alpha, X=x)
        columns = pd.MultiIndex.from_product([self.y_seen_.columns, list(alpha)])
        if is_panel(self.y_seen_):
            levels = [float(a) for a in alpha]
            return self.layout_.from_long(quantiles, steps, levels, columns)
        values = quantiles[steps - 1].reshape(len(steps), -1)  # (horizon, C, k) at the steps
        return pd.DataFrame(values, index=fh.to_absolute_index(self.cutoff), columns=columns)

    @classmethod
    def get_test_params(cls, parameter_set: str = "default"):
        tiny = dict(
            context_length=6, patch_len=2, attention="softmax", d_model=8, n_heads=2, n_layers=1,
            dim_feedforward=16, max_epochs=2, validation_fraction=0.0, device="cpu",
            random_state=0,
        )  # fmt: skip
        return [tiny, {**tiny, "head": "linear", "patch_len": 1, "validation_fraction": 0.2}]


_COLLECTION_TAGS = {
    "authors": ["tsattn developers"],
    "python_dependencies": ["torch"],
    "capability:multivariate": True,
    "capability:random_state": True,
    "X_inner_mtype": "numpy3D",
}


class _CollectionMixin(CollectionAdapterMixin):
    @classmethod
    def get_test_params(cls, parameter_set: str = "default"):
        return [dict(p) for p in TEST_PARAMS]


@mirror_parameters(TSClassifier)
class TSAttnClassifier(_CollectionMixin, BaseClassifier):
    """sktime classifier wrapping :class:`tsattn.TSClassifier` (parameters as there;
    every parameter of it, with its defaults, attention hyperparameters such as ``beta`` included).

    Examples
    --------
    >>> from sktime.datasets import load_basic_motions
    >>> from tsattn.adapters.sktime import TSAttnClassifier
    >>> X, y = load_basic_motions(split="train", return_type="numpy3D")
    >>> clf = TSAttnClassifier(attention="bn_sh", max_epochs=2).fit(X, y)  # doctest: +SKIP
    """

    _tags = {**_COLLECTION_TAGS, "capability:predict_proba": True}


@mirror_parameters(TSRegressor)
class TSAttnRegressor(_CollectionMixin, BaseRegressor):
    """sktime regressor wrapping :class:`tsattn.TSRegressor` (every parameter of it, with its
    defaults).

    Examples
    --------
    >>> from tsattn.adapters.sktime import TSAttnRegressor
    >>> reg = TSAttnRegressor(attention="softmax", max_epochs=2)  # doctest: +SKIP
    """

    _tags = dict(_COLLECTION_TAGS)
