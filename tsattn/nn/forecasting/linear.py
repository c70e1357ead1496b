"""The linear head (``head="linear"``, the default): the encoded tokens mapped linearly to the
horizon, PatchTST's flatten head over spans of time and iTransformer's projector over channels."""

from __future__ import annotations

import torch
from torch import nn

from tsattn.layers import Dropout
from tsattn.nn.forecasting.registry import ForecastHead, TokenLayout, register_head

__all__ = ["LinearHead"]


@register_head("linear")
class LinearHead(ForecastHead):
    """Tokens over time (patches): the encoded window ``(B', n_tokens, d_model)`` flattened and
    mapped to ``(B', horizon, channels)`` by one linear layer. Tokens that are the channels
    (``layout.by_channel``): each token ``(B, C, d_model)`` mapped to its channel's horizon by
    one linear layer shared by the channels."""

    summary = "the encoded tokens mapped linearly to the horizon (PatchTST's flatten head, iTransformer's projector)"

    def __init__(self, layout: TokenLayout, horizon: int, dropout: float) -> None:
        super().__init__()
        self.by_channel, self.horizon, self.channels = layout.by_channel, horizon, layout.channels
        self.dropout = Dropout(dropout)
        if self.by_channel:
            self.linear = nn.Linear(layout.d_model, horizon)
        else:
            self.linear = nn.Linear(layout.n_tokens * layout.d_model, horizon * layout.channels)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        if self.by_channel:  # (B, C, d_model) -> (B, C, horizon) -> (B, horizon, C)
            return self.linear(self.dropout(h)).transpose(1, 2)
        b = h.shape[0]
        return self.linear(self.dropout(h).reshape(b, -1)).reshape(b, self.horizon, self.channels)
