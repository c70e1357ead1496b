"""Positional encodings added to token sequences ``(B, N, d_model)``."""

from __future__ import annotations

import math

import torch
from torch import nn

from tsattn.layers.dropout import Dropout

__all__ = ["SinusoidalPositionalEncoding"]


class SinusoidalPositionalEncoding(nn.Module):
    """Fixed sine/cosine positions (Vaswani et al.), any length, added to ``(B, N, d_model)``,
    followed by dropout."""

    def __init__(self, d_model: int, dropout: float) -> None:
        super().__init__()
        self.d_model = d_model
        self.dropout = Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, d = x.shape[1], self.d_model
        pos = torch.arange(n, device=x.device, dtype=x.dtype)[:, None]
        div = torch.exp(
            torch.arange(0, d, 2, device=x.device, dtype=x.dtype) * (-math.log(10000.0) / d)
        )
        pe = torch.zeros(n, d, device=x.device, dtype=x.dtype)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div[: d // 2])
        return self.dropout(x + pe)
