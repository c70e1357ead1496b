"""The MiniRocket tokeniser (``tokenizer="rocket"``): MiniRocket's fixed random dilated kernels
(Dempster et al. 2021), their proportions of positive values over each token's segment as its
features, the levels fitted once on the training series. Re-exported by :mod:`.tokenizers`."""

from __future__ import annotations

import itertools
import math

import torch
from torch import nn

from tsattn.layers import MaskedBatchNorm1d

__all__ = ["RocketTokenizer", "minirocket_kernels"]


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
