"""Pure attention kernels on ``(B, H, N, d)`` tensors.

Conventions shared by every kernel here:

* ``q`` is ``(B, H, Nq, d)``; ``k`` and ``v`` are ``(B, H, Nk, d)`` (``v`` may have its own last
  dimension ``dv``); the result is ``(B, H, Nq, dv)``.
* ``mask`` is an optional key-padding mask, ``(B, Nk)`` bool, True = a real time step. Padded keys get
  no weight and no influence on any statistic (means, variances). Every sample must have at least one
  real key.
* The score scale is ``1 / sqrt(d)`` with ``d`` the head dimension.

Softmax-family kernels go through :func:`torch.nn.functional.scaled_dot_product_attention`, always
by way of :func:`sdpa` (which adds one exact CPU speed-up, see there). The sparse kernels attend
within the fixed pattern of :mod:`tsattn.attention.sparse_pattern` (:func:`fixed_sparse_pattern`,
:func:`sparse_attn_mask`, :func:`default_block`); the multiscale variants pool and upsample the
time axis with :mod:`tsattn.attention.time_scales` (:func:`pool_time`, :func:`upsample_time`).
Those are exported here too.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator

import torch
import torch.nn.functional as F

from tsattn.attention.sparse_pattern import default_block, fixed_sparse_pattern, sparse_attn_mask
from tsattn.attention.time_scales import pool_time, upsample_time

__all__ = [
    "sdpa",
    "pads_head_dim",
    "head_padding",
    "sdpa_mask",
    "masked_mean",
    "masked_var",
    "pool_time",
    "softmax_attention",
    "bn_attention",
    "bn_recenter",
    "bn_softmax_queries",
    "elu_feature_map",
    "linear_attention",
    "linear_bn_attention",
    "default_block",
    "fixed_sparse_pattern",
    "sparse_attn_mask",
    "sparse_attention",
    "sparse_bn_attention",
    "upsample_time",
]


#: On the CPU, PyTorch's fused SDPA kernel trains markedly slower with heads of 8 or fewer
#: dimensions than with the same heads zero-padded to 16 (``tsattn bench sdpa-padding``, committed
#: in ``docs/results/speed/sdpa_head_padding/``), so :func:`sdpa` pads such heads to this width when
#: training ...
PAD_HEAD_DIM = 16
#: ... heads of at most this many dimensions (wider heads gain nothing measurable) ...
PAD_MAX_HEAD_DIM = 8
#: ... on at least this many scores per head (``Nq * Nk``): below it padding was measured slower.
PAD_MIN_SCORES = 128 * 128
_head_padding_enabled = True


@contextlib.contextmanager
def head_padding(enabled: bool) -> Iterator[None]:
    """Turn :func:`sdpa`'s automatic head padding on or off inside a ``with`` block.

    Off, every call is the plain SDPA call: for FLOP counts of the formula
    (:func:`tsattn.analysis.count_flops` counts with it off), or to reproduce results computed before
    the padding existed bit for bit.
    """
    global _head_padding_enabled
    previous, _head_padding_enabled = _head_padding_enabled, bool(enabled)
    try:
        yield
    finally:
        _head_padding_enabled = previous


def pads_head_dim(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, dropout_p: float = 0.0
) -> bool:
    """Whether :func:`sdpa` zero-pads the head dimension of these inputs (the measured fast case).

    True for a float32 CPU call outside autocast that will be differentiated, with head dimensions
    of at most :data:`PAD_MAX_HEAD_DIM`, no attention dropout (dropout leaves the fused kernel
    anyway) and ``Nq * Nk >= PAD_MIN_SCORES``. Everything else keeps the plain call: GPUs, short
    series, bfloat16 (slower padded), and inference, where the gain is small and the padded copies
    would raise the peak memory ``tsattn profile`` reports (``docs/results/speed/sdpa_head_padding/``).
    """
    return (
        _head_padding_enabled
        and q.device.type == "cpu"
        and q.dtype == torch.float32
        and max(q.shape[-1], v.shape[-1]) <= PAD_MAX_HEAD_DIM
        and dropout_p == 0.0
        and q.shape[-2] * k.shape[-2] >= PAD_MIN_SCORES
        and torch.is_grad_enabled()
        and (q.requires_grad or k.requires_grad or v.requires_grad)
        and not torch.is_autocast_enabled("cpu")
    )


def sdpa(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    attn_mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
    scale: float | None = None,
    pad_head_dim: bool | None = None,
) -> torch.Tensor:
    """:func:`torch.nn.functional.scaled_dot_product_attention`, the one way this package calls it.

    Same arguments and result (``q (..., Nq, d)``, ``k (..., Nk, d)``, ``v (..., Nk, dv)``,
    boolean ``attn_mask`` True = attend -> ``(..., Nq, dv)``). When ``pad_head_dim`` is True (by
    default: when :func:`pads_head_dim` holds), ``q``, ``k`` and ``v`` are zero-padded along the
    last dimension to :data:`PAD_HEAD_DIM` (or wider, to the widest of them) and the score scale is
    passed explicitly (``1/sqrt(d)`` of the real ``d``): the zero columns add exactly nothing to
    ``q . k``, the padded output columns are sliced off and their gradients discarded, so the result
    is the same computation, on a faster code path of the CPU kernel.
    """
    if pad_head_dim is None:
        pad_head_dim = pads_head_dim(q, k, v, dropout_p)
    if not pad_head_dim:
        return F.scaled_dot_product_attention(
            q, k, v, attn_mask=attn_mask, dropout_p=dropout_p, scale=scale
        )
    d, dv = q.shape[-1], v.shape[-1]
    width = max(PAD_HEAD_DIM, d, dv)
    if scale is None:
        scale = 1.0 / math.sqrt(d)
    out = F.scaled_dot_product_attention(
        F.pad(q, (0, width - d)),
        F.pad(k, (0, width - d)),
        F.pad(v, (0, width - dv)),
        attn_mask=attn_mask,
        dropout_p=dropout_p,
        scale=scale,
    )
    return out[..., :dv]


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
    return sdpa(q, k, v, attn_mask=sdpa_mask(mask), dropout_p=dropout_p)


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


def bn_softmax_queries(
    q: torch.Tensor,
    k: torch.Tensor,
    beta: float | torch.Tensor,
    mask: torch.Tensor | None = None,
    standardize: bool = False,
    eps: float = 1e-5,
) -> torch.Tensor:
    """Queries that make plain softmax scores over the raw keys equal Attention-BN's.

    ``(q-b*mu).(k-b*mu) = (q-b*mu).k - (q-b*mu).(b*mu)``: the second term is constant along each
    row, and softmax (also restricted to any key pattern) ignores it. With ``standardize`` both
    sides carry ``1/sigma``, so the query side carries ``1/sigma^2``. Only the queries are
    transformed, saving a ``(B, H, Nk, d)`` copy of the keys and its FLOPs. Returns ``(B, H, Nq, d)``.
    """
    mu = masked_mean(k, mask)
    qc = q - beta * mu
    if standardize:
        qc = qc / (masked_var(k, mask, mu) + eps)
    return qc


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
    """Attention-BN, Eq. 26 of 000 (and Eq. 22 with ``standardize=True``), for softmax kernels.

    ``h_i = sum_j softmax_j((q_i - beta*mu) . (k_j - beta*mu) / sqrt(d)) v_j`` with
    ``mu = mean_j k_j`` over real keys. Shapes as :func:`softmax_attention`; ``beta`` is a float or a
    0-d tensor (learnable beta, Table 11 of 000).
    """
    qc = bn_softmax_queries(q, k, beta, mask, standardize, eps)
    return sdpa(qc, k, v, attn_mask=sdpa_mask(mask), dropout_p=dropout_p)


def elu_feature_map(x: torch.Tensor) -> torch.Tensor:
    """``phi(x) = elu(x) + 1``, the positive feature map of linear attention (Katharopoulos 2020)."""
    return F.elu(x) + 1.0


def linear_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """Linear attention, Sec. 2.2.1 of 001, computed in ``O(N)``.

    ``h_i = phi(q_i)^T (sum_j phi(k_j) v_j^T) / (phi(q_i)^T sum_j phi(k_j))`` with
    ``phi(x) = elu(x) + 1``; the sums run over the real keys only (padded keys are zeroed in feature
    space, so they add nothing to either sum). No ``N x N`` matrix is formed: the cost is
    ``O(N d dv)``. ``phi > 0`` keeps the denominator positive whenever a sample has a real key, so no
    epsilon is added.

    Shapes: ``q (B, H, Nq, d)``, ``k (B, H, Nk, d)``, ``v (B, H, Nk, dv)``, ``mask (B, Nk)`` ->
    ``(B, H, Nq, dv)``.
    """
    fq = elu_feature_map(q)
    fk = elu_feature_map(k)
    if mask is not None:
        fk = fk * mask.to(fk.dtype)[:, None, :, None]
    kv = fk.transpose(-2, -1) @ v  # (B, H, d, dv)
    z = fk.sum(dim=-2)  # (B, H, d)
    num = fq @ kv  # (B, H, Nq, dv)
    den = (fq * z[..., None, :]).sum(dim=-1, keepdim=True)  # (B, H, Nq, 1)
    return num / den


def linear_bn_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: float | torch.Tensor,
    mask: torch.Tensor | None = None,
    standardize: bool = False,
    eps: float = 1e-5,
) -> torch.Tensor:
    """Linear Attention-BN (end of Sec. 2.3 of 001, Table 5 of 000).

    :func:`linear_attention` on ``(q - beta*mu, k - beta*mu)`` (:func:`bn_recenter`). Unlike softmax,
    the linear kernel is not invariant to shifting the keys, so both sides are recentred.
    """
    qc, kc = bn_recenter(q, k, beta, mask, standardize, eps)
    return linear_attention(qc, kc, v, mask)


def sparse_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    block: int | None = None,
    query_scale: int = 1,
    dropout_p: float = 0.0,
) -> torch.Tensor:
    """Sparse attention (Sec. 2.2.2, Eq. 16 of 001): softmax restricted to the fixed pattern.

    ``h_i = sum_{j in M_i} softmax_j(q_i . k_j / sqrt(d)) v_j`` with ``M_i`` from
    :func:`fixed_sparse_pattern` intersected with the real keys. Computed by SDPA with a boolean
    ``attn_mask``. Shapes as :func:`softmax_attention`; ``block`` is the block length on the key
    axis (``None``: ``ceil(sqrt(real keys))`` per sample).
    """
    attn_mask = sparse_attn_mask(q.shape[-2], k.shape[-2], mask, block, query_scale, q.device)
    return sdpa(q, k, v, attn_mask=attn_mask, dropout_p=dropout_p)


def sparse_bn_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: float | torch.Tensor,
    mask: torch.Tensor | None = None,
    standardize: bool = False,
    block: int | None = None,
    query_scale: int = 1,
    eps: float = 1e-5,
    dropout_p: float = 0.0,
) -> torch.Tensor:
    """Sparse Attention-BN (Table 10 of 001): :func:`bn_softmax_queries` (mean over *all* real keys,
    not only the pattern), then :func:`sparse_attention`."""
    qc = bn_softmax_queries(q, k, beta, mask, standardize, eps)
    return sparse_attention(qc, k, v, mask, block, query_scale, dropout_p)
