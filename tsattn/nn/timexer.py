"""TimeXer's way of reading covariates (Wang et al., NeurIPS 2024): variate tokens and a global
token of the target between them.

A sample is packed as for :class:`~tsattn.nn.covariates.CovariateForecaster`, ``x (B,
context_length + horizon, 1 + k)``: column 0 the target, columns ``1..k`` the covariates, those
listed in ``future`` known on the horizon's rows too. The target's context, instance-normalised,
is cut into patch tokens of the target alone (``(B, P, d_model)``, sinusoidal positions) and a
learnable global token is appended (``(B, P + 1, d_model)``, no position, as TimeXer's). Each
covariate becomes one variate token (``(B, k, d_model)``, TimeXer's inverted embedding): its
context rows, and for a future-known covariate its horizon rows too (a past-only one's are
zeroed), mapped by one linear map shared by the covariates. Every trunk layer (self-attention of
any registered variant over the patch tokens and the global token) is followed by a
cross-attention from the global token to the variate tokens (standard multi-head attention,
pre-norm, residual, dropout), so the covariates reach the patch tokens through the global token
in the next layer's self-attention. A linear head maps the flattened ``P + 1`` tokens to the
horizon. The rest is :class:`~tsattn.nn.covariates.CovariateNetwork`'s: the future-known
covariates' horizon rows also enter through ``future_map`` and the forecast is blended with the
same LEAR-style anchor, so this design and the channels' one differ only in how the network
reads the covariates.

TimeXer puts the cross-attention between a layer's self-attention and its feed-forward block;
here it follows the whole trunk layer, so the trunk's layers and every attention variant are
used unchanged.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import torch
from torch import nn

from tsattn.attention import AttentionSpec, resolve_attention
from tsattn.layers import Dropout
from tsattn.nn.covariates import CovariateNetwork
from tsattn.nn.forecasting import LinearForecastHead
from tsattn.nn.tokenizers import PatchTokenizer
from tsattn.nn.trunk import EncoderTrunk

__all__ = ["GlobalCrossAttention", "TimeXerForecaster"]


class GlobalCrossAttention(nn.Module):
    """The global token (the last of ``h (B, N, d_model)``) attends to ``variates (B, k,
    d_model)``: ``g + dropout(attention(norm(g), variates, variates))``, the other tokens
    unchanged -> ``(B, N, d_model)``.

    Parameters
    ----------
    d_model, n_heads : width and heads of the multi-head attention.
    dropout : on the attention's output before the residual sum.
    attention_dropout : on the attention weights.
    """

    def __init__(self, d_model: int, n_heads: int, dropout: float, attention_dropout: float) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.attention = nn.MultiheadAttention(d_model, n_heads, dropout=attention_dropout,
                                               batch_first=True)  # fmt: skip
        self.dropout = Dropout(dropout)

    def forward(self, h: torch.Tensor, variates: torch.Tensor) -> torch.Tensor:
        """``h (B, N, d_model)``, ``variates (B, k, d_model)`` -> ``(B, N, d_model)``."""
        glb = h[:, -1:]
        read, _ = self.attention(self.norm(glb), variates, variates, need_weights=False)
        return torch.cat([h[:, :-1], glb + self.dropout(read)], dim=1)


class TimeXerForecaster(CovariateNetwork, EncoderTrunk):
    """Packed windows ``(B, context_length + horizon, 1 + n_covariates)`` -> ``(B, horizon, 1)``:
    patch tokens of the target and a global token, cross-attending to a variate token per
    covariate after every layer (the module's docstring).

    Parameters
    ----------
    context_length, horizon : steps read and forecast.
    n_covariates : covariate columns ``k`` after the target (at least 1).
    future : indices (among the ``k``) of the covariates known for the horizon.
    patch_len : steps per token.
    anchor : blend with a :class:`~tsattn.nn.covariates.CovariateAnchor`, as
        :class:`~tsattn.nn.covariates.CovariateForecaster`.
    **trunk : the trunk's parameters (:class:`~tsattn.nn.trunk.EncoderTrunk`), every one given;
        ``n_heads``, ``dropout`` and ``attention_dropout`` are the cross-attention's too.
    """

    def __init__(self, context_length: int, horizon: int, *, n_covariates: int,
                 future: tuple[int, ...], patch_len: int, anchor: bool, **trunk: Any) -> None:  # fmt: skip
        if int(n_covariates) < 1:
            raise ValueError("TimeXerForecaster reads covariates as variate tokens: it needs at "
                             f"least one covariate, got n_covariates={n_covariates}.")
        attention = trunk.pop("attention")
        params = trunk.pop("attention_params", None)
        spec = attention if isinstance(attention, AttentionSpec) else resolve_attention(
            attention, params, stacklevel=3)  # fmt: skip
        if isinstance(attention, AttentionSpec) and params:
            raise ValueError("attention_params go with an attention name, not with a spec.")
        tokenizer = partial(PatchTokenizer, 1, patch_len=patch_len)
        n_patches = -(-int(context_length) // int(patch_len))
        # the self-attention sees the patches and the global token: sized for P + 1 tokens
        super().__init__(tokenizer, max_len=None, attention=spec.sized(n_patches + 1), **trunk)
        self._covariate_parts(context_length, horizon, n_covariates, future, anchor)
        self.n_patches = n_patches
        self.global_token = nn.Parameter(torch.randn(1, 1, self.d_model))
        self.variate_embedding = nn.Linear(self.context_length + self.horizon, self.d_model)
        self.embed_dropout = Dropout(self.dropout_rate)
        known = torch.zeros(self.context_length + self.horizon, self.n_covariates)
        known[: self.context_length] = 1.0
        known[self.context_length :, list(self.future)] = 1.0
        self.register_buffer("known", known, persistent=False)
        self.cross = nn.ModuleList(
            GlobalCrossAttention(self.d_model, int(trunk["n_heads"]), self.dropout_rate,
                                 float(trunk["attention_dropout"]))  # fmt: skip
            for _ in self.encoder.layers
        )
        self.head = LinearForecastHead(n_patches + 1, self.d_model, self.horizon, 1,
                                       self.dropout_rate)  # fmt: skip

    def variate_tokens(self, x: torch.Tensor) -> torch.Tensor:
        """Packed windows ``(B, L + H, 1 + k)`` -> ``(B, k, d_model)``: each covariate's known rows
        (a past-only one's horizon rows zeroed) through the shared linear map."""
        rows = x[:, :, 1:] * self.known.to(x.dtype)
        return self.embed_dropout(self.variate_embedding(rows.transpose(1, 2)))

    def tokens(self, target: torch.Tensor) -> torch.Tensor:
        """The normalised target's context ``(B, L, 1)`` -> ``(B, P + 1, d_model)``: its patch tokens
        with positions, then the global token."""
        patches, _ = self.tokenizer(target)
        glb = self.embed_dropout(self.global_token.to(patches.dtype)).expand(len(patches), -1, -1)
        return torch.cat([self.positions(patches), glb], dim=1)

    def read(self, target: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        """The layers, each followed by the global token's cross-attention -> ``(B, H, 1)``."""
        h, variates = self.tokens(target), self.variate_tokens(x)
        for layer, cross in zip(self.encoder.layers, self.cross, strict=True):
            h = cross(layer(h), variates)
        return self.head(h)
