"""Inverted dropout with a cheaper mask on the CPU.

On the CPU, ``F.dropout`` spends most of its time in ``bernoulli_`` (float random numbers); the mask
here is one random byte per value, compared with a threshold. The bytes come from 64-bit random
integers, eight bytes per draw of the generator, because ``torch.randint(0, 256, dtype=uint8)``
draws once per byte and is several times slower (``tsattn bench dropout-mask``,
``docs/results/speed/dropout_mask/``). The keep probability is quantised to ``k / 256`` (``p=0.2`` keeps
205/256) and kept values are scaled by exactly ``256 / k``, so the layer stays unbiased. Other
devices use ``F.dropout``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["Dropout", "random_bytes"]


def random_bytes(shape: torch.Size | tuple[int, ...], device: torch.device | str = "cpu") -> torch.Tensor:
    """Independent uniform bytes ``(shape) uint8`` from the global generator, 8 per 64-bit draw."""
    n = math.prod(shape)
    words = torch.empty((n + 7) // 8, dtype=torch.int64, device=device)
    words.random_(-(2**63), 2**63 - 1)  # the full 64-bit range: every byte uniform
    return words.view(torch.uint8)[:n].view(shape)


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
        if torch.compiler.is_compiling():
            # torch.compile cannot replay random_bytes' int64 -> uint8 view as an alias
            noise = torch.randint(0, 256, x.shape, dtype=torch.uint8, device=x.device)
        else:
            noise = random_bytes(x.shape, x.device)
        return x * (noise >= self._drop).to(x.dtype).mul_(self._scale)

    def extra_repr(self) -> str:
        return f"p={self.p}"
