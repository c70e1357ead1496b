"""Forecasting network: instance normalisation, encoder, and a Fourier-extrapolation or linear head.

Follows Algorithms 3-4 of S3Attention (paper 002): each input window is normalised by its own mean
and ``sqrt(var + instance_norm_eps)`` over time (``1`` in Algorithm 3), cut into patch tokens, encoded
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

from tsattn.attention import attention_hyperparameters
from tsattn.layers import Dropout
from tsattn.nn.tokenizers import PatchTokenizer
from tsattn.nn.trunk import EncoderTrunk

__all__ = [
    "FORECAST_HEADS",
    "FourierExtrapolation",
    "LinearAnchor",
    "LinearForecastHead",
    "ForecastingTransformer",
    "fourier_extrapolate",
    "lowest_frequency_indices",
]

FORECAST_HEADS = ("fourier", "linear")


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


class LinearAnchor(nn.Module):
    """A fixed linear forecaster on the raw window: ``(B, L, C)`` -> ``(B, horizon, C)``, the same
    map for every channel: ``out[:, k, c] = weight[k] @ x[:, :, c] + bias[k]``.

    Its weights are buffers set by the estimator (a ridge regression fitted in closed form, or the
    last value repeated), not trained by gradient; the network blends its forecast with this one.

    With ``period > 1`` it can also hold a seasonal profile ``cycle (period, C)`` (the mean of the
    training rows at each phase, as CycleNet's residual cycle, Lin et al. 2024), used once
    ``use_cycle`` is set: each window's phase is the shift whose profile, centred, lies nearest the
    centred window over every channel (so no time stamp is needed, and a context shorter than the
    period is placed too); the profile is taken from the window before the linear map and its
    continuation added to the forecast.
    """

    def __init__(self, context_length: int, horizon: int, n_channels: int = 1,
                 period: int = 1) -> None:  # fmt: skip
        super().__init__()
        weight = torch.zeros(horizon, context_length)
        weight[:, -1] = 1.0  # the last value repeated until the estimator sets the weights
        self.register_buffer("weight", weight)
        self.register_buffer("bias", torch.zeros(horizon))
        self.period = int(period)
        if self.period > 1:
            self.register_buffer("cycle", torch.zeros(self.period, n_channels))
            self.register_buffer("use_cycle", torch.zeros((), dtype=torch.bool))

    def phases(self, x: torch.Tensor) -> torch.Tensor:
        """``(B,)`` the phase of each window's first step (:func:`window_phases`)."""
        return window_phases(self.cycle, x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight, bias = self.weight.to(x.dtype), self.bias.to(x.dtype)
        if self.period <= 1 or not bool(self.use_cycle):
            return torch.einsum("blc,kl->bkc", x, weight) + bias[:, None]
        length, horizon = x.shape[1], weight.shape[0]
        profile = seasonal_profile(self.cycle.to(x.dtype), self.phases(x), length + horizon)
        out = torch.einsum("blc,kl->bkc", x - profile[:, :length], weight) + bias[:, None]
        return out + profile[:, length:]


class ForecastingTransformer(EncoderTrunk):
    """Window ``(B, context_length, n_channels)`` -> forecast ``(B, horizon, n_channels)``.

    Parameters
    ----------
    n_channels, context_length, horizon : data sizes.
    head : ``"fourier"`` (project tokens to the channels, Fourier-extrapolate) or ``"linear"``.
    n_harm : harmonics kept by the Fourier head (``1 + 2*n_harm`` frequencies).
    instance_norm : normalise each window by its mean and ``sqrt(var + instance_norm_eps)`` over
        time and de-normalise the forecast (Algorithm 3 of 002 with ``instance_norm_eps=1``).
    instance_norm_eps : added to each window's variance. ``1.0`` is Algorithm 3 (a floor: windows
        flatter than the globally standardised series are not scaled up); a small value such as
        ``1e-5`` is RevIN's (every window scaled to unit variance, so the network is equivariant to
        the window's level *and* scale).
    channel_independent : encode every channel as its own univariate series with shared weights
        (the batch becomes ``B * n_channels`` series of one channel); otherwise one token holds every
        channel of a time step.
    patch_len : steps per token (:class:`~tsattn.nn.tokenizers.PatchTokenizer`). ``1`` is one
        token per time step as in 002. The Fourier head decodes every token back to ``patch_len``
        steps, drops the tokeniser's left padding and extrapolates the ``context_length`` steps.
    anchor : add a :class:`LinearAnchor` on the raw window; the output is then
        ``blend * network + (1 - blend) * anchor`` with ``blend`` a buffer (1 until the estimator
        sets it, so training sees the network alone).
    anchor_period : steps per season of the anchor's seasonal profile (1: none).
    season_period : with ``> 1``, a seasonal profile ``season (season_period, n_channels)`` the
        network's input is taken from and its forecast continued with (CycleNet's residual
        cycle around the transformer), once ``season_active`` is set; before that the network
        reads its input as it is (the estimator trains it on series with the profile removed).
    **trunk : the trunk's parameters (:class:`~tsattn.nn.trunk.EncoderTrunk`), with its defaults.
        A length-dependent attention hyperparameter left unset (``s3``'s ``max_len``) covers
        exactly the tokens of a window.
    """

    def __init__(
        self,
        n_channels: int,
        context_length: int,
        horizon: int,
        *,
        head: str = "fourier",
        n_harm: int = 8,
        instance_norm: bool = True,
        instance_norm_eps: float = 1.0,
        channel_independent: bool = True,
        patch_len: int = 1,
        anchor: bool = False,
        anchor_period: int = 1,
        season_period: int = 1,
        **trunk: Any,
    ) -> None:
        if head not in FORECAST_HEADS:
            raise ValueError(f"head must be one of {FORECAST_HEADS}, got {head!r}.")
        n_tokens = -(-context_length // patch_len)
        attention = trunk.get("attention", "softmax")
        if isinstance(attention, str) and "max_len" in attention_hyperparameters(attention):
            params = dict(trunk.get("attention_params") or {})
            if params.get("max_len") is None:
                trunk["attention_params"] = {**params, "max_len": n_tokens}
        c = 1 if channel_independent else n_channels
        super().__init__(partial(PatchTokenizer, c, patch_len=patch_len), **trunk)
        self.n_channels = n_channels
        self.horizon = horizon
        self.instance_norm = instance_norm
        self.instance_norm_eps = float(instance_norm_eps)
        self.channel_independent = channel_independent
        self.context_length = context_length
        self.patch_len = patch_len
        self.n_tokens = n_tokens
        self.pad = self.tokenizer.pad(context_length)
        self.head_kind = head
        if head == "fourier":
            self.output_projection = nn.Linear(self.d_model, c * patch_len)
            self.head: nn.Module = FourierExtrapolation(horizon, n_harm)
        else:
            self.head = LinearForecastHead(n_tokens, self.d_model, horizon, c, self.dropout_rate)
        self.anchor = (LinearAnchor(context_length, horizon, n_channels, anchor_period)
                       if anchor else None)  # fmt: skip
        self.register_buffer("blend", torch.ones(()))
        self.season_period = int(season_period)
        if self.season_period > 1:
            self.register_buffer("season", torch.zeros(self.season_period, n_channels))
            self.register_buffer("season_active", torch.zeros((), dtype=torch.bool))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """``x (B, n, C)`` -> ``(B, horizon, C)``; windows are complete, so ``mask`` must be None."""
        if mask is not None:
            raise ValueError("forecasting windows have no padding; mask must be None.")
        b, n, c = x.shape
        raw = x
        profile = None
        if getattr(self, "season_period", 1) > 1 and bool(self.season_active):
            season = self.season.to(x.dtype)
            profile = seasonal_profile(season, window_phases(season, x), n + self.horizon)
            x = x - profile[:, :n]
        if self.instance_norm:
            mean = x.mean(dim=1, keepdim=True)
            std = torch.sqrt(x.var(dim=1, keepdim=True) + self.instance_norm_eps)  # unbiased, as Algorithm 3
            x = (x - mean) / std
        if self.channel_independent:
            x = x.permute(0, 2, 1).reshape(b * c, n, 1)
        h, _, _ = self.encode(x)
        if self.head_kind == "fourier":
            bc, c_in = x.shape[0], x.shape[2]
            seq = self.output_projection(h).reshape(bc, self.n_tokens * self.patch_len, c_in)
            out = self.head(seq[:, self.pad :])
        else:
            out = self.head(h)
        if self.channel_independent:
            out = out.reshape(b, c, self.horizon).permute(0, 2, 1)
        if self.instance_norm:
            out = out * std + mean
        if profile is not None:
            out = out + profile[:, n:]
        if self.anchor is not None and bool(self.blend < 1):
            out = self.blend * out + (1 - self.blend) * self.anchor(raw)
        return out
