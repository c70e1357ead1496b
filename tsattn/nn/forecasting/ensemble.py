"""Several forecasting networks trained side by side in one fit, their forecasts averaged.

:class:`NetworkMean` holds ``n_networks`` :class:`~.network.ForecastingTransformer` members
without anchors and one :class:`~.anchor.LinearAnchor` for all. Training: each training batch
is cut into ``n_networks`` contiguous slices (the batch is already drawn at random) and member
``k`` forecasts slice ``k`` only, so the loss on the whole batch is the mean of the members' own
losses and each member trains on its own windows, independently of the others, at
``batch_size / n_networks`` windows per step: the fit's cost stays that of one network at
``batch_size``. Evaluation (validation rounds, the blend, predict): every member forecasts every
window and the forecast is their mean, blended with the anchor as one network's is.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from tsattn.nn.forecasting.anchor import Blended, LinearAnchor
from tsattn.nn.forecasting.network import ForecastingTransformer

__all__ = ["NetworkMean"]


class NetworkMean(Blended, nn.Module):
    """Window ``(B, context_length, n_channels)`` -> ``(B, horizon, n_channels)``: the mean of
    ``n_networks`` independently trained networks, blended with one anchor.

    Parameters
    ----------
    n_networks : members, at least 2.
    anchor, anchor_period : as :class:`~.network.ForecastingTransformer`'s (one anchor, on the
        mean of the members).
    **params : every other parameter of :class:`~.network.ForecastingTransformer`, the same for
        each member (each initialised from the random state in turn).
    """

    def __init__(self, n_networks: int, *, anchor: bool, anchor_period: int = 1,
                 **params: Any) -> None:  # fmt: skip
        super().__init__()
        if int(n_networks) < 2:
            raise ValueError(f"NetworkMean needs n_networks >= 2; got {n_networks} (use "
                             "ForecastingTransformer for one network).")  # fmt: skip
        self.members = nn.ModuleList(ForecastingTransformer(anchor=False, **params)
                                     for _ in range(int(n_networks)))  # fmt: skip
        first = self.members[0]
        self.n_channels, self.context_length, self.horizon = (
            first.n_channels, first.context_length, first.horizon)  # fmt: skip
        self.anchor = (LinearAnchor(first.context_length, first.horizon, first.n_channels,
                                    anchor_period) if anchor else None)  # fmt: skip
        self.register_buffer("blend", torch.ones(()))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,
                parts: bool = False) -> torch.Tensor | tuple[torch.Tensor, ...]:  # fmt: skip
        """``x (B, n, C)`` -> ``(B, horizon, C)``: in training, member ``k`` forecasts the ``k``-th
        of ``n_networks`` contiguous slices of the batch (a slice may be empty for a batch
        smaller than ``n_networks``); otherwise the members' mean on every window. ``parts`` as
        :meth:`~.network.ForecastingTransformer.forward`'s, the network part the mean."""
        if mask is not None:
            raise ValueError("forecasting windows have no padding; mask must be None.")
        if self.training:
            slices = x.tensor_split(len(self.members))
            out = torch.cat([m(s) for m, s in zip(self.members, slices, strict=True) if len(s)])
        else:
            out = torch.stack([m(x) for m in self.members]).mean(dim=0)
        return self.blended(x, out, parts)
