"""Windows cut from series on the fly, so that wide or long series never exist as copies of every
window (Traffic's 862 channels would take about 8 GB as float32 windows).

:func:`cut` is the one definition of a window's rows, for numpy arrays and torch tensors alike:
training batches, validation samples, the anchors' regressions and the forecaster's predict
inputs are all cut by it. :class:`WindowData` serves the training loop like
:class:`~tsattn.training.TensorData` (``len``, ``batch``, ``y[idx]``) from the series itself,
``(T, C)`` on the device. A sample is a window start, or with ``channel_independent`` a ``(window
start, channel)`` pair, so a batch holds univariate windows and its cost does not grow with the
channel count; with covariates (``known``) a sample is one target channel of a window packed with
the covariates, as the forecasting network with covariates reads it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

__all__ = ["WindowData", "cut"]


def cut(series: Any, starts: Any, offsets: Any, channels: Any = None) -> Any:
    """The rows ``starts[i] + offsets`` of ``series (T, C)`` (a numpy array or a torch tensor):
    ``(len(starts), len(offsets), C)``, or with ``channels (len(starts),)`` each window's one
    channel, ``(len(starts), len(offsets))``."""
    rows = starts[:, None] + offsets[None, :]
    return series[rows] if channels is None else series[rows, channels[:, None]]


class _Targets:
    """``data.y[idx]``: the target windows of samples ``idx``, gathered when asked for."""

    def __init__(self, data: WindowData) -> None:
        self.data = data

    def __getitem__(self, idx: torch.Tensor) -> torch.Tensor:
        return self.data.gather(idx, target=True)


class WindowData:
    """Every window of ``context_length + horizon`` steps of ``series (T, C)`` starting at ``starts``.

    Parameters
    ----------
    series : tensor (T, C), float, on the training device.
    context_length, horizon : steps of input and of target per window.
    starts : int array of window starts (default: every start whose target fits).
    channel_independent : a sample is one channel of one window, ``x (b, L, 1)``; otherwise a
        window with every channel, ``x (b, L, C)``.
    known : None (no covariates), or ``(context_length + horizon, k)``: where each of the last
        ``k`` columns of ``series``, the covariates, is read (1) or not (0) in a window, by its
        role (past-only covariates on the context's rows, future-known ones on the horizon's too).
        A sample is then one of the ``C - k`` target channels of a window packed with the
        covariates, ``x (b, L + H, 1 + k)``: the target's context (its horizon rows zero) and the
        covariates' rows, zero where they are not read; its target is the channel's horizon,
        ``(b, H, 1)``.
    """

    def __init__(
        self,
        series: torch.Tensor,
        context_length: int,
        horizon: int,
        starts: np.ndarray | None = None,
        channel_independent: bool = True,
        known: np.ndarray | None = None,
    ) -> None:
        self.x = series  # the loop reads the device from ``x``
        self.context_length, self.horizon = int(context_length), int(horizon)
        n_starts = series.shape[0] - self.context_length - self.horizon + 1
        if starts is None:
            starts = np.arange(max(n_starts, 0))
        self.starts = torch.as_tensor(np.asarray(starts, dtype=np.int64), device=series.device)
        device = series.device
        self._offsets = {
            False: torch.arange(self.context_length, device=device),
            True: torch.arange(self.context_length, self.context_length + self.horizon, device=device),
        }  # fmt: skip
        self._window = torch.arange(self.context_length + self.horizon, device=device)
        self._keep = None
        self.n_channels = series.shape[1]
        self.channel_independent = channel_independent or known is not None
        if known is not None:  # samples run over the target channels only
            known = np.asarray(known, dtype=np.float32)
            self.n_channels -= known.shape[1]
            keep = torch.zeros(self.context_length + self.horizon, 1 + known.shape[1], device=device)
            keep[: self.context_length, 0] = 1.0  # the target: its context only
            keep[:, 1:] = torch.as_tensor(known, device=device)
            self._keep = keep
        self.y = _Targets(self)

    @property
    def packed(self) -> bool:
        """Whether a sample is a target channel packed with covariates."""
        return self._keep is not None

    def __len__(self) -> int:
        return len(self.starts) * (self.n_channels if self.channel_independent else 1)

    def gather(self, idx: torch.Tensor, target: bool = False) -> torch.Tensor:
        """Contexts (``target=False``; packed windows ``(b, L + H, 1 + k)`` with covariates) or
        targets of samples ``idx``: ``(b, steps, 1 or C)``."""
        if not self.channel_independent:
            return cut(self.x, self.starts[idx], self._offsets[target])
        start, channel = self.starts[idx // self.n_channels], idx % self.n_channels
        if target or self._keep is None:
            return cut(self.x, start, self._offsets[target], channel).unsqueeze(-1)
        target_rows = cut(self.x, start, self._window, channel).unsqueeze(-1)  # (b, L + H, 1)
        covariates = cut(self.x[:, self.n_channels :], start, self._window)  # (b, L + H, k)
        return torch.cat([target_rows, covariates], dim=2) * self._keep

    def batch(self, idx: torch.Tensor, rows: np.ndarray | None = None) -> tuple[torch.Tensor, None]:
        """Contexts of samples ``idx`` and no mask (windows are complete; ``rows`` is not needed)."""
        return self.gather(idx), None

    def materialise(self, idx: np.ndarray | None = None):
        """The samples ``idx`` (default all) as a :class:`~tsattn.training.TensorData`."""
        from tsattn.training.data import TensorData

        t = torch.arange(len(self), device=self.x.device) if idx is None else torch.as_tensor(
            np.asarray(idx, dtype=np.int64), device=self.x.device)  # fmt: skip
        x, y = self.gather(t), self.gather(t, target=True)
        lengths = torch.full((len(t),), x.shape[1], dtype=torch.long, device=x.device)
        return TensorData(x, lengths, y)

    def sample_indices(self, limit: int, rng: np.random.Generator) -> np.ndarray:
        """The indices :meth:`sample` takes: all samples, or ``limit`` of them (in order) drawn
        from ``rng``."""
        if len(self) <= limit:
            return np.arange(len(self))
        return np.sort(rng.choice(len(self), size=limit, replace=False))

    def sample(self, limit: int, rng: np.random.Generator):
        """At most ``limit`` samples as a :class:`~tsattn.training.TensorData`: all of them, or
        a random subset (in order) drawn from ``rng`` (:meth:`sample_indices`)."""
        return self.materialise(self.sample_indices(limit, rng))
