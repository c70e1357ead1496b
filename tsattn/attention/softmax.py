"""``softmax``: the baseline multi-head scaled dot-product attention (Eq. 1-3 of 001)."""

from __future__ import annotations

import torch

from tsattn.attention.base import MultiHeadProjections
from tsattn.attention.functional import softmax_attention
from tsattn.attention.registry import register_attention


@register_attention("softmax")
class SoftmaxAttention(MultiHeadProjections):
    """Multi-head softmax attention through ``scaled_dot_product_attention``.

    Parameters
    ----------
    d_model, n_heads : model width and number of heads.
    dropout : dropout on the attention weights while training.

    Shapes: ``forward(x (B, N, d_model), mask (B, N) bool | None) -> (B, N, d_model)``.
    """

    summary = "multi-head scaled dot-product attention, the baseline (001 Eq. 1-3)"

    def __init__(self, d_model: int, n_heads: int, *, dropout: float = 0.0) -> None:
        super().__init__(d_model, n_heads, dropout)

    def kernel(self, q, k, v, mask):  # noqa: D102 - (B,H,N,d) in, (B,H,N,d) out
        return softmax_attention(q, k, v, mask, self.dropout_p)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        q = self.project_heads(self.q_proj, x)
        k = self.project_heads(self.k_proj, x)
        v = self.project_heads(self.v_proj, x)
        return self.out_proj(self.merge_heads(self.kernel(q, k, v, mask)))
