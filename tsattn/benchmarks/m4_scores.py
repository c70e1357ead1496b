"""The M4 competition's scores and statistical benchmarks (Makridakis, Spiliotis and Assimakopoulos,
IJF 2020), written from the rules of its evaluation script (``Mcompetitions/M4-methods``,
``Benchmarks and Evaluation.R``).

- sMAPE: the mean over series and horizon steps of ``200 |y - f| / (|y| + |f|)``.
- MASE: ``|y - f|`` divided by the series' in-sample mean absolute seasonal difference at lag ``m``
  (24 for Hourly), averaged over series and steps.
- OWA: ``(sMAPE / sMAPE_Naive2 + MASE / MASE_Naive2) / 2`` on those averages.
- Naive2: the naive forecast of the series seasonally adjusted by classical multiplicative
  decomposition (R's ``decompose``), re-seasonalised, when a 90% autocorrelation test at lag ``m``
  (R's ``acf`` with its default number of lags) says the series is seasonal; else Naive1.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mase_scale", "msis", "naive1", "naive2", "owa", "seasonal_indices", "seasonal_naive",
           "seasonality_test", "smape"]  # fmt: skip

#: the one-sided 90% critical value of the seasonality test
_TCRIT = 1.645


def smape(y: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Per-point sMAPE (percent) of forecasts ``f`` of ``y`` (same shapes, e.g. ``(horizon,)``).

    >>> float(smape(np.array([100.0]), np.array([50.0]))[0])  # 200 * 50 / 150
    66.66666666666667
    """
    y = np.asarray(y, dtype=float)
    f = np.asarray(f, dtype=float)
    return 200.0 * np.abs(y - f) / (np.abs(y) + np.abs(f))


def msis(y: np.ndarray, lower: np.ndarray, upper: np.ndarray, scale: np.ndarray | float,
         alpha: float = 0.05) -> np.ndarray:
    """Per-point scaled interval score of the M4 competition (its intervals' measure, at
    ``alpha = 0.05`` for 95% intervals): ``(upper - lower + 2/alpha (lower - y) [y < lower]
    + 2/alpha (y - upper) [y > upper]) / scale``; arrays of one shape, ``scale`` MASE's divisor.

    >>> float(msis(np.array([12.0]), np.array([8.0]), np.array([10.0]), 2.0)[0])  # (2 + 40 * 2) / 2
    41.0
    """
    y, lo, hi = (np.asarray(v, dtype=float) for v in (y, lower, upper))
    penalty = (2.0 / alpha) * (np.clip(lo - y, 0, None) + np.clip(y - hi, 0, None))
    return (hi - lo + penalty) / np.asarray(scale, dtype=float)


def mase_scale(insample: np.ndarray, m: int) -> float:
    """Mean absolute lag-``m`` difference of the ``(T,)`` in-sample series (T > m): MASE's divisor."""
    x = np.asarray(insample, dtype=float)
    if x.ndim != 1 or len(x) <= m:
        raise ValueError(f"MASE needs a 1-D in-sample series longer than m={m}; got shape {x.shape}")
    return float(np.mean(np.abs(x[m:] - x[:-m])))


def owa(smape_mean: float, mase_mean: float, smape_naive2: float, mase_naive2: float) -> float:
    """Overall weighted average of a method's mean sMAPE and MASE relative to Naive2's."""
    return 0.5 * (smape_mean / smape_naive2 + mase_mean / mase_naive2)


def _acf(x: np.ndarray, nlags: int) -> np.ndarray:
    """Sample autocorrelations at lags 1..nlags, mean removed, denominator n (as R's ``acf``)."""
    d = x - x.mean()
    denom = float(d @ d)
    return np.array([float(d[: len(d) - k] @ d[k:]) / denom for k in range(1, nlags + 1)])


def seasonality_test(x: np.ndarray, m: int) -> bool:
    """The M4 benchmarks' 90% test of seasonality at lag ``m`` on the ``(T,)`` series ``x``.

    Seasonal when ``|r_m| > 1.645 sqrt((1 + 2 sum_{k<m} r_k^2) / T)``; never for ``T < 3m``, nor
    when R's default number of lags, ``floor(10 log10 T)``, falls short of ``m`` (R then reads the
    missing lag as NA and the test as false).
    """
    x = np.asarray(x, dtype=float)
    n = len(x)
    if m <= 1 or n < 3 * m:
        return False
    nlags = min(int(np.floor(10 * np.log10(n))), n - 1)
    if nlags < m or np.ptp(x) == 0:
        return False
    r = _acf(x, nlags)
    limit = _TCRIT / np.sqrt(n) * np.sqrt(1.0 + 2.0 * np.sum(r[: m - 1] ** 2))
    return bool(abs(r[m - 1]) > limit)


def seasonal_indices(x: np.ndarray, m: int) -> np.ndarray:
    """The ``(m,)`` seasonal indices of classical multiplicative decomposition, position ``i`` for
    the steps ``t`` with ``t % m == i`` (``t`` counted from the series' first value).

    Trend: the centred moving average of order ``m`` (``2 x m`` for even ``m``); the indices are the
    per-position means of ``x / trend`` normalised to mean 1, as R's ``decompose``.
    """
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n < 2 * m:
        raise ValueError(f"classical decomposition needs at least two periods ({2 * m} values); got {n}")
    if m % 2 == 0:
        w = np.r_[0.5, np.ones(m - 1), 0.5] / m
    else:
        w = np.ones(m) / m
    half = len(w) // 2
    trend = np.full(n, np.nan)
    trend[half: n - half] = np.convolve(x, w[::-1], mode="valid")
    ratio = x / trend
    figure = np.array([np.nanmean(ratio[i::m]) for i in range(m)])
    return figure / figure.mean()


def naive1(insample: np.ndarray, h: int) -> np.ndarray:
    """The last value repeated ``h`` times."""
    return np.repeat(float(np.asarray(insample)[-1]), h)


def seasonal_naive(insample: np.ndarray, h: int, m: int) -> np.ndarray:
    """The last period of ``m`` values repeated over ``h`` steps."""
    last = np.asarray(insample, dtype=float)[-m:]
    return np.resize(last, h)


def naive2(insample: np.ndarray, h: int, m: int) -> np.ndarray:
    """Naive2: Naive1 of the seasonally adjusted series, times the indices of the next ``h`` steps
    (only when :func:`seasonality_test` says seasonal)."""
    x = np.asarray(insample, dtype=float)
    if not seasonality_test(x, m):
        return naive1(x, h)
    si = seasonal_indices(x, m)
    n = len(x)
    return x[-1] / si[(n - 1) % m] * si[(n + np.arange(h)) % m]
