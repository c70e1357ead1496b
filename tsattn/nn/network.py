"""The network every supervised estimator trains: projection, positions, encoder, head."""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from tsattn.attention import build_attention
from tsattn.layers import SinusoidalPositionalEncoding
from tsattn.nn.encoder import EncoderLayer, TransformerEncoder
from tsattn.nn.heads import FlattenHead, PoolingHead

__all__ = ["TSTransformer", "HEADS"]

HEADS = ("meanmax", "pool", "flatten")


class TSTransformer(nn.Module):
    """Transformer encoder for series ``(B, N, n_channels)`` -> ``(B, n_outputs)``.

    Parameters
    ----------
    n_channels, n_outputs, max_len : data-dependent sizes (``max_len`` is used by the flatten head).
    attention : registered attention name; ``attention_params`` its hyperparameters.
    d_model, n_heads, n_layers, dim_feedforward, dropout, norm, head : architecture.
    attention_dropout : dropout on the attention weights (0 keeps SDPA on its fused kernels).
    """

    def __init__(
        self,
        n_channels: int,
        n_outputs: int,
        max_len: int,
        *,
        attention: str = "softmax",
        attention_params: dict[str, Any] | None = None,
        d_model: int = 64,
        n_heads: int = 8,
        n_layers: int = 3,
        dim_feedforward: int = 256,
        dropout: float = 0.1,
        norm: str = "batch",
        head: str = "meanmax",
        attention_dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.d_model = d_model
        self.input_projection = nn.Linear(n_channels, d_model)
        self.positions = SinusoidalPositionalEncoding(d_model, dropout)
        layers = [
            EncoderLayer(
                build_attention(
                    attention,
                    d_model,
                    n_heads,
                    dropout=attention_dropout,
                    **(attention_params or {}),
                ),
                d_model,
                dim_feedforward,
                dropout,
                norm,
            )
            for _ in range(n_layers)
        ]
        self.encoder = TransformerEncoder(layers)
        if head in ("pool", "meanmax"):
            self.head: nn.Module = PoolingHead(d_model, n_outputs, dropout, head == "meanmax")
        elif head == "flatten":
            self.head = FlattenHead(d_model, n_outputs, dropout, max_len)
        else:
            raise ValueError(f"head must be one of {HEADS}, got {head!r}.")

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """``x (B, N, n_channels)``, ``mask (B, N)`` bool True = real -> ``(B, n_outputs)``."""
        h = self.input_projection(x) * math.sqrt(self.d_model)
        h = self.positions(h)
        h = self.encoder(h, mask)
        return self.head(h, mask)
