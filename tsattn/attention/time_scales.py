"""The time axis at another resolution, for the multiscale variants (scaled heads, MRS): average
pooling over real steps only (:func:`pool_time`) and nearest-neighbour upsampling back
(:func:`upsample_time`). Exported by :mod:`tsattn.attention.functional`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["pool_time", "upsample_time"]


def pool_time(
    x: torch.Tensor, scale: int, mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Average-pool ``x`` ``(B, N, D)`` along time by ``scale`` over real steps only.

    A length not divisible by ``scale`` keeps a last, shorter window (no data dropped). A window with
    no real step is zero and marked padded in the returned mask.

    Returns
    -------
    pooled : ``(B, ceil(N / scale), D)``
    pooled_mask : ``(B, ceil(N / scale))`` bool, or ``None`` when no window is padded.
    """
    if scale == 1:
        return x, mask
    b, n, d = x.shape
    n_out = -(-n // scale)
    pad = n_out * scale - n
    if mask is None:
        if pad == 0:
            return x.reshape(b, n_out, scale, d).mean(dim=2), None
        mask = torch.ones(b, n, dtype=torch.bool, device=x.device)
    w = mask.to(x.dtype)
    xw = x * w[..., None]
    if pad:
        xw = F.pad(xw, (0, 0, 0, pad))
        w = F.pad(w, (0, pad))
    sums = xw.reshape(b, n_out, scale, d).sum(dim=2)
    counts = w.reshape(b, n_out, scale).sum(dim=2)
    pooled = sums / counts.clamp_min(1.0)[..., None]
    pooled_mask = counts > 0
    if bool(pooled_mask.all()):
        return pooled, None
    return pooled, pooled_mask


def upsample_time(x: torch.Tensor, scale: int, n: int) -> torch.Tensor:
    """Nearest-neighbour upsampling along time: ``(B, H, M, d)`` -> ``(B, H, n, d)``.

    Step ``i`` takes coarse step ``i // scale`` (each coarse step repeated ``scale`` times, then
    truncated to ``n``), as in MrsFormer (004, Eq. 17).
    """
    if scale == 1:
        return x[..., :n, :]
    return x.repeat_interleave(scale, dim=-2)[..., :n, :]
