"""Explicit attention weights ``(B, H, Nq, Nk)``: the maps that the kernels of
:mod:`tsattn.attention.functional` apply without forming them.

A variant asked for its weights (``need_weights=True``) computes them here and its output as
``weights @ v``, so the map returned is exactly the one the output is made of.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from tsattn.attention.functional import elu_feature_map

__all__ = ["softmax_weights", "linear_weights", "spread_pooled_keys", "weighted_values"]


def softmax_weights(
    q: torch.Tensor,
    k: torch.Tensor,
    mask: torch.Tensor | None = None,
    attn_mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """The weights of softmax attention, ``softmax_j(q_i.k_j / sqrt(d))``, as a matrix.

    ``q (B, H, Nq, d)``, ``k (B, H, Nk, d)``, key-padding ``mask (B, Nk)`` and/or a boolean
    ``attn_mask`` broadcastable to ``(B, H, Nq, Nk)`` (True = may attend, as SDPA's) ->
    ``(B, H, Nq, Nk)``, each row a distribution over the allowed keys. ``weights @ v`` is what
    :func:`softmax_attention` computes without forming the matrix.
    """
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    allowed = attn_mask
    if mask is not None:
        key_real = mask[:, None, None, :]
        allowed = key_real if allowed is None else allowed & key_real
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1)


def linear_weights(q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """The weights of linear attention, ``phi(q_i).phi(k_j) / sum_j' phi(q_i).phi(k_j')``.

    Shapes as :func:`softmax_weights` (key padding only). ``weights @ v`` equals
    :func:`linear_attention`; forming the matrix costs ``O(Nq Nk d)``, which that function avoids.
    """
    fq = elu_feature_map(q)
    fk = elu_feature_map(k)
    if mask is not None:
        fk = fk * mask.to(fk.dtype)[:, None, :, None]
    a = fq @ fk.transpose(-2, -1)
    return a / a.sum(dim=-1, keepdim=True)


def spread_pooled_keys(
    weights: torch.Tensor, scale: int, mask: torch.Tensor | None, n: int
) -> torch.Tensor:
    """Weights on keys pooled by ``scale`` as weights on the ``n`` original steps.

    A pooled key is the mean of its window's real steps (:func:`~tsattn.attention.time_scales.pool_time`), so the weight it gets
    is exactly shared out equally among them: ``(B, H, Nq, ceil(n / scale))`` -> ``(B, H, Nq, n)``,
    zero at padded steps, rows still summing to one.
    """
    if scale == 1:
        return weights[..., :n]
    b = weights.shape[0]
    real = (
        torch.ones(b, n, dtype=weights.dtype, device=weights.device)
        if mask is None
        else mask.to(weights.dtype)
    )
    n_out = weights.shape[-1]
    counts = F.pad(real, (0, n_out * scale - n)).reshape(b, n_out, scale).sum(dim=-1)
    shares = weights / counts.clamp_min(1.0)[:, None, None, :]
    return shares.repeat_interleave(scale, dim=-1)[..., :n] * real[:, None, None, :]


def weighted_values(weights: torch.Tensor, v: torch.Tensor, dropout_p: float = 0.0) -> torch.Tensor:
    """``weights (B, H, Nq, Nk) @ v (B, H, Nk, dv)``, with dropout on the weights while training."""
    if dropout_p > 0.0:
        weights = F.dropout(weights, dropout_p)
    return weights @ v
