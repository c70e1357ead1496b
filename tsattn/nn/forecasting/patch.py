"""Patch tokens (``tokens="patch"``, the default): the window cut into patches of ``patch_len``
steps (PatchTST), side by side or every ``patch_stride`` steps (overlapping, PatchTST's 16 every 8),
each channel its own univariate series with ``channel_independent``; covariate columns, where a
sample has them, ride in every token beside the target's."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from numbers import Integral
from typing import Any

import torch
from torch import nn

from tsattn.nn.forecasting.registry import TokenLayout, TokenView, register_view
from tsattn.nn.tokenizers import PatchTokenizer

__all__ = ["OverlappingPatchTokenizer", "PatchView"]


class OverlappingPatchTokenizer(PatchTokenizer):
    """Patches of ``patch_len`` steps every ``stride`` steps, each mapped linearly to one token:
    PatchTST's tokens (patch 16, stride 8), the series first extended at its end by ``stride``
    copies of its last step (PatchTST's ``padding_patch="end"``), so ``(N - patch_len) // stride
    + 2`` tokens. Complete windows only (``mask`` None)."""

    def __init__(self, n_channels: int, d_model: int, patch_len: int = 16, stride: int = 8) -> None:
        super().__init__(n_channels, d_model, patch_len)
        if not 1 <= stride <= self.patch_len:
            raise ValueError(f"stride must lie in 1..patch_len={self.patch_len}; got {stride}.")
        self.stride = int(stride)

    def n_tokens(self, n: int) -> int:
        return (n + self.stride - self.patch_len) // self.stride + 1

    def pad(self, n: int) -> int:
        return 0  # the end is extended instead (forward)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``x (B, N, C)`` -> ``(tokens (B, (N - patch_len) // stride + 2, d_model), None)``."""
        if mask is not None:
            raise ValueError("OverlappingPatchTokenizer embeds complete windows; mask must be None.")
        b, n, c = x.shape
        x = torch.cat([x, x[:, -1:].expand(-1, self.stride, -1)], dim=1)
        # (B, P, C, patch_len) -> (B, P, patch_len * C): a token holds patch_len whole steps
        patches = x.unfold(1, self.patch_len, self.stride).transpose(2, 3)
        tokens = self.projection(patches.reshape(b, -1, self.patch_len * c)) * math.sqrt(self.d_model)
        return tokens, None


def _overlap(patch_len: Any, patch_stride: Any) -> bool:
    return patch_stride is not None and patch_stride != patch_len


@register_view("patch")
class PatchView(TokenView):
    """Patches of ``patch_len`` steps (:class:`~tsattn.nn.tokenizers.PatchTokenizer`, the window
    left-padded to whole patches) or, with ``patch_stride`` below ``patch_len``, overlapping ones
    (:class:`OverlappingPatchTokenizer`); with ``channel_independent`` every channel of a window
    is a sample of one channel (``B * C`` series), otherwise a token holds every channel of its
    steps. Non-overlapping patches decode to the steps they cover (``"steps"``)."""

    summary = "patches of patch_len steps, per channel or of every channel (PatchTST)"
    options = ("patch_len", "patch_stride")

    @classmethod
    def check(cls, *, context_length: int | None = None, patch_len: Any = None,
              patch_stride: Any = None, **_: Any) -> None:  # fmt: skip
        if isinstance(patch_len, Integral) and context_length is not None and patch_len > context_length:
            raise ValueError(f"patch_len={patch_len} exceeds context_length={context_length}; "
                             "choose a patch no longer than the context.")
        if isinstance(patch_stride, Integral) and isinstance(patch_len, Integral) \
                and patch_stride > patch_len:
            raise ValueError(f"patch_stride={patch_stride} exceeds patch_len={patch_len}; "
                             "patches would leave steps out.")  # fmt: skip

    @classmethod
    def capabilities(cls, *, patch_len: Any = None, patch_stride: Any = None, **_: Any) -> frozenset[str]:
        steps = frozenset() if _overlap(patch_len, patch_stride) else frozenset({"steps"})
        return steps | {"covariates"}

    def __init__(self, n_channels: int, context_length: int, *, patch_len: int,
                 patch_stride: int | None = None, channel_independent: bool = True,
                 covariates: int = 0, **_: Any) -> None:  # fmt: skip
        self.n_channels, self.context_length = n_channels, context_length
        self.patch_len, self.stride = int(patch_len), patch_stride
        # with covariates a sample is one target channel and its covariates, in every token
        self.channel_independent = bool(channel_independent) and not covariates
        self.channels = 1 if self.channel_independent else n_channels
        self.columns = self.channels + int(covariates)

    def tokenizer(self) -> Callable[[int], nn.Module]:
        if _overlap(self.patch_len, self.stride):
            return partial(OverlappingPatchTokenizer, self.columns, patch_len=self.patch_len,
                           stride=self.stride)  # fmt: skip
        return partial(PatchTokenizer, self.columns, patch_len=self.patch_len)

    def layout(self, tokenizer: nn.Module, d_model: int) -> TokenLayout:
        overlap = _overlap(self.patch_len, self.stride)
        return TokenLayout(tokenizer.n_tokens(self.context_length), d_model, self.channels,
                           self.context_length, by_channel=False,
                           token_values=None if overlap else self.patch_len * self.columns,
                           pad=tokenizer.pad(self.context_length), columns=self.columns)  # fmt: skip

    def samples(self, x: torch.Tensor) -> torch.Tensor:
        if not self.channel_independent:
            return x
        b, n, c = x.shape
        return x.permute(0, 2, 1).reshape(b * c, n, 1)

    def series(self, out: torch.Tensor, batch: int) -> torch.Tensor:
        if not self.channel_independent:
            return out
        return out.reshape(batch, -1, out.shape[1]).permute(0, 2, 1)
