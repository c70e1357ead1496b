"""``softmax``: the baseline multi-head scaled dot-product attention (Eq. 1-3 of 001)."""

from __future__ import annotations

import torch

from tsattn.attention.base import MultiHeadProjections
from tsattn.attention.functional import softmax_attention
from tsattn.attention.registry import register_attention
from tsattn.attention.weights import softmax_weights


@register_attention("softmax")
class SoftmaxAttention(MultiHeadProjections):
    """Multi-head softmax attention through ``scaled_dot_product_attention``.

    Parameters
    ----------
    d_model, n_heads : model width and number of heads.
    dropout : dropout on the attention weights while training.

    Shapes: ``forward(x (B, N, d_model), mask (B, N) bool | None) -> (B, N, d_model)``; with
    ``need_weights=True``, ``(output, weights (B, n_heads, N, N))``, the weights each query gives
    each step (rows of padded queries and columns of padded steps zero). Subclasses change the
    attention through ``kernel(q, k, v, mask)`` and ``kernel_weights(q, k, mask)``, which must agree:
    ``kernel(q, k, v, mask) == kernel_weights(q, k, mask) @ v``.
    """

    summary = "multi-head scaled dot-product attention, the baseline (001 Eq. 1-3)"
    helps = ("The reference and the forecaster's default: exact, and the fastest below about a "
             "thousand tokens (PyTorch's fused kernel); its time grows as N^1.8, so long token "
             "sequences are where the others can pay. [42] 92.39 (the highest mean), [C] 96.71 /"
             " 97.00, [F] 1.000, [CV] 90.11.")
    supports_weights = True

    def __init__(self, d_model: int, n_heads: int, *, dropout: float = 0.0) -> None:
        super().__init__(d_model, n_heads, dropout)

    def kernel(self, q, k, v, mask):  # noqa: D102 - (B,H,N,d) in, (B,H,N,d) out
        return softmax_attention(q, k, v, mask, self.dropout_p)

    def kernel_weights(self, q, k, mask):  # noqa: D102 - (B,H,Nq,d), (B,H,Nk,d) -> (B,H,Nq,Nk)
        return softmax_weights(q, k, mask)

    def queries_keys(
        self, x: torch.Tensor, mask: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries and keys ``(B, H, N, d)`` of ``x``."""
        return self.project_heads(self.q_proj, x), self.project_heads(self.k_proj, x)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        q, k = self.queries_keys(x, mask)
        v = self.project_heads(self.v_proj, x)
        if not need_weights:
            return self.out_proj(self.merge_heads(self.kernel(q, k, v, mask)))
        weights = self.kernel_weights(q, k, mask)
        return self.with_weights(self.out_proj(self.merge_heads(self.attend(weights, v))), weights, mask)
