"""The orthogonal bases of ``TSForecaster(basis="ortho")``: OLinear's OrthoTrans (Yue et al.,
"OLinear: A Linear Model for Time Series Forecasting in Orthogonally Transformed Domain", 2025).

The network reads each (instance-normalised) context in the eigenbasis of the training series'
temporal correlation matrix ``R[i, j] = corr(x[t + i], x[t + j])`` over ``context_length`` lags,
where the coefficients are decorrelated, and forecasts the coefficients of the horizon's own
eigenbasis, mapped back to steps. OLinear estimates ``R`` from every lagged window of each channel
and averages over the channels; here each channel's autocorrelation function (over the training
rows, from its periodogram) gives ``R[i, j] = acf(|i - j|)``, the same matrix for a stationary
series up to the windows' edges, at ``O(T log T)`` per channel instead of ``O(T L^2)`` (Electricity's
321 channels at 720 lags stay cheap), and positive semi-definite by construction.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MIN_VARIANCE", "temporal_bases", "temporal_basis", "temporal_correlation"]

#: Channels whose training variance is below this (standardised units) carry no correlation and
#: are left out of the average (OLinear skips lag matrices with a diagonal below 1e-4).
MIN_VARIANCE = 1e-4


def _mean_acf(series: np.ndarray, length: int) -> np.ndarray | None:
    """``(length,)`` the autocorrelation at lags ``0 .. length - 1`` (biased estimator: sums over
    the overlapping rows divided by ``T``), averaged over the channels of ``series (T, C)`` whose
    variance is at least :data:`MIN_VARIANCE`; None when none is, or ``T < 2``."""
    x = np.asarray(series, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    n = x.shape[0]
    x = x - x.mean(axis=0)
    var = x.var(axis=0) if n else np.zeros(x.shape[1])
    keep = var >= MIN_VARIANCE
    if n < 2 or not keep.any():
        return None
    x = x[:, keep] / np.sqrt(var[keep])
    size = 1 << int(np.ceil(np.log2(2 * n)))  # zero-padded: no circular wrap-around
    spec = np.fft.rfft(x, n=size, axis=0)
    acov = np.fft.irfft(spec * spec.conj(), n=size, axis=0)[:length] / n  # (length', C)
    acf = np.zeros(length)
    lags = min(length, n)
    acf[:lags] = acov[:lags].mean(axis=1)
    return acf


def _toeplitz(acf: np.ndarray | None, length: int) -> np.ndarray:
    """``R[i, j] = acf(|i - j|)`` over ``length`` lags; the identity for ``acf`` None."""
    if acf is None:
        return np.eye(length)
    lag = np.arange(length)
    return acf[np.abs(lag[:, None] - lag[None, :])]


def temporal_correlation(series: np.ndarray, length: int) -> np.ndarray:
    """``(length, length)`` Toeplitz correlation matrix of lags ``0 .. length - 1``: each channel's
    autocorrelation (biased estimator, which keeps the matrix positive semi-definite), averaged
    over the channels of ``series (T, C)`` whose variance is at least :data:`MIN_VARIANCE`.
    Identity when none is, or ``T < 2``."""
    return _toeplitz(_mean_acf(series, length), length)


def _eigenbasis(correlation: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh(correlation)
    order = np.argsort(values, kind="stable")[::-1]
    return np.ascontiguousarray(vectors[:, order].T)


def temporal_basis(series: np.ndarray, length: int) -> np.ndarray:
    """``(length, length)`` orthogonal matrix whose rows are the eigenvectors of
    :func:`temporal_correlation`, the largest eigenvalue first (OLinear's ``Q``): the coefficients
    of a window ``w (length,)`` are ``Q @ w`` and ``Q.T @ coefficients`` gives it back."""
    return _eigenbasis(temporal_correlation(series, length))


def temporal_bases(series: np.ndarray, *lengths: int) -> list[np.ndarray]:
    """:func:`temporal_basis` for each of ``lengths`` (the context's and the horizon's), from one
    autocorrelation of ``series`` up to the longest."""
    acf = _mean_acf(series, max(lengths))
    return [_eigenbasis(_toeplitz(None if acf is None else acf[:k], k)) for k in lengths]
