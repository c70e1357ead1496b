"""``TSForecaster``: multi-step forecasting of one series or many, with covariates, by a transformer.

Instance-normalised context windows, patch tokens, the chosen attention and a linear or Fourier
(002, Algorithms 3-4) head, blended with a closed-form linear forecaster (:mod:`._anchor`);
intervals from the validation errors (:mod:`._intervals`); windows cut on the fly under a budget
of optimiser steps (:class:`tsattn.training.WindowData`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from tsattn.attention import AttentionSpec
from tsattn.estimators import persistence
from tsattn.estimators._forecast_fit import PanelForecasting
from tsattn.estimators._forecaster_params import (
    LOSSES,
    REMOVED,
    REMOVED_ATTRIBUTES,
    REMOVED_NETWORK,
    ForecasterParams,
    auto_context,
    series_context,
)
from tsattn.estimators._windows import WindowScores
from tsattn.estimators.params import declare
from tsattn.io import series as series_io
from tsattn.nn.forecasting import ForecastingTransformer, check_combination, get_head, get_view
from tsattn.training import Budget

__all__ = ["TSForecaster"]

#: ``max_steps='auto'``: optimiser steps whatever the data's size (the best round is kept, so a
#: small series is not overfitted by them; 300 steps left ILI 16-26% worse on validation).
AUTO_STEPS = 3000
#: Validation rounds per fit (each ``round_steps_`` optimiser steps).
ROUNDS = 20
#: ``d_model='auto'``: ``(width, fewest series)`` from the widest down, the first whose fewest
#: series the fit has. A panel of 100 series or more gets 64: on M4 Hourly (414 series) and Weekly
#: (359) validation, 3 seeds, 64 lowered sMAPE 0.7% and 4.1% and MASE 3.8% and 3.3% against 32;
#: 128 lowered them more on Hourly but took about 1.8 times 64's fit (about 5 minutes on 2 cores, past
#: the 3 minutes issue 51 allows M4 Hourly). Fewer series keep 32: on 40 series 128 won on Weekly
#: and lost on Hourly, and on one series (the long-horizon sets) wider nets were within 2% either
#: way and slower (docs/results/panels/README.md, "A wider network for many series").
AUTO_WIDTHS = ((64, 100), (32, 1))
#: ``dropout='auto'``: ``(rate, fewest series)``, the first whose fewest series the fit has, by
#: the same count as :data:`AUTO_WIDTHS`. A panel of 100 series or more trains without dropout:
#: on M4 Hourly and Weekly validation, two origins, 3 seeds, OWA 0.977 and 0.988 of 0.2's (the
#: network alone 0.969 and 0.986), the fit about a quarter faster (docs/results/panels/README.md,
#: "No dropout for many series"). Fewer series keep 0.2, chosen on the long-horizon sets
#: (docs/results/forecast_defaults/, ``drop2``).
AUTO_DROPOUT = ((0.0, 100), (0.2, 1))


def _covariate_network_params(old: dict) -> dict:
    """``network_params_`` of a covariate network saved before issue 76 (its own class, patch
    tokens and the linear head; before the temporal decoder, without it) as the one network's."""
    old = dict(old)
    covariates = dict(n_covariates=old.pop("n_covariates"), future=list(old.pop("future")),
                      decoder=old.pop("decoder", False))  # fmt: skip
    return dict(n_channels=1, head="linear", head_params={}, channel_independent=True,
                tokens="patch", anchor_period=1, patch_stride=None, covariates=covariates, **old)


@declare
class TSForecaster(PanelForecasting, WindowScores, ForecasterParams):
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
        anchor used (``'lear'`` with covariates: :mod:`._covariate_anchor`).
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
        ``'asinh'``, or ``'auto'`` with covariates; :class:`._asinh_scale.AsinhScale`, its
        ``centre`` and ``scale`` per target channel in the standardised units), or None.
    series_choice_ : ndarray (n_series,) of each fitted series' forecast, chosen on its last
        ``horizon`` rows (:mod:`._series_choice`): 0 the blend, 1 the seasonal naive forecast
        (``period_`` steps), 2 the anchor alone, 3 the last value repeated (a series read at
        predict: chosen on its own rows; a batch of windows keeps the blend); None where
        ``series_low_`` is.
    interval_table_, interval_floor_, interval_source_ : the calibrated normalised errors.
    history_, best_round_, n_rounds_, round_steps_, n_steps_, max_steps_, interrupted_ : training
        record: a record of ``history_`` per validation round of ``round_steps_`` optimiser steps
        (its ``epoch``: passes over the training samples so far).
    """

    _network = ForecastingTransformer

    def __setstate__(self, state: dict) -> None:
        """A model saved before issue 50 loads when it left the removed options at the values
        whose behaviour was kept (:data:`REMOVED`), and fails naming them otherwise."""
        name = type(self).__name__
        persistence.drop_removed(state, REMOVED, name)
        if isinstance(state.get("network_params_"), dict):
            params = state["network_params_"] = dict(state["network_params_"])
            persistence.drop_removed(params, REMOVED_NETWORK, name)
            if "head_params" not in params and "head" in params:  # format 1: n_harm was flat
                n_harm = params.pop("n_harm", None)
                params["head_params"] = {"n_harm": n_harm} if params["head"] == "fourier" else {}
            if "n_covariates" in params:  # the covariate network before issue 76 made it one
                params = state["network_params_"] = _covariate_network_params(params)
        for attribute in REMOVED_ATTRIBUTES:
            state.pop(attribute, None)
        state.setdefault("future_covariates", None)
        state.setdefault("target_transform", None)  # saved before the log scale: as then
        if "_module_state" in state:  # fitted before forecasts were held or chosen: as then
            state.setdefault("series_low_", None)
            state.setdefault("series_choice_", None)
            state.setdefault("log_series_", None)
            state.setdefault("log_blend_", None)
            state.setdefault("asinh_scale_", None)  # before LEAR's scale: the own one
        if isinstance(state.get("network_params_"), dict) and "context_length_" not in state:
            state["context_length_"] = int(state["network_params_"]["context_length"])
        if "channel_mean_" in state and "series_mean_" not in state:  # one series, no covariates
            state.update(series_mean_=np.asarray(state["channel_mean_"])[None],
                         series_scale_=np.asarray(state["channel_scale_"])[None], covariates_=[],
                         future_=(), series_ids_=None, last_stamps_=None, step_=None)  # fmt: skip
        super().__setstate__(state)

    def _loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return LOSSES[self.loss](output, target)

    @staticmethod
    def _score_fn(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return -torch.nn.functional.mse_loss(output, target)

    def _validate(self) -> AttentionSpec:
        spec = super()._validate()
        if self.context_length != "auto":  # 'auto' is checked once the data gives it
            self._check_combination(int(self.context_length))
        return spec

    def _check_combination(self, context_length: int) -> None:
        check_combination(self.head, self.tokens, context_length=context_length,
                          patch_len=self.patch_len, patch_stride=self.patch_stride,
                          channel_independent=self.channel_independent)  # fmt: skip

    def _resolve_context(self, data: Any) -> int:
        """``context_length_`` for a fit on ``data`` (:class:`._panel.FitInput`):
        ``context_length``, or the rule of ``'auto'`` (:func:`._forecaster_params.auto_context`
        for a long frame of two series or more, :data:`._forecaster_params.SERIES_CONTEXT` for
        one series in any form)."""
        context = series_context(self)
        if self.context_length == "auto" and data.ids is not None and len(data.rows) > 1:
            season = self._season(self._time_info(data))
            context = auto_context([len(r) for r in data.rows], self.horizon, season)
        if self.context_length == "auto":  # an explicit one was checked by _validate
            self._check_combination(context)
        return context

    def _auto_steps(self, n_train: int) -> int:
        return AUTO_STEPS

    def _rule(self, name: str) -> tuple | None:
        """The ``(value, fewest series)`` table of parameter ``name`` set to ``'auto'``
        (:data:`AUTO_WIDTHS`, :data:`AUTO_DROPOUT`), or None where it is given."""
        return {"d_model": AUTO_WIDTHS, "dropout": AUTO_DROPOUT}[name] if getattr(
            self, name) == "auto" else None  # fmt: skip

    def _by_series(self, name: str, n_series: int) -> Any:
        """Parameter ``name`` for a fit on ``n_series`` series: its value, or its rule's."""
        rule = self._rule(name)
        if rule is None:
            return getattr(self, name)
        return next(value for value, fewest in rule if n_series >= fewest)

    def _widths(self) -> tuple[int, ...]:
        rule = self._rule("d_model")
        return super()._widths() if rule is None else tuple(width for width, _ in rule)

    def _width(self) -> int:
        return self.d_model_

    def _dropouts(self) -> tuple[float, ...]:
        rule = self._rule("dropout")
        return super()._dropouts() if rule is None else tuple(rate for rate, _ in rule)

    def _dropout(self) -> float:
        return self.dropout_

    def _resolve_width(self, n_series: int) -> int:
        """``d_model_`` for a fit on ``n_series`` series: ``d_model``, or the rule of 'auto'."""
        return int(self._by_series("d_model", n_series))

    def _resolve_dropout(self, n_series: int) -> float:
        """``dropout_`` for a fit on ``n_series`` series: ``dropout``, or the rule of 'auto'."""
        return float(self._by_series("dropout", n_series))

    def _batch(self, n_train: int) -> int:
        """``batch_size`` univariate series: whole windows of every channel for variate tokens."""
        size = super()._batch(n_train)
        return max(1, size // self.n_channels_) if get_view(self.tokens).by_channel else size

    def _budget(self, n_train: int) -> Budget:
        """The step budget cut into ``ROUNDS`` validation rounds of ``round_steps`` steps."""
        budget = super()._budget(n_train)
        steps = budget.steps
        if steps is None:
            steps = budget.rounds * -(-n_train // self.batch_size_)
        round_steps = max(1, -(-steps // ROUNDS))
        return Budget(-(-steps // round_steps), steps, round_steps)

    def _head_params(self) -> dict[str, Any]:
        """The head's hyperparameters that are parameters here, as the network takes them."""
        declared = get_head(self.head).hyperparameters
        return {hp.name: hp.check(getattr(self, hp.name)) for hp in declared
                if hp.name in self._parameter_constraints}  # fmt: skip

    def _network_params(self, spec: AttentionSpec) -> dict:
        """``network_params_``: with covariates a sample is one target channel packed with them."""
        covariates = None
        if self.covariates_:
            covariates = dict(n_covariates=len(self.covariates_), future=list(self.future_),
                              decoder=bool(self.future_))  # fmt: skip
        return dict(
            n_channels=1 if covariates else self.n_channels_,
            context_length=int(self.context_length_),
            horizon=int(self.horizon), head=self.head, head_params=self._head_params(),
            channel_independent=self._independent(), patch_len=self.patch_len_, tokens=self.tokens,
            anchor=self.anchor is not None, anchor_period=1 if covariates else self.period_,
            patch_stride=self.patch_stride_, covariates=covariates,
            **self._trunk_params(spec),
        )  # fmt: skip

    def _period(self, info: dict | None, n_train: int) -> int:
        """``period_``: the ``period`` parameter, ``'auto'`` read from the time index; 1 without a
        seasonal anchor or with fewer than two seasons of training rows."""
        period = self._season(info)
        if self.anchor not in ("auto", "cycle", "ncycle") or n_train < 2 * period:
            period = 1
        if self.anchor in ("cycle", "ncycle") and period == 1:  # never silently without a season
            raise ValueError(
                f"anchor={self.anchor!r} needs a season of at least 2 steps and two seasons of "
                f"training rows; got period={self.period!r} ({n_train} training rows). Pass "
                "period=<steps per season> (e.g. 24 for hourly data), or a pandas series with a "
                "regular DatetimeIndex and period='auto', or use anchor='auto'.")  # fmt: skip
        return period

    def _season(self, info: dict | None) -> int:
        """Steps per season: the ``period`` parameter, ``'auto'`` read from the time index (1
        without one)."""
        period = self.period
        if period == "auto":
            index = (info or {}).get("index")
            period = 1 if index is None else series_io.seasonal_period(index)
        return int(period or 1)

    def _independent(self) -> bool:
        """Whether a training sample is one channel of a window (patch tokens per channel)."""
        return bool(self.channel_independent) and not get_view(self.tokens).by_channel
