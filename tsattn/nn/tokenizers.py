"""Tokenisers: the first stage of the encoder trunk, series ``(B, N, C)`` to tokens ``(B, N', d_model)``.

A tokeniser is a module called as ``tokenizer(x, mask) -> (tokens, token_mask)`` with ``x`` the
standardised series ``(B, N, C)`` (zero at padded steps), ``mask`` ``(B, N)`` bool (True = a real
step) or None, ``tokens`` ``(B, N', d_model)`` and ``token_mask`` ``(B, N')`` or None; its
``n_tokens(n)`` says how many tokens a series of ``n`` steps gives, and ``positional`` whether its
tokens are ordered in time (the trunk adds positions to those only). The trunk takes a factory
``d_model -> tokeniser`` (e.g. ``functools.partial(PatchTokenizer, n_channels, patch_len=16)``), so a
new tokeniser (strided convolution, overlapping patches...) is one class here and one argument there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import torch
from torch import nn

from tsattn.layers import MaskedBatchNorm1d
from tsattn.nn.rocket import RocketTokenizer, minirocket_kernels

__all__ = [
    "StepTokenizer",
    "PatchTokenizer",
    "ConvTokenizer",
    "RocketTokenizer",
    "ConvRocketTokenizer",
    "minirocket_kernels",
    "TOKENIZERS",
    "token_steps",
    "tokenizer_factory",
    "tokenizer_sizes",
]


class StepTokenizer(nn.Module):
    """One token per time step: ``Linear(C, d_model)`` times ``sqrt(d_model)`` (Zerveas et al.)."""

    positional = True

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

    positional = True

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


#: The narrowest halving block of :class:`ConvTokenizer` (channels), where ``d_model`` allows.
MIN_WIDTH = 16


class ConvTokenizer(nn.Module):
    """A strided convolutional stem: ``n_down`` blocks that each halve the steps, then one block at
    the tokens' resolution; a token sees about ``2**n_down`` steps and their neighbours.

    Each block is ``Conv1d`` (kernel ``kernel_size``, stride 2 in the ``n_down`` halving blocks,
    kernel 3 and stride 1 in the last), BatchNorm over the real positions, GELU. The widths double
    towards ``d_model``: halving block ``i`` has ``max(MIN_WIDTH, d_model / 2**(n_down - 1 - i))``
    channels (at most ``d_model``), so the long early resolutions stay cheap; the last block has
    ``d_model``. A series of ``n`` steps gives ``ceil(n / 2**n_down)`` tokens. Padded positions
    are zeroed after every block, so padding never leaks into real tokens' statistics, and a token
    is real when its position is below the series' length at that resolution. With ``n_down=0``
    it is a small convolutional embedding, one token per step.
    """

    positional = True

    def __init__(self, n_channels: int, d_model: int, n_down: int = 0, kernel_size: int = 5) -> None:
        super().__init__()
        self.d_model = d_model
        self.n_down = int(n_down)
        k = int(kernel_size)
        halving = [max(min(MIN_WIDTH, d_model), d_model // 2 ** (self.n_down - 1 - i))
                   for i in range(self.n_down)]  # fmt: skip
        widths = halving + [d_model]
        # per block: (kernel, stride); the stride-2 blocks halve the steps
        shapes = [(k, 2)] * self.n_down + [(3, 1)]
        inputs = [n_channels, *widths[:-1]]
        self.convs = nn.ModuleList(
            nn.Conv1d(i, w, kern, stride=stride, padding=kern // 2)
            for i, w, (kern, stride) in zip(inputs, widths, shapes, strict=True)
        )
        self.norms = nn.ModuleList(MaskedBatchNorm1d(w) for w in widths)

    def n_tokens(self, n: int) -> int:
        return -(-n // 2**self.n_down)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``x (B, N, C)`` -> ``(tokens (B, ceil(N / 2**n_down), d_model), mask | None)``."""
        lengths = None if mask is None else mask.sum(dim=1)
        h = x.transpose(1, 2)  # (B, C, N)
        m = None
        for conv, norm in zip(self.convs, self.norms, strict=True):
            h = conv(h)
            if lengths is not None and conv.stride[0] == 2:
                lengths = torch.div(lengths + 1, 2, rounding_mode="floor")
            m = None
            if lengths is not None:
                m = torch.arange(h.shape[2], device=h.device)[None, :] < lengths[:, None]
            t = nn.functional.gelu(norm(h.transpose(1, 2), m))  # (B, N', d_model)
            if m is not None:
                t = t * m[..., None].to(t.dtype)
            h = t.transpose(1, 2)
        mask = None if m is None or bool(m.all()) else m
        return h.transpose(1, 2), mask


class ConvRocketTokenizer(nn.Module):
    """The sum of a :class:`ConvTokenizer`'s and a :class:`RocketTokenizer`'s tokens (same
    ``n_down``, so the same tokens): the learned stem beside the fixed random-kernel features."""

    positional = True

    def __init__(self, n_channels: int, d_model: int, n_down: int = 0, max_len: int = 9) -> None:
        super().__init__()
        self.conv = ConvTokenizer(n_channels, d_model, n_down=n_down)
        self.rocket = RocketTokenizer(n_channels, d_model, n_down=n_down, max_len=max_len)

    def n_tokens(self, n: int) -> int:
        return self.conv.n_tokens(n)

    def fit_levels(self, batches) -> None:
        """The random-kernel maps' levels (:meth:`RocketTokenizer.fit_levels`)."""
        self.rocket.fit_levels(batches)

    def fixed_features(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """The random-kernel features (:meth:`RocketTokenizer.fixed_features`)."""
        return self.rocket.fixed_features(x, mask)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, fixed: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``x (B, N, C)`` -> ``(tokens (B, ceil(N / 2**n_down), d_model), mask | None)``;
        ``fixed``: the random-kernel features computed beforehand (:meth:`fixed_features`)."""
        tokens, mask_out = self.conv(x, mask)
        return tokens + self.rocket(x, mask, fixed)[0], mask_out




#: Tokeniser name -> class; each takes ``(n_channels, d_model, **params)``.
TOKENIZERS: dict[str, type[nn.Module]] = {
    "step": StepTokenizer,
    "patch": PatchTokenizer,
    "conv": ConvTokenizer,
    "rocket": RocketTokenizer,
    "conv_rocket": ConvRocketTokenizer,
}


def tokenizer_factory(name: str, n_channels: int, params: dict[str, Any] | None = None
                      ) -> Callable[[int], nn.Module]:
    """The factory ``d_model -> tokeniser`` for tokeniser ``name`` (:data:`TOKENIZERS`)."""
    if name not in TOKENIZERS:
        raise ValueError(f"tokenizer must be one of {sorted(TOKENIZERS)}, got {name!r}.")
    return partial(TOKENIZERS[name], n_channels, **(params or {}))


def tokenizer_sizes(name: str, length: int, max_tokens: int) -> dict[str, Any]:
    """The arguments of tokeniser ``name`` (:data:`TOKENIZERS`) that fit series of at most
    ``length`` steps into at most ``max_tokens`` tokens.

    ``'patch'``: patches of ``ceil(length / max_tokens)`` steps. ``'conv'``, ``'rocket'`` and
    ``'conv_rocket'``: ``n_down = ceil(log2(length / max_tokens))`` halvings (none when the
    series already fit); the rocket ones also ``max_len = length``, the span their dilations
    cover. ``'step'`` takes none: one token per step.
    """
    if name not in TOKENIZERS:
        raise ValueError(f"tokenizer must be one of {sorted(TOKENIZERS)}, got {name!r}.")
    if name == "patch":
        return {"patch_len": -(-length // max_tokens)}
    if name == "step":
        return {}
    sizes: dict[str, Any] = {"n_down": max(0, math.ceil(math.log2(length / max_tokens)))}
    if name in ("rocket", "conv_rocket"):
        sizes["max_len"] = length
    return sizes


def token_steps(sizes: dict[str, Any]) -> int:
    """Input steps per token of a tokeniser built with ``sizes`` (:func:`tokenizer_sizes`): the
    patch length, ``2**n_down`` for a halving stem, else 1."""
    return int(sizes.get("patch_len", 2 ** sizes.get("n_down", 0)))
