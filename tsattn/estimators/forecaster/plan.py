"""What a fit does, decided once from the parameters and the data read: :class:`FitPlan`.

The forecaster serves four kinds of fit ({one series, a long frame of many} x {with covariates,
without}); each rule that depends on the kind is decided here, in :meth:`FitPlan.decide`, and
the fit, calibration and predict read the plan's fields (``panel``, ``covariates``, the scale
chain, the anchor, ``weighted``, ``refit``, ``choice``): no other place branches on the kind
(``tests/estimators/test_forecast_plan.py`` checks it).

The rules, each with its evidence where it was chosen:

- ``context_length='auto'``: :data:`~.params.SERIES_CONTEXT` for one series (a long frame of one
  too), :func:`~.params.auto_context` for a long frame of two series or more.
- the scale chain (:mod:`.scales`): ``target_transform='auto'`` is LEAR's asinh scale with
  covariates (EPF), the log scale for each spiky positive series of a long frame of two series or
  more without them (M4), else none; a long frame without covariates holds its forecasts at each
  series' lowest value (the floor).
- the anchor (:mod:`.anchors`): with covariates the LEAR-style ridge; otherwise the ridge family
  ``anchor`` names, whose windows a long frame weighs as MASE weighs its series (``weighted``) and
  which is fitted again on the validation rows too (``refit``).
- a long frame without covariates chooses each series' forecast on its last horizon
  (:mod:`.choice`).
- ``d_model='auto'``, ``dropout='auto'``: by the number of series (the estimator's tables).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tsattn.attention import AttentionSpec
from tsattn.estimators.forecaster.data import ForecastData, holdout
from tsattn.estimators.forecaster.params import auto_context, series_context
from tsattn.estimators.forecaster.roles import Covariates
from tsattn.estimators.forecaster.scales import LogScale, ScaleChain, get_scale
from tsattn.io import series as series_io
from tsattn.nn.forecasting import get_head

__all__ = ["FitPlan", "season"]


@dataclass(frozen=True)
class FitPlan:
    """A fit's decisions: ``panel`` (a long frame: one network over its series' windows),
    ``covariates`` (their names and roles), ``context_length``, ``n_series``, ``period`` (steps
    per season of the seasonal anchors, 1: none), the ``scales`` to read the series on, the
    ``anchor`` (None: the network alone; ``'lear'`` with covariates; else the ridge family's
    name), ``weighted`` (the ridges and the blend weigh each series as MASE does), ``refit``
    (the chosen ridge fitted again on the validation rows), ``choice`` (each series' forecast
    chosen on its last horizon), ``d_model``, ``dropout``, ``patch_len`` and ``patch_stride``, and
    from them the network (:meth:`network_params`)."""

    panel: bool
    covariates: Covariates
    context_length: int
    n_series: int
    n_targets: int
    period: int
    scales: ScaleChain
    anchor: str | None
    weighted: bool
    refit: bool
    choice: bool
    d_model: int
    dropout: float
    patch_len: int
    patch_stride: int

    @classmethod
    def decide(cls, est: Any, data: ForecastData) -> FitPlan:
        """The plan of ``est``'s fit on ``data`` (read by :func:`.frames.read_fit`); the covariates
        take their roles from ``est``'s role parameters."""
        names = Covariates.assign(list(data.covariates.names), est)
        panel, covariates = data.form.long, bool(len(names))
        n_series = len(data.rows)
        context = series_context(est)
        if est.context_length == "auto" and panel and n_series > 1:
            context = auto_context([len(r) for r in data.rows], est.horizon, season(est, data))
        if est.context_length == "auto":  # an explicit one was checked by _validate
            est._check_combination(context)
        scales = ScaleChain(floor=panel and not covariates)
        transform = est.target_transform
        if transform == "auto":
            if covariates:
                scales.standardised = get_scale("asinh")()
            elif panel and n_series > 1:
                scales.series = LogScale(spiky=True)
        elif transform is not None:
            scale = get_scale(transform)()
            setattr(scales, "standardised" if scale.position == "standardised" else "series", scale)
        lengths = [len(r) for r in data.rows]  # the training rows, after the validation rows
        if data.valid is None:
            lengths = [t - holdout(t, est.validation_fraction, est.horizon) for t in lengths]
        anchor = est.anchor
        if anchor is not None and covariates:
            anchor = "lear"
        patch_len = min(16, max(1, context // 6)) if est.patch_len == "auto" else int(est.patch_len)
        stride = (max(1, patch_len // 2) if est.patch_stride == "half"
                  else patch_len if est.patch_stride is None else int(est.patch_stride))  # fmt: skip
        return cls(panel=panel, covariates=names, context_length=context, n_series=n_series,
                   n_targets=data.n_targets, period=_period(est, data, int(np.median(lengths))),
                   scales=scales, anchor=anchor, weighted=panel and not covariates,
                   refit=not covariates, choice=panel and not covariates,
                   d_model=int(est._by_series("d_model", n_series)),
                   dropout=float(est._by_series("dropout", n_series)), patch_len=patch_len,
                   patch_stride=stride)  # fmt: skip

    def network_params(self, est: Any, spec: AttentionSpec) -> dict:
        """``network_params_``: ``est``'s options for this plan's data; with covariates a sample
        is one target channel packed with them (the network's covariate adapter)."""
        covariates = self.covariates.network()
        declared = get_head(est.head).hyperparameters
        head_params = {hp.name: hp.check(getattr(est, hp.name)) for hp in declared
                       if hp.name in est._parameter_constraints}  # fmt: skip
        return dict(
            n_channels=1 if covariates else self.n_targets, context_length=self.context_length,
            horizon=int(est.horizon), head=est.head, head_params=head_params,
            channel_independent=est._independent(), patch_len=self.patch_len, tokens=est.tokens,
            anchor=self.anchor is not None, anchor_period=1 if covariates else self.period,
            patch_stride=self.patch_stride, covariates=covariates, **est._trunk_params(spec),
        )  # fmt: skip


def season(est: Any, data: ForecastData) -> int:
    """Steps per season: the ``period`` parameter, ``'auto'`` read from the time index (a long
    frame's from its step; 1 without one)."""
    period = est.period
    if period == "auto":
        form = data.form
        index = (form.info or {}).get("index")
        if form.long and not isinstance(form.step, (int, np.integer)):
            index = pd.date_range("2000-01-03", periods=3, freq=form.step)
        period = 1 if index is None else series_io.seasonal_period(index)
    return int(period or 1)


def _period(est: Any, data: ForecastData, n_train: int) -> int:
    """``period_``: :func:`season`; 1 without a seasonal anchor or with fewer than two seasons of
    training rows (``n_train``, the median series')."""
    period = season(est, data)
    if est.anchor not in ("auto", "cycle", "ncycle") or n_train < 2 * period:
        period = 1
    if est.anchor in ("cycle", "ncycle") and period == 1:  # never silently without a season
        raise ValueError(
            f"anchor={est.anchor!r} needs a season of at least 2 steps and two seasons of "
            f"training rows; got period={est.period!r} ({n_train} training rows). Pass "
            "period=<steps per season> (e.g. 24 for hourly data), or a pandas series with a "
            "regular DatetimeIndex and period='auto', or use anchor='auto'.")  # fmt: skip
    return period
