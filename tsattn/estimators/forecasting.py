"""``TSForecaster``: multi-step forecasting of one series or many, with covariates, by a transformer.

Instance-normalised context windows, patch tokens, the chosen attention and a linear or Fourier
(002, Algorithms 3-4) head, blended with a closed-form linear forecaster; intervals from the
validation errors; windows cut on the fly under a budget of optimiser steps. The estimator's
parts are :mod:`tsattn.estimators.forecaster`'s: every input form read into one data object
(:mod:`~.forecaster.frames`, :mod:`~.forecaster.data`), the fit's decisions taken once
(:mod:`~.forecaster.plan`), the scale chain (:mod:`~.forecaster.scales`), the calibration after
training (:mod:`~.forecaster.calibration`) and the forecasts of a fitted model
(:mod:`~.forecaster.forecasts`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from tsattn.estimators.forecaster import calibration, intervals
from tsattn.estimators.forecaster.calibration import FitWindows
from tsattn.estimators.forecaster.data import (
    labels,
    last_contexts,
    seasonal_weights,
    split,
    windows,
)
from tsattn.estimators.forecaster.forecasts import (
    backtest_choice,
    components,
    forecast,
    to_series_units,
)
from tsattn.estimators.forecaster.frames import read_continuation, read_fit, read_predict
from tsattn.estimators.forecaster.params import (
    AUTO_DROPOUT,
    AUTO_STEPS,
    AUTO_WIDTHS,
    ROUNDS,
    ForecasterParams,
)
from tsattn.estimators.forecaster.plan import FitPlan
from tsattn.estimators.forecaster.saved import restore
from tsattn.estimators.forecaster.scales import Floor, Standardise
from tsattn.estimators.forecaster.scores import WindowScores
from tsattn.estimators.params import declare
from tsattn.io import series as series_io
from tsattn.io.panel import ID, TARGET, TIME, long_output
from tsattn.nn.forecasting import ForecastingTransformer
from tsattn.training import resolve_device

__all__ = ["AUTO_DROPOUT", "AUTO_STEPS", "AUTO_WIDTHS", "ROUNDS", "TSForecaster"]

#: Validation samples scored after each training round to pick the best one; a fixed random
#: subset above. Scoring 32,768 samples 20 times took a third of a default fit on ETTm1
#: (docs/results/speed/fit_time/).
MAX_ROUND_SAMPLES = 8_192


@declare
class TSForecaster(WindowScores, ForecasterParams):
    """Transformer forecaster: the ``horizon`` steps after a ``context_length``-step window.

    What most fits set (every parameter, with why it exists and what it was measured to do:
    ``docs/guide/forecasting.md``)::

        horizon         steps forecast after each context
        context_length  steps of history read ('auto': 96 for one series, by the series'
                        lengths for many)
        attention       the attention variant (tsattn.list_attention(); default 'softmax')
        max_steps       the budget in optimiser steps ('auto': 3000, the best round kept)
        device          'auto' (CUDA when present), 'cpu', 'cuda' or 'cuda:N'
        random_state    the seed of the initial weights, the batches and the subsets

    ``fit`` trains one network on the stride-1 windows of one series, or of every series of a long
    frame (``unique_id``, ``ds``, ``y``; each series standardised on its own training rows, a
    series shorter than a window left-padded with its first value), with covariates (``X``, or
    the long frame's other columns; ``future_covariates`` are read on the horizon too), cut on
    the fly so memory does not grow with the window count, for a budget of optimiser steps (``max_steps='auto'``: ``n_steps_``),
    validated ``ROUNDS`` times on the end of the series (``validation_fraction``) or on ``y_val``
    and keeping the best round's weights (stopping after ``patience`` rounds without a better
    one). Then, on the validation windows, the network's forecast is blended with the ``anchor``
    (``blend_``) and the errors calibrate the intervals of :meth:`predict_quantiles` and
    :meth:`predict_interval`. With ``channel_independent``, a sample is one channel of one window
    and ``batch_size`` counts such univariate windows. :meth:`score` is the *negative* MSE;
    :meth:`mse` and :meth:`mae` the errors. The series is standardised per channel with its
    training part's statistics (``channel_mean_``, ``channel_scale_``), the unit of the loss and of
    the long-horizon benchmarks.

    Attributes
    ----------
    module_ : the trained :class:`tsattn.nn.forecasting.ForecastingTransformer`; ``n_channels_``.
    channel_mean_, channel_scale_ : ndarray (n_channels,), the (first) series' training statistics.
    series_mean_, series_scale_ : ndarray (n_series, n_channels + n_covariates), each series'.
    series_ids_, last_stamps_, step_ : a long frame's series, their last ``ds`` and time step
        (None for one series).
    covariates_, future_ : the covariate columns, and the positions among them of those known for
        the horizon.
    context_length_ : the steps of history read (``context_length='auto'`` resolved).
    last_context_ : ndarray ``(context_length_, n_channels + n_covariates)`` of one series, or
        ``(n_series, context_length_, ...)`` of a long frame: the end of the training rows.
    d_model_ : the network's width (``d_model='auto'``: :data:`AUTO_WIDTHS` by the number of
        series fitted on).
    dropout_ : the network's dropout rate (``dropout='auto'``: :data:`AUTO_DROPOUT` by the
        number of series fitted on).
    patch_len_ : the patch length used (``patch_len='auto'``: ``context_length_ // 6``, at most 16).
    patch_stride_ : the steps between two patches' starts (``patch_len_`` without overlap).
    blend_, anchor_ : the network's share in the forecast (1 without anchor or validation data), the
        anchor used (``'lear'`` with covariates: :mod:`.forecaster.covariate_anchor`).
    log_blend_ : the network's share for the series read on the log scale (``log_series_``),
        fitted on their validation windows apart from the others' (which ``blend_`` is then
        fitted on), or None where all series share ``blend_`` (none or every one on the log
        scale, or no validation windows).
    anchor_refit_ : whether the chosen anchor was fitted again on the validation rows too (where
        they continue the training rows).
    period_ : steps per season of the seasonal anchor (1: none; also when the training rows are
        fewer than two seasons).
    series_low_ : ndarray (n_series, n_channels), each fitted series' lowest value (its logarithm
        for a series in ``log_series_``), at or above
        which its forecasts and their quantiles are held (a series read at predict: its own
        rows' lowest); None where they are not (one series, or covariates).
        ``predict_components`` gives the network and the anchor unheld.
    log_series_ : ndarray (n_series,) of bool, the fitted series read on the log scale (their
        forecasts and quantiles ``exp()`` back; ``target_transform``), or None where none is.
    asinh_scale_ : the target's scale where it is read on LEAR's (``target_transform``:
        ``'asinh'``, or ``'auto'`` with covariates; :class:`.forecaster.scales.AsinhScale`, its
        ``centre`` and ``scale`` per target channel in the standardised units), or None.
    series_choice_ : ndarray (n_series,) of each fitted series' forecast, chosen on its last
        ``horizon`` rows (:mod:`.forecaster.choice`): 0 the blend, 1 the seasonal naive forecast
        (``period_`` steps), 2 the anchor alone, 3 the last value repeated (a series read at
        predict: chosen on its own rows; a batch of windows keeps the blend); None where
        ``series_low_`` is.
    interval_table_, interval_floor_, interval_source_ : the calibrated normalised errors.
    anchor_penalty_ : the LEAR-style anchor's ridge penalty (with covariates), else None.
    fit_plan_ : what the fit decided (:class:`.forecaster.plan.FitPlan`): the kind of fit, the
        covariates' roles, the scale chain, the anchor, the per-series choice.
    history_, best_round_, n_rounds_, round_steps_, n_steps_, max_steps_, interrupted_ : training
        record: a record of ``history_`` per validation round of ``round_steps_`` optimiser steps
        (its ``epoch``: passes over the training samples so far).
    """

    _network = ForecastingTransformer

    def __setstate__(self, state: dict) -> None:
        """A model saved by an earlier version loads as it was fitted (:mod:`.forecaster.saved`):
        one that set an option since removed to another value fails, naming it."""
        super().__setstate__(restore(state, type(self).__name__))

    def fit(self, y: Any, X: Any = None, y_val: Any = None) -> TSForecaster:
        """Train on ``y``: one series (array ``(T,)`` or ``(T, C)``, Series or DataFrame, oldest
        row first; :meth:`predict` continues a ``DatetimeIndex``), or a long frame with columns
        ``unique_id``, ``ds``, ``y`` (many series, one network; further numeric columns are
        covariates). ``X``: covariates, one row per row of ``y`` (an array or frame for one
        series; a long frame with ``unique_id``, ``ds`` for a long ``y``); those named in
        ``future_covariates`` are known for the horizon too, the others are read up to the
        forecast origin only. ``y_val``: a validation series for one series without covariates
        (e.g. the standard validation split, starting ``context_length`` rows before its first
        target); default the end of each series (``validation_fraction``)."""
        spec = self._validate()
        data = read_fit(y, X, y_val, type(self).__name__)
        plan = self.fit_plan_ = FitPlan.decide(self, data)
        data.covariates = plan.covariates
        chain, n, h, c = plan.scales, plan.context_length, self.horizon, data.n_targets
        self.log_series_ = chain.select(data.rows, c, n)
        if self.log_series_ is not None:  # those series on the series scale from here on
            data.rows = chain.to_series_scale(data.rows, c, self.log_series_, "y",
                                              labels("y", len(data.rows), data.form.ids))  # fmt: skip
            if data.valid is not None:  # one series
                data.valid = chain.to_series_scale(data.valid, c, self.log_series_, "y_val",
                                                   ["y_val"])  # fmt: skip
        self.context_length_, self.period_ = n, plan.period
        self.d_model_, self.dropout_ = plan.d_model, plan.dropout
        self.input_kind_, form = data.form.info, data.form
        self.series_ids_, self.last_stamps_, self.step_ = form.ids, form.last_stamps, form.step
        self.covariates_, self.future_ = list(plan.covariates.names), plan.covariates.future
        self.n_channels_ = self.n_features_in_ = c
        self.series_low_ = Floor.lows(data.targets) if chain.floor else None
        if data.valid is not None:
            series_io.check_length(data.rows[0], n, h, "y")
            series_io.check_length(data.valid, n, h, "y_val")
            train, valid = list(data.rows), [data.valid]
        else:
            if not plan.panel:
                series_io.check_length(data.rows[0], n, h, "y")
            train, valid = split(data.rows, self.validation_fraction, n, h)
        self.last_context_ = last_contexts(data.rows, n) if plan.panel else data.rows[0][-n:].copy()
        self.series_mean_, self.series_scale_ = Standardise.stats(train)
        self.channel_mean_, self.channel_scale_ = self.series_mean_[0, :c], self.series_scale_[0, :c]
        self._warn_flat(train, c)
        seed, rng = self._random()
        self.patch_len_, self.patch_stride_ = plan.patch_len, plan.patch_stride
        self.device_ = resolve_device(self.device)
        fit = self._windows(data, train, valid, plan)
        self.asinh_scale_ = chain.standardised if chain.standardised is not None and \
            chain.standardised.name == "asinh" else None  # fmt: skip
        self.network_params_ = plan.network_params(self, spec)
        sample = None if fit.valid is None else fit.valid.sample(MAX_ROUND_SAMPLES, rng)
        self._train(fit.train, sample, seed, rng)
        calibration.apply(self, calibration.calibrate(
            self.module_, self._predict_tensor, plan, fit, h, c, rng))  # fmt: skip
        # each series' forecast chosen on its last horizon (the network did not train on those
        # rows, its validation tail)
        self.series_choice_ = backtest_choice(self, data.targets, self.log_series_) \
            if plan.choice else None  # fmt: skip
        return self

    def _windows(self, data: Any, train: list, valid: list, plan: FitPlan) -> FitWindows:
        """The training and validation windows of the series standardised on their training
        rows (and on the standardised scale, fitted on those), what calibration reads of them."""
        n, h, c, chain = plan.context_length, self.horizon, data.n_targets, plan.scales
        scale = list(zip(self.series_mean_, self.series_scale_, strict=True))
        rows = [(r - m) / s for r, (m, s) in zip(data.rows, scale, strict=False)]
        scaled = [(r - m) / s for r, (m, s) in zip(train, scale, strict=False)]
        valid = [None if v is None else (v - m) / s for v, (m, s) in zip(valid, scale, strict=False)]
        chain.fit_standardised(scaled, c)
        rows, scaled, valid = ([None if r is None else chain.to_standardised(r, c) for r in part]
                               for part in (rows, scaled, valid))  # fmt: skip
        independent = self._independent()
        train_windows, owner = windows(scaled, n, h, self.device_, independent, plan.covariates)
        valid_windows = valid_owner = None
        if any(v is not None for v in valid):
            valid_windows, valid_owner = windows(valid, n, h, self.device_, independent,
                                                 plan.covariates)  # fmt: skip
        fit = FitWindows(train_windows, valid_windows, rows)
        if plan.weighted:
            w = seasonal_weights(scaled, plan.period)
            fit.weights = (w[owner], None if valid_owner is None else w[valid_owner])
        if self.log_series_ is not None and valid_owner is not None and plan.choice:
            fit.valid_log = self.log_series_[valid_owner]
        return fit

    def _warn_flat(self, train: list[np.ndarray], c: int) -> None:
        flat = [name for j, name in enumerate(self.covariates_)
                if all(np.ptp(r[:, c + j]) == 0 for r in train)]  # fmt: skip
        if flat:
            warnings.warn(f"covariate(s) {flat} are constant over the training rows of every "
                          "series: they carry nothing to learn from and are kept as they are "
                          "(scaled by 1); drop them to silence this.", UserWarning, stacklevel=3)

    def _forecast(self, y: Any, X: Any = None, alpha: np.ndarray | None = None):
        """``(forecasts, data)``: ``(n, horizon, C)`` point forecasts in the series' units, or
        with ``alpha`` ``(n, horizon, C, len(alpha))`` quantiles, and the data read."""
        check_is_fitted(self, "module_")
        data = read_predict(self, y, X)
        out, contexts = forecast(self, data)
        if alpha is not None:  # around each series' chosen forecast or share
            out = intervals.quantiles(out, contexts, self.interval_table_, self.interval_floor_,
                                      alpha)  # fmt: skip
        return to_series_units(self, data, out), data

    def predict(self, y: Any = None, X: Any = None) -> Any:
        """Forecast the ``horizon`` steps after a context. ``y``: None, the end of every fitted
        series; one series (formats of :meth:`fit`, at least ``context_length`` rows, the last
        ones used); a long frame (``unique_id``, ``ds``, ``y`` ...: each series forecast from its
        own rows, seen in fit or not); or a batch ``(n_windows, length, n_channels)`` of
        contexts. ``X``: the covariates: for the fitted series or a long frame, a long frame of
        the future covariates' ``horizon`` rows after each series; for one series, its rows and
        the ``horizon`` after them (or, with ``y=None``, the ``horizon`` rows); for a batch,
        ``(n_windows, length [+ horizon], k)``. Returns the input's kind: ``(horizon,)``,
        ``(horizon, C)``, a Series/DataFrame whose index continues the input's, a long frame
        ``unique_id, ds, y``, or ``(n_windows, horizon, C)`` for a batch."""
        out, data = self._forecast(y, X)
        return data.form.format(out)

    def make_future_dataframe(self) -> pd.DataFrame:
        """The ``unique_id, ds`` rows of the ``horizon`` steps after each series of the fitted long
        frame (neuralforecast's name), ``(n_series * horizon, 2)``: the frame to fill with the
        future covariates that ``predict(X=...)`` reads (e.g. :func:`tsattn.io.add_calendar`)."""
        check_is_fitted(self, "module_")
        if not self.fit_plan_.panel:
            raise ValueError("make_future_dataframe needs a model fitted on a long frame "
                             "(unique_id, ds, y); for one series the horizon's rows are the "
                             f"{self.horizon} rows after its end.")
        empty = np.zeros((len(self.series_ids_), self.horizon, 0))
        return long_output(self.series_ids_, self.last_stamps_, self.step_, empty, [])

    def predict_components(self, y: Any = None, X: Any = None) -> dict[str, Any]:
        """What the forecast is made of: ``{"forecast": ..., "network": ..., "anchor": ...}``, the
        forecast of :meth:`predict`, the network's alone and the anchor's alone (None without an
        anchor), each of :meth:`predict`'s kind; ``forecast = blend_ * network + (1 - blend_) *
        anchor`` (of their logarithms, ``exp()`` back, for a series on the log scale,
        ``log_series_``, with ``log_blend_`` for ``blend_`` where it is set; for a long frame without covariates, where ``series_choice_`` gives a series the
        seasonal naive forecast, the last value or the anchor's, that one, and held at or above
        each series' lowest value), the same numbers as :meth:`predict`'s (the same batches, on
        the fit's threads).
        ``y`` and ``X`` as in :meth:`predict`."""
        check_is_fitted(self, "module_")
        data = read_predict(self, y, X)
        return {name: None if part is None else data.form.format(part)
                for name, part in zip(("forecast", "network", "anchor"), components(self, data),
                                      strict=True)}  # fmt: skip

    def predict_quantiles(self, y: Any = None, alpha: Any = (0.1, 0.5, 0.9), X: Any = None) -> Any:
        """Quantiles at levels ``alpha`` (calibrated on the validation errors): arrays with a last
        axis over ``alpha``; for pandas input a DataFrame with columns ``(column, alpha)`` on the
        continued index; for a long frame a long frame with a column per level. ``y`` and ``X``
        as in :meth:`predict`."""
        alpha = intervals.check_levels(alpha)
        out, data = self._forecast(y, X, alpha)
        return data.form.format_quantiles(out, alpha)

    def predict_interval(self, y: Any = None, coverage: float = 0.9, X: Any = None
                         ) -> tuple[Any, Any]:  # fmt: skip
        """``(lower, upper)``: the bounds of the central ``coverage`` interval (quantiles
        ``(1 -/+ coverage) / 2``), each of :meth:`predict`'s kind. The point forecast lies
        between them but is not their midpoint or the median: it is the blend of network and
        anchor, the intervals the errors' own quantiles around it."""
        if not 0 < coverage < 1:
            raise ValueError(f"coverage must be strictly between 0 and 1; got {coverage}.")
        out, data = self._forecast(y, X, np.array([(1 - coverage) / 2, (1 + coverage) / 2]))
        return tuple(data.form.format(out[..., k]) for k in (0, 1))

    def score(self, y: Any, X: Any = None) -> float:
        """*Negative* MSE (higher is better, as scikit-learn's model selection expects), in one
        of two conventions. scikit-learn's, on windows: ``score(contexts (n, L, C), targets (n,
        horizon, C))``. sktime's, on what follows the fitted series: ``score(y, X=None)`` with
        ``y`` the rows after the end of fit (one series' next rows, or a long frame of each
        series' next rows), ``X`` the future covariates as :meth:`predict` takes them; the first
        ``min(horizon, len(y))`` steps are scored."""
        if getattr(y, "ndim", np.ndim(y)) == 3:
            return -self.mse(y, X)
        check_is_fitted(self, "module_")
        truth = read_continuation(y)
        predicted, data = self._forecast(None, X)
        if isinstance(truth, pd.DataFrame):  # a long frame of each series' next rows
            merged = data.form.format(predicted).merge(truth, on=[ID, TIME])
            if merged.empty:
                raise ValueError("y shares no (unique_id, ds) row with the forecast of the next "
                                 f"{self.horizon} steps after each fitted series.")
            return -float(np.mean((merged[TARGET] - merged["truth"]) ** 2))
        steps = min(self.horizon, len(truth))
        return -float(np.mean((predicted[0, :steps] - truth[:steps]) ** 2))
