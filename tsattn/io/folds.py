"""The k-fold split of a collection's series, one for tuning and the benchmarks."""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["kfold"]


def kfold(y: np.ndarray, k: int, stratified: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(fit, held-out)`` index arrays of each of ``k`` folds of the series labelled ``y (n,)``:
    stratified by class for classification, shuffled with a fixed seed, so every model, seed and
    caller sees the same folds. A class smaller than ``k`` still splits (some folds lack it)."""
    from sklearn.model_selection import KFold, StratifiedKFold

    splitter = (StratifiedKFold if stratified else KFold)(k, shuffle=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # classes smaller than k: sklearn warns and still splits
        return list(splitter.split(np.zeros((len(y), 1)), y))
