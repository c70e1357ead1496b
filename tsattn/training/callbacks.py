"""Training callbacks: the public hook class and the four the estimators always train with.

The loop (:func:`tsattn.training.train`) builds one record per validation round (``round``,
``epoch``, ``step``, ``lr``, ``train_loss``, ``valid_loss``, ``valid_score``, ``best``, ``dur``), appends it to the history and
hands it to every callback in order. The estimators put :class:`EarlyStopping`, :class:`NaNGuard`,
:class:`LRScheduler` and :class:`ProgressBar` first, then the user's callbacks, which so see the
record complete.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import torch
from torch import nn

__all__ = [
    "Callback",
    "EarlyStopping",
    "LRScheduler",
    "LR_SCHEDULES",
    "NaNGuard",
    "ProgressBar",
    "TrainingDivergedError",
    "watched",
    "warmup_cosine",
]

LR_SCHEDULES = (None, "cosine", "plateau", "warmup_cosine")


class Callback:
    """Hooks called by the training loop; override the ones you need.

    ``on_epoch_end`` runs after every validation round (an epoch for the classifier and the
    regressor, ``round_steps_`` optimiser steps for the forecaster) and receives the estimator and
    the round's record (a dict with ``round``, ``epoch`` (passes over the training samples so far),
    ``step``, ``lr``, ``train_loss``, ``valid_loss`` (or None), ``valid_score`` (or None),
    ``best``, ``dur``); returning ``True`` stops training. ``on_train_end`` runs however training ends (also on Ctrl-C or an
    exception). Exceptions propagate (e.g. ``optuna.TrialPruned`` from a pruning callback).
    """

    def on_train_begin(self, estimator: Any) -> None:  # noqa: B027 - intentional no-op hook
        pass

    def on_step_end(self, estimator: Any, step: int) -> None:  # noqa: B027
        """After optimiser step ``step`` (counted from 1 over the whole fit)."""

    def on_epoch_end(self, estimator: Any, record: dict) -> bool | None:  # noqa: B027
        return None

    def on_train_end(self, estimator: Any, history: list[dict]) -> None:  # noqa: B027
        pass


class TrainingDivergedError(RuntimeError):
    """Training produced non-finite losses or weights and no finite model could be kept."""


class Diverged(Exception):
    """Raised by :class:`NaNGuard` inside an epoch: the loop stops training at once."""


def finite_state(module: nn.Module) -> bool:
    """Whether every floating tensor of ``module``'s state (weights, BatchNorm statistics) is finite."""
    tensors = [t.reshape(-1) for t in module.state_dict().values() if t.is_floating_point()]
    # one concatenation and one reduction: cheap enough to run after every epoch of a small set
    return not tensors or bool(torch.isfinite(torch.cat(tensors)).all())


class NaNGuard(Callback):
    """Stops training when a loss or a weight stops being finite, and never leaves a NaN model.

    Put it after :class:`EarlyStopping`, which never keeps a non-finite epoch and restores the best
    weights first when training ends. Then, after a divergence, those weights are kept with a
    warning if they are finite and ``verify()`` (e.g. "are the outputs on the training data
    finite?") holds; otherwise :class:`TrainingDivergedError` says what the likely cause is.
    ``hint`` names the estimator's settings worth changing (e.g. ``"lr=1e6"``).
    """

    def __init__(
        self, module: nn.Module, hint: str = "", verify: Callable[[], bool] | None = None,
        unit: str = "round",
    ) -> None:
        self.module = module
        self.hint = hint
        self.verify = verify
        self.unit = unit  # what a round is called: "epoch" where rounds are epochs
        self.diverged: str | None = None

    def on_train_begin(self, estimator: Any) -> None:
        self.diverged = None

    def on_epoch_end(self, estimator: Any, record: dict) -> None:
        losses = {k: record[k] for k in ("train_loss", "valid_loss") if record[k] is not None}
        bad = {k: v for k, v in losses.items() if not math.isfinite(v)}
        if bad or not finite_state(self.module):
            what = ", ".join(f"the {k.replace('_', ' ')} became {v}" for k, v in bad.items())
            self.diverged = f"at {self.unit} {record['round']}: {what or 'a weight became non-finite'}"
            raise Diverged(self.diverged)

    def on_train_end(self, estimator: Any, history: list[dict]) -> None:
        if self.diverged is None:
            return
        cause = (
            "The usual causes: a learning rate too large for this model"
            + (f" ({self.hint})" if self.hint else "")
            + ", or inputs or targets of extreme scale. Lower lr (e.g. tenfold) or rescale the data."
        )
        best = [r["round"] for r in history if r["best"]]
        if not best or not finite_state(self.module) or not (self.verify is None or self.verify()):
            raise TrainingDivergedError(
                f"training diverged {self.diverged}, and no earlier {self.unit} left a model with "
                f"finite outputs. {cause}"
            )
        warnings.warn(
            f"training diverged {self.diverged}; stopped and kept the weights of {self.unit} "
            f"{best[-1]}, whose outputs are finite. {cause}",
            RuntimeWarning,
            stacklevel=5,
        )


class EarlyStopping(Callback):
    """Keeps the best round's weights and stops after ``patience`` rounds without a new best
    (a round: an epoch, or the forecaster's ``round_steps_`` steps).

    A round with a non-finite loss or weight is never the best. The monitored quantity is the
    validation loss when there is one, else the training loss. With
    ``select_on_score`` and a validation score (higher is better, e.g. accuracy), the best round is
    the one with the highest validation score, ties broken by the lower validation loss. The best
    weights are restored when training ends, however it ends. ``patience=None`` never stops early.

    ``keep_last=True`` (for schedules that decay the rate to zero, with no validation data): every
    round with finite values is the new best and the final weights are kept as they are, with no
    per-round copy; after a divergence there is then no earlier state to fall back on, and
    :class:`NaNGuard` raises.
    """

    def __init__(self, module: nn.Module, patience: int | None, keep_last: bool = False) -> None:
        self.module = module
        self.patience = patience
        self.keep_last = keep_last

    def on_train_begin(self, estimator: Any) -> None:
        self.best_key = (math.inf, math.inf)
        self.best_state: dict | None = None
        self.since_best = 0

    def on_epoch_end(self, estimator: Any, record: dict) -> bool:
        monitored = record["valid_loss"] if record["valid_loss"] is not None else record["train_loss"]
        score = record["valid_score"]
        key = (-score if score is not None else 0.0, monitored)
        if self.keep_last:
            key = (0.0, -float(record["round"]))
        finite = math.isfinite(monitored) and finite_state(self.module)
        record["best"] = finite and key < self.best_key
        if record["best"]:
            self.best_key, self.since_best = key, 0
            if not self.keep_last:  # the final weights are the module's own: no copy to keep
                self.best_state = copy.deepcopy(self.module.state_dict())
        else:
            self.since_best += 1
        return self.patience is not None and self.since_best >= self.patience

    def on_train_end(self, estimator: Any, history: list[dict]) -> None:
        if self.best_state is not None:
            self.module.load_state_dict(self.best_state)
        self.module.eval()


class LRScheduler(Callback):
    """The learning-rate schedule, stepped once per round; records the rate in ``record["lr"]``.

    ``None`` keeps the rate; ``"cosine"`` anneals it to 0 over ``max_rounds``; ``"plateau"`` halves it
    after ``max(2, patience // 3)`` rounds without improvement of the monitored loss (``patience``
    None: 10); ``"warmup_cosine"``, stepped after every optimiser step, raises it linearly from
    ``1/W`` of ``lr`` to ``lr`` over the first ``W = warmup * total_steps`` steps and anneals it to 0
    at ``total_steps`` along a cosine.
    """

    def __init__(
        self,
        optimizer: torch.optim.Optimizer,
        schedule: str | None,
        max_rounds: int,
        patience: int | None,
        total_steps: int | None = None,
        warmup: float = 0.1,
    ) -> None:
        self.optimizer = optimizer
        self.per_step = schedule == "warmup_cosine"
        if schedule is None:
            self.scheduler = None
        elif schedule == "warmup_cosine":
            if not total_steps:
                raise ValueError("lr_schedule='warmup_cosine' needs the total number of steps.")
            self.scheduler = torch.optim.lr_scheduler.LambdaLR(
                optimizer, partial(warmup_cosine, total=int(total_steps), warmup=warmup)
            )
        elif schedule == "cosine":
            self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max_rounds)
        elif schedule == "plateau":
            wait = max(2, patience // 3) if patience else 10
            self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
                optimizer, factor=0.5, patience=wait
            )
        else:
            raise ValueError(f"lr_schedule must be one of {LR_SCHEDULES}, got {schedule!r}.")

    def on_step_end(self, estimator: Any, step: int) -> None:
        if self.per_step:
            self.scheduler.step()

    def on_epoch_end(self, estimator: Any, record: dict) -> None:
        if isinstance(self.scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
            valid = record["valid_loss"]
            self.scheduler.step(valid if valid is not None else record["train_loss"])
        elif self.scheduler is not None and not self.per_step:
            self.scheduler.step()
        record["lr"] = self.optimizer.param_groups[0]["lr"]


def warmup_cosine(step: int, total: int, warmup: float) -> float:
    """The rate's factor at ``step`` (0-based): linear warm-up over ``warmup * total`` steps, then a
    cosine from 1 to 0 at ``total``."""
    w = max(1, int(warmup * total))
    if step < w:
        return (step + 1) / w
    return 0.5 * (1.0 + math.cos(math.pi * min(1.0, (step - w) / max(1, total - w))))


def watched() -> bool:
    """Whether someone is watching this process's output: standard error is a terminal, or the
    code runs in a notebook's kernel (``verbose='auto'``)."""
    import sys

    if "ipykernel" in sys.modules:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


class ProgressBar(Callback):
    """A tqdm bar over rounds with the latest losses; closed when training ends. ``delay``: the
    seconds before it shows (a short fit shows none)."""

    def __init__(self, total: int, desc: str, unit: str = "round", delay: float = 0.0) -> None:
        self.total, self.desc, self.unit, self.delay, self.bar = total, desc, unit, delay, None

    def on_train_begin(self, estimator: Any) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=self.total, desc=self.desc, unit=self.unit, delay=self.delay)

    def on_epoch_end(self, estimator: Any, record: dict) -> None:
        self.bar.update(1)
        losses = {"train": f"{record['train_loss']:.4f}"}
        if record["valid_loss"] is not None:
            losses["valid"] = f"{record['valid_loss']:.4f}"
        self.bar.set_postfix(**losses)

    def on_train_end(self, estimator: Any, history: list[dict]) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
