"""Torch threads that follow the cores other processes leave free, during training."""

from __future__ import annotations

import time
from typing import Any

import torch

from tsattn._parallel import cores_left, cpu_sample
from tsattn.training.callbacks import Callback

__all__ = ["ThreadBudget"]


class ThreadBudget(Callback):
    """Every ``every`` seconds of training, sets torch's threads to the cores other processes left
    to this one since the last check (idle ones and those it used itself; :func:`~tsattn._parallel.
    cores_left`), between 1 and ``limit``: a neighbour that starts mid-fit takes its cores back
    from the fit, and the fit takes them again when it ends. The count in force when training
    ends stays (the estimator restores the caller's own afterwards); ``changes`` records
    ``(step, threads)`` of every change."""

    def __init__(self, limit: int, every: float = 2.0) -> None:
        self.limit, self.every = int(limit), float(every)
        self.changes: list[tuple[int, int]] = []

    def on_train_begin(self, estimator: Any) -> None:
        self.changes = []
        self._sample, self._time = cpu_sample(), time.monotonic()

    def on_step_end(self, estimator: Any, step: int) -> None:
        now = time.monotonic()
        if self._sample is None or now - self._time < self.every:
            return
        sample = cpu_sample()
        left = cores_left(self._sample, sample)
        self._sample, self._time = sample, now
        if left is None:
            return
        n = max(1, min(self.limit, int(left + 0.5)))
        if n != torch.get_num_threads():
            torch.set_num_threads(n)
            self.changes.append((step, n))
