"""A default fit timed by phase (:func:`fit_phases`, for ``tsattn profile fit``,
:mod:`tsattn.analysis.fit_profile`): set-up, training steps, validation rounds, epoch callbacks,
the rest of the loop and what follows training.
"""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from typing import Any

from tsattn.analysis.fit_cases import (
    FitCase,
    fit_on,
    new_estimator,
    patched,
    random_fit_data,
    sync,
    torch_device,
)

__all__ = ["fit_phases"]


def fit_phases(case: FitCase, device: str = "cpu", **params: Any) -> dict[str, float]:
    """Seconds of one default fit by phase: ``set-up`` (data, network, optimiser, before the first
    step), ``training steps``, ``validation rounds``, ``epoch callbacks`` (best weights, NaN guard,
    schedule), ``after training`` (the forecaster's calibration), and ``fit`` in all; plus
    ``n_steps``."""
    from tsattn.estimators import base
    from tsattn.training import loop

    X, y = random_fit_data(case.task, case.n, case.channels, case.length, case.classes)
    est = new_estimator(case, device=device, **params)
    dev = torch_device(device)
    spent: dict[str, float] = defaultdict(float)
    marks: dict[str, float] = {}

    def timed(label):
        def wrap(fn):
            def inner(*a, **k):
                sync(dev)
                t0 = time.perf_counter()
                try:
                    return fn(*a, **k)
                finally:
                    sync(dev)
                    spent[label] += time.perf_counter() - t0
            return inner
        return wrap

    def train_wrap(fn):
        def inner(*a, **k):
            sync(dev)
            marks["train_start"] = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                sync(dev)
                marks["train_end"] = time.perf_counter()
        return inner

    callback_classes = _callback_classes()
    with contextlib.ExitStack() as stack:
        stack.enter_context(patched(base, "train", train_wrap))
        stack.enter_context(patched(loop, "_train_round", timed("training steps")))
        stack.enter_context(patched(loop, "predict", timed("validation rounds")))
        for cls in callback_classes:
            stack.enter_context(patched(cls, "on_epoch_end", timed("epoch callbacks")))
        t0 = time.perf_counter()
        fit_on(est, X, y)
        sync(dev)
        t1 = time.perf_counter()
    train_s = marks["train_end"] - marks["train_start"]
    return {
        "set-up": marks["train_start"] - t0,
        "training steps": spent["training steps"],
        "validation rounds": spent["validation rounds"],
        "epoch callbacks": spent["epoch callbacks"],
        "rest of the loop": train_s - sum(spent.values()),
        "after training": t1 - marks["train_end"],
        "fit": t1 - t0,
        "n_steps": int(est.n_steps_),
    }


def _callback_classes() -> list[type]:
    from tsattn.training import callbacks

    return [c for c in vars(callbacks).values()
            if isinstance(c, type) and issubclass(c, callbacks.Callback) and "on_epoch_end" in c.__dict__]  # fmt: skip
