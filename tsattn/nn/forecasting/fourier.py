"""The Fourier head (``head="fourier"``): Algorithm 4 of S3Attention (paper 002).

The encoded tokens are decoded back to the window's steps and the sequence is extrapolated by
its ``1 + 2*n_harm`` lowest harmonics.
"""

from __future__ import annotations

import math
from numbers import Integral

import torch
from sklearn.utils._param_validation import Interval
from torch import nn

from tsattn.attention.hyperparameters import HyperParameter
from tsattn.nn.forecasting.registry import ForecastHead, TokenLayout, register_head

__all__ = ["N_HARM", "FourierExtrapolation", "FourierHead", "fourier_extrapolate",
           "lowest_frequency_indices"]  # fmt: skip

N_HARM = HyperParameter(
    "n_harm", 8, "int", "Harmonics of the Fourier head (``1 + 2*n_harm`` frequencies kept).",
    (Interval(Integral, 0, None, closed="left"),),
)


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


@register_head("fourier")
class FourierHead(ForecastHead):
    """Each token projected back to the values it covers (``output_projection``), the window's
    steps rebuilt from them (:meth:`TokenLayout.to_steps`: patches side by side less the view's
    padding, or each channel's window) and extrapolated by :class:`FourierExtrapolation`."""

    summary = "002's Algorithm 4: tokens decoded to the window's steps, extrapolated by their lowest harmonics"
    hyperparameters = (N_HARM,)
    requires = frozenset({"steps"})

    def __init__(self, layout: TokenLayout, horizon: int, dropout: float, n_harm: int = 8) -> None:
        super().__init__()
        self.layout = layout
        self.output_projection = nn.Linear(layout.d_model, layout.token_values)
        self.extrapolation = FourierExtrapolation(horizon, N_HARM.check(n_harm))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        steps = self.layout.to_steps(self.output_projection(h))  # every column the tokens hold
        return self.extrapolation(steps[..., : self.layout.channels])
