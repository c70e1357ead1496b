"""Covariates as an input adapter of the forecasting network: known in the past only, or for the
future too.

With covariates a sample is one target channel of one window, packed with them as ``x (B,
context_length + horizon, 1 + k)``: column 0 the target (its horizon rows zero: never read),
columns ``1..k`` the covariates, of which those listed in ``future`` are read on the horizon's
rows too (the others' horizon rows are zero and never read). The network
(:class:`~tsattn.nn.forecasting.ForecastingTransformer`) instance-normalises the target's context,
hands it with the covariates' context rows beside it to any registered token view as extra input
columns (a view that gives ``"covariates"``), encodes and maps it with any registered head, and
this adapter (:class:`CovariateInput`) then adds what the horizon's covariates say: the future-known
covariates' horizon rows through a linear map (the horizon's side of the network) and, with
``decoder``, a per-step MLP (TiDE's temporal decoder, Das et al. 2023, section 4.1) that corrects
every step from that step's forecast, its future-known covariates, a few numbers the trunk gives
for it and the context's level and swing: the answer to a covariate need not be a straight line
(a price follows the merit order, a convex curve of the load).

The fixed part it is blended with (:class:`CovariateAnchor`) is a linear model of the horizon on
the target's and the covariates' context rows and the future covariates' horizon rows,
LEAR-style (Lago et al. 2021), solved in closed form by the estimator.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

__all__ = ["CovariateAnchor", "CovariateInput", "TemporalDecoder", "anchor_features"]

#: The temporal decoder's numbers per horizon step from the trunk, and its hidden width.
STEP_FEATURES, DECODER_HIDDEN = 4, 64


def anchor_features(x: torch.Tensor, context_length: int, future: tuple[int, ...]) -> torch.Tensor:
    """The anchor's inputs of packed windows ``x (B, L + H, 1 + k)``: ``(B, L * (1 + k) + H *
    len(future))``, the target's and the covariates' context rows, then each horizon step's
    future covariates (step-major)."""
    b = x.shape[0]
    ctx = x[:, :context_length].reshape(b, -1)
    if not future:
        return ctx
    fut = x[:, context_length:, 1:][:, :, list(future)].reshape(b, -1)
    return torch.cat([ctx, fut], dim=1)


class CovariateAnchor(nn.Module):
    """``out[:, h] = weight[h] @ features + bias[h]`` on :func:`anchor_features`, held as buffers
    (the last value repeated until :meth:`set` gives the fitted map)."""

    def __init__(self, context_length: int, horizon: int, n_covariates: int,
                 future: tuple[int, ...]) -> None:  # fmt: skip
        super().__init__()
        self.context_length, self.future = int(context_length), tuple(future)
        width = context_length * (1 + n_covariates) + horizon * len(self.future)
        weight = torch.zeros(horizon, width)
        weight[:, (context_length - 1) * (1 + n_covariates)] = 1.0  # the target's last value
        self.register_buffer("weight", weight)
        self.register_buffer("bias", torch.zeros(horizon))

    @torch.no_grad()
    def set(self, weight: Any, bias: Any) -> None:
        """Take a fitted map: ``weight (horizon, features)`` (:func:`anchor_features`), ``bias
        (horizon,)``."""
        weight, bias = torch.as_tensor(weight), torch.as_tensor(bias)
        if weight.shape != self.weight.shape or bias.shape != self.bias.shape:
            raise ValueError(f"anchor weight {tuple(weight.shape)} and bias {tuple(bias.shape)} "
                             f"do not fit {tuple(self.weight.shape)} and {tuple(self.bias.shape)}.")
        self.weight.copy_(weight)
        self.bias.copy_(bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Packed windows ``(B, L + H, 1 + k)`` -> ``(B, H, 1)``."""
        features = anchor_features(x, self.context_length, self.future)
        return (features @ self.weight.to(x.dtype).T + self.bias.to(x.dtype))[..., None]


class TemporalDecoder(nn.Module):
    """A correction of each horizon step, one MLP shared by the steps (TiDE's temporal decoder):
    ``mlp([out[h], fut[h], g[h], mean, log std])``, ``g (B, H, STEP_FEATURES)`` a linear map of the
    trunk's flattened tokens, ``mean`` and ``std`` the target context's instance statistics. Its
    last layer starts at zero, so training starts from the network without it."""

    def __init__(self, flat: int, horizon: int, n_future: int, dropout: float) -> None:
        super().__init__()
        self.horizon = int(horizon)
        self.steps = nn.Linear(flat, self.horizon * STEP_FEATURES)
        self.mlp = nn.Sequential(nn.Linear(1 + n_future + STEP_FEATURES + 2, DECODER_HIDDEN),
                                 nn.GELU(), nn.Dropout(dropout), nn.Linear(DECODER_HIDDEN, 1))  # fmt: skip
        nn.init.zeros_(self.mlp[-1].weight)
        nn.init.zeros_(self.mlp[-1].bias)

    def forward(self, out: torch.Tensor, fut: torch.Tensor, h: torch.Tensor, mean: torch.Tensor,
                std: torch.Tensor) -> torch.Tensor:  # fmt: skip
        """``out (B, H, 1)`` (normalised), ``fut (B, H, f)``, ``h (B, n_tokens, d_model)``,
        ``mean, std (B, 1, 1)`` -> the correction ``(B, H, 1)``."""
        b = out.shape[0]
        steps = self.steps(h.reshape(b, -1)).reshape(b, self.horizon, STEP_FEATURES)
        stats = torch.cat([mean, torch.log(std)], dim=2).expand(b, self.horizon, 2)
        return self.mlp(torch.cat([out, fut, steps, stats], dim=2))


class CovariateInput(nn.Module):
    """The network's covariate adapter: what the horizon's covariates add to a head's forecast.

    Parameters
    ----------
    context_length, horizon : steps read and forecast.
    n_covariates : covariate columns ``k`` after the target.
    future : indices (among the ``k``) of the covariates known for the horizon.
    decoder : the per-step MLP (:class:`TemporalDecoder`); the estimator builds it when some
        covariates are known for the horizon (False for networks saved before it).
    encoded : values of one sample's encoded tokens (``n_tokens * d_model``), the decoder's input.
    dropout : the decoder's dropout.
    """

    def __init__(self, context_length: int, horizon: int, *, n_covariates: int,
                 future: tuple[int, ...], decoder: bool, encoded: int, dropout: float) -> None:  # fmt: skip
        super().__init__()
        future = tuple(int(f) for f in future)
        if any(not 0 <= f < n_covariates for f in future):
            raise ValueError(f"future covariate indices {future} must lie in [0, {n_covariates}).")
        self.context_length, self.horizon = int(context_length), int(horizon)
        self.n_covariates, self.future = int(n_covariates), future
        self.future_map = nn.Linear(self.horizon * len(future), self.horizon) if future else None
        if self.future_map is not None:  # training starts from the network without them
            nn.init.zeros_(self.future_map.weight)
            nn.init.zeros_(self.future_map.bias)
        self.decoder = (TemporalDecoder(encoded, self.horizon, len(future), dropout)
                        if decoder else None)  # fmt: skip

    def anchor(self) -> CovariateAnchor:
        """The anchor these covariates are read by (the last value until it is fitted)."""
        return CovariateAnchor(self.context_length, self.horizon, self.n_covariates, self.future)

    def forward(self, out: torch.Tensor, x: torch.Tensor, h: torch.Tensor, mean: torch.Tensor,
                std: torch.Tensor) -> torch.Tensor:  # fmt: skip
        """The head's forecast ``out (B, H, 1)`` in the target's normalised units, corrected by the
        future covariates' rows of the packed windows ``x (B, L + H, 1 + k)``; ``h`` the encoded
        tokens, ``mean`` and ``std`` ``(B, 1, 1)`` the target context's instance statistics."""
        fut = x[:, self.context_length :, 1:][:, :, list(self.future)]  # (B, H, len(future))
        if self.future_map is not None:
            out = out + self.future_map(fut.reshape(x.shape[0], -1))[..., None]
        if self.decoder is not None:
            out = out + self.decoder(out, fut, h, mean, std)
        return out
