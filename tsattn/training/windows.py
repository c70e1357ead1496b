"""Training windows cut from one series on the fly, so that wide or long series never exist as
copies of every window (Traffic's 862 channels would take about 8 GB as float32 windows).

:class:`WindowData` serves the training loop like :class:`~tsattn.training.TensorData`
(``len``, ``batch``, ``y[idx]``) from the series itself, ``(T, C)`` on the device. A sample is a
window start, or with ``channel_independent`` a ``(window start, channel)`` pair, so a batch holds
univariate windows and its cost does not grow with the channel count.
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["CovariateWindowData", "WindowData"]


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
    """

    def __init__(
        self,
        series: torch.Tensor,
        context_length: int,
        horizon: int,
        starts: np.ndarray | None = None,
        channel_independent: bool = True,
    ) -> None:
        self.x = series  # the loop reads the device from ``x``
        self.context_length, self.horizon = int(context_length), int(horizon)
        n_starts = series.shape[0] - self.context_length - self.horizon + 1
        if starts is None:
            starts = np.arange(max(n_starts, 0))
        self.starts = torch.as_tensor(np.asarray(starts, dtype=np.int64), device=series.device)
        self.channel_independent = channel_independent
        self.n_channels = series.shape[1]
        self.y = _Targets(self)
        self._offsets = {
            False: torch.arange(self.context_length, device=series.device),
            True: torch.arange(self.context_length, self.context_length + self.horizon,
                               device=series.device),
        }  # fmt: skip

    def __len__(self) -> int:
        return len(self.starts) * (self.n_channels if self.channel_independent else 1)

    def gather(self, idx: torch.Tensor, target: bool = False) -> torch.Tensor:
        """Contexts (``target=False``) or targets of samples ``idx``: ``(b, steps, 1 or C)``."""
        offsets = self._offsets[target]
        if self.channel_independent:
            start = self.starts[idx // self.n_channels]
            channel = (idx % self.n_channels)[:, None]
            return self.x[start[:, None] + offsets[None, :], channel].unsqueeze(-1)
        return self.x[self.starts[idx][:, None] + offsets[None, :]]

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


class CovariateWindowData(WindowData):
    """Windows of ``series (T, n_targets + k)``, target columns first, whose samples are one
    target channel of one window packed with the ``k`` covariates, as
    :class:`~tsattn.nn.forecasting.ForecastingTransformer` with covariates reads them.

    A sample's input is ``(context_length + horizon, 1 + k)``: the target channel's context (its
    horizon rows zero) and the covariates' rows, of which only the ``future`` ones (indices among
    the ``k``) keep their horizon rows (the others are zero there: never read after the forecast
    origin). Its target is the channel's horizon, ``(horizon, 1)``.
    """

    def __init__(self, series: torch.Tensor, context_length: int, horizon: int,
                 starts: np.ndarray | None, n_targets: int, future: tuple[int, ...]) -> None:  # fmt: skip
        super().__init__(series, context_length, horizon, starts, channel_independent=True)
        self.n_channels = int(n_targets)  # samples run over the target channels only
        self.future = tuple(int(f) for f in future)
        k = series.shape[1] - self.n_channels
        keep = torch.zeros(self.context_length + self.horizon, 1 + k, device=series.device)
        keep[: self.context_length] = 1.0
        keep[self.context_length :, [1 + f for f in self.future]] = 1.0
        self._keep = keep
        self._window = torch.arange(self.context_length + self.horizon, device=series.device)

    def gather(self, idx: torch.Tensor, target: bool = False) -> torch.Tensor:
        """Packed inputs ``(b, L + H, 1 + k)`` or targets ``(b, H, 1)`` of samples ``idx``."""
        if target:
            return super().gather(idx, target=True)
        start = self.starts[idx // self.n_channels]
        channel = idx % self.n_channels
        rows = start[:, None] + self._window[None, :]  # (b, L + H)
        target_rows = self.x[rows, channel[:, None]].unsqueeze(-1)
        return torch.cat([target_rows, self.x[rows, self.n_channels :]], dim=2) * self._keep
