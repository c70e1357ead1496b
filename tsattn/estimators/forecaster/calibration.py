"""After training: the anchor, the network's share in the blend and the interval table, fitted on
the validation windows (the training windows when there are none), and the anchor fitted again
on every row. The fit plan (:mod:`.plan`) says which anchor and whether each step applies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from tsattn.estimators.forecaster import anchors, intervals
from tsattn.estimators.forecaster.covariate_anchor import fit_covariate_anchor
from tsattn.estimators.forecaster.data import lay_out, seasonal_weights
from tsattn.estimators.forecaster.plan import FitPlan
from tsattn.training import TensorData, WindowData

__all__ = ["BLEND_WEIGHT_POWER", "MAX_VALID_SAMPLES", "Calibrated", "FitWindows", "calibrate"]

#: Validation samples (windows, or window-channel pairs) kept at most for the calibration after
#: training (anchor, blend, intervals); a fixed random subset above.
MAX_VALID_SAMPLES = 32_768
#: A long frame's ridge anchor weighs each series' squared errors by its seasonal weight
#: (:func:`.data.seasonal_weights`: as MASE weighs them); the blend and the choice of anchor by
#: that weight to this power. Chosen on M4 Hourly and Weekly validation, two origins, 3 seeds,
#: among 0 (every series alike), 0.5 and 1: OWA 0.960 of equal weights on the mean of the four, 1
#: leaving the forecast to the ridge (``docs/results/panels/``, "Series weighted as MASE weighs
#: them").
BLEND_WEIGHT_POWER = 0.5


@dataclass
class FitWindows:
    """A fit's scaled data as calibration reads it: the ``train`` and ``valid`` windows (None:
    no validation rows), every series' scaled ``rows`` (training and validation rows), the
    seasonal ``weights`` of the training and validation windows (None: not weighted) and
    ``valid_log`` (each validation window: its series is on the log scale; None: none is)."""

    train: WindowData
    valid: WindowData | None
    rows: list[np.ndarray | None]
    weights: tuple[np.ndarray, np.ndarray | None] | None = None
    valid_log: np.ndarray | None = None


@dataclass
class Calibrated:
    """What calibration fitted (the forecaster's attributes of the same names, less the ``_``)."""

    blend: float = 1.0
    anchor: str | None = None
    log_blend: float | None = None
    anchor_penalty: float | None = None
    anchor_refit: bool = False
    interval_table: np.ndarray | None = None
    interval_floor: float = 0.0
    interval_source: str = "train"


def calibrate(module: torch.nn.Module, predict: Callable[[TensorData], torch.Tensor],
              plan: FitPlan, fit: FitWindows, horizon: int, n_targets: int,
              rng: np.random.Generator) -> Calibrated:  # fmt: skip
    """Fit the plan's anchor, the blend and the interval table on the validation windows (the
    training windows without them, at most :data:`MAX_VALID_SAMPLES` values per step), set the
    anchor and blend in ``module``, and refit the anchor on every row where the plan says so.
    ``predict``: the network's outputs of a batch of samples (the estimator's)."""
    n, valid = plan.context_length, fit.valid
    out = Calibrated(interval_source="validation" if valid is not None else "train")
    source = fit.train if valid is None else valid
    if source.packed:  # a sample is a target channel packed with the covariates
        sample = source.sample(MAX_VALID_SAMPLES, rng)
        contexts = sample.x[:, :n, :1].double().cpu().numpy()
    else:
        windows = WindowData(source.x, n, horizon, source.starts.cpu().numpy(),
                             channel_independent=False)  # fmt: skip
        idx = windows.sample_indices(max(1, MAX_VALID_SAMPLES // n_targets), rng)
        sample = windows.materialise(idx)  # the weights below follow idx
        contexts = sample.x.double().cpu().numpy()
    targets = sample.y.double().cpu().numpy()
    forecast = predict(sample).double().numpy()
    series = fit.train.x[:, :n_targets].double().cpu().numpy()
    starts = fit.train.starts.cpu().numpy()
    validation = valid is not None
    if plan.anchor == "lear":
        weight, bias, out.anchor_penalty = fit_covariate_anchor(fit.train, valid, plan.covariates.future,
                                                                 rng)
        module.set_anchor(weight, bias)
        with torch.inference_mode():
            simple = module.anchor(sample.x).double().cpu().numpy()
        out.blend = anchors.fit_blend(forecast, simple, targets) if validation else 1.0
        forecast = out.blend * forecast + (1 - out.blend) * simple
        out.anchor = "lear"
        module.set_blend(out.blend)
    elif plan.anchor is not None:
        weights = None
        if fit.weights is not None:
            train_w, valid_w = fit.weights
            sample_w = (train_w if valid is None else valid_w)[idx]
            weights = (train_w, sample_w**BLEND_WEIGHT_POWER)
        network = forecast
        chosen, out.blend, forecast = anchors.choose(
            plan.anchor, series, starts, plan.period, contexts, targets, forecast, rng,
            validation, weights)  # fmt: skip
        log_rows = None if fit.valid_log is None else fit.valid_log[idx]
        if validation and log_rows is not None and log_rows.any() and not log_rows.all():
            # a share per scale: the series on the log scale apart from the others
            simple = chosen.forecast(contexts)
            out.blend, out.log_blend = anchors.fit_blends(
                network, simple, targets, None if weights is None else weights[1], log_rows)
            share = np.where(log_rows, out.log_blend, out.blend)[:, None, None]
            forecast = share * network + (1 - share) * simple
        out.anchor = chosen.name
        module.set_anchor(chosen.weight, chosen.bias, chosen.cycle)
        module.set_blend(out.blend)
    crossfit = anchors.crossfit_errors(series, starts, n, horizon, rng,
                                       max(1, MAX_VALID_SAMPLES // n_targets))  # fmt: skip
    out.interval_table, out.interval_floor = intervals.calibrate(contexts, forecast, targets,
                                                                 crossfit)  # fmt: skip
    if out.anchor is not None and validation and plan.refit:
        out.anchor_refit = _refit_anchor(module, plan, fit, out.anchor, horizon, rng)
    return out


def _refit_anchor(module: torch.nn.Module, plan: FitPlan, fit: FitWindows, name: str,
                  horizon: int, rng: np.random.Generator) -> bool:  # fmt: skip
    """The chosen anchor fitted again on every row, the validation rows included: for one
    series when the validation rows continue the training rows (their first ``context_length``
    rows are the training rows' last), for a long frame on each series' whole rows. Returns
    whether it was."""
    n, weights = plan.context_length, None
    if plan.panel:
        rows, starts, owner = lay_out(fit.rows, n, horizon)
        if plan.weighted:
            weights = seasonal_weights(fit.rows, plan.period)[owner]
    else:
        train, valid = fit.train.x, fit.valid.x
        if len(train) < n or not torch.equal(valid[:n], train[-n:]):
            return False
        rows = torch.cat([train, valid[n:]]).double().cpu().numpy()
        starts = np.arange(len(rows) - n - horizon + 1)
    refit = anchors.fit_anchor(name, rows, starts, n, horizon, plan.period, rng, weights)
    module.set_anchor(refit.weight, refit.bias, refit.cycle)
    return True


def apply(estimator: Any, calibrated: Calibrated) -> None:
    """Set ``calibrated``'s values as ``estimator``'s fitted attributes (``blend_``, ...)."""
    for name, value in vars(calibrated).items():
        setattr(estimator, f"{name}_", value)
