"""Fit time of the default estimators on random data of a given shape (``tsattn bench fit-time``).

Answers "how long will a default fit take on data shaped like mine?" without the data: ``n`` series
of ``channels`` x ``length`` standard-normal values with ``classes`` balanced labels (or a numeric
target), one default :class:`tsattn.TSClassifier` / :class:`tsattn.TSRegressor` fit per repeat.
The time depends on the shape only (the step budget and the tokens are fixed by it), not on the values.
"""

from __future__ import annotations

import os
import platform
import time
from typing import Any

import numpy as np

__all__ = ["time_default_fit"]


def time_default_fit(n: int, channels: int, length: int, classes: int = 2, repeats: int = 1,
                     task: str = "classification", **params: Any) -> dict[str, Any]:
    """Seconds per default fit on random data of shape ``(n, channels, length)``.

    Returns a record with the shape, the estimator's resolved budget (``n_steps``, ``n_tokens``),
    every repeat's seconds, the torch thread count and the machine's load average at the start.
    """
    import torch

    from tsattn import TSClassifier, TSRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, channels, length))
    y = np.arange(n) % classes if task == "classification" else rng.normal(size=n)
    cls = TSClassifier if task == "classification" else TSRegressor
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    seconds = []
    for r in range(repeats):
        est = cls(random_state=r, **params)
        t0 = time.perf_counter()
        est.fit(X, y)
        seconds.append(time.perf_counter() - t0)
    return {
        "task": task, "n": n, "channels": channels, "length": length, "classes": classes,
        "params": params, "n_steps": int(est.n_steps_), "n_tokens": int(est.n_tokens_),
        "seconds": seconds, "median_seconds": float(np.median(seconds)),
        "torch_threads": torch.get_num_threads(), "load_average_at_start": load,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
    }  # fmt: skip
