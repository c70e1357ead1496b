"""A long frame's forecast chosen per series on the series' own last ``horizon`` rows.

One network and one blend serve every series of a panel, so a series that another simple forecast
suits better keeps the shared one: on M4 Hourly, very regular daily cycles whose amplitude the
network damps, and series the ridge anchor alone forecasts better than the blend. For each series
(a long frame without covariates), the fitted model forecasts the series' last ``horizon`` rows
from the rows before them (the *backtest*: for the fitted series these rows are their validation
tail, which the network did not train on); so do the seasonal naive forecast (the last ``period``
rows repeated), the last value repeated and the anchor alone. Where the lowest of these erred less
than :data:`SWITCH_RATIO` times the model's forecast (mean absolute error over the window), that
one forecasts the series; else the blend, as before. Chosen on M4 Hourly and Weekly validation, two
origins, 3 seeds (``docs/results/panels/README.md``, "A forecast chosen per series").
"""

from __future__ import annotations

import numpy as np

__all__ = ["ANCHOR", "BLEND", "LAST", "NAIVE", "SWITCH_RATIO", "apply", "choose", "seasonal_naive"]

#: A candidate replaces the blend for a series where its backtest error is below this times the
#: blend's: the lowest mean OWA ratio of 0.3 to 1.0 that was no worse on any (frequency, origin).
SWITCH_RATIO = 0.5
#: The forecasts a series can get (``series_choice_``): the blend, the seasonal naive, the anchor
#: alone, the last value repeated.
BLEND, NAIVE, ANCHOR, LAST = 0, 1, 2, 3


def seasonal_naive(contexts: np.ndarray, period: int, horizon: int) -> np.ndarray:
    """``contexts (n, L, C)`` -> ``(n, horizon, C)``: the last ``period`` rows (``period <= L``)
    repeated over the horizon."""
    return contexts[:, contexts.shape[1] - period + np.arange(horizon) % period]


def choose(truth: np.ndarray, blend: np.ndarray,
           candidates: list[tuple[int, np.ndarray, np.ndarray]]) -> np.ndarray:  # fmt: skip
    """Each series' forecast (:data:`BLEND`, :data:`NAIVE`, :data:`ANCHOR`, :data:`LAST`) from its
    backtest:
    ``truth`` and ``blend`` ``(n, horizon, C)``; ``candidates``: ``(code, forecast (n, horizon,
    C), usable (n,))``, ``usable`` marking the series the candidate can forecast. Returns ``(n,)``
    codes: the candidate of lowest mean absolute error where that is below :data:`SWITCH_RATIO`
    times the blend's, else :data:`BLEND`."""
    def error(pred):
        return np.mean(np.abs(truth - pred), axis=(1, 2))

    best = np.full(len(truth), np.inf)
    choice = np.full(len(truth), BLEND)
    for code, pred, usable in candidates:
        err = np.where(usable, error(pred), np.inf)
        better = err < best
        best, choice = np.where(better, err, best), np.where(better, code, choice)
    return np.where(best < SWITCH_RATIO * error(blend), choice, BLEND)


def apply(choice: np.ndarray, forecast: np.ndarray, anchor: np.ndarray | None,
          contexts: np.ndarray, period: int) -> np.ndarray:  # fmt: skip
    """``forecast (n, horizon, C)`` with each series' chosen forecast in its place: the seasonal
    naive one of ``contexts (n, L, C)`` where ``choice`` is :data:`NAIVE`, its last value where
    :data:`LAST`, ``anchor``'s rows where :data:`ANCHOR` (all in the same units)."""
    out = forecast.copy()
    for code, steps in ((NAIVE, period), (LAST, 1)):
        rows = choice == code
        if rows.any():
            out[rows] = seasonal_naive(contexts[rows], steps, forecast.shape[1])
    if anchor is not None:
        out[choice == ANCHOR] = anchor[choice == ANCHOR]
    return out
