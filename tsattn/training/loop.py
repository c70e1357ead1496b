"""The one training loop and the one evaluation loop.

:func:`train` runs rounds of shuffled mini-batches (epochs, or a fixed number of optimiser steps)
and hands each round's record to the callbacks,
which do everything else (keeping the best weights, stopping early, the learning-rate schedule,
the progress bar, the guard against non-finite values). :func:`predict` runs a module over data in
batches in evaluation mode; validation during training and every estimator's ``predict`` use it.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from tsattn.training.callbacks import Callback, Diverged
from tsattn.training.data import TensorData
from tsattn.training.device import autocast
from tsattn.training.distributed import DataParallel
from tsattn.training.fixed import CACHE_BYTES, cache_fixed_features

__all__ = ["TrainResult", "train", "predict"]


@dataclass
class TrainResult:
    """How training went: the round records, the best round (-1: none), how it ended."""

    history: list[dict] = field(default_factory=list)
    best_round: int = -1
    interrupted: bool = False
    stopped_early: bool = False
    n_steps: int = 0


def _has_batchnorm(module: nn.Module) -> bool:
    return any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in module.modules())


@dataclass(frozen=True)
class Budget:
    """A fit's training bounds: at most ``rounds`` validation rounds and ``steps`` optimiser steps
    (None: the rounds alone); a round is an epoch, or ``round_steps`` optimiser steps."""

    rounds: int
    steps: int | None
    round_steps: int | None = None


class _Batches:
    """The training batches of each round: one shuffled pass over the ``n`` samples
    (``round_steps=None``), or ``round_steps`` batches cut from one stream of shuffled passes, so a
    step budget smaller than a pass still sees each sample at most once per pass."""

    def __init__(self, n: int, batch_size: int, rng: np.random.Generator,
                 round_steps: int | None) -> None:  # fmt: skip
        self.n, self.batch_size, self.rng, self.round_steps = n, batch_size, rng, round_steps
        self.stream = np.empty(0, dtype=np.int64)

    def next_round(self) -> list[np.ndarray]:
        size = self.batch_size
        if self.round_steps is None:
            perm = self.rng.permutation(self.n)
            return [perm[i : i + size] for i in range(0, self.n, size)]
        batches = []
        for _ in range(self.round_steps):
            while len(self.stream) < min(size, self.n):  # a new pass after the tail
                self.stream = np.concatenate([self.stream, self.rng.permutation(self.n)])
            batches.append(self.stream[:size])
            self.stream = self.stream[size:]
        return batches


def _train_round(module, loss_fn, data, optimizer, batches, precision, callbacks=(),
                 estimator=None, step=0, max_steps=None, transform=None,
                 cache=None, parallel=None, net=None) -> tuple[float, int]:
    """The optimiser steps of one round (up to ``max_steps`` steps in all); returns the mean loss
    and the step count so far. The loss is summed on the device and read once, at the end of the
    round, and the batch indices go to the device without waiting for it, so no step waits for the
    device (on a GPU the host queues the next steps meanwhile). ``cache``: the network's fixed
    features of every series of ``data`` (:func:`~tsattn.training.cache_fixed_features`),
    recomputed only for the series the augmentation changes. ``parallel``: this rank trains on its
    share of each batch (:meth:`~.distributed.DataParallel.shard`) through ``net`` (``module`` in
    DDP)."""
    module.train()
    net = module if net is None else net
    batchnorm = _has_batchnorm(module)
    # a batch of one gives BatchNorm no variance to normalise by
    smallest = 2 if batchnorm and len(data) > 1 else 1
    if parallel is not None:  # BatchNorm's statistics are the whole batch's
        smallest = max(smallest, parallel.min_batch())
    total, seen = None, 0
    for idx_np in batches:
        if len(idx_np) < smallest:
            continue
        weight = 1.0
        if parallel is not None:
            idx_np, weight = parallel.shard(idx_np)
        idx = torch.from_numpy(np.asarray(idx_np)).to(data.x.device, non_blocking=True)
        x, mask = data.batch(idx, rows=idx_np)
        fixed = None if cache is None else cache[idx]
        if transform is not None:
            x, fixed = _augment(module, transform, x, mask, fixed, data.x.shape[1])
        y = data.y[idx]
        with autocast(data.x.device, precision):
            output = (net(x, mask) if fixed is None else net(x, mask, fixed=fixed)).float()
        loss = loss_fn(output, y)
        optimizer.zero_grad(set_to_none=True)
        (loss if weight == 1.0 else loss * weight).backward()
        optimizer.step()
        step += 1
        for cb in callbacks:
            cb.on_step_end(estimator, step)
        weighted = loss.detach() * len(idx_np)
        total = weighted if total is None else total + weighted
        seen += len(idx_np)
        if max_steps is not None and step >= max_steps:
            break
    if parallel is not None:  # the whole batches' mean, the same on every rank
        total, seen = parallel.sum([0.0 if total is None else total, seen])
    return (0.0 if total is None else float(total)) / max(seen, 1), step


def _augment(module, transform, x, mask, fixed, length):
    """The augmented batch and the fixed features that still hold: the cached ones of the rows the
    transform left unchanged, those of the changed rows recomputed on the rows padded back to the
    cache's ``length`` (a transform without ``apply`` changes every row)."""
    if fixed is None or not hasattr(transform, "apply"):
        return transform(x, mask), None
    x, rows = transform.apply(x, mask)
    if rows is None:  # every row changed: the forward pass computes the features
        return x, None
    if len(rows):
        rows = rows.to(x.device, non_blocking=True)
        pad = length - x.shape[1]
        xs = nn.functional.pad(x[rows], (0, 0, 0, pad))
        ms = None if mask is None else mask[rows]
        if pad:  # the steps added are padding
            ms = torch.ones(len(rows), x.shape[1], dtype=torch.bool, device=x.device) if ms is None else ms
            ms = nn.functional.pad(ms, (0, pad))
        fixed = fixed.index_copy(0, rows, module.fixed_features(xs, ms))
    return x, fixed


def train(
    module: nn.Module,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    train_data: TensorData,
    valid_data: TensorData | None,
    *,
    optimizer: torch.optim.Optimizer,
    max_rounds: int,
    batch_size: int,
    rng: np.random.Generator,
    max_steps: int | None = None,
    round_steps: int | None = None,
    transform: Callable[[torch.Tensor, torch.Tensor | None], torch.Tensor] | None = None,
    callbacks: Sequence[Callback] = (),
    estimator: Any = None,
    precision: str = "float32",
    score_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
    cache_bytes: int = CACHE_BYTES,
    parallel: DataParallel | None = None,
) -> TrainResult:
    """Train ``module`` in place for up to ``max_rounds`` rounds and ``max_steps`` optimiser steps.

    A round is one pass over ``train_data`` in shuffled batches of ``batch_size`` (``rng``), an
    epoch, or with ``round_steps`` that many optimiser steps (batches cut from one stream of
    shuffled passes). After each round: the loss and (with ``score_fn``, higher is better) the score
    on ``valid_data``, then a record (``round``, ``epoch`` (passes over the training samples so
    far), ``step``, ``lr``, ``train_loss``, ``valid_loss``, ``valid_score``, ``best``, ``dur``)
    appended to the history and given to every callback's ``on_epoch_end`` in order
    (``on_step_end`` runs after every optimiser step; ``transform(x, mask)`` augments each training
    batch);
    training stops after ``max_rounds``, after ``max_steps`` steps (mid-round), when a callback
    returns True, or on Ctrl-C (``KeyboardInterrupt``: a warning, and the result says so).
    Every callback's ``on_train_end`` runs however training ends. ``precision``: see
    :func:`~tsattn.training.autocast`. A network with fixed features
    (:mod:`tsattn.training.fixed`) gets those of every training series computed once, when they
    take at most ``cache_bytes`` (0: computed in every step); a ``transform`` with an ``apply(x,
    mask) -> (x, rows)`` method (:class:`~tsattn.training.SliceAndScale`) says which rows it
    changed, and only theirs are recomputed.

    ``parallel`` (:func:`~tsattn.training.distributed.data_parallel`): train data-parallel across
    processes, each called with the same data and an ``rng`` in the same state; each rank trains
    on its share of every batch (``batch_size`` is the global batch) through
    DistributedDataParallel, BatchNorm normalises by the whole batch's statistics, gathered from
    every rank, and the round's losses and score are rank 0's on every rank
    (:mod:`tsattn.training.distributed`); a batch smaller than the rank count is skipped.
    """
    result = TrainResult()
    step = 0
    batches = _Batches(len(train_data), batch_size, rng, round_steps)
    cache = cache_fixed_features(module, train_data, cache_bytes) if cache_bytes else None
    net, stack = None, contextlib.ExitStack()
    if parallel is not None:
        if min(batch_size, len(train_data)) < parallel.min_batch():
            raise ValueError(
                f"batch_size={batch_size} over {len(train_data)} samples leaves some of the "
                f"{parallel.world_size} processes no share of a batch; batch_size is the global "
                "batch: raise it, or train on fewer processes."
            )
        parallel.check_same_data(len(train_data), train_data.x)
        net = stack.enter_context(parallel.training(module))
    for cb in callbacks:
        cb.on_train_begin(estimator)
    try:
        for round_ in range(1, max_rounds + 1):
            t0 = time.perf_counter()
            lr = optimizer.param_groups[0]["lr"]
            train_loss, step = _train_round(
                module, loss_fn, train_data, optimizer, batches.next_round(), precision,
                callbacks, estimator, step, max_steps, transform, cache, parallel, net,
            )
            valid_loss = valid_score = None
            if valid_data is not None:
                out = predict(module, valid_data, batch_size=batch_size, precision=precision)
                with torch.inference_mode():
                    valid_loss = float(loss_fn(out, valid_data.y))
                    valid_score = None if score_fn is None else float(score_fn(out, valid_data.y))
            if parallel is not None:  # every rank decides alike on rank 0's numbers
                train_loss, valid_loss, valid_score = parallel.broadcast(
                    [train_loss, valid_loss, valid_score])
            epoch = round_ if round_steps is None else step * batch_size / len(train_data)
            record = {"round": round_, "epoch": epoch, "step": step, "lr": lr,
                      "train_loss": train_loss, "valid_loss": valid_loss,
                      "valid_score": valid_score, "best": False,
                      "dur": time.perf_counter() - t0}  # fmt: skip
            result.history.append(record)
            stop = False
            for cb in callbacks:
                stop = bool(cb.on_epoch_end(estimator, record)) or stop
            if stop:
                result.stopped_early = True
                break
            if max_steps is not None and step >= max_steps:
                break
    except Diverged:
        result.stopped_early = True
    except KeyboardInterrupt:
        result.interrupted = True
        best = max((r["round"] for r in result.history if r["best"]), default=-1)
        unit = "epoch" if round_steps is None else "round"
        warnings.warn(
            f"fit interrupted after {len(result.history)} {unit}(s); keeping the best weights so "
            f"far ({unit} {best}). The model is fitted and usable.",
            UserWarning,
            stacklevel=4,
        )
    finally:
        stack.close()
        failures = []
        for cb in callbacks:
            try:
                cb.on_train_end(estimator, result.history)
            except Exception as err:  # every callback ends; the first failure is raised after
                failures.append(err)
        if failures:
            raise failures[0]
    result.best_round = max((r["round"] for r in result.history if r["best"]), default=-1)
    result.n_steps = step
    return result


def _pad_square(w: torch.Tensor, n: int) -> torch.Tensor:
    pad = n - w.shape[-1]
    return nn.functional.pad(w, (0, pad, 0, pad)) if pad else w


def predict(
    module: nn.Module,
    data: TensorData,
    *,
    batch_size: int,
    precision: str = "float32",
    need_weights: bool = False,
) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
    """Outputs of ``module`` for every row of ``data``, in eval mode, float32 on ``data``'s device.

    With ``need_weights``, also each layer's attention weights on the CPU, ``(n, n_heads, N, N)``
    with ``N`` the longest series' token count (zero beyond a series' own tokens).
    """
    if len(data) == 0:
        raise ValueError("no series to predict: the data has 0 rows.")
    module.eval()
    outs: list[torch.Tensor] = []
    per_batch: list[list[torch.Tensor]] = []
    with torch.inference_mode():
        for start in range(0, len(data), batch_size):
            idx = torch.arange(start, min(start + batch_size, len(data)), device=data.x.device)
            x, mask = data.batch(idx)
            with autocast(data.x.device, precision):
                out = module(x, mask, need_weights=True) if need_weights else module(x, mask)
            if need_weights:
                out, weights = out
                per_batch.append([w.float().cpu() for w in weights])
            outs.append(out.float())
    outputs = torch.cat(outs)
    if not need_weights:
        return outputs
    n = max(w.shape[-1] for batch in per_batch for w in batch)
    layers = [torch.cat([_pad_square(b[i], n) for b in per_batch]) for i in range(len(per_batch[0]))]
    return outputs, layers
