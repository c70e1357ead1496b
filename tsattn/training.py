"""The one training loop: batching, early stopping with restore-best, callbacks, history, device.

Every estimator trains through :func:`train_network`. Data lives on the device as padded tensors;
each batch is cut to its own longest series (unless the head needs a fixed length), so short series
do not pay for long ones.
"""

from __future__ import annotations

import contextlib
import copy
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

__all__ = [
    "Callback",
    "TensorData",
    "TrainResult",
    "resolve_device",
    "train_network",
    "predict_network",
    "seeded",
]


class Callback:
    """Hooks called by the training loop; override the ones you need.

    ``on_epoch_end`` receives the estimator and the epoch's record (a dict with ``epoch``,
    ``train_loss``, ``valid_loss`` (or None), ``dur``, ``best``); returning ``True`` stops training.
    Exceptions propagate (e.g. ``optuna.TrialPruned`` from a pruning callback).
    """

    def on_train_begin(self, estimator: Any) -> None:  # noqa: B027 - intentional no-op hook
        pass

    def on_epoch_end(self, estimator: Any, record: dict) -> bool | None:  # noqa: B027
        return None

    def on_train_end(self, estimator: Any, history: list[dict]) -> None:  # noqa: B027
        pass


@dataclass
class TensorData:
    """Padded series on a device: ``x (n, N, C)`` float, ``lengths (n,)`` long, targets ``y (n, ...)``."""

    x: torch.Tensor
    lengths: torch.Tensor
    y: torch.Tensor | None = None

    def __len__(self) -> int:
        return self.x.shape[0]

    def batch(self, idx: torch.Tensor, fixed_len: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Rows ``idx`` as ``(x (b, n_b, C), mask (b, n_b) | None)``; ``mask`` is None with no padding."""
        lengths = self.lengths[idx]
        n_b = self.x.shape[1] if fixed_len else int(lengths.max())
        x = self.x[idx, :n_b]
        mask = torch.arange(n_b, device=x.device)[None, :] < lengths[:, None]
        return x, (None if bool(mask.all()) else mask)


@dataclass
class TrainResult:
    history: list[dict] = field(default_factory=list)
    best_epoch: int = -1
    interrupted: bool = False
    stopped_early: bool = False


def resolve_device(device: str | torch.device) -> torch.device:
    """``"auto"`` -> CUDA when available, else CPU; other values are checked."""
    if isinstance(device, torch.device):
        return device
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(
            f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}."
        ) from err
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} but CUDA is not available on this machine; use device='auto' or 'cpu'."
        )
    return dev


class seeded:
    """Context manager: torch's global RNG (CPU and the device's CUDA RNG) seeded, then restored."""

    def __init__(self, seed: int, device: torch.device) -> None:
        self.seed = seed
        devices = [device.index or 0] if device.type == "cuda" else []
        self._fork = torch.random.fork_rng(devices=devices)

    def __enter__(self) -> None:
        self._fork.__enter__()
        torch.manual_seed(self.seed)

    def __exit__(self, *exc: Any) -> None:
        self._fork.__exit__(*exc)


PRECISIONS = ("float32", "bf16-mixed")


def autocast(device: torch.device, precision: str = "float32"):
    """The forward pass's precision: ``"float32"``, or ``"bf16-mixed"`` (``torch.autocast`` to
    bfloat16: matrix products and attention in bfloat16, weights, optimiser and loss in float32)."""
    if precision == "float32":
        return contextlib.nullcontext()
    if precision == "bf16-mixed":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}.")


def _epoch_batches(n: int, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    perm = rng.permutation(n)
    return [perm[i : i + batch_size] for i in range(0, n, batch_size)]


def _evaluate(
    module: nn.Module,
    data: TensorData,
    loss_fn: Callable,
    score_fn: Callable | None,
    batch_size: int,
    fixed_len: bool,
    precision: str = "float32",
) -> tuple[float, float | None]:
    """Mean loss and (optionally) score of ``module`` on ``data``, in eval mode."""
    module.eval()
    outputs = []
    with torch.no_grad():
        for start in range(0, len(data), batch_size):
            idx = torch.arange(start, min(start + batch_size, len(data)), device=data.x.device)
            x, mask = data.batch(idx, fixed_len)
            with autocast(data.x.device, precision):
                outputs.append(module(x, mask).float())
    out = torch.cat(outputs)
    loss = float(loss_fn(out, data.y))
    return loss, (None if score_fn is None else float(score_fn(out, data.y)))


def train_network(
    module: nn.Module,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    train: TensorData,
    valid: TensorData | None,
    *,
    estimator: Any,
    max_epochs: int,
    batch_size: int,
    lr: float,
    weight_decay: float,
    patience: int | None,
    rng: np.random.Generator,
    fixed_len: bool = False,
    callbacks: Sequence[Callback] = (),
    verbose: int = 0,
    lr_schedule: str | None = None,
    score_fn: Callable[[torch.Tensor, torch.Tensor], float] | None = None,
    precision: str = "float32",
) -> TrainResult:
    """Train ``module`` in place and leave it holding the best weights seen.

    The monitored quantity is the validation loss when ``valid`` is given, else the training loss.
    With ``score_fn`` (higher is better, e.g. accuracy) and ``valid``, the best epoch is the one with
    the highest validation score, ties broken by the lower validation loss; patience counts epochs
    without a new best.
    Training stops after ``max_epochs``, after ``patience`` epochs without improvement (``None``: never
    early), when a callback returns True, or on Ctrl-C (``KeyboardInterrupt``): in every case the best
    weights so far are restored and the result says how it ended.

    ``precision``: see :func:`autocast`. ``lr_schedule``: ``None`` keeps ``lr``; ``"cosine"`` anneals it to 0 over ``max_epochs``;
    ``"plateau"`` halves it after ``max(2, patience // 3)`` epochs without improvement of the monitored
    loss (``patience`` None: 10).
    """
    optimizer = torch.optim.AdamW(module.parameters(), lr=lr, weight_decay=weight_decay)
    scheduler = _make_scheduler(optimizer, lr_schedule, max_epochs, patience)
    result = TrainResult()
    best_key: tuple[float, float] = (float("inf"), float("inf"))
    best_state, since_best = None, 0
    for cb in callbacks:
        cb.on_train_begin(estimator)
    bar = None
    if verbose:
        from tqdm.auto import tqdm

        bar = tqdm(total=max_epochs, desc=f"fit {type(estimator).__name__}", unit="epoch")
    try:
        for epoch in range(1, max_epochs + 1):
            t0 = time.perf_counter()
            module.train()
            total, seen = 0.0, 0
            for idx_np in _epoch_batches(len(train), batch_size, rng):
                if len(idx_np) < 2 and len(train) > 1 and _has_batchnorm(module):
                    continue  # a batch of one gives BatchNorm no variance to normalise by
                idx = torch.as_tensor(idx_np, device=train.x.device)
                x, mask = train.batch(idx, fixed_len)
                with autocast(train.x.device, precision):
                    output = module(x, mask)
                loss = loss_fn(output.float(), train.y[idx])
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                total += float(loss.detach()) * len(idx_np)
                seen += len(idx_np)
            train_loss = total / max(seen, 1)
            if not np.isfinite(train_loss):
                warnings.warn(
                    f"training loss became {train_loss} at epoch {epoch}; stopping and keeping the "
                    "best weights so far. Try a smaller lr.",
                    RuntimeWarning,
                    stacklevel=3,
                )
                result.stopped_early = True
                break
            valid_loss, valid_score = (
                _evaluate(module, valid, loss_fn, score_fn, batch_size, fixed_len, precision)
                if valid is not None
                else (None, None)
            )
            monitored = valid_loss if valid_loss is not None else train_loss
            key = (-valid_score if valid_score is not None else 0.0, monitored)
            improved = key < best_key
            if improved:
                best_key, since_best, result.best_epoch = key, 0, epoch
                best_state = copy.deepcopy(module.state_dict())
            else:
                since_best += 1
            if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
                scheduler.step(monitored)
            elif scheduler is not None:
                scheduler.step()
            record = {
                "epoch": epoch,
                "lr": optimizer.param_groups[0]["lr"],
                "train_loss": train_loss,
                "valid_loss": valid_loss,
                "valid_score": valid_score,
                "best": improved,
                "dur": time.perf_counter() - t0,
            }
            result.history.append(record)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(
                    train=f"{train_loss:.4f}",
                    **({"valid": f"{valid_loss:.4f}"} if valid_loss is not None else {}),
                )
            stop = False
            for cb in callbacks:
                stop = bool(cb.on_epoch_end(estimator, record)) or stop
            if stop:
                result.stopped_early = True
                break
            if patience is not None and since_best >= patience:
                result.stopped_early = True
                break
    except KeyboardInterrupt:
        result.interrupted = True
        warnings.warn(
            f"fit interrupted after {len(result.history)} epoch(s); keeping the best weights so far "
            f"(epoch {result.best_epoch}). The model is fitted and usable.",
            UserWarning,
            stacklevel=3,
        )
    finally:
        if bar is not None:
            bar.close()
    if best_state is not None:
        module.load_state_dict(best_state)
    module.eval()
    for cb in callbacks:
        cb.on_train_end(estimator, result.history)
    return result


LR_SCHEDULES = (None, "cosine", "plateau")


def _make_scheduler(optimizer, lr_schedule: str | None, max_epochs: int, patience: int | None):
    if lr_schedule is None:
        return None
    if lr_schedule == "cosine":
        return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max_epochs)
    if lr_schedule == "plateau":
        wait = max(2, patience // 3) if patience else 10
        return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=wait)
    raise ValueError(f"lr_schedule must be one of {LR_SCHEDULES}, got {lr_schedule!r}.")


def _has_batchnorm(module: nn.Module) -> bool:
    return any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in module.modules())


def predict_network(
    module: nn.Module,
    data: TensorData,
    batch_size: int,
    fixed_len: bool = False,
    precision: str = "float32",
) -> torch.Tensor:
    """Outputs of ``module`` for every row of ``data`` in eval mode, on the CPU, ``(n, n_outputs)``."""
    module.eval()
    outs = []
    with torch.inference_mode():
        for start in range(0, len(data), batch_size):
            idx = torch.arange(start, min(start + batch_size, len(data)), device=data.x.device)
            x, mask = data.batch(idx, fixed_len)
            with autocast(data.x.device, precision):
                out = module(x, mask)
            outs.append(out.float().cpu())
    return torch.cat(outs)
