"""Toy collections of series for the estimator tests."""

from __future__ import annotations

import numpy as np


def toy_series(n=24, c=2, length=12, seed=0):
    """``n`` series of ``c`` channels, labels "a"/"b"; "b" is shifted up in its second half."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, c, length))
    y = np.array(["a", "b"] * (n // 2))
    X[y == "b", :, length // 2 :] += 2.0
    return X, y
