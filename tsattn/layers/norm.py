"""Normalisation layers that ignore padded time steps."""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["MaskedBatchNorm1d"]


class MaskedBatchNorm1d(nn.BatchNorm1d):
    """BatchNorm over the batch and time axes of ``(B, N, D)`` tokens, counting real steps only.

    Padded steps neither enter the batch statistics nor the running averages, so a batch's padding
    does not change what real steps see. With no mask it is ``nn.BatchNorm1d`` on ``(B*N, D)``.
    """

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:  # type: ignore[override]
        b, n, d = x.shape
        if mask is None or not self.training or bool(mask.all()):
            return super().forward(x.reshape(b * n, d)).reshape(b, n, d)
        flat = x.reshape(b * n, d)
        real = mask.reshape(b * n)
        out = torch.zeros_like(flat)
        out[real] = super().forward(flat[real])
        return out.reshape(b, n, d)
