"""The encoder trunk every network is built on: tokeniser, positions, encoder layers.

``tokens = tokenizer(x, mask)`` (one token per step, or patches...), sinusoidal positions with
dropout, then ``n_layers`` post-norm encoder layers whose attention is any registered variant. The
classification/regression network (:class:`~tsattn.nn.network.TSTransformer`) and the forecasting
network (:class:`~tsattn.nn.forecasting.ForecastingTransformer`) are this trunk plus a head. The
networks have no defaults of their own for the sizes: the estimators declare them
(:mod:`tsattn.estimators`) and pass every one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch import nn

from tsattn.attention import AttentionSpec, check_model_size, resolve_attention
from tsattn.layers import Dropout, SinusoidalPositionalEncoding
from tsattn.nn.encoder import EncoderLayer, TransformerEncoder

__all__ = ["EncoderTrunk"]


class EncoderTrunk(nn.Module):
    """Series ``(B, N, C)`` to encoded tokens ``(B, N', d_model)``.

    Parameters
    ----------
    tokenizer : a factory ``d_model -> tokeniser module`` (:mod:`tsattn.nn.tokenizers`).
    max_len : the longest series (steps) the network is built for; a length hyperparameter of the
        attention left None (``s3``'s ``max_len``) is set to its tokeniser's tokens for it
        (:meth:`~tsattn.attention.AttentionSpec.sized`), here only. None: left as given.
    attention : a registered variant name, or an :class:`~tsattn.attention.AttentionSpec` resolved
        already (the estimators resolve it once per fit); ``attention_params`` its hyperparameters
        when a name is given.
    d_model, n_heads, n_layers, dim_feedforward : model width, heads, layers, feed-forward width.
    dropout : dropout on positions, residual branches and the feed-forward layer.
    attention_dropout : dropout on the attention weights (0 keeps SDPA on its fused kernels).
    norm : ``"batch"`` (BatchNorm over real steps, Zerveas et al.), ``"layer"`` or ``"none"``; with
        ``"none"`` and ``dim_feedforward=0`` a layer is ``x + attention(x)`` (002, Algorithm 3).
    """

    def __init__(
        self,
        tokenizer: Callable[[int], nn.Module],
        *,
        max_len: int | None,
        attention: str | AttentionSpec,
        d_model: int,
        n_heads: int,
        n_layers: int,
        dim_feedforward: int,
        dropout: float,
        attention_dropout: float,
        norm: str,
        attention_params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        check_model_size(d_model, n_heads)
        if isinstance(attention, AttentionSpec):
            if attention_params:
                raise ValueError("attention_params go with an attention name, not with a spec.")
            spec = attention
        else:
            spec = resolve_attention(attention, attention_params, stacklevel=3)
        self.d_model = int(d_model)
        self.dropout_rate = float(dropout)  # the heads' dropout too
        self.tokenizer = tokenizer(self.d_model)
        if max_len is not None:
            spec = spec.sized(self.tokenizer.n_tokens(int(max_len)))
        # tokens ordered in time get positions; others (one per channel) their dropout only
        self.positions = (SinusoidalPositionalEncoding(self.d_model, dropout)
                          if getattr(self.tokenizer, "positional", True) else Dropout(dropout))  # fmt: skip
        self.encoder = TransformerEncoder(
            [
                EncoderLayer(
                    spec.build(d_model, n_heads, attention_dropout),
                    self.d_model,
                    int(dim_feedforward),
                    dropout,
                    norm,
                )
                for _ in range(int(n_layers))
            ]
        )

    def encode(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False,
        fixed: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None, list[torch.Tensor] | None]:
        """``x (B, N, C)``, ``mask (B, N) | None`` -> ``(h (B, N', d_model), token mask (B, N') |
        None, per-layer attention weights (B, n_heads, N', N') or None)``; ``fixed``: the
        tokeniser's :meth:`fixed_features` of ``x``, computed beforehand."""
        tokens, mask = self.tokenizer(x, mask) if fixed is None else self.tokenizer(x, mask, fixed=fixed)
        return self.encode_tokens(tokens, mask, need_weights)

    def fixed_features(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor | None:
        """What the tokeniser computes from a series with nothing learned (``(B, ...)``, one row per
        series; e.g. :meth:`~tsattn.nn.tokenizers.RocketTokenizer.fixed_features`), to be computed
        once and passed back as ``fixed``; None for a tokeniser with none."""
        method = getattr(self.tokenizer, "fixed_features", None)
        return None if method is None else method(x, mask)

    def fit_levels(self, batches) -> bool:
        """Fit what the tokeniser fits once on the training series before training (the random-kernel
        levels, :meth:`~tsattn.nn.tokenizers.RocketTokenizer.fit_levels`) from ``batches`` of
        ``(x, mask)``; False (and ``batches`` untouched) for a tokeniser that fits nothing."""
        method = getattr(self.tokenizer, "fit_levels", None)
        if method is None:
            return False
        method(batches)
        return True

    def encode_tokens(
        self, tokens: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> tuple[torch.Tensor, torch.Tensor | None, list[torch.Tensor] | None]:
        """:meth:`encode` after the tokeniser: ``tokens (B, N', d_model)`` and their mask."""
        h = self.positions(tokens)
        if not need_weights:
            return self.encoder(h, mask), mask, None
        h, weights = self.encoder(h, mask, need_weights=True)
        return h, mask, weights
