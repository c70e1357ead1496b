"""Ridge regression by moments, the one solver both anchors use: ``X'X`` and ``X'Y`` summed over
chunks of rows (memory bounded whatever the number of windows), then one solve per penalty."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

__all__ = ["Moments", "moments", "solve"]

#: ``(X'X, X'Y)`` of some rows, a constant column last in ``X``.
Moments = tuple[np.ndarray, np.ndarray]


def moments(chunks: Iterable[np.ndarray], features: Callable[[np.ndarray], tuple]) -> Moments:
    """``(X'X, X'Y)`` summed over ``chunks`` of row indices; ``features(rows)`` gives the rows'
    ``(X, Y, w)``, ``X`` with its constant column last, ``w`` each row's weight in the squared
    errors (None: 1)."""
    xtx = xty = None
    for rows in chunks:
        x, y, w = features(rows)
        xw = x if w is None else x * w[:, None]
        xtx = xw.T @ x if xtx is None else xtx + xw.T @ x
        xty = xw.T @ y if xty is None else xty + xw.T @ y
    return xtx, xty


def solve(xtx: np.ndarray, xty: np.ndarray, penalty: float, total: float) -> np.ndarray:
    """The ridge coefficients ``(features + 1, targets)``: ``(X'X + D)^-1 X'Y`` with ``D`` the
    diagonal ``penalty * total`` on the weights and 0 on the constant (last), ``total`` the rows'
    count (or weight)."""
    reg = np.full(len(xtx), penalty * total)
    reg[-1] = 0.0  # the constant is not shrunk
    return np.linalg.solve(xtx + np.diag(reg), xty)
