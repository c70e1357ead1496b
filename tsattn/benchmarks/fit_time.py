"""Fit time of the default estimators on random data of a given shape (``tsattn bench fit-time``;
against an earlier commit on real datasets: :mod:`tsattn.benchmarks.fit_versions`).

Answers "how long will a default fit take on data shaped like mine?" without the data: ``n`` series
of ``channels`` x ``length`` standard-normal values with ``classes`` balanced labels (or a numeric
target), one default :class:`tsattn.TSClassifier` / :class:`tsattn.TSRegressor` fit per repeat.
The time depends on the shape only (the step budget and the tokens are fixed by it), not on the values.
``task="forecasting"``: one random-walk series of ``length`` rows and ``channels`` channels and a
default :class:`tsattn.TSForecaster` (Electricity is 26304 x 321, Traffic 17544 x 862); the record
adds the process's peak resident memory and the steps ``max_steps='auto'`` would run.
"""

from __future__ import annotations

import os
import platform
import resource
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

    from tsattn import TSClassifier, TSForecaster, TSRegressor
    from tsattn.analysis.fit_cases import random_fit_data

    X, y = random_fit_data(task, n, channels, length, classes)
    cls = {"forecasting": TSForecaster, "classification": TSClassifier}.get(task, TSRegressor)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    seconds = []
    for r in range(repeats):
        est = cls(random_state=r, **params)
        t0 = time.perf_counter()
        est.fit(X) if y is None else est.fit(X, y)
        seconds.append(time.perf_counter() - t0)
    extra = {"n_tokens": int(est.n_tokens_)} if task != "forecasting" else _forecast_extra(est, X)
    return {
        "task": task, "n": n, "channels": channels, "length": length, "classes": classes,
        "params": params, "n_steps": int(est.n_steps_), **extra,
        "seconds": seconds, "median_seconds": float(np.median(seconds)),
        "seconds_per_step": float(np.median(seconds)) / int(est.n_steps_),
        "torch_threads": torch.get_num_threads(), "load_average_at_start": load,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "device": _device_name(est.device_),
    }  # fmt: skip


def _device_name(device) -> str:
    import torch

    return torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"


def _forecast_extra(est, series: np.ndarray) -> dict[str, Any]:
    """The forecaster's training samples, the steps its fit plans on them, and the
    process's peak resident memory in MB (Linux reports kilobytes)."""
    from tsattn.estimators.forecaster.data import split

    (train,), _ = split([series], est.validation_fraction, est.context_length_, est.horizon)
    windows = len(train) - est.context_length_ - est.horizon + 1
    samples = windows * (series.shape[1] if est.channel_independent else 1)
    return {"train_samples": int(samples), "planned_steps": est.planned_steps(len(train), series.shape[1]),
            "patch_len": int(est.patch_len_),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
