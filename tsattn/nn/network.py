"""The network of the classifier and the regressor: the encoder trunk and a pooling or flatten head."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from tsattn.nn.heads import FlattenHead, PoolingHead
from tsattn.nn.tokenizers import tokenizer_factory
from tsattn.nn.trunk import EncoderTrunk

__all__ = ["TSTransformer", "HEADS"]

HEADS = ("meanmax", "pool", "flatten")


class TSTransformer(EncoderTrunk):
    """Transformer encoder for series ``(B, N, n_channels)`` -> ``(B, n_outputs)``.

    Parameters
    ----------
    n_channels, n_outputs, max_len : data-dependent sizes (``max_len``, the longest training
        series, sizes the flatten head and a length-dependent attention).
    max_input_len : the longest series (steps) predict must accept, if longer than ``max_len``
        (e.g. room for unequal-length data): sizes a length-dependent attention instead
        (:class:`~tsattn.nn.trunk.EncoderTrunk`'s ``max_len``).
    head : ``"meanmax"`` (mean and maximum over the real tokens), ``"pool"`` (their mean) or
        ``"flatten"`` (Zerveas et al.; needs series of at most ``max_len`` steps).
    tokenizer : a tokeniser name of :data:`~tsattn.nn.tokenizers.TOKENIZERS` (``"step"``,
        ``"patch"``, ``"conv"``, ``"rocket"``, ``"conv_rocket"``) with ``tokenizer_params``, or a
        factory ``d_model -> tokeniser``.
    **trunk : the trunk's parameters (:class:`~tsattn.nn.trunk.EncoderTrunk`: attention, sizes,
        dropout, norm), every one given (no defaults here: the estimators declare them).
    """

    def __init__(
        self,
        n_channels: int,
        n_outputs: int,
        max_len: int,
        *,
        head: str,
        tokenizer: str | Callable[[int], nn.Module],
        tokenizer_params: dict[str, Any] | None = None,
        max_input_len: int | None = None,
        **trunk: Any,
    ) -> None:
        if head not in HEADS:
            raise ValueError(f"head must be one of {HEADS}, got {head!r}.")
        if isinstance(tokenizer, str):
            tokenizer = tokenizer_factory(tokenizer, n_channels, tokenizer_params)
        super().__init__(tokenizer, max_len=max(max_len, max_input_len or 0), **trunk)
        p = self.dropout_rate
        if head == "flatten":
            self.head: nn.Module = FlattenHead(self.d_model, n_outputs, p, self.tokenizer.n_tokens(max_len))
        else:
            self.head = PoolingHead(self.d_model, n_outputs, p, with_max=head == "meanmax")

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False,
        fixed: torch.Tensor | None = None,
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        """``x (B, N, n_channels)``, ``mask (B, N)`` bool True = real -> ``(B, n_outputs)``; with
        ``need_weights`` also each layer's attention weights ``(B, n_heads, N', N')``; ``fixed``:
        :meth:`fixed_features` of ``x`` computed beforehand (the same outputs, computed faster)."""
        h, mask, weights = self.encode(x, mask, need_weights, fixed)
        out = self.head(h, mask)
        return out if weights is None else (out, weights)
