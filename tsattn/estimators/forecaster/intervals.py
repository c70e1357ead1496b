"""Interval forecasts of ``TSForecaster`` from the errors on held-out windows (split conformal).

After training, the forecast errors on the validation windows (the training windows when there is
no validation data, which gives intervals that are too narrow), pooled with out-of-fold errors of
a level-free ridge over the whole training period (:func:`.anchors.crossfit_errors`: the validation
windows cover one stretch of time, often one regime, and few of them at long horizons), are divided
by each window's own spread, ``sqrt(var(context) + floor**2)`` over time, and their quantiles kept
per horizon step on a fine grid of levels (:data:`LEVELS`). The pooling was chosen on validation:
calibrated on the train split's tail alone, the 80% intervals covered 38-60% of ILI's validation
values at h48-h60 and 65-74% of Exchange's; pooled, 74-89% at every set and horizon
(``docs/results/forecast_defaults/intervals/``). A quantile forecast is the point forecast plus the context's
spread times the calibrated quantile of that step: intervals widen with the horizon and with the
recent volatility of the series. ``floor`` is a tenth of the median spread of the calibration
windows, so that a flat context does not give a zero-width interval.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LEVELS", "calibrate", "check_levels", "quantile_offsets", "quantiles", "spread"]

#: Levels at which the normalised errors' quantiles are kept; others are interpolated.
LEVELS = np.round(np.linspace(0.005, 0.995, 199), 3)


def check_levels(alpha) -> np.ndarray:
    """``alpha`` as a 1-D float array of levels strictly between 0 and 1, else ``ValueError``."""
    levels = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    if levels.ndim != 1 or not len(levels) or not ((levels > 0) & (levels < 1)).all():
        raise ValueError(f"alpha must be levels strictly between 0 and 1; got {levels.tolist()}.")
    return levels


def spread(contexts: np.ndarray, floor: float) -> np.ndarray:
    """``(n, L, C)`` -> ``(n, 1, C)``: each window's standard deviation over time, floored."""
    return np.sqrt(contexts.var(axis=1, ddof=1, keepdims=True) + floor**2)


def calibrate(contexts: np.ndarray, forecasts: np.ndarray, targets: np.ndarray,
              extra: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
              ) -> tuple[np.ndarray, float]:  # fmt: skip
    """Quantile table ``(len(LEVELS), horizon)`` of the normalised errors, and the spread floor.

    ``contexts (n, L, C)``, ``forecasts`` and ``targets`` ``(n, horizon, C)``, in the units the
    forecaster trains in; ``extra``: more ``(contexts, forecasts, targets)`` whose errors are
    pooled with these (normalised by the same floor).
    """
    floor = 0.1 * float(np.median(np.sqrt(contexts.var(axis=1, ddof=1))))
    floor = max(floor, 1e-8)
    pooled = []
    for c, f, t in [(contexts, forecasts, targets), *([extra] if extra is not None else [])]:
        errors = (t - f) / spread(c, floor)  # (n, horizon, C)
        pooled.append(errors.transpose(1, 0, 2).reshape(errors.shape[1], -1))  # (horizon, n * C)
    return np.quantile(np.concatenate(pooled, axis=1), LEVELS, axis=1), floor


def quantile_offsets(table: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``(len(alpha), horizon)`` normalised offsets at levels ``alpha``, interpolated in the table
    (levels outside [0.005, 0.995] take the nearest end)."""
    alpha = np.atleast_1d(np.asarray(alpha, dtype=np.float64))
    return np.stack([np.interp(alpha, LEVELS, table[:, k]) for k in range(table.shape[1])], axis=1)


def quantiles(forecast: np.ndarray, contexts: np.ndarray, table: np.ndarray, floor: float,
              alpha: np.ndarray) -> np.ndarray:  # fmt: skip
    """``forecast (n, horizon, C)`` and its ``contexts (n, L, C)`` -> quantiles
    ``(n, horizon, C, len(alpha))``, in the same units."""
    offsets = quantile_offsets(table, alpha)  # (k, horizon)
    width = spread(contexts, floor)[..., None]  # (n, 1, C, 1)
    return forecast[..., None] + width * offsets.T[None, :, None, :]
