"""The forecasting network that reads covariates: known in the past only, or for the future too.

A sample is one target channel of one window, packed with its covariates as
``x (B, context_length + horizon, 1 + k)``: column 0 the target (its horizon rows zero: never
read), columns ``1..k`` the covariates, of which those listed in ``future`` are read on the
horizon's rows too (the others' horizon rows are zero and never read). The target's context is
instance-normalised (RevIN) and, with the covariates' context rows beside it, cut into patch
tokens that hold every column of their steps (the covariates as extra input channels of the
patch tokens), encoded by the shared trunk with any registered attention, flattened and mapped
linearly to the horizon; the future-known covariates' horizon rows enter that linear map too (the
horizon's side of the network), so a forecast step reads the covariates known for it.

The fixed part it is blended with (:class:`CovariateAnchor`) is a linear model of the horizon on
the target's and the covariates' context rows and the future covariates' horizon rows,
LEAR-style (Lago et al. 2021),
solved in closed form by the estimator (:mod:`tsattn.estimators._covariate_anchor`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import torch
from torch import nn

from tsattn.nn.forecasting import LinearForecastHead
from tsattn.nn.forecasting.anchor import Blended
from tsattn.nn.tokenizers import PatchTokenizer
from tsattn.nn.trunk import EncoderTrunk

__all__ = ["CovariateAnchor", "CovariateForecaster", "anchor_features"]

#: Added to each window's variance in the instance normalisation (RevIN's).
EPS = 1e-5


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


class CovariateForecaster(Blended, EncoderTrunk):
    """Packed windows ``(B, context_length + horizon, 1 + n_covariates)`` -> ``(B, horizon, 1)``.

    Parameters
    ----------
    context_length, horizon : steps read and forecast.
    n_covariates : covariate columns ``k`` after the target.
    future : indices (among the ``k``) of the covariates known for the horizon.
    patch_len : steps per token.
    anchor : blend with a :class:`CovariateAnchor`: ``blend * network + (1 - blend) * anchor``,
        ``blend`` a buffer (1 until :meth:`set_blend`, so training sees the network alone).
    **trunk : the trunk's parameters (:class:`~tsattn.nn.trunk.EncoderTrunk`), every one given.
    """

    def __init__(self, context_length: int, horizon: int, *, n_covariates: int,
                 future: tuple[int, ...], patch_len: int, anchor: bool, **trunk: Any) -> None:  # fmt: skip
        future = tuple(int(f) for f in future)
        if any(not 0 <= f < n_covariates for f in future):
            raise ValueError(f"future covariate indices {future} must lie in [0, {n_covariates}).")
        tokenizer = partial(PatchTokenizer, 1 + int(n_covariates), patch_len=patch_len)
        super().__init__(tokenizer, max_len=context_length, **trunk)
        self.context_length, self.horizon = int(context_length), int(horizon)
        self.n_covariates, self.future = int(n_covariates), future
        n_tokens = self.tokenizer.n_tokens(self.context_length)
        self.head = LinearForecastHead(n_tokens, self.d_model, self.horizon, 1, self.dropout_rate)
        self.future_map = nn.Linear(self.horizon * len(future), self.horizon) if future else None
        if self.future_map is not None:  # training starts from the network without them
            nn.init.zeros_(self.future_map.weight)
            nn.init.zeros_(self.future_map.bias)
        self.anchor = (CovariateAnchor(self.context_length, self.horizon, self.n_covariates, future)
                       if anchor else None)  # fmt: skip
        self.register_buffer("blend", torch.ones(()))

    def set_anchor(self, weight: Any, bias: Any) -> None:
        """The fitted anchor's map (:meth:`CovariateAnchor.set`)."""
        if self.anchor is None:
            raise ValueError("this network was built with anchor=False: it has no anchor to set.")
        self.anchor.set(weight, bias)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,
                parts: bool = False) -> torch.Tensor | tuple[torch.Tensor, ...]:  # fmt: skip
        """``x (B, L + H, 1 + k)`` -> ``(B, H, 1)``; ``parts``: ``(forecast, network, anchor)``."""
        if mask is not None:
            raise ValueError("forecasting windows have no padding; mask must be None.")
        n = self.context_length
        target, past = x[:, :n, :1], x[:, :n, 1:]
        mean = target.mean(dim=1, keepdim=True)
        std = torch.sqrt(target.var(dim=1, keepdim=True) + EPS)
        h, _, _ = self.encode(torch.cat([(target - mean) / std, past], dim=2))
        out = self.head(h)
        if self.future_map is not None:
            fut = x[:, n:, 1:][:, :, list(self.future)].reshape(x.shape[0], -1)
            out = out + self.future_map(fut)[..., None]
        out = out * std + mean
        simple = None if self.anchor is None else self.anchor(x)
        blended = out if simple is None else self.blend * out + (1 - self.blend) * simple
        return (blended, out, simple) if parts else blended
