"""Baselines of ``tsattn bench forecast`` that need no training on the scored split: the last value
(``naive_last``), the last season (``seasonal_naive``) and a per-channel statsmodels ``AutoReg``
(``ar``) fitted once on the train split, each test window forecast recursively from its context."""

from __future__ import annotations

import numpy as np

__all__ = ["BASELINES", "ar_forecast", "fit_ar", "seasonal_naive"]

BASELINES = ("naive_last", "seasonal_naive", "ar")


def seasonal_naive(contexts: np.ndarray, horizon: int, period: int) -> np.ndarray:
    """Repeat the last ``period`` steps of each context: ``(n, L, C)`` -> ``(n, horizon, C)``; a
    period longer than the context falls back to 1 (repeat the last value)."""
    length = contexts.shape[1]
    if period > length:
        period = 1
    idx = length - period + (np.arange(horizon) % period)
    return np.asarray(contexts[:, idx])


def fit_ar(train: np.ndarray, lags: int) -> np.ndarray:
    """Per-channel ``AutoReg(lags, trend="c")`` coefficients ``(C, 1 + lags)`` (constant first,
    then lag 1..lags) fitted on ``train (rows, C)`` with statsmodels."""
    try:
        from statsmodels.tsa.ar_model import AutoReg
    except ImportError as err:  # pragma: no cover - optional dependency
        raise ImportError("the 'ar' baseline needs statsmodels: pip install 'tsattn[stats]'") from err
    return np.stack(
        [AutoReg(train[:, c], lags=lags, trend="c").fit().params for c in range(train.shape[1])]
    )


def ar_forecast(params: np.ndarray, contexts: np.ndarray, horizon: int) -> np.ndarray:
    """Recursive AR forecast of every window at once: ``(n, L, C)`` -> ``(n, horizon, C)``."""
    lags = params.shape[1] - 1
    if contexts.shape[1] < lags:
        raise ValueError(f"ar_lags={lags} exceeds the context length {contexts.shape[1]}")
    history = np.array(contexts[:, -lags:], dtype=np.float64)  # oldest first
    coef = params[:, 1:][:, ::-1].T  # (lags, C), oldest lag first
    out = np.empty((contexts.shape[0], horizon, contexts.shape[2]))
    for step in range(horizon):
        nxt = params[:, 0] + np.einsum("nlc,lc->nc", history, coef)
        out[:, step] = nxt
        history = np.concatenate([history[:, 1:], nxt[:, None]], axis=1)
    return out
