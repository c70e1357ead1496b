"""The default fits that ``tsattn profile fit`` profiles (:mod:`tsattn.analysis.fit_profile`): each
estimator on random data of a real set's shape (:data:`CASES`), and what fitting one under a
measurement needs (the estimator, its fit, the device's clock, a method replaced for a block).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

__all__ = ["CASES", "FitCase", "fit_on", "new_estimator", "patched", "random_fit_data", "sync",
           "torch_device"]


@dataclass(frozen=True)
class FitCase:
    """A default fit to profile: the estimator, and the shape of the random data it is fitted on."""

    estimator: str
    task: str
    n: int
    channels: int
    length: int
    classes: int = 2
    shape_of: str = ""
    params: tuple[tuple[str, Any], ...] = ()


CASES = {
    "classifier": FitCase("TSClassifier", "classification", 275, 9, 144, 25,
                          "ArticularyWordRecognition"),
    "regressor": FitCase("TSRegressor", "regression", 140, 1, 84, shape_of="Covid3Month"),
    "forecaster": FitCase("TSForecaster", "forecasting", 1, 7, 11520,
                          shape_of="ETTh1 train + validation rows, horizon 96"),
}  # fmt: skip


def random_fit_data(task: str, n: int, channels: int, length: int, classes: int = 2,
                    seed: int = 0) -> tuple[np.ndarray, np.ndarray | None]:
    """Standard-normal series ``(n, channels, length)`` with balanced labels (classification) or a
    normal target (regression); for ``"forecasting"`` one random walk ``(length, channels)``."""
    rng = np.random.default_rng(seed)
    if task == "forecasting":
        return np.cumsum(rng.normal(size=(length, channels)), axis=0), None
    X = rng.normal(size=(n, channels, length))
    return X, (np.arange(n) % classes if task == "classification" else rng.normal(size=n))


def new_estimator(case: FitCase, **params: Any):
    """The case's estimator with ``random_state=0``, the case's ``params`` and ``params`` (which win)."""
    import tsattn

    return getattr(tsattn, case.estimator)(random_state=0, **{**dict(case.params), **params})


def fit_on(est, X, y):
    """``est`` fitted on ``X`` (and ``y``; None: a forecaster's series alone)."""
    return est.fit(X) if y is None else est.fit(X, y)


def sync(device: torch.device) -> None:
    """Wait for the device's queued work (CUDA), so that a clock read after it counts it."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@contextlib.contextmanager
def patched(obj: Any, name: str, wrap) -> Iterator[None]:
    """``obj.name`` replaced by ``wrap(original)`` inside the block."""
    original = obj.__dict__[name] if isinstance(obj, type) else getattr(obj, name)
    setattr(obj, name, wrap(getattr(obj, name)))
    try:
        yield
    finally:
        setattr(obj, name, original)


def torch_device(device: str) -> torch.device:
    """The device a fit with ``device`` runs on (``"auto"``: CUDA where there is one)."""
    return torch.device("cuda" if device in ("cuda", "auto") and torch.cuda.is_available() else device)
