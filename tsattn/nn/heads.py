"""Output heads mapping encoded tokens ``(B, N, d_model)`` to ``(B, n_outputs)``."""

from __future__ import annotations

import torch
from torch import nn

from tsattn.layers import Dropout

__all__ = ["PoolingHead", "FlattenHead", "masked_mean_max"]


def masked_mean_max(h: torch.Tensor, mask: torch.Tensor | None, with_max: bool = True) -> torch.Tensor:
    """``h (B, N, D)``, ``mask (B, N)`` bool True = real or None -> the mean over the real steps
    ``(B, D)``, and with ``with_max`` their maximum after it ``(B, 2 * D)``; padding enters neither."""
    if mask is None:
        mean = h.mean(dim=1)
        return torch.cat([mean, h.amax(dim=1)], dim=1) if with_max else mean
    w = mask.to(h.dtype)[..., None]
    mean = (h * w).sum(dim=1) / w.sum(dim=1).clamp_min(1.0)
    if not with_max:
        return mean
    return torch.cat([mean, h.masked_fill(~mask[..., None], float("-inf")).amax(dim=1)], dim=1)


class PoolingHead(nn.Module):
    """GELU, dropout, pooling over the real steps, linear. Works for any series length.

    ``with_max=False``: the mean over the real steps (``d_model`` features). ``with_max=True``: the
    mean and the maximum over the real steps, concatenated (``2 * d_model`` features), so a feature
    that fires at a few steps is not averaged away. Padded steps enter neither.
    """

    def __init__(self, d_model: int, n_outputs: int, dropout: float, with_max: bool = False) -> None:
        super().__init__()
        self.with_max = with_max
        self.act = nn.GELU()
        self.dropout = Dropout(dropout)
        self.linear = nn.Linear((2 if with_max else 1) * d_model, n_outputs)

    def forward(self, h: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """``h (B, N, d_model)``, ``mask (B, N)`` bool True = real -> ``(B, n_outputs)``."""
        return self.linear(masked_mean_max(self.dropout(self.act(h)), mask, self.with_max))


class FlattenHead(nn.Module):
    """Zerveas et al.'s head: GELU, dropout, zero the padded steps, flatten ``max_len * d_model``, linear.

    Series longer than ``max_len`` (the longest training series) cannot be flattened into the same
    weights; the estimator refuses them with a clear error.
    """

    def __init__(self, d_model: int, n_outputs: int, dropout: float, max_len: int) -> None:
        super().__init__()
        self.max_len = max_len
        self.act = nn.GELU()
        self.dropout = Dropout(dropout)
        self.linear = nn.Linear(d_model * max_len, n_outputs)

    def forward(self, h: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        h = self.dropout(self.act(h))
        if mask is not None:
            h = h * mask.to(h.dtype)[..., None]
        b, n, d = h.shape
        if n < self.max_len:
            h = nn.functional.pad(h, (0, 0, 0, self.max_len - n))
        return self.linear(h.reshape(b, self.max_len * d))
