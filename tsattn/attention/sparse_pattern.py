"""Child et al.'s (2019) *fixed* sparse pattern, bidirectional, as the boolean matrices SDPA takes:
:func:`fixed_sparse_pattern` (built once per size), :func:`sparse_attn_mask` (the pattern with key
padding) and :func:`default_block` (the block length of a sequence). Exported by
:mod:`tsattn.attention.functional`, whose ``sparse_attention`` attends within the pattern.
"""

from __future__ import annotations

import functools
import math

import torch

__all__ = ["default_block", "fixed_sparse_pattern", "sparse_attn_mask"]


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
