"""Forecasting network: instance normalisation, encoder, and a Fourier-extrapolation or linear head.

Follows Algorithms 3-4 of S3Attention (paper 002): each input window is normalised by its own mean
and ``sqrt(var + 1e-5)`` over time (``1`` in Algorithm 3), cut into patch tokens, encoded
by the shared trunk (:class:`~tsattn.nn.trunk.EncoderTrunk`) with any registered attention, projected back
to the channels and extrapolated by its lowest Fourier harmonics (``head="fourier"``), or mapped to the
horizon by a flattened linear layer (``head="linear"``); the output is de-normalised.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import torch
from torch import nn

from tsattn.layers import Dropout
from tsattn.nn.tokenizers import OverlappingPatchTokenizer, PatchTokenizer, VariateTokenizer
from tsattn.nn.trunk import EncoderTrunk

__all__ = [
    "FORECAST_HEADS",
    "FORECAST_TOKENS",
    "INSTANCE_NORM_EPS",
    "FourierExtrapolation",
    "TokenForecastHead",
    "LinearAnchor",
    "anchor_forecast",
    "seasonal_profile",
    "window_phases",
    "LinearForecastHead",
    "ForecastingTransformer",
    "fourier_extrapolate",
    "lowest_frequency_indices",
]

FORECAST_HEADS = ("fourier", "linear")
#: How a window becomes tokens: patches of steps (PatchTST), or a token per channel (iTransformer).
FORECAST_TOKENS = ("patch", "variate")
#: Added to each window's variance by the instance norm: RevIN's. Algorithm 3 of 002 adds 1, a
#: floor that leaves flat windows unscaled; on validation 1.028 of this one's MSE over 9 pairs
#: (``docs/results/forecast/zoo/``, ``eps1``).
INSTANCE_NORM_EPS = 1e-5


def lowest_frequency_indices(n: int, n_harm: int) -> torch.Tensor:
    """Indices of the ``1 + 2*n_harm`` FFT bins of lowest ``|f|`` (``fftfreq(n)``), at most ``n``.

    Ties in ``|f|`` (``+f`` and ``-f``) are broken by index, as a stable sort of ``range(n)`` does
    in Algorithm 4.
    """
    freqs = torch.fft.fftfreq(n, dtype=torch.float64)
    order = torch.sort(freqs.abs(), stable=True).indices
    return order[: min(n, 1 + 2 * n_harm)]


def fourier_extrapolate(x: torch.Tensor, horizon: int, n_harm: int) -> torch.Tensor:
    """Extrapolate ``x (B, n, C)`` along time by its lowest harmonics -> ``(B, horizon, C)``.

    ``X = FFT(x)`` over time; with ``K`` the ``1 + 2*n_harm`` bins of lowest ``|f_k|``, the signal is
    rebuilt as ``sum_k |X_k| / n * cos(2*pi*f_k*t + angle(X_k))`` for ``t = n .. n+horizon-1``. Pairs
    ``+f``/``-f`` together give each real sinusoid its full amplitude (``X_{-f} = conj(X_f)``).
    """
    n = x.shape[1]
    idx = lowest_frequency_indices(n, n_harm).to(x.device)
    spec = torch.fft.fft(x, dim=1)[:, idx, :]  # (B, K, C)
    amplitude = spec.abs() / n
    phase = torch.angle(spec)
    freqs = torch.fft.fftfreq(n, device=x.device, dtype=x.dtype)[idx]  # (K,)
    t = torch.arange(n, n + horizon, device=x.device, dtype=x.dtype)  # (horizon,)
    angle = 2 * math.pi * t[:, None] * freqs[None, :]  # (horizon, K)
    # (B, 1, K, C) * cos((1, horizon, K, 1) + (B, 1, K, C)) summed over K
    waves = amplitude[:, None] * torch.cos(angle[None, :, :, None] + phase[:, None])
    return waves.sum(dim=2)


class FourierExtrapolation(nn.Module):
    """Algorithm 4 of 002 as a module (no parameters): ``(B, n, C)`` -> ``(B, horizon, C)``."""

    def __init__(self, horizon: int, n_harm: int = 8) -> None:
        super().__init__()
        self.horizon = horizon
        self.n_harm = n_harm

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return fourier_extrapolate(x, self.horizon, self.n_harm)


class LinearForecastHead(nn.Module):
    """Flatten the encoded window ``(B, n, d_model)`` and map it linearly to ``(B, horizon, c_out)``."""

    def __init__(
        self, context_length: int, d_model: int, horizon: int, c_out: int, dropout: float
    ) -> None:
        super().__init__()
        self.horizon, self.c_out = horizon, c_out
        self.dropout = Dropout(dropout)
        self.linear = nn.Linear(context_length * d_model, horizon * c_out)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        b = h.shape[0]
        return self.linear(self.dropout(h).reshape(b, -1)).reshape(b, self.horizon, self.c_out)


class TokenForecastHead(nn.Module):
    """Each token mapped linearly to the horizon, ``(B, C, d_model)`` -> ``(B, C, horizon)`` (the
    variate view's head: a token per channel, iTransformer's projector)."""

    def __init__(self, d_model: int, horizon: int, dropout: float) -> None:
        super().__init__()
        self.dropout = Dropout(dropout)
        self.linear = nn.Linear(d_model, horizon)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.linear(self.dropout(h))


def window_phases(cycle: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """``(B,)`` the phase of the first step of each window ``x (B, L, C)`` in the seasonal profile
    ``cycle (P, C)``: argmin over ``p`` of ``||x - mean_t(x) - (Q[p:p+L] - mean_t(Q[p:p+L]))||^2``
    (summed over steps and channels), so no time stamp is needed."""
    period, length = cycle.shape[0], x.shape[1]
    steps = torch.arange(length, device=x.device)
    shifts = torch.arange(period, device=x.device)
    cand = cycle.to(x.dtype)[(shifts[:, None] + steps) % period]  # (P, L, C)
    cand = cand - cand.mean(dim=1, keepdim=True)
    xc = x - x.mean(dim=1, keepdim=True)
    # ||xc - cand||^2 = ||xc||^2 - 2 <xc, cand> + ||cand||^2, the first term the same for all p
    score = 2 * torch.einsum("blc,plc->bp", xc, cand) - cand.square().sum(dim=(1, 2))
    return score.argmax(dim=1)


def seasonal_profile(cycle: torch.Tensor, phases: torch.Tensor, steps: int) -> torch.Tensor:
    """``(B, steps, C)``: ``cycle (P, C)`` continued from each window's first-step phase."""
    offsets = torch.arange(steps, device=phases.device)
    return cycle[(phases[:, None] + offsets) % cycle.shape[0]]


def anchor_forecast(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                    cycle: torch.Tensor | None = None) -> torch.Tensor:  # fmt: skip
    """A linear forecaster on raw windows: ``x (B, L, C)`` -> ``(B, horizon, C)``, the same map for
    every channel, ``out[:, k, c] = weight[k] @ x[:, :, c] + bias[k]`` (``weight (horizon, L)``,
    ``bias (horizon,)``).

    With a seasonal profile ``cycle (P, C)`` (the mean of the training rows at each phase, as
    CycleNet's residual cycle, Lin et al. 2024), each window's phase is found from its values
    (:func:`window_phases`: no time stamp needed, and a context shorter than the season is placed
    too), the profile is taken from the window before the linear map and its continuation added
    to the forecast.
    """
    weight, bias = weight.to(x.dtype), bias.to(x.dtype)
    if cycle is None:
        return torch.einsum("blc,kl->bkc", x, weight) + bias[:, None]
    length, horizon = x.shape[1], weight.shape[0]
    cycle = cycle.to(x.dtype)
    profile = seasonal_profile(cycle, window_phases(cycle, x), length + horizon)
    out = torch.einsum("blc,kl->bkc", x - profile[:, :length], weight) + bias[:, None]
    return out + profile[:, length:]


class LinearAnchor(nn.Module):
    """The fixed linear forecaster the network is blended with (:func:`anchor_forecast`), its
    weights held as buffers: the last value repeated until :meth:`set` gives the fitted ones (a
    ridge regression solved in closed form by the estimator, not trained by gradient).

    ``period > 1`` makes room for a seasonal profile ``cycle (period, n_channels)``, used when
    :meth:`set` is given one.
    """

    def __init__(self, context_length: int, horizon: int, n_channels: int, period: int) -> None:
        super().__init__()
        weight = torch.zeros(horizon, context_length)
        weight[:, -1] = 1.0
        self.register_buffer("weight", weight)
        self.register_buffer("bias", torch.zeros(horizon))
        self.period = int(period)
        if self.period > 1:
            self.register_buffer("cycle", torch.zeros(self.period, n_channels))
            self.register_buffer("use_cycle", torch.zeros((), dtype=torch.bool))

    @torch.no_grad()
    def set(self, weight: Any, bias: Any, cycle: Any = None) -> None:
        """Take a fitted anchor: ``weight (horizon, L)``, ``bias (horizon,)`` and the seasonal
        profile ``cycle (period, C)`` or None (arrays or tensors)."""
        if tuple(weight.shape) != tuple(self.weight.shape) or tuple(bias.shape) != tuple(self.bias.shape):
            raise ValueError(f"anchor weight {tuple(weight.shape)} and bias {tuple(bias.shape)} "
                             f"do not fit {tuple(self.weight.shape)} and {tuple(self.bias.shape)}.")
        self.weight.copy_(torch.as_tensor(weight))
        self.bias.copy_(torch.as_tensor(bias))
        if cycle is not None and self.period <= 1:
            raise ValueError("a seasonal anchor needs a LinearAnchor built with period > 1.")
        if self.period > 1:
            self.use_cycle.fill_(cycle is not None)
            if cycle is not None:
                self.cycle.copy_(torch.as_tensor(cycle))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        cycle = self.cycle if self.period > 1 and bool(self.use_cycle) else None
        return anchor_forecast(x, self.weight, self.bias, cycle)


class ForecastingTransformer(EncoderTrunk):
    """Window ``(B, context_length, n_channels)`` -> forecast ``(B, horizon, n_channels)``.

    Each window is normalised by its mean and ``sqrt(var + INSTANCE_NORM_EPS)`` over time (RevIN;
    Algorithm 3 of 002 with its floor of 1 left off: ``docs/results/forecast/``) and the forecast
    de-normalised.

    Parameters
    ----------
    n_channels, context_length, horizon : data sizes.
    head : ``"fourier"`` (project tokens to the channels, Fourier-extrapolate) or ``"linear"``.
    n_harm : harmonics kept by the Fourier head (``1 + 2*n_harm`` frequencies).
    channel_independent : encode every channel as its own univariate series with shared weights
        (the batch becomes ``B * n_channels`` series of one channel); otherwise one token holds every
        channel of a time step.
    patch_len : steps per token (:class:`~tsattn.nn.tokenizers.PatchTokenizer`). ``1`` is one
        token per time step as in 002. The Fourier head decodes every token back to ``patch_len``
        steps, drops the tokeniser's left padding and extrapolates the ``context_length`` steps.
    tokens : ``"patch"``, patch tokens as above; ``"variate"``, a token per channel, its whole
        window embedded linearly (:class:`~tsattn.nn.tokenizers.VariateTokenizer`, iTransformer),
        attention across channels, no positions; ``channel_independent`` and ``patch_len`` are
        then unused, the linear head maps each token to its channel's horizon and the Fourier head
        decodes it to its channel's context and extrapolates that.
    anchor : add a :class:`LinearAnchor` on the raw window; the output is then
        ``blend * network + (1 - blend) * anchor`` with ``blend`` a buffer (1 until
        :meth:`set_blend`, so training sees the network alone).
    anchor_period : steps per season of the anchor's seasonal profile (1: none).
    patch_stride : steps between the starts of two patches; None or ``patch_len``: non-overlapping
        patches; below ``patch_len``, overlapping ones with the end padded
        (:class:`~tsattn.nn.tokenizers.OverlappingPatchTokenizer`, PatchTST's patch 16 stride 8);
        the linear head only.
    **trunk : the trunk's parameters (:class:`~tsattn.nn.trunk.EncoderTrunk`), every one given
        (the estimator declares the defaults). A length-dependent attention hyperparameter left
        None (``s3``'s ``max_len``) covers exactly the tokens of a window.

    The estimator hands the fitted parts down through :meth:`set_anchor` and :meth:`set_blend`;
    nothing is read back from here to decide anything above.
    """

    def __init__(
        self,
        n_channels: int,
        context_length: int,
        horizon: int,
        *,
        head: str,
        n_harm: int,
        channel_independent: bool,
        patch_len: int,
        anchor: bool,
        tokens: str = "patch",
        anchor_period: int = 1,
        patch_stride: int | None = None,
        **trunk: Any,
    ) -> None:
        if head not in FORECAST_HEADS:
            raise ValueError(f"head must be one of {FORECAST_HEADS}, got {head!r}.")
        if tokens not in FORECAST_TOKENS:
            raise ValueError(f"tokens must be one of {FORECAST_TOKENS}, got {tokens!r}.")
        variate = tokens == "variate"
        overlap = patch_stride is not None and patch_stride != patch_len
        if overlap and (variate or head != "linear"):
            raise ValueError("patch_stride below patch_len (overlapping patches) needs patch tokens "
                             "and head='linear'.")
        if variate:  # a token per channel: every channel of a window at once
            channel_independent, patch_len = False, context_length
            tokenizer = partial(VariateTokenizer, n_channels, context_length=context_length)
            n_tokens = n_channels
        else:
            c = 1 if channel_independent else n_channels
            if overlap:
                tokenizer = partial(OverlappingPatchTokenizer, c, patch_len=patch_len, stride=patch_stride)
                n_tokens = None
            else:
                tokenizer = partial(PatchTokenizer, c, patch_len=patch_len)
                n_tokens = -(-context_length // patch_len)
        super().__init__(tokenizer, max_len=context_length, **trunk)
        if n_tokens is None:
            n_tokens = self.tokenizer.n_tokens(context_length)
        self.tokens = tokens
        self.n_channels = n_channels
        self.horizon = horizon
        self.channel_independent = channel_independent
        self.context_length = context_length
        self.patch_len = patch_len
        self.n_tokens = n_tokens
        self.head_kind = head
        if variate:  # each channel's token decoded to its context (Fourier) or its horizon
            self.pad = 0
            if head == "fourier":
                self.output_projection = nn.Linear(self.d_model, context_length)
                self.head: nn.Module = FourierExtrapolation(horizon, n_harm)
            else:
                self.head = TokenForecastHead(self.d_model, horizon, self.dropout_rate)
        else:
            self.pad = self.tokenizer.pad(context_length) if head == "fourier" else 0
            if head == "fourier":
                self.output_projection = nn.Linear(self.d_model, c * patch_len)
                self.head = FourierExtrapolation(horizon, n_harm)
            else:
                self.head = LinearForecastHead(n_tokens, self.d_model, horizon, c, self.dropout_rate)
        self.anchor = (LinearAnchor(context_length, horizon, n_channels, anchor_period)
                       if anchor else None)  # fmt: skip
        self.register_buffer("blend", torch.ones(()))

    def set_anchor(self, weight: Any, bias: Any, cycle: Any = None) -> None:
        """The fitted anchor's ``weight (horizon, L)``, ``bias (horizon,)`` and seasonal profile
        ``cycle (anchor_period, C)`` or None (:meth:`LinearAnchor.set`)."""
        if self.anchor is None:
            raise ValueError("this network was built with anchor=False: it has no anchor to set.")
        self.anchor.set(weight, bias, cycle)

    @torch.no_grad()
    def set_blend(self, blend: float) -> None:
        """The network's share in the forecast, in [0, 1] (the anchor takes the rest)."""
        if not 0.0 <= float(blend) <= 1.0:
            raise ValueError(f"blend must lie in [0, 1]; got {blend}.")
        self.blend.fill_(float(blend))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,
                parts: bool = False) -> torch.Tensor | tuple[torch.Tensor, ...]:  # fmt: skip
        """``x (B, n, C)`` -> ``(B, horizon, C)``; windows are complete, so ``mask`` must be None.
        ``parts``: also the network's forecast alone and the anchor's (None without an anchor),
        ``(forecast, network, anchor)``."""
        if mask is not None:
            raise ValueError("forecasting windows have no padding; mask must be None.")
        b, n, c = x.shape
        raw = x
        std = torch.sqrt(x.var(dim=1, keepdim=True) + INSTANCE_NORM_EPS)  # unbiased, as Algorithm 3
        mean = x.mean(dim=1, keepdim=True)
        x = (x - mean) / std
        if self.channel_independent:
            x = x.permute(0, 2, 1).reshape(b * c, n, 1)
        h, _, _ = self.encode(x)
        if self.tokens == "variate":  # h (B, C, d_model): a token per channel
            if self.head_kind == "fourier":
                out = self.head(self.output_projection(h).transpose(1, 2))
            else:
                out = self.head(h).transpose(1, 2)
        elif self.head_kind == "fourier":
            bc, c_in = x.shape[0], x.shape[2]
            seq = self.output_projection(h).reshape(bc, self.n_tokens * self.patch_len, c_in)
            out = self.head(seq[:, self.pad :])
        else:
            out = self.head(h)
        if self.channel_independent:
            out = out.reshape(b, c, self.horizon).permute(0, 2, 1)
        out = out * std + mean
        if parts:
            simple = None if self.anchor is None else self.anchor(raw)
            blended = out if simple is None else self.blend * out + (1 - self.blend) * simple
            return blended, out, simple
        if self.anchor is not None and bool(self.blend < 1):
            out = self.blend * out + (1 - self.blend) * self.anchor(raw)
        return out
