"""Torch threads during training: as many as pay, within the cores other processes leave free."""

from __future__ import annotations

import time
from typing import Any

import torch

from tsattn._parallel import cores_left, cpu_sample
from tsattn.training.callbacks import Callback

__all__ = ["ThreadBudget"]


class ThreadBudget(Callback):
    """Keeps torch's threads between 1 and ``limit`` at the count that trains fastest now.

    * A trial: ``block`` steps on ``limit`` threads, ``block`` on one thread, twice each, then the
      count whose faster block was faster (``limit``, not the count training started with: a
      neighbour seen at the start may be gone, and a busy core shows in the block times). A small model can train faster on
      one thread than on two (its ops are too small to split), a large one slower.
    * Every ``every`` seconds, the cores other processes left to this one since the last check
      (idle ones and those it used itself, :func:`~tsattn._parallel.cores_left`) cap the count: a
      neighbour that starts mid-fit takes its core back at once.
    * A trial that chose one thread is run again after ``retrial`` seconds when two or more
      cores are free, since a neighbour may have slowed the other count during the first.

    The count in force when training ends stays (the estimator restores the caller's own after
    the fit); ``changes`` records ``(step, threads)`` of every change and ``trials`` the block
    times (seconds) of each trial.
    """

    def __init__(self, limit: int, every: float = 2.0, block: int = 8, retrial: float = 30.0) -> None:
        self.limit, self.every, self.block, self.retrial = int(limit), float(every), int(block), float(retrial)
        self.changes: list[tuple[int, int]] = []
        self.trials: list[dict[int, list[float]]] = []

    def on_train_begin(self, estimator: Any) -> None:
        self.changes, self.trials = [], []
        self._best = torch.get_num_threads()
        self._sample, self._checked = cpu_sample(), time.monotonic()
        self._start_trial(0, self.limit)

    def _start_trial(self, step: int, top: int) -> None:
        self._plan = [top, 1, top, 1] if top > 1 else []
        self._trial_at, self._steps, self._mark = time.monotonic(), 0, time.perf_counter()
        if self._plan:
            self.trials.append({})
            self._set(self._plan[0], step)

    def _set(self, n: int, step: int) -> None:
        if n != torch.get_num_threads():
            torch.set_num_threads(n)
            self.changes.append((step, n))

    def on_step_end(self, estimator: Any, step: int) -> None:
        if self._plan:
            self._steps += 1
            if self._steps < self.block:
                return
            now = time.perf_counter()
            self.trials[-1].setdefault(self._plan.pop(0), []).append(now - self._mark)
            self._steps, self._mark = 0, now
            if self._plan:
                self._set(self._plan[0], step)
                return
            self._best = min(self.trials[-1], key=lambda n: min(self.trials[-1][n]))
            self._set(self._best, step)
            return
        now = time.monotonic()
        if self._sample is None or now - self._checked < self.every:
            return
        sample = cpu_sample()
        left = cores_left(self._sample, sample)
        self._sample, self._checked = sample, now
        if left is None:
            return
        free = max(1, min(self.limit, int(left + 0.5)))
        if self._best == 1 and free > 1 and now - self._trial_at >= self.retrial:
            self._start_trial(step, free)
            return
        self._set(min(self._best, free), step)
