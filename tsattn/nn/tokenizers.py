"""Tokenisers: the first stage of the encoder trunk, series ``(B, N, C)`` to tokens ``(B, N', d_model)``.

A tokeniser is a module called as ``tokenizer(x, mask) -> (tokens, token_mask)`` with ``x`` the
standardised series ``(B, N, C)`` (zero at padded steps), ``mask`` ``(B, N)`` bool (True = a real
step) or None, ``tokens`` ``(B, N', d_model)`` and ``token_mask`` ``(B, N')`` or None; its
``n_tokens(n)`` says how many tokens a series of ``n`` steps gives. The trunk takes a factory
``d_model -> tokeniser`` (e.g. ``functools.partial(PatchTokenizer, n_channels, patch_len=16)``), so a
new tokeniser (strided convolution, overlapping patches...) is one class here and one argument there.
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = ["StepTokenizer", "PatchTokenizer"]


class StepTokenizer(nn.Module):
    """One token per time step: ``Linear(C, d_model)`` times ``sqrt(d_model)`` (Zerveas et al.)."""

    def __init__(self, n_channels: int, d_model: int) -> None:
        super().__init__()
        self.d_model = d_model
        self.projection = nn.Linear(n_channels, d_model)

    def n_tokens(self, n: int) -> int:
        return n

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``x (B, N, C)`` -> ``(tokens (B, N, d_model), mask)``."""
        return self.projection(x) * math.sqrt(self.d_model), mask


class PatchTokenizer(nn.Module):
    """Non-overlapping patches of ``patch_len`` steps, each mapped linearly to one token (PatchTST).

    A series whose length is not a multiple of ``patch_len`` is left-padded by repeating its first
    step (:meth:`pad` steps). With a mask, a patch is real when one of its steps is. ``patch_len=1``
    is one token per step.
    """

    def __init__(self, n_channels: int, d_model: int, patch_len: int = 16) -> None:
        super().__init__()
        self.d_model = d_model
        self.patch_len = int(patch_len)
        self.projection = nn.Linear(n_channels * self.patch_len, d_model)

    def n_tokens(self, n: int) -> int:
        return -(-n // self.patch_len)

    def pad(self, n: int) -> int:
        """Steps of left padding for a series of ``n`` steps."""
        return self.n_tokens(n) * self.patch_len - n

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``x (B, N, C)`` -> ``(tokens (B, ceil(N / patch_len), d_model), mask | None)``."""
        b, n, c = x.shape
        pad, p = self.pad(n), self.n_tokens(n)
        if pad:
            x = torch.cat([x[:, :1].expand(-1, pad, -1), x], dim=1)
        # (B, P * patch_len, C) -> (B, P, patch_len * C): a token holds patch_len whole steps
        tokens = self.projection(x.reshape(b, p, self.patch_len * c)) * math.sqrt(self.d_model)
        if mask is not None:
            mask = nn.functional.pad(mask, (pad, 0), value=True).reshape(b, p, -1).any(dim=-1)
            mask = None if bool(mask.all()) else mask
        return tokens, mask
