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

import itertools
import math
from collections.abc import Callable
from functools import partial
from typing import Any

import torch
from torch import nn

from tsattn.layers import MaskedBatchNorm1d
from tsattn.nn.heads import masked_mean_max

__all__ = [
    "StepTokenizer",
    "PatchTokenizer",
    "OverlappingPatchTokenizer",
    "ConvTokenizer",
    "RocketTokenizer",
    "ConvRocketTokenizer",
    "VariateTokenizer",
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


class ConvTokenizer(nn.Module):
    """A strided convolutional stem: ``n_down`` blocks that each halve the steps, then one block at
    the tokens' resolution; a token sees about ``2**n_down`` steps and their neighbours.

    Each block is ``Conv1d`` (kernel ``kernel_size``, stride 2 in the ``n_down`` halving blocks,
    kernel 3 and stride 1 in the last), BatchNorm over the real positions, GELU. The widths double
    towards ``d_model``: halving block ``i`` has ``max(min_width, d_model / 2**(n_down - 1 - i))``
    channels, so the long early resolutions stay cheap; the last block has ``d_model``. A series of ``n`` steps gives ``ceil(n / 2**n_down)`` tokens. Padded
    positions are zeroed after every block, so padding never leaks into real tokens' statistics,
    and a token is real when its position is below the series' length at that resolution. With
    ``n_down=0`` it is a small convolutional embedding, one token per step. ``input_blocks``
    stride-1 blocks (kernel ``kernel_size``, the first halving block's width) come first, at the
    input's full resolution, so the first halving sees features rather than raw steps. With
    ``diff=True`` the stem also sees each channel's first difference ``x[t] - x[t-1]`` (0 at a
    series' first step), BatchNorm-standardised over the real steps, as ``n_channels`` more
    input channels: the slopes that shape-based classifiers (e.g. MultiRocket) read directly.
    """

    positional = True

    def __init__(
        self, n_channels: int, d_model: int, n_down: int = 0, kernel_size: int = 5,
        min_width: int = 16, input_blocks: int = 0, diff: bool = False,
    ) -> None:
        super().__init__()
        self.d_model = d_model
        self.n_down = int(n_down)
        k = int(kernel_size)
        halving = [max(min(min_width, d_model), d_model // 2 ** (self.n_down - 1 - i))
                   for i in range(self.n_down)]  # fmt: skip
        widths = [(halving or [d_model])[0]] * int(input_blocks) + halving + [d_model]
        # per block: (kernel, stride); the stride-2 blocks halve the steps
        shapes = [(k, 1)] * int(input_blocks) + [(k, 2)] * self.n_down + [(3, 1)]
        self.diff_norm = MaskedBatchNorm1d(n_channels, affine=False) if diff else None
        inputs = [n_channels * (2 if diff else 1), *widths[:-1]]
        self.convs = nn.ModuleList(
            nn.Conv1d(i, w, kern, stride=stride, padding=kern // 2)
            for i, w, (kern, stride) in zip(inputs, widths, shapes, strict=True)
        )
        self.norms = nn.ModuleList(MaskedBatchNorm1d(w) for w in widths)

    def n_tokens(self, n: int) -> int:
        return -(-n // 2**self.n_down)

    @property
    def pooled_width(self) -> int:
        """Features of :meth:`forward`'s ``pooled`` output: mean and maximum of every block but the last."""
        return 2 * sum(conv.out_channels for conv in self.convs[:-1])

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, pooled: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor | None] | tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
        """``x (B, N, C)`` -> ``(tokens (B, ceil(N / 2**n_down), d_model), mask | None)``; with
        ``pooled``, also ``(B, pooled_width)``: the mean and the maximum over the real positions of
        every block's output but the last (the tokens), features at each resolution of the stem."""
        lengths = None if mask is None else mask.sum(dim=1)
        if self.diff_norm is not None:
            d = self.diff_norm(nn.functional.pad(x.diff(dim=1), (0, 0, 1, 0)), mask)
            x = torch.cat([x, d if mask is None else d * mask[..., None].to(d.dtype)], dim=2)
        h = x.transpose(1, 2)  # (B, C, N)
        summaries = []
        for i, (conv, norm) in enumerate(zip(self.convs, self.norms, strict=True)):
            h = conv(h)
            if lengths is not None and conv.stride[0] == 2:
                lengths = torch.div(lengths + 1, 2, rounding_mode="floor")
            m = None
            if lengths is not None:
                m = torch.arange(h.shape[2], device=h.device)[None, :] < lengths[:, None]
            t = nn.functional.gelu(norm(h.transpose(1, 2), m))  # (B, N', d_model)
            if m is not None:
                t = t * m[..., None].to(t.dtype)
            if pooled and i < len(self.convs) - 1:
                summaries.append(masked_mean_max(t, m))
            h = t.transpose(1, 2)
        mask = None if m is None or bool(m.all()) else m
        if not pooled:
            return h.transpose(1, 2), mask
        return h.transpose(1, 2), mask, torch.cat(summaries, dim=1) if summaries else h.new_zeros(len(h), 0)


def minirocket_kernels() -> torch.Tensor:
    """MiniRocket's 84 kernels (Dempster et al. 2021) ``(84, 9)``: weight -1 at every one of nine
    positions but 2 at three of them, for every choice of the three (each kernel sums to zero)."""
    weight = torch.full((84, 9), -1.0)
    for i, chosen in enumerate(itertools.combinations(range(9), 3)):
        weight[i, list(chosen)] = 2.0
    return weight


class RocketTokenizer(nn.Module):
    """Fixed random-kernel features pooled into tokens: MiniRocket's transform made local.

    MiniRocket's 84 kernels (:func:`minirocket_kernels`) run at ``n_dilations`` dilations spaced
    exponentially from 1 to ``(max_len - 1) / 8`` (the widest spans the longest training series),
    each on a fixed random sum of channels (one to nine, as in MiniRocket's multivariate version;
    drawn from torch's generator, so from the estimator's ``random_state``). Every output map is
    compared with its level, its mean plus a threshold in its standard deviations (the
    ``thresholds`` levels taken in turn over the maps, one per map); the mean and deviation of
    each map are fitted once on the training series (:meth:`fit_levels`, real steps only), as
    MiniRocket fits its biases, and kept in ``running_mean`` and ``running_var``. The proportion of
    positive values (PPV) over each segment of ``2**n_down`` steps is one feature of that segment's
    token, read at ``samples`` evenly spaced steps of the segment (rounded up to a power of two;
    None: every step), so the cost grows with the number of tokens, not with the series' length.
    The features, ``84 * len(dilations)`` per token, go through a learned ``Conv1d`` (kernel 3) to
    ``d_model``, BatchNorm over the real tokens and GELU. Nothing before that convolution is
    learned, so no gradient flows through the kernels, and a series' features depend on that
    series alone: :meth:`fixed_features` computes them (as counts of positive steps) once, and
    ``forward`` takes them precomputed (``fixed``), so the training loop computes them once per fit
    for the series that augmentation leaves unchanged. A series of ``n`` steps gives
    ``ceil(n / 2**n_down)`` tokens; a token is real when its segment holds a real step.
    """

    positional = True

    def __init__(
        self, n_channels: int, d_model: int, n_down: int = 0, max_len: int = 9,
        n_dilations: int = 8, thresholds: tuple[float, ...] = (-0.674, 0.0, 0.674),
        samples: int | None = 16,
    ) -> None:
        super().__init__()
        self.d_model, self.n_down = d_model, int(n_down)
        self.samples = None if samples is None else 2 ** math.ceil(math.log2(max(1, samples)))
        top = math.log2(max(1.0, (max_len - 1) / 8))
        spaced = [int(2 ** (top * i / max(1, n_dilations - 1))) for i in range(n_dilations)]
        self.dilations = sorted(set(spaced))
        mixes = torch.ones(len(self.dilations), n_channels, 84)  # one channel: nothing to draw
        for mix in mixes if n_channels > 1 else ():
            mix.zero_()
            for k in range(84):
                top_c = math.log2(min(n_channels, 9) + 1)
                size = int(2 ** (float(torch.rand(1)) * top_c))
                mix[torch.randperm(n_channels)[: max(1, size)], k] = 1.0
        # (D, 84, C, 9): kernel k at dilation i on the sum of the channels its mix picks
        kernels = minirocket_kernels()
        weights = kernels[None, :, None, :] * mixes.transpose(1, 2)[..., None]
        self.register_buffer("weights", weights)
        n_maps = 84 * len(self.dilations)
        # one threshold per map, the levels taken in turn (in standard deviations of the map)
        levels = torch.tensor(thresholds, dtype=torch.float32)
        self.register_buffer("thresholds", levels[torch.arange(n_maps) % len(levels)])
        self.register_buffer("running_mean", torch.zeros(n_maps))
        self.register_buffer("running_var", torch.ones(n_maps))
        self.levels_fitted = False
        self.projection = nn.Conv1d(n_maps, d_model, 3, padding=1)
        self.norm = MaskedBatchNorm1d(d_model)

    def n_tokens(self, n: int) -> int:
        return -(-n // 2**self.n_down)

    def _sampling(self) -> tuple[int, int]:
        """``(stride, per)``: the steps between two read steps, and the read steps per segment."""
        seg = 2**self.n_down
        stride = max(1, seg // self.samples) if self.samples else 1  # both powers of two
        return stride, seg // stride

    def _maps(self, x: torch.Tensor, mask: torch.Tensor | None):
        """Per dilation ``i``: ``(rows, z (B, 84, S))``, the maps at every ``stride``-th step (the
        first step of every segment among them), and once ``real (B, 1, S)``, the read steps that
        are real (None without a mask)."""
        stride, _ = self._sampling()
        xt = x.transpose(1, 2).float()
        real = None if mask is None else mask[:, None, ::stride]
        for i, d in enumerate(self.dilations):
            # a kernel on a sum of channels is the sum of its convolutions of each: one dense conv
            z = nn.functional.conv1d(xt, self.weights[i], padding=4 * d, dilation=d, stride=stride)
            yield slice(84 * i, 84 * (i + 1)), z, real

    @torch.no_grad()
    def fit_levels(self, batches) -> None:
        """Fit each map's mean and variance (``running_mean``, ``running_var``) on the training
        series, given as batches ``(x (B, N, C), mask (B, N) | None)`` (standardised, zero at
        padded steps): the statistics of every read real step of every series, in float64."""
        n_maps = self.running_mean.numel()
        count = torch.zeros(n_maps, dtype=torch.float64, device=self.running_mean.device)
        total, squares = torch.zeros_like(count), torch.zeros_like(count)
        with torch.autocast(self.running_mean.device.type, enabled=False):
            for x, mask in batches:
                for rows, z, real in self._maps(x, mask):
                    z = z.double()
                    if real is not None:
                        z = z * real  # padded steps count as zero in the sums, and not at all
                    count[rows] += z.shape[0] * z.shape[2] if real is None else real.sum()
                    total[rows] += z.sum((0, 2))
                    squares[rows] += (z * z).sum((0, 2))
        mean = total / count.clamp_min(1)
        var = (squares / count.clamp_min(1) - mean**2).clamp_min(0)
        self.running_mean.copy_(mean.float())
        self.running_var.copy_(var.float())
        self.levels_fitted = True

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs) -> None:
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
        self.levels_fitted = True  # the levels come with the weights

    @torch.no_grad()
    def fixed_features(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """``x (B, N, C)``, ``mask (B, N) | None`` -> ``(B, maps, ceil(N / 2**n_down))`` the count of
        read real steps above their map's level in each segment (uint8, or int32 beyond 255 read
        steps per segment); what :meth:`forward` takes as ``fixed``."""
        if self.training and not self.levels_fitted:
            raise RuntimeError(
                "RocketTokenizer's levels are not fitted: call fit_levels on the training series "
                "(tsattn.training.fit_levels(network, data)) before training it."
            )
        stride, per = self._sampling()
        b, p = x.shape[0], self.n_tokens(x.shape[1])
        level = (self.running_mean + self.thresholds * torch.sqrt(self.running_var + 1e-5))[:, None]
        # every map's comparisons in one tensor, its read steps padded to whole segments
        positive = torch.zeros(b, level.shape[0], p * per, dtype=torch.bool, device=x.device)
        with torch.autocast(x.device.type, enabled=False):
            for rows, z, real in self._maps(x, mask):  # noqa: B007 (real: the same every map, used below)
                torch.gt(z, level[rows], out=positive[:, rows, : z.shape[2]])
        if real is not None:
            positive[..., : real.shape[2]] &= real
        dtype = torch.uint8 if per <= 255 else torch.int32
        return positive.view(torch.uint8).view(b, -1, p, per).sum(-1, dtype=dtype)

    def _proportions(
        self, x: torch.Tensor, mask: torch.Tensor | None, fixed: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``(PPV features (B, maps, P) float32, real tokens (B, P) | None)``, from ``fixed`` when
        given (computed on this or a longer padding: the extra segments are cut)."""
        stride, per = self._sampling()
        b, n, _ = x.shape
        p = self.n_tokens(n)
        counts = self.fixed_features(x, mask) if fixed is None else fixed[..., :p]
        # read steps per segment that are real (all in-bounds ones without a mask)
        read = x.new_ones(b, 1, n)[..., ::stride] if mask is None else mask[:, None, ::stride]
        read = nn.functional.pad(read.float(), (0, p * per - read.shape[2]))
        read = read.view(b, 1, p, per).sum(-1)
        m = None if mask is None else read[:, 0] > 0
        return counts.float() / read.clamp_min(1), m

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, fixed: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``x (B, N, C)`` -> ``(tokens (B, ceil(N / 2**n_down), d_model), mask | None)``; ``fixed``:
        :meth:`fixed_features` of these series computed beforehand (on this or a longer padding)."""
        # fixed features in float32 whatever the autocast, then the learned projection
        with torch.autocast(x.device.type, enabled=False):
            feats, m = self._proportions(x, mask, fixed)
        t = nn.functional.gelu(self.norm(self.projection(feats.to(x.dtype)).transpose(1, 2), m))
        if m is not None:
            t = t * m[..., None].to(t.dtype)
        return t, None if m is None or bool(m.all()) else m


class ConvRocketTokenizer(nn.Module):
    """The sum of a :class:`ConvTokenizer`'s and a :class:`RocketTokenizer`'s tokens (same
    ``n_down``, so the same tokens): the learned stem beside the fixed random-kernel features."""

    positional = True

    def __init__(self, n_channels: int, d_model: int, n_down: int = 0, max_len: int = 9,
                 **conv: Any) -> None:  # fmt: skip
        super().__init__()
        self.conv = ConvTokenizer(n_channels, d_model, n_down=n_down, **conv)
        self.rocket = RocketTokenizer(n_channels, d_model, n_down=n_down, max_len=max_len)

    def n_tokens(self, n: int) -> int:
        return self.conv.n_tokens(n)

    @property
    def pooled_width(self) -> int:
        """Features of :meth:`forward`'s ``pooled`` output (the stem's, :class:`ConvTokenizer`)."""
        return self.conv.pooled_width

    def fit_levels(self, batches) -> None:
        """The random-kernel maps' levels (:meth:`RocketTokenizer.fit_levels`)."""
        self.rocket.fit_levels(batches)

    def fixed_features(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """The random-kernel features (:meth:`RocketTokenizer.fixed_features`)."""
        return self.rocket.fixed_features(x, mask)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, pooled: bool = False,
        fixed: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, ...]:
        """``x (B, N, C)`` -> ``(tokens (B, ceil(N / 2**n_down), d_model), mask | None)``; with
        ``pooled``, also the stem's pooled blocks (:meth:`ConvTokenizer.forward`); ``fixed``: the
        random-kernel features computed beforehand (:meth:`fixed_features`)."""
        out = self.conv(x, mask, pooled=pooled)
        return (out[0] + self.rocket(x, mask, fixed)[0], *out[1:])


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


def tokenizer_sizes(name: str, length: int, max_tokens: int, stem: dict[str, Any] | None = None
                    ) -> dict[str, Any]:  # fmt: skip
    """The arguments of tokeniser ``name`` (:data:`TOKENIZERS`) that fit series of at most
    ``length`` steps into at most ``max_tokens`` tokens.

    ``'patch'``: patches of ``ceil(length / max_tokens)`` steps. ``'conv'``, ``'rocket'`` and
    ``'conv_rocket'``: ``n_down = ceil(log2(length / max_tokens))`` halvings (none when the
    series already fit); the rocket ones also ``max_len = length``, the span their dilations
    cover. ``stem`` (the ``'conv'`` stem's ``min_width``, ``input_blocks``, ``diff``) is added
    for the tokenisers with a convolutional stem. ``'step'`` takes none: one token per step.
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
    if name in ("conv", "conv_rocket"):
        sizes.update(stem or {})
    return sizes


def token_steps(sizes: dict[str, Any]) -> int:
    """Input steps per token of a tokeniser built with ``sizes`` (:func:`tokenizer_sizes`): the
    patch length, ``2**n_down`` for a halving stem, else 1."""
    return int(sizes.get("patch_len", 2 ** sizes.get("n_down", 0)))
