"""Series forecast on the log scale (``target_transform``): fitted on ``log(y)``, their forecasts
and quantiles ``exp()`` back.

A series that idles at a floor between spikes, or swings over an order of magnitude within a
context, is poorly served by the standardised squared error the network trains on: a spike drags
the forecast far from the level the series spends its time at, and sMAPE (half of M4's OWA) is a
function of the log ratio of forecast and truth alone. On the log scale the network, the anchor,
the blend, the floor and the per-series choice all see such a series' relative changes, and
``exp()`` of a forecast is a median-like level, of a quantile the same quantile.

``'log'`` takes every series (their values must be positive). ``'auto'``, for a long frame of two
series or more without covariates, takes each positive series whose last ``context_length`` rows
span at least :data:`SPAN` times their lowest value around a level (the means of the context's
halves apart by at most :data:`LEVEL_SHIFT` of that span on the log scale), and leaves the others
on their own scale: chosen on M4 Hourly and Weekly validation, two origins, 3 seeds, where the log
scale for every series lowered Hourly's OWA by 5.0% and 2.8% and raised Weekly's by 0.5% and 2.7%,
the gain coming from Hourly's spiky quarter, and on M1 Yearly's validation origins, where series
that grew tenfold within their context were forecast far worse on it (exponential growth)
(``docs/results/panels/README.md``, "Spiky series on the log scale").
One series and covariate panels stay on their own scale, on which their defaults were chosen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LEVEL_SHIFT", "SPAN", "TRANSFORMS", "natural", "resolve", "series_mask", "to_log"]

#: ``target_transform``'s values besides None (``'asinh'``: :mod:`._asinh_scale`).
TRANSFORMS = ("auto", "log", "asinh")
#: ``'auto'`` reads a series on the log scale where its last context's highest value is at least
#: this many times its lowest (an order of magnitude) ...
SPAN = 10.0
#: ... around a level: the means of the context's two halves differ by at most this fraction of
#: that span, on the log scale (a series that grew over the context is left on its own scale,
#: where a trend is not extrapolated exponentially).
LEVEL_SHIFT = 0.2


def series_mask(option: str, rows: list[np.ndarray], n_targets: int, context_length: int
                ) -> np.ndarray:  # fmt: skip
    """``(n,)``: the series of ``rows`` (each ``(T_i, n_targets + k)``, unscaled) read on the log
    scale under ``option``: every one for ``'log'``; for ``'auto'`` each positive series whose
    last ``context_length`` target rows span at least :data:`SPAN` around a level
    (:data:`LEVEL_SHIFT`)."""
    if option == "log":
        return np.ones(len(rows), dtype=bool)
    out = np.zeros(len(rows), dtype=bool)
    for i, r in enumerate(rows):
        target = r[:, :n_targets]
        if len(target) < 2 or not np.all(target > 0):
            continue
        recent = np.log(target[-context_length:])
        span = recent.max(axis=0) - recent.min(axis=0)
        half = len(recent) // 2
        shift = np.abs(np.log(np.exp(recent[half:]).mean(axis=0) / np.exp(recent[:half]).mean(axis=0)))
        out[i] = bool(np.all(span >= np.log(SPAN)) and np.all(shift <= LEVEL_SHIFT * span))
    return out


def resolve(option: str | None, rows: list[np.ndarray], n_targets: int, ids: list | None,
            covariates: bool, context_length: int) -> np.ndarray | None:  # fmt: skip
    """``log_series_``: the fitted series (``rows``, each ``(T_i, n_targets + k)``; ``ids``: a
    long frame's series, None for one series) read on the log scale, or None where none is.
    (``'log'`` of a series with a value at or below zero fails in :func:`to_log`.)"""
    if option is None or option == "asinh":
        return None
    if option == "auto" and (ids is None or len(rows) < 2 or covariates):
        return None
    mask = series_mask(option, rows, n_targets, context_length)
    return mask if mask.any() else None  # 'log' of a non-positive value: to_log's error


def to_log(rows: Any, n_targets: int, what: str, mask: np.ndarray | None,
           ids: list | None = None) -> Any:  # fmt: skip
    """``rows`` (one series ``(T, C + k)``, windows ``(n, T, C + k)`` or a list of ``(T_i, C + k)``
    arrays) with the first ``n_targets`` columns of the series ``mask (n,)`` marks on the log
    scale (None: none, ``rows`` as given); a target value at or below zero there is an error
    naming the series (``ids``, else its position)."""
    if mask is None:
        return rows
    if isinstance(rows, np.ndarray) and rows.ndim == 2:
        return to_log([rows], n_targets, what, mask, ids)[0]
    out = []
    for i, r in enumerate(rows):
        if not mask[i]:
            out.append(r)
            continue
        target = r[..., :n_targets]
        if not np.all(target > 0):
            where = f"series {ids[i]!r}" if ids is not None else what if len(rows) == 1 else (
                f"window {i}" if isinstance(rows, np.ndarray) else f"series {i}")
            raise ValueError(
                f"{what} has a value at or below zero ({float(target.min()):g} in {where}), which "
                "has no logarithm: this forecaster reads it on the log scale "
                "(target_transform='log'). Pass positive values, or fit with "
                "target_transform='auto' (the log scale for spiky positive series only) or None.")
        r = np.array(r, dtype=np.float64, copy=True)
        r[..., :n_targets] = np.log(target)
        out.append(r)
    return np.stack(out) if isinstance(rows, np.ndarray) else out


def natural(out: np.ndarray, mask: np.ndarray | None, contexts: np.ndarray) -> np.ndarray:
    """Forecasts ``(n, H, C[, q])`` back to the series' units: ``exp()`` of the rows ``mask``
    marks (None: none), each held at or below its context's highest value times its span (the
    log of both from ``contexts (n, L, C)``, the targets as read on the log scale), so that a
    network extrapolating far on the log scale cannot return an overflowing forecast."""
    if mask is None or not mask.any():
        return out
    out = out.copy()
    top, bottom = contexts[mask].max(axis=1), contexts[mask].min(axis=1)  # (m, C)
    cap = (2 * top - bottom)[:, None, :]
    part = out[mask]
    out[mask] = np.exp(np.minimum(part, cap[..., None] if part.ndim == 4 else cap))
    return out
