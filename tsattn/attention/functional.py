"""Pure attention kernels on ``(B, H, N, d)`` tensors.

Conventions shared by every kernel here:

* ``q`` is ``(B, H, Nq, d)``; ``k`` and ``v`` are ``(B, H, Nk, d)`` (``v`` may have its own last
  dimension ``dv``); the result is ``(B, H, Nq, dv)``.
* ``mask`` is an optional key-padding mask, ``(B, Nk)`` bool, True = a real time step. Padded keys get
  no weight and no influence on any statistic (means, variances). Every sample must have at least one
  real key.
* The score scale is ``1 / sqrt(d)`` with ``d`` the head dimension.

Softmax-family kernels go through :func:`torch.nn.functional.scaled_dot_product_attention`.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = [
    "sdpa_mask",
    "masked_mean",
    "masked_var",
    "pool_time",
    "softmax_attention",
    "bn_attention",
    "bn_recenter",
]


def sdpa_mask(mask: torch.Tensor | None) -> torch.Tensor | None:
    """Turn a key-padding mask ``(B, Nk)`` into SDPA's boolean ``attn_mask`` ``(B, 1, 1, Nk)``.

    Returns ``None`` (the fastest SDPA path) when there is no mask or every step is real.
    """
    if mask is None:
        return None
    if bool(mask.all()):
        return None
    return mask[:, None, None, :]


def masked_mean(x: torch.Tensor, mask: torch.Tensor | None, dim: int = -2) -> torch.Tensor:
    """Mean of ``x`` over ``dim`` counting only real steps, keeping the dimension.

    ``x`` is ``(B, H, N, d)`` (with ``dim=-2``) and ``mask`` ``(B, N)``; returns ``(B, H, 1, d)``.
    """
    if mask is None:
        return x.mean(dim=dim, keepdim=True)
    w = mask.to(x.dtype)[:, None, :, None]  # (B, 1, N, 1)
    count = w.sum(dim=dim, keepdim=True).clamp_min(1.0)
    return (x * w).sum(dim=dim, keepdim=True) / count


def masked_var(
    x: torch.Tensor, mask: torch.Tensor | None, mean: torch.Tensor | None = None, dim: int = -2
) -> torch.Tensor:
    """Biased variance of ``x`` over real steps (``1/N`` normalisation, as in Eq. 23 of 001)."""
    if mean is None:
        mean = masked_mean(x, mask, dim)
    return masked_mean((x - mean) ** 2, mask, dim)


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


def softmax_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
) -> torch.Tensor:
    """Scaled dot-product attention, Eq. 1-3 of 001.

    ``h_i = sum_j softmax_j(q_i . k_j / sqrt(d)) v_j`` over the real keys ``j``.
    Shapes: ``q (B, H, Nq, d)``, ``k (B, H, Nk, d)``, ``v (B, H, Nk, dv)``, ``mask (B, Nk)`` ->
    ``(B, H, Nq, dv)``.
    """
    return F.scaled_dot_product_attention(q, k, v, attn_mask=sdpa_mask(mask), dropout_p=dropout_p)


def bn_recenter(
    q: torch.Tensor,
    k: torch.Tensor,
    beta: float | torch.Tensor,
    mask: torch.Tensor | None = None,
    standardize: bool = False,
    eps: float = 1e-5,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The Attention-BN transform of queries and keys.

    ``mu = mean_j k_j`` over the real keys of each sample and head (``(B, H, 1, d)``); returns
    ``(q - beta*mu, k - beta*mu)`` (Eq. 26 of 000), or, with ``standardize=True``, both divided by
    ``sqrt(var_j k_j + eps)`` per feature (Eq. 22-23 of 001, with the beta weighting of Eq. 26).
    """
    mu = masked_mean(k, mask)
    qc = q - beta * mu
    kc = k - beta * mu
    if standardize:
        inv_std = torch.rsqrt(masked_var(k, mask, mu) + eps)
        qc = qc * inv_std
        kc = kc * inv_std
    return qc, kc


def bn_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: float | torch.Tensor,
    mask: torch.Tensor | None = None,
    standardize: bool = False,
    eps: float = 1e-5,
    dropout_p: float = 0.0,
) -> torch.Tensor:
    """Attention-BN, Eq. 26 of 000 (and Eq. 22 with ``standardize=True``).

    ``h_i = sum_j softmax_j((q_i - beta*mu) . (k_j - beta*mu) / sqrt(d)) v_j`` with
    ``mu = mean_j k_j`` over real keys. Shapes as :func:`softmax_attention`; ``beta`` is a float or a
    0-d tensor (learnable beta, Table 11 of 000).
    """
    qc, kc = bn_recenter(q, k, beta, mask, standardize, eps)
    return F.scaled_dot_product_attention(qc, kc, v, attn_mask=sdpa_mask(mask), dropout_p=dropout_p)
