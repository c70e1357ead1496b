"""``long_short``: the bidirectional long-short term attention of Transformer-LS (003, Eq. 3-7).

Per head, every query attends through one softmax (Eq. 6-7) to the concatenation of

* short-term keys/values (Sec. 3.2): the series is cut into segments of ``window`` steps; every query
  of a segment sees that whole segment plus ``window // 2`` steps on each side (``2 * window`` keys
  for an even window), steps outside the series or padded being masked;
* long-range keys/values (Eq. 3): a dynamic projection ``P = softmax_n(LN_L(K) W_P)`` (``(N, rank)``,
  each column a distribution over the ``N`` real steps), ``K_bar = LN_G(P^T LN_L(K))``,
  ``V_bar = LN_G(P^T LN_L(V))``.

DualLN (Eq. 7): ``LN_L`` normalises the projected keys and values before the local window and before
the projection ("we use LN_L(K), LN_L(V) instead of K, V to compute K_bar, V_bar"), ``LN_G`` the
projected ones. Reading of the paper where it leaves room: ``W_P`` is per head, ``(head_dim, rank)``,
and acts on that head's locally normalised keys (Eq. 3 computes ``P_i`` from the keys; ``K = V`` in
the paper's experiments, so the same ``P_i`` serves values); the two LayerNorms act on the head
dimension and are shared by all heads (Eq. 7 writes ``LN_L``, ``LN_G`` without a head index).

Everything is computed segment-wise through ``scaled_dot_product_attention`` with 5-D tensors
``(B, H, segments, steps, d)``: time and memory are ``O(N (window + rank) d)``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from tsattn._validation import POSITIVE_INT
from tsattn.attention.base import MultiHeadProjections
from tsattn.attention.functional import sdpa
from tsattn.attention.hyperparameters import Choice, HyperParameter
from tsattn.attention.registry import register_attention

WINDOW = HyperParameter(
    "window",
    default=8,
    type="int",
    doc="Segment length ``w`` of the short-term attention; each query sees its segment and "
    "``w // 2`` steps on either side (8: 003 Table 1, LRA).",
    constraint=(POSITIVE_INT,),
    space=Choice((4, 8, 16, 32)),
)
RANK = HyperParameter(
    "rank",
    default=32,
    type="int",
    doc="Number ``r`` of dynamically projected (long-range) keys and values per head (32: 003).",
    constraint=(POSITIVE_INT,),
    space=Choice((8, 16, 32, 64)),
)


@register_attention("long_short")
class LongShortAttention(MultiHeadProjections):
    """Transformer-LS attention, bidirectional, with DualLN.

    Parameters
    ----------
    window, rank : see :data:`WINDOW` and :data:`RANK`.

    Shapes: ``forward(x (B, N, d_model), mask (B, N) | None) -> (B, N, d_model)``.
    """

    hyperparameters = (WINDOW, RANK)
    no_weights_reason = "its long-range keys and values are LayerNorm-ed mixtures of every step"
    summary = "Transformer-LS: sliding-window plus dynamically projected keys, DualLN (003 Eq. 3-7)"
    helps = ("O(N) time (0.11 of softmax's at N = 8192) but 3.6 times its memory at every "
             "length; [42] 92.31 (11 / 17 / 14, p 0.67), [C] 96.99 / 97.27, [F] 0.960 at 1000 "
             "steps: for long sequences when time, not memory, is short.")

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        window: int = WINDOW.default,
        rank: int = RANK.default,
    ) -> None:
        super().__init__(d_model, n_heads, dropout)
        self.window = WINDOW.check(window)
        self.rank = RANK.check(rank)
        self.proj_weight = nn.Parameter(
            torch.randn(n_heads, self.head_dim, self.rank) / math.sqrt(self.head_dim)
        )
        self.ln_local = nn.LayerNorm(self.head_dim)
        self.ln_global = nn.LayerNorm(self.head_dim)

    def long_range(
        self, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Eq. 3 with DualLN: ``(B, H, N, d)`` locally normalised keys/values -> ``(B, H, r, d)`` each."""
        scores = torch.einsum("bhnd,hdr->bhnr", k, self.proj_weight)
        if mask is not None:
            scores = scores.masked_fill(~mask[:, None, :, None], float("-inf"))
        p = torch.softmax(scores, dim=2)  # normalised over the N steps
        return self.ln_global(p.transpose(-2, -1) @ k), self.ln_global(p.transpose(-2, -1) @ v)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> torch.Tensor:
        if need_weights:
            raise self.weights_unavailable()
        b, n, _ = x.shape
        q = self.project_heads(self.q_proj, x)
        k = self.ln_local(self.project_heads(self.k_proj, x))
        v = self.ln_local(self.project_heads(self.v_proj, x))
        k_bar, v_bar = self.long_range(k, v, mask)

        w, half = self.window, self.window // 2
        n_seg = -(-n // w)
        span = w + 2 * half
        right = n_seg * w - n + half
        real = torch.ones(b, n, dtype=torch.bool, device=x.device) if mask is None else mask
        real = F.pad(real, (half, right), value=False)  # (B, n_seg*w + 2*half)

        def windows(t: torch.Tensor) -> torch.Tensor:  # (B,H,N,d) -> (B,H,n_seg,span,d)
            t = F.pad(t, (0, 0, half, right))
            return t.unfold(2, span, w).transpose(-2, -1)

        def with_global(local: torch.Tensor, glob: torch.Tensor) -> torch.Tensor:
            glob = glob[:, :, None].expand(-1, -1, n_seg, -1, -1)
            return torch.cat([local, glob], dim=3)

        keys = with_global(windows(k), k_bar)  # (B, H, n_seg, span + r, d)
        values = with_global(windows(v), v_bar)
        local_real = real.unfold(1, span, w)  # (B, n_seg, span)
        attn_mask = torch.cat(
            [local_real, torch.ones(b, n_seg, self.rank, dtype=torch.bool, device=x.device)], dim=2
        )[:, None, :, None, :]  # (B, 1, n_seg, 1, span + r)
        qs = F.pad(q, (0, 0, 0, n_seg * w - n)).unflatten(2, (n_seg, w))  # (B, H, n_seg, w, d)
        out = sdpa(
            qs, keys, values, attn_mask=attn_mask, dropout_p=self.dropout_p
        )
        out = out.flatten(2, 3)[:, :, :n]
        return self.out_proj(self.merge_heads(out))
