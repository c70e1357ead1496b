"""``sh`` and ``bn_sh``: Attention with scaled heads (001 Eq. 25, Remark 5; 000 Def. 5, Eq. 49-51).

Head ``s`` attends from full-length queries to keys and values built from the input average-pooled
along time by ``scales[s]``. The input is pooled *before* the key/value projections (Remark 5): both
are linear, so the result equals pooling after projecting, at a fraction of the FLOPs. Heads that
share a scale share one pooling and one (row-sliced) projection.

Subclasses swap the attention by overriding ``kernel(q, k, v, mask, scale)``, which receives one
group of heads: full-length queries ``(B, h, N, d)``, pooled keys/values ``(B, h, N_s, d)``, the
pooled key mask and the pooling factor ``scale`` of those keys (the sparse pattern needs it).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from tsattn.attention.base import MultiHeadProjections, check_scales, scale_presets
from tsattn.attention.batch_norm import BETA, BN_STANDARDIZE, LEARN_BETA, BetaMixin
from tsattn.attention.functional import (
    bn_attention,
    softmax_attention,
)
from tsattn.attention.hyperparameters import Choice, HyperParameter
from tsattn.attention.registry import register_attention
from tsattn.attention.time_scales import pool_time
from tsattn.attention.weights import softmax_weights, spread_pooled_keys

SCALES = HyperParameter(
    "scales",
    default=None,
    type="tuple of int",
    doc="One pooling factor per head for the keys and values; default four resolutions doubling "
    "across heads, ``(1, 1, 2, 2, 4, 4, 8, 8)`` for 8 heads (001 J.1) and ``(1, 2)`` for 2 (J.2). "
    "A length not divisible by a scale keeps a last, shorter window.",
    constraint=(tuple, list),
    space=Choice(scale_presets),
)


@register_attention("sh")
class ScaledHeadAttention(MultiHeadProjections):
    """Attention-SH.

    Parameters
    ----------
    scales : see :data:`SCALES`.

    Shapes: ``forward(x (B, N, d_model), mask (B, N) | None) -> (B, N, d_model)``; with
    ``need_weights=True`` also the weights ``(B, n_heads, N, N)`` on the original steps (a pooled
    key's weight shared equally among the real steps of its window, the weight their values get).
    """

    hyperparameters = (SCALES,)
    supports_weights = True
    summary = "Attention-SH: head s attends to keys/values pooled by scales[s] (001 Eq. 25, Remark 5)"
    helps = ("0.75 of softmax's attention time at the same accuracy: [42] 92.29 (8 / 22 / 12, p "
             "0.84), [C] 96.74 / 97.34, [F] 0.961 at 1000 steps, 1.007 at the full budget "
             "(Exchange -2%, ILI +5%).")

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        scales: Sequence[int] | None = SCALES.default,
    ) -> None:
        super().__init__(d_model, n_heads, dropout)
        self.scales = check_scales(scales, n_heads)
        groups: dict[int, list[int]] = {}
        for head, s in enumerate(self.scales):
            groups.setdefault(s, []).append(head)
        self.groups = [(s, tuple(h)) for s, h in sorted(groups.items())]

    def kernel(self, q, k, v, mask, scale=1):  # noqa: D102 - scale: the keys' pooling factor
        return softmax_attention(q, k, v, mask, self.dropout_p)

    def kernel_weights(self, q, k, mask, scale=1):  # noqa: D102 - (B,h,N,d), (B,h,N_s,d) -> (B,h,N,N_s)
        return softmax_weights(q, k, mask)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        # One scale group at a time: its queries, pooled keys/values and output are the only
        # per-group tensors alive, and each output is written into one (B, H, N, d) tensor, so the
        # layer never holds all heads' queries next to a concatenated copy of the outputs.
        b, n, _ = x.shape
        out = x.new_empty(b, self.n_heads, n, self.head_dim)
        weights = x.new_zeros(b, self.n_heads, n, n) if need_weights else None
        for scale, heads in self.groups:
            xs, ms = pool_time(x, scale, mask)
            q = self.project_heads(self.q_proj, x, heads)
            k = self.project_heads(self.k_proj, xs, heads)
            v = self.project_heads(self.v_proj, xs, heads)
            if weights is None:
                o = self.kernel(q, k, v, ms, scale=scale)
            else:
                w = self.kernel_weights(q, k, ms, scale=scale)
                o = self.attend(w, v)
                weights[:, list(heads)] = spread_pooled_keys(w, scale, mask, n).to(weights.dtype)
            if _contiguous(heads):
                out[:, heads[0] : heads[-1] + 1] = o
            else:
                out[:, list(heads)] = o.to(out.dtype)  # autocast: o may be bf16
            del xs, q, k, v, o  # free this group's tensors before the next group allocates
        return self.with_weights(self.out_proj(self.merge_heads(out)), weights, mask)


@register_attention("bn_sh")
class BatchNormScaledHeadAttention(BetaMixin, ScaledHeadAttention):
    """Attention-BN+SH (000 Eq. 51): scaled heads, each recentred by the mean of its own pooled keys.

    Parameters
    ----------
    scales : as in ``sh``.
    beta, bn_standardize, learn_beta : as in ``bn``.
    """

    hyperparameters = (SCALES, BETA, BN_STANDARDIZE, LEARN_BETA)
    summary = "Attention-BN+SH: scaled heads, each recentred by its pooled keys' mean (000 Eq. 51)"
    helps = ("The papers' main model, the one the classification reports run; 0.76 of softmax's "
             "attention time (half the heads read keys pooled by 2), no accuracy gain beyond "
             "noise: [CV] 90.22 against softmax's 90.11 (10 wins, 20 ties, 12 losses, p 0.88), "
             "[42] 92.18 (7 / 21 / 14, p 0.46), [C] 96.67 / 97.16, [F] 0.965 at 1000 steps, "
             "1.027 at the full budget (ILI +8%).")

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        scales: Sequence[int] | None = SCALES.default,
        beta: float = BETA.default,
        bn_standardize: bool = BN_STANDARDIZE.default,
        learn_beta: bool = LEARN_BETA.default,
    ) -> None:
        super().__init__(d_model, n_heads, dropout=dropout, scales=scales)
        self._init_beta(beta, learn_beta, bn_standardize)

    def kernel(self, q, k, v, mask, scale=1):  # noqa: D102
        return bn_attention(q, k, v, self.beta, mask, self.bn_standardize, dropout_p=self.dropout_p)

    def kernel_weights(self, q, k, mask, scale=1):  # noqa: D102
        return softmax_weights(self.bn_queries(q, k, mask), k, mask)


def _contiguous(heads: tuple[int, ...]) -> bool:
    return heads == tuple(range(heads[0], heads[0] + len(heads)))
