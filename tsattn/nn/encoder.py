"""Transformer encoder in the style of Zerveas et al. (2021), the UEA baseline of 001/004.

Post-norm layers (attention -> add -> norm -> feed-forward with GELU -> add -> norm) whose norm is
either a BatchNorm over (batch, time) that ignores padded steps, a LayerNorm, or none; the attention
module is any registered variant. With no norm and no feed-forward block (``norm="none"``,
``dim_feedforward=0``) a layer is ``x + attention(x)``, the layer of 002's forecaster (Algorithm 3).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from tsattn.layers import Dropout, MaskedBatchNorm1d

__all__ = ["NORMS", "EncoderLayer", "TransformerEncoder"]

#: The encoder layers' normalisations (the estimators' ``norm`` values).
NORMS = ("batch", "layer", "none")


class EncoderLayer(nn.Module):
    """One encoder layer.

    Parameters
    ----------
    attention : module called as ``attention(x, mask)`` on ``(B, N, d_model)``.
    d_model, dim_feedforward, dropout : sizes and dropout rate; ``dim_feedforward=0``: no
        feed-forward block.
    norm : ``"batch"`` (masked BatchNorm, the Zerveas default), ``"layer"`` or ``"none"``.
    """

    def __init__(
        self, attention: nn.Module, d_model: int, dim_feedforward: int, dropout: float, norm: str
    ) -> None:
        super().__init__()
        self.attention = attention
        if dim_feedforward < 0:
            raise ValueError(f"dim_feedforward must be >= 0 (0: no feed-forward block), got {dim_feedforward}.")
        self.feedforward = dim_feedforward > 0
        if self.feedforward:
            self.linear1 = nn.Linear(d_model, dim_feedforward)
            self.linear2 = nn.Linear(dim_feedforward, d_model)
        self.dropout = Dropout(dropout)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.norm_kind = norm
        if norm == "batch":
            self.norm1, self.norm2 = MaskedBatchNorm1d(d_model, eps=1e-5), MaskedBatchNorm1d(d_model, eps=1e-5)
        elif norm == "layer":
            self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        elif norm != "none":
            raise ValueError(f"norm must be one of {NORMS}, got {norm!r}.")

    def _norm(self, layer: str, x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        if self.norm_kind == "none":
            return x
        module = getattr(self, layer)
        return module(x, mask) if self.norm_kind == "batch" else module(x)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """``x (B, N, d_model)``, ``mask (B, N)`` bool True = real -> ``(B, N, d_model)``; with
        ``need_weights``, also the attention's weights ``(B, n_heads, N, N)``."""
        if need_weights:
            attended, weights = self.attention(x, mask, need_weights=True)
        else:
            attended, weights = self.attention(x, mask), None
        x = self._norm("norm1", x + self.dropout1(attended), mask)
        if self.feedforward:
            ff = self.linear2(self.dropout(F.gelu(self.linear1(x))))
            x = self._norm("norm2", x + self.dropout2(ff), mask)
        return x if weights is None else (x, weights)


class TransformerEncoder(nn.Module):
    """A stack of :class:`EncoderLayer` (attention modules built by the caller)."""

    def __init__(self, layers: list[EncoderLayer]) -> None:
        super().__init__()
        self.layers = nn.ModuleList(layers)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        """``(B, N, d_model)`` -> ``(B, N, d_model)``; with ``need_weights`` also a list of each
        layer's attention weights ``(B, n_heads, N, N)``."""
        if not need_weights:
            for layer in self.layers:
                x = layer(x, mask)
            return x
        weights = []
        for layer in self.layers:
            x, w = layer(x, mask, need_weights=True)
            weights.append(w)
        return x, weights
