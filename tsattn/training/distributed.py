"""Training across processes (PyTorch's DistributedDataParallel, one process per core set or
GPU), and forecasting a large panel batch by batch on Dask workers (:func:`predict_on_dask`).

Two ways in, both on :mod:`torch.distributed` (gloo on CPUs, NCCL on GPUs):

* under ``torchrun`` (or any launcher that sets ``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR`` and
  ``MASTER_PORT``), an ordinary ``est.fit(...)`` run by every process on the same data trains
  data-parallel (:func:`data_parallel` starts the process group on first use);
* from Python, :func:`fit_distributed` starts the processes itself and returns the fitted estimator.

Every process reads the whole training data and computes the same fit plan, standardisation,
validation split and seed (rank 0's, broadcast); the batches are drawn in the same order on every
rank and each rank trains on its contiguous share of every batch (:meth:`DataParallel.shard`), its
loss weighted so that the gradients all-reduced by DDP are the one-process gradient of the whole
batch: ``batch_size`` is the global batch, and the optimiser takes the steps of a one-process fit.
What is not spread: validation (every rank scores the whole validation set, and rank 0's numbers
go to every rank, so early stopping and the schedule decide alike), the anchors and the
forecaster's calibration (repeated on every rank from the same weights and data). BatchNorm
normalises by the whole batch's statistics, gathered from every rank (:func:`synced_batchnorm`),
so a fit across processes does the arithmetic of a one-process fit (up to rounding) but for the
dropout and augmentation draws, and every rank holds the same weights and buffers.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import inspect
import os
import pickle
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

__all__ = ["DataParallel", "data_parallel", "fit_distributed", "predict_on_dask", "single_process",
           "synced_batchnorm"]

#: Inside :func:`single_process`: fits train in this process alone.
_ALONE = contextvars.ContextVar("tsattn_single_process", default=False)
#: The environment a launcher sets for every process (torchrun's names).
LAUNCHER_ENV = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@dataclass(frozen=True)
class DataParallel:
    """This process's place among ``world_size`` training processes (``local_*``: those on this
    machine), and the few collective steps the training loop takes (on the default group)."""

    rank: int
    world_size: int
    local_rank: int
    local_world_size: int

    def shard(self, batch: np.ndarray) -> tuple[np.ndarray, float]:
        """This rank's contiguous share of the global ``batch`` (sizes differ by at most one) and
        the weight of its mean loss, its share of the batch times the rank count: DDP's mean of
        the ranks' gradients is then the gradient of the whole batch's mean loss."""
        n = len(batch)
        rows = batch[self.rank * n // self.world_size : (self.rank + 1) * n // self.world_size]
        return rows, len(rows) * self.world_size / n

    def min_batch(self) -> int:
        """The smallest global batch trained on, one sample per rank; every rank skips a
        smaller batch alike."""
        return self.world_size

    def wrap(self, module: nn.Module) -> nn.Module:
        """``module`` in :class:`~torch.nn.parallel.DistributedDataParallel`, which broadcasts rank
        0's weights and buffers now and averages the gradients in every backward pass; the
        buffers (BatchNorm's running statistics, :func:`synced_batchnorm`) then stay alike
        without a broadcast at every forward pass."""
        from torch.nn.parallel import DistributedDataParallel

        device = next(module.parameters()).device
        ids = None if device.type == "cpu" else [device.index if device.index is not None
                                                 else torch.cuda.current_device()]  # fmt: skip
        # torch 2.13 renamed broadcast_buffers; either way the buffers are synced at start only
        name = "forward_sync_buffers" if "forward_sync_buffers" in inspect.signature(
            DistributedDataParallel).parameters else "broadcast_buffers"  # fmt: skip
        return DistributedDataParallel(module, device_ids=ids, **{name: False})

    @contextlib.contextmanager
    def training(self, module: nn.Module) -> Iterator[nn.Module]:
        """``module`` in DDP (:meth:`wrap`) with its BatchNorm on the whole batch's statistics
        (:func:`synced_batchnorm`) inside the block."""
        with synced_batchnorm(module):
            yield self.wrap(module)

    def _device(self) -> torch.device:
        """Where the small tensors of :meth:`sum` and :meth:`broadcast` must lie for the backend."""
        import torch.distributed as dist

        backend = str(dist.get_backend())
        return torch.device("cpu") if "gloo" in backend or "mpi" in backend else \
            torch.device("cuda", torch.cuda.current_device())  # fmt: skip

    def sum(self, values: list[float | torch.Tensor]) -> list[float]:
        """``values`` summed over the ranks (float64), the same on every rank."""
        import torch.distributed as dist

        t = torch.stack([torch.as_tensor(v, dtype=torch.float64).detach().to(self._device())
                         for v in values])  # fmt: skip
        dist.all_reduce(t)
        return t.tolist()

    def broadcast(self, values: list[float | None]) -> list[float | None]:
        """Rank 0's ``values`` (None stays None) on every rank."""
        import torch.distributed as dist

        t = torch.tensor([np.nan if v is None else float(v) for v in values], dtype=torch.float64,
                         device=self._device())  # fmt: skip
        dist.broadcast(t, 0)
        return [None if v is None else float(x) for v, x in zip(values, t.tolist(), strict=True)]

    def check_same_data(self, n: int, data: torch.Tensor) -> None:
        """Raise on every rank alike unless every rank trains on the same data: ``n`` samples, and
        ``data``'s rows (samples, or a series' steps) with the same sums in the same order (the
        fingerprint weighs each row's sum by its position: standardised data sums to about 0).
        Each rank must read the whole data, not its own part."""
        import torch.distributed as dist

        rows = data.sum(dim=tuple(range(1, data.ndim)), dtype=torch.float64)
        position = torch.arange(1, len(rows) + 1, dtype=torch.float64, device=rows.device)
        mine = torch.stack([torch.tensor(float(n), dtype=torch.float64, device=rows.device),
                            (rows * position).sum(), (rows * rows).sum()]).to(self._device())
        every = [torch.empty_like(mine) for _ in range(self.world_size)]
        dist.all_gather(every, mine)
        seen = np.stack([t.cpu().numpy() for t in every])
        if not np.allclose(seen, seen[0], rtol=1e-7, atol=1e-7, equal_nan=True):
            raise ValueError(
                "the training processes were given different data (per rank: samples, and two "
                f"sums of their rows: {seen.tolist()}); under torchrun every process must fit on "
                "the whole data, in the same order, and each trains on its share of every batch."
            )


class _Sum(torch.autograd.Function):
    """The sum of a tensor over the ranks, differentiable: the gradient is the sum of the
    ranks' gradients (each rank's tensor reaches every rank's output)."""

    @staticmethod
    def forward(ctx: Any, tensor: torch.Tensor) -> torch.Tensor:
        import torch.distributed as dist

        out = tensor.clone()
        dist.all_reduce(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        return _Sum.apply(grad)


class _SyncedStats(nn.modules.batchnorm._BatchNorm):
    """BatchNorm's training forward pass on the statistics of every rank's rows: one
    differentiable all-reduce of the rows' count, sum and sum of squares (shifted by the running
    mean, the same on every rank, against cancellation). ``nn.SyncBatchNorm`` does this on GPUs
    only and replaces the module; this keeps the module's own forward (the masked BatchNorm's
    selection of real steps) and works on CPUs too. The evaluation pass is the module's own."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return super().forward(x)
        self._check_input_dim(x)
        c = x.shape[1]
        rows = x.float().movedim(1, -1).reshape(-1, c)  # (N * steps..., C)
        shift = self.running_mean.detach() if self.running_mean is not None else rows.new_zeros(c)
        d = rows - shift
        stats = _Sum.apply(torch.cat([d.sum(0), (d * d).sum(0), d.new_full((1,), len(d))]))
        n = stats[-1]
        mean_d = stats[:c] / n
        var = (stats[c : 2 * c] / n - mean_d * mean_d).clamp_min(0)
        mean = shift + mean_d
        if self.track_running_stats and self.running_mean is not None:
            with torch.no_grad():
                self.num_batches_tracked.add_(1)
                f = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
                self.running_mean.lerp_(mean.detach(), f)
                self.running_var.lerp_(var.detach() * n / (n - 1).clamp_min(1), f)
        out = (rows - mean) * torch.rsqrt(var + self.eps)
        if self.affine:
            out = out * self.weight + self.bias
        shape = x.movedim(1, -1).shape
        return out.reshape(shape).movedim(-1, 1).to(x.dtype)


#: The synced class of each BatchNorm class met, made once.
_SYNCED: dict[type, type] = {}


@contextlib.contextmanager
def synced_batchnorm(module: nn.Module) -> Iterator[None]:
    """Inside the block, every BatchNorm of ``module`` normalises training batches by the
    statistics of the whole batch across the ranks (:class:`_SyncedStats` put under the module's
    own class, which is restored after)."""
    swapped = []
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            cls = type(m)
            if cls not in _SYNCED:
                _SYNCED[cls] = type(f"Synced{cls.__name__}", (cls, _SyncedStats), {})
            m.__class__ = _SYNCED[cls]
            swapped.append((m, cls))
    try:
        yield
    finally:
        for m, cls in swapped:
            m.__class__ = cls


@contextlib.contextmanager
def single_process() -> Iterator[None]:
    """Fits inside the block train in this process alone, even under ``torchrun`` (e.g. a fit on
    rank 0 only, which would otherwise wait for the other ranks)."""
    token = _ALONE.set(True)
    try:
        yield
    finally:
        _ALONE.reset(token)


def _launched() -> bool:
    return all(name in os.environ for name in LAUNCHER_ENV) and int(os.environ["WORLD_SIZE"]) > 1


def _start_group(device: torch.device) -> None:
    """The default process group from the launcher's environment: NCCL for CUDA tensors (each
    process on GPU ``LOCAL_RANK``) and gloo for CPU ones, or gloo alone on the CPU."""
    import torch.distributed as dist

    if device.type == "cuda":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        dist.init_process_group("cpu:gloo,cuda:nccl")
    else:
        dist.init_process_group("gloo")
    atexit.register(_end_group)


def _end_group() -> None:
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()


def data_parallel(device: torch.device) -> DataParallel | None:
    """This process's :class:`DataParallel` when a fit here is to train across processes: a default
    process group of two or more ranks exists, or a launcher's environment says so (then it is
    started, for ``device``); None otherwise, or inside :func:`single_process`."""
    if _ALONE.get() or not torch.distributed.is_available():
        return None
    import torch.distributed as dist

    if not dist.is_initialized():
        if not _launched():
            return None
        _start_group(device)
    world, rank = dist.get_world_size(), dist.get_rank()
    if world < 2:
        return None
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    return DataParallel(rank, world, local_rank, int(os.environ.get("LOCAL_WORLD_SIZE", world)))


def _worker(rank: int, n: int, init: str, backend: str, threads: int, estimator: Any,
            args: tuple, kwargs: dict, out: str) -> None:  # fmt: skip
    """One process of :func:`fit_distributed`: join the group, fit, and (rank 0) save the result."""
    import torch.distributed as dist

    os.environ.update(RANK=str(rank), WORLD_SIZE=str(n), LOCAL_RANK=str(rank),
                      LOCAL_WORLD_SIZE=str(n))  # fmt: skip
    torch.set_num_threads(threads)
    if "nccl" in backend:
        torch.cuda.set_device(rank)
    dist.init_process_group(backend, init_method=init, rank=rank, world_size=n)
    try:
        estimator.fit(*args, **kwargs)
        if rank == 0:
            with open(out, "wb") as f:
                pickle.dump(estimator, f)
        dist.barrier()
    finally:
        dist.destroy_process_group()


def fit_distributed(estimator: Any, *args: Any, n_processes: int = 2, backend: str | None = None,
                    **kwargs: Any) -> Any:  # fmt: skip
    """Fit ``estimator`` on ``args`` and ``kwargs`` (those of its ``fit``) across ``n_processes``
    processes started here, data-parallel; return the fitted estimator (rank 0's; ``estimator``
    itself is left as it was).

    ``backend``: ``'gloo'`` (CPU), ``'nccl'`` (one GPU per process, ``device='cuda'``), default
    NCCL when the estimator's device is CUDA, else gloo. Each process gets this process's torch
    threads divided among them; the data is pickled to each. The processes are spawned, so a
    script that calls this needs the ``if __name__ == "__main__":`` guard. Errors in a process are
    raised here with its traceback.
    """
    import torch.multiprocessing as mp

    from tsattn.training.device import resolve_device

    if n_processes < 1:
        raise ValueError(f"n_processes must be at least 1, got {n_processes}.")
    if backend is None:
        cuda = resolve_device(getattr(estimator, "device", "cpu")).type == "cuda"
        backend = "cpu:gloo,cuda:nccl" if cuda else "gloo"
    threads = max(1, torch.get_num_threads() // n_processes)
    with tempfile.TemporaryDirectory(prefix="tsattn-ddp-") as tmp:
        init, out = Path(tmp, "store").as_uri(), str(Path(tmp, "estimator.pkl"))
        mp.start_processes(_worker, (n_processes, init, backend, threads, estimator, args, kwargs,
                                     out), nprocs=n_processes, start_method="spawn")  # fmt: skip
        with open(out, "rb") as f:
            return pickle.load(f)


def _predict_batch(estimator: Any, y: Any, X: Any, method: str, kwargs: dict) -> Any:
    return getattr(estimator, method)(y, X=X, **kwargs)


def predict_on_dask(estimator: Any, y: Any, X: Any = None, *, client: Any = None,
                    series_per_batch: int = 1000, method: str = "predict", **kwargs: Any) -> Any:  # fmt: skip
    """``estimator.<method>(y, X=X, **kwargs)`` for a long frame ``y`` (``unique_id``, ``ds``,
    ``y``...) of many series, computed on the workers of a ``dask.distributed`` ``client`` (default:
    the current one), ``series_per_batch`` series per task: the rows of ``y`` and ``X`` (a long frame
    of covariates, or None) split by series, the fitted estimator sent to every worker once, the
    batches' long frames concatenated in the order of the sorted series ids, as the estimator's own
    forecast of the whole frame orders them. Each series is forecast from its own rows, so the
    result is that of one call on the whole frame (``method``: ``'predict'``,
    ``'predict_quantiles'``...)."""
    import pandas as pd

    from tsattn._parallel import _distributed

    if series_per_batch < 1:
        raise ValueError(f"series_per_batch must be at least 1, got {series_per_batch}.")
    client = client if client is not None else _distributed().get_client()
    ids = np.sort(pd.unique(y["unique_id"]))
    batch_of = dict(zip(ids, np.arange(len(ids)) // series_per_batch, strict=True))

    def split(frame: Any) -> dict:  # batch number -> its series' rows, in one pass over the frame
        return dict(list(frame.groupby(frame["unique_id"].map(batch_of), sort=True)))

    ys, xs = split(y), {} if X is None else split(X)
    remote = client.scatter(estimator, broadcast=True, hash=False)  # a key of its own per call
    futures = [client.submit(_predict_batch, remote, part, xs.get(b), method, kwargs, pure=False)
               for b, part in ys.items()]  # fmt: skip
    return pd.concat(client.gather(futures), ignore_index=True)
