"""The anchor: the fixed linear forecaster the network is blended with, and the seasonal profile
it may take from each window (its phase read from the values, no time stamp)."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

__all__ = ["Blended", "LinearAnchor", "anchor_forecast", "seasonal_profile", "window_phases"]


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


class Blended:
    """A network blended with a fixed anchor by its ``blend`` buffer (the network's share), which
    the estimator sets once the blend is chosen on the validation windows."""

    @torch.no_grad()
    def set_blend(self, blend: float) -> None:
        """The network's share in the forecast, in [0, 1] (the anchor takes the rest)."""
        if not 0.0 <= float(blend) <= 1.0:
            raise ValueError(f"blend must lie in [0, 1]; got {blend}.")
        self.blend.fill_(float(blend))

    def set_anchor(self, *fitted: Any) -> None:
        """The fitted anchor, as its ``set`` takes it: :meth:`LinearAnchor.set`'s ``weight
        (horizon, L)``, ``bias (horizon,)`` and seasonal profile ``cycle (anchor_period, C)`` or
        None; the covariate network's ``CovariateAnchor.set``'s ``weight, bias``."""
        if self.anchor is None:
            raise ValueError("this network was built with anchor=False: it has no anchor to set.")
        self.anchor.set(*fitted)

    def blended(self, x: torch.Tensor, out: torch.Tensor,
                parts: bool) -> torch.Tensor | tuple[torch.Tensor, ...]:  # fmt: skip
        """The network's forecast ``out (B, horizon, C)`` of the windows ``x (B, L, C)`` blended
        with the anchor's (:class:`LinearAnchor` in ``self.anchor``, or None); ``parts``: the
        tuple ``(forecast, network, anchor)``. Training (``blend`` 1) sees the network alone."""
        if parts:
            simple = None if self.anchor is None else self.anchor(x)
            blended = out if simple is None else self.blend * out + (1 - self.blend) * simple
            return blended, out, simple
        if self.anchor is not None and bool(self.blend < 1):
            out = self.blend * out + (1 - self.blend) * self.anchor(x)
        return out


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
