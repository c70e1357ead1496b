"""Training-time augmentation of series batches: random window slicing and channel scaling.

Both are standard for classification with few training examples (window slicing: Le Guennec et
al. 2016; magnitude scaling: Um et al. 2017). They run on the training
batches only, drawn from torch's global generator (seeded per fit by the estimator), never at
prediction.
"""

from __future__ import annotations

import torch

__all__ = ["SliceAndScale"]


class SliceAndScale:
    """Crop each series to a random window and stretch it back to its length; scale each channel.

    Parameters
    ----------
    crop : smallest share of a series' real steps kept by the window, in ``(0, 1]``; each series draws
        its share uniformly from ``[crop, 1]`` and its start uniformly, and the window is resampled
        (linear interpolation) to the series' own length. ``1`` switches slicing off.
    scale : standard deviation of the log of a per-series, per-channel factor multiplying the
        (standardised) values. ``0`` switches scaling off.
    prob : share of the series transformed; each series of a batch is transformed with this
        probability and otherwise left as it is, so the network also sees the series unchanged.
    """

    def __init__(self, crop: float = 0.8, scale: float = 0.1, prob: float = 1.0) -> None:
        if not 0 < crop <= 1:
            raise ValueError(f"crop must be in (0, 1], got {crop!r}.")
        if scale < 0:
            raise ValueError(f"scale must be >= 0, got {scale!r}.")
        if not 0 <= prob <= 1:
            raise ValueError(f"prob must be in [0, 1], got {prob!r}.")
        self.crop, self.scale, self.prob = float(crop), float(scale), float(prob)

    @property
    def active(self) -> bool:
        return (self.crop < 1 or self.scale > 0) and self.prob > 0

    def __call__(self, x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        """``x (B, N, C)`` standardised, zero at padded steps; ``mask (B, N)`` or None -> same shape,
        still zero at padded steps."""
        return self.apply(x, mask)[0]

    def apply(self, x: torch.Tensor, mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """:meth:`__call__`, and which rows it changed: ``rows (k,)`` int64 on the CPU (None: every
        row may have changed, ``prob=1``). Every draw is made for every row, in the same order, so
        the result does not depend on which rows are transformed; only those are computed. The
        draw of the rows left unchanged is made on the CPU, so no device waits for it."""
        b, n, c = x.shape
        crop, scale = self.crop < 1 and n > 2, self.scale > 0
        if crop:
            share = torch.empty(b, device=x.device, dtype=x.dtype).uniform_(self.crop, 1.0)
            at = torch.rand(b, device=x.device, dtype=x.dtype)
        if scale:
            noise = torch.randn(b, 1, c, device=x.device, dtype=x.dtype)
        rows = None
        if self.prob < 1:
            rows = (torch.rand(b) >= self.prob).logical_not_().nonzero().squeeze(1)
            if len(rows) == 0:
                return x, rows
        part, sub = x, mask
        pick = None if rows is None else rows.to(x.device)
        if pick is not None:
            part = x.index_select(0, pick)
            sub = None if mask is None else mask.index_select(0, pick)
        if crop:
            part = _slice(part, sub, *(v if pick is None else v.index_select(0, pick) for v in (share, at)))
        if scale:
            part = part * torch.exp(self.scale * (noise if pick is None else noise.index_select(0, pick)))
        return (part if pick is None else x.index_copy(0, pick, part)), rows


def _slice(x: torch.Tensor, mask: torch.Tensor | None, share: torch.Tensor, at: torch.Tensor) -> torch.Tensor:
    """Each series ``x (b, N, C)`` cut to the window of ``share`` of its real steps starting at ``at``
    (uniform in ``[0, 1)``) of the possible starts, resampled linearly to its length."""
    b, n, c = x.shape
    lengths = (mask.sum(dim=1) if mask is not None else torch.full((b,), n, device=x.device)).to(x.dtype)
    width = torch.clamp(torch.round(share * lengths), min=2.0)
    width = torch.minimum(width, lengths)
    start = torch.floor(at * (lengths - width + 1))
    t = torch.arange(n, device=x.device, dtype=x.dtype)[None, :]  # (1, N)
    pos = start[:, None] + t * (width - 1)[:, None] / torch.clamp(lengths - 1, min=1.0)[:, None]
    pos = torch.minimum(pos, (lengths - 1)[:, None]).clamp(min=0)
    lo = pos.floor().long()
    hi = torch.minimum(lo + 1, (lengths - 1).long()[:, None])
    frac = (pos - lo.to(x.dtype))[..., None]
    gather = lambda idx: torch.gather(x, 1, idx[..., None].expand(b, n, c))  # noqa: E731
    x = gather(lo) * (1 - frac) + gather(hi) * frac
    if mask is not None:
        x = x * mask[..., None].to(x.dtype)
    return x
