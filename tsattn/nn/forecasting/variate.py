"""Variate tokens (``tokens="variate"``): a token per channel, its whole window embedded linearly,
attention across the channels (iTransformer, Liu et al. 2024)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import torch
from torch import nn

from tsattn.nn.forecasting.registry import TokenLayout, TokenView, register_view

__all__ = ["VariateTokenizer", "VariateView"]


class VariateTokenizer(nn.Module):
    """One token per channel (iTransformer, Liu et al. 2024): each channel's whole window of
    ``context_length`` steps mapped linearly to ``d_model``, so attention runs across channels.

    ``x (B, L, C)`` -> ``(tokens (B, C, d_model), None)``; windows are complete (no mask). The
    tokens are not ordered in time: the trunk adds no positions to them.
    """

    positional = False

    def __init__(self, n_channels: int, d_model: int, context_length: int) -> None:
        super().__init__()
        self.n_channels, self.d_model = int(n_channels), d_model
        self.projection = nn.Linear(int(context_length), d_model)

    def n_tokens(self, n: int) -> int:
        return self.n_channels

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, None]:
        if mask is not None:
            raise ValueError("variate tokens take complete windows; mask must be None.")
        return self.projection(x.transpose(1, 2)), None


@register_view("variate")
class VariateView(TokenView):
    """A token per channel (:class:`VariateTokenizer`), every channel of a window at once; no
    positions. ``patch_len`` and ``channel_independent`` are unused; overlapping patches
    (``patch_stride``) are refused. Each token decodes to its channel's window (``"steps"``)."""

    summary = "a token per channel, its whole window embedded linearly (iTransformer)"
    by_channel = True

    @classmethod
    def check(cls, *, patch_len: Any = None, patch_stride: Any = None, **_: Any) -> None:
        if patch_stride is not None and patch_stride != patch_len:
            raise ValueError(f"patch_stride={patch_stride!r} needs tokens='patch': variate tokens "
                             "are whole channels, not patches.")

    @classmethod
    def capabilities(cls, **_: Any) -> frozenset[str]:
        return frozenset({"steps", "covariates"})

    def __init__(self, n_channels: int, context_length: int, covariates: int = 0, **_: Any) -> None:
        # covariates are variates too: a token each beside the targets' (as iTransformer reads
        # exogenous series); the network keeps the targets' forecasts
        self.n_channels, self.context_length = n_channels + int(covariates), context_length

    def tokenizer(self) -> Callable[[int], nn.Module]:
        return partial(VariateTokenizer, self.n_channels, context_length=self.context_length)

    def layout(self, tokenizer: nn.Module, d_model: int) -> TokenLayout:
        return TokenLayout(self.n_channels, d_model, self.n_channels, self.context_length,
                           by_channel=True, token_values=self.context_length)  # fmt: skip
