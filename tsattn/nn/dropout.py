"""Inverted dropout with a cheaper mask on the CPU.

On the CPU, ``F.dropout`` spends most of its time in ``bernoulli_`` (float random numbers); drawing
the mask from 8-bit integers costs about half as much (measured: 11.7 ms vs 24.5 ms forward+backward
on a ``(32, 315, 256)`` tensor), and dropout is ~20% of a training step of the UEA-sized encoder.
The keep probability is quantised to ``k / 256`` (``p=0.2`` keeps 205/256 = 0.8008) and kept values
are scaled by exactly ``256 / k``, so the layer stays unbiased. Other devices use ``F.dropout``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["Dropout"]


class Dropout(nn.Module):
    """``nn.Dropout`` with a uint8 mask on the CPU; identity in eval mode or with ``p == 0``."""

    def __init__(self, p: float = 0.1) -> None:
        super().__init__()
        if not 0.0 <= p < 1.0:
            raise ValueError(f"dropout probability must be in [0, 1), got {p!r}.")
        self.p = float(p)
        self._drop = round(self.p * 256)  # mask values below this are dropped
        self._scale = 256.0 / (256 - self._drop)

    @property
    def keep_probability(self) -> float:
        """The exact probability that a value is kept on the CPU path."""
        return (256 - self._drop) / 256

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        if x.device.type != "cpu":
            return F.dropout(x, self.p, training=True)
        keep = torch.randint(0, 256, x.shape, dtype=torch.uint8, device=x.device) >= self._drop
        return x * (keep * self._scale).to(x.dtype)

    def extra_repr(self) -> str:
        return f"p={self.p}"
