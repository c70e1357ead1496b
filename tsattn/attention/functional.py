"""Pure attention kernels on ``(B, H, N, d)`` tensors.

Conventions shared by every kernel here:

* ``q`` is ``(B, H, Nq, d)``; ``k`` and ``v`` are ``(B, H, Nk, d)`` (``v`` may have its own last
  dimension ``dv``); the result is ``(B, H, Nq, dv)``.
* ``mask`` is an optional key-padding mask, ``(B, Nk)`` bool, True = a real time step. Padded keys get
  no weight and no influence on any statistic (means, variances). Every sample must have at least one
  real key.
* The score scale is ``1 / sqrt(d)`` with ``d`` the head dimension.

Softmax-family kernels go through :func:`torch.nn.functional.scaled_dot_product_attention`, always
by way of :func:`sdpa` (which adds one exact CPU speed-up, see there).
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterator

import torch
import torch.nn.functional as F

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


def default_block(n: int) -> int:
    """Default block length of the sparse pattern: ``ceil(sqrt(n))`` (at least 1)."""
    return math.isqrt(max(n, 1) - 1) + 1


@functools.lru_cache(maxsize=64)
def _fixed_pattern(n_q: int, n_k: int, block: int, query_scale: int, device: str) -> torch.Tensor:
    i = torch.arange(n_q, device=device) // query_scale
    j = torch.arange(n_k, device=device)
    same_block = (i[:, None] // block) == (j[None, :] // block)
    summary = (j % block) == (block - 1)
    return same_block | summary[None, :]


def fixed_sparse_pattern(
    n_q: int, n_k: int, block: int, query_scale: int = 1, device: torch.device | str = "cpu"
) -> torch.Tensor:
    """Child et al. (2019) *fixed* factorised pattern, bidirectional, as one boolean matrix.

    Query ``i`` (at key-axis position ``i' = i // query_scale``) may attend to key ``j`` when

    * ``j`` lies in the same block of length ``block`` as ``i'`` (``i' // block == j // block``), the
      first factor ``A^(1)`` of the fixed pattern, or
    * ``j`` is a *summary* position, the last one of its block (``j mod block == block - 1``), the
      second factor ``A^(2)`` with ``c = 1``.

    Child et al. restrict both factors to ``j <= i`` for autoregressive models; here they are used
    without that restriction (bidirectional), and both factors are merged into every head (their
    "merged head" variant). ``query_scale > 1`` places full-length queries on a pooled key axis
    (scaled heads). The pattern depends only on ``(n_q, n_k, block, query_scale, device)`` and is
    built once per combination (cached).

    Returns ``(n_q, n_k)`` bool, True = may attend.
    """
    return _fixed_pattern(int(n_q), int(n_k), int(block), int(query_scale), str(torch.device(device)))


def sparse_attn_mask(
    n_q: int,
    n_k: int,
    mask: torch.Tensor | None,
    block: int | None,
    query_scale: int = 1,
    device: torch.device | str = "cpu",
) -> torch.Tensor:
    """SDPA boolean ``attn_mask`` for the fixed sparse pattern combined with key padding.

    ``block=None`` uses :func:`default_block` of each sample's number of real keys (so appending
    padded steps never changes a sample's pattern). A row that would allow no key at all (a padded
    query whose block and summaries are all padding) is opened to every real key, so SDPA never sees
    an empty row; such rows belong to padded queries and their outputs are meaningless anyway.

    Returns ``(n_q, n_k)`` or ``(B, 1, n_q, n_k)`` bool.
    """
    if block is not None and mask is None:
        return fixed_sparse_pattern(n_q, n_k, block, query_scale, device)
    if mask is None:
        return fixed_sparse_pattern(n_q, n_k, default_block(n_k), query_scale, device)
    if block is None:
        counts = mask.sum(dim=1).tolist()
        blocks = [default_block(int(c)) for c in counts]
        uniq = sorted(set(blocks))
        pats = torch.stack([fixed_sparse_pattern(n_q, n_k, b, query_scale, device) for b in uniq])
        which = torch.tensor([uniq.index(b) for b in blocks], device=pats.device)
        pattern = pats.index_select(0, which)[:, None]  # (B, 1, n_q, n_k)
    else:
        pattern = fixed_sparse_pattern(n_q, n_k, block, query_scale, device)[None, None]
    key_real = mask[:, None, None, :]
    allowed = pattern & key_real
    empty = ~allowed.any(dim=-1, keepdim=True)
    return allowed | (empty & key_real)


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


def upsample_time(x: torch.Tensor, scale: int, n: int) -> torch.Tensor:
    """Nearest-neighbour upsampling along time: ``(B, H, M, d)`` -> ``(B, H, n, d)``.

    Step ``i`` takes coarse step ``i // scale`` (each coarse step repeated ``scale`` times, then
    truncated to ``n``), as in MrsFormer (004, Eq. 17).
    """
    if scale == 1:
        return x[..., :n, :]
    return x.repeat_interleave(scale, dim=-2)[..., :n, :]

