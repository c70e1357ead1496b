"""``mrs`` and ``mrs_linear``: multiresolution-head attention (MrsFormer, 004 Def. 1, Eq. 16-17).

Head ``h`` has a query scale ``s_h`` and a key/value scale ``s'_h``. The input is average-pooled along
time by ``s_h`` before the query projection and by ``s'_h`` before the key/value projections
(Remark 4, Eq. 17: pool X, then project; only that head's rows of each projection are computed),
attention runs at the coarse resolution, and the head's output is upsampled back to ``N`` by
nearest-neighbour repetition (each coarse step repeated ``s_h`` times, truncated to ``N``) before the
shared output projection (the sum over heads of Eq. 16 is the concatenation times ``W_O``).

Masks: pooling averages real steps only (a last, shorter window is kept); a key window without a
real step is masked. A real step always lies in a query window that contains it, so its output only
depends on real steps. With all scales 1 this is exactly ``softmax`` (``linear`` for ``mrs_linear``);
with query scales 1 it is ``sh`` with ``scales = key_scales``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from tsattn.attention.base import MultiHeadProjections, check_scales, scale_presets
from tsattn.attention.functional import (
    linear_attention,
    softmax_attention,
)
from tsattn.attention.hyperparameters import Choice, HyperParameter
from tsattn.attention.registry import register_attention
from tsattn.attention.time_scales import pool_time, upsample_time
from tsattn.attention.weights import linear_weights, softmax_weights, spread_pooled_keys

QUERY_SCALES = HyperParameter(
    "scales",
    default=None,
    type="tuple of int",
    doc="Per-head query (output) scales ``s_h``; default ``(1, 1, 2, 2, 4, 4, 8, 8)`` for 8 heads "
    "(004 Sec. 3.1), ``(1, 2)`` for 2 heads (Sec. 3.2, 4.1).",
    constraint=(tuple, list),
    space=Choice(scale_presets),
)
KEY_SCALES = HyperParameter(
    "key_scales",
    default=None,
    type="tuple of int",
    doc="Per-head key/value scales ``s'_h`` of ``mrs``; default equal to ``scales`` (as in 004).",
    constraint=(tuple, list),
)


@register_attention("mrs")
class MultiresolutionHeadAttention(MultiHeadProjections):
    """MrsHA with softmax attention inside each head, through SDPA.

    Parameters
    ----------
    scales, key_scales : see :data:`QUERY_SCALES` and :data:`KEY_SCALES`.

    Shapes: ``forward(x (B, N, d_model), mask (B, N) | None) -> (B, N, d_model)``.
    """

    hyperparameters = (QUERY_SCALES, KEY_SCALES)
    supports_weights = True
    summary = "MrsFormer: per-head query and key scales, upsampled outputs (004 Eq. 16-17)"
    helps = ("0.63 of softmax's attention time (queries and keys pooled) at the same accuracy: "
             "[42] 92.26 (12 / 17 / 13, p 0.95), [C] 96.79 / 97.11, [F] 0.969 at 1000 steps, "
             "1.005 at the full budget.")

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        scales: Sequence[int] | None = QUERY_SCALES.default,
        key_scales: Sequence[int] | None = KEY_SCALES.default,
    ) -> None:
        super().__init__(d_model, n_heads, dropout)
        self.scales = check_scales(scales, n_heads)
        self.key_scales = (
            self.scales if key_scales is None else check_scales(key_scales, n_heads, "key_scales")
        )
        groups: dict[tuple[int, int], list[int]] = {}
        for head, pair in enumerate(zip(self.scales, self.key_scales, strict=True)):
            groups.setdefault(pair, []).append(head)
        self.groups = [(s, sk, tuple(h)) for (s, sk), h in sorted(groups.items())]

    def kernel(self, q, k, v, mask):  # noqa: D102 - coarse (B,h,Nq_s,d) queries, (B,h,Nk_s,d) keys
        return softmax_attention(q, k, v, mask, self.dropout_p)

    def kernel_weights(self, q, k, mask):  # noqa: D102 - -> (B,h,Nq_s,Nk_s)
        return softmax_weights(q, k, mask)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        n = x.shape[1]
        pooled: dict[int, tuple[torch.Tensor, torch.Tensor | None]] = {}

        def pool(scale: int):
            if scale not in pooled:
                pooled[scale] = pool_time(x, scale, mask)
            return pooled[scale]

        # As in the scaled heads: each group's output goes straight into one (B, H, N, d) tensor
        # and the group's tensors are freed before the next group allocates.
        # With need_weights, a head's coarse weights become weights on the original steps: each
        # query step takes its window's row (the output is upsampled the same way) and each pooled
        # key's weight is shared among the real steps of its window.
        out = x.new_empty(x.shape[0], self.n_heads, n, self.head_dim)
        weights = x.new_zeros(x.shape[0], self.n_heads, n, n) if need_weights else None
        for s, sk, heads in self.groups:
            xq, _ = pool(s)
            xk, mk = pool(sk)
            q = self.project_heads(self.q_proj, xq, heads)
            k = self.project_heads(self.k_proj, xk, heads)
            v = self.project_heads(self.v_proj, xk, heads)
            if weights is None:
                o = self.kernel(q, k, v, mk)
            else:
                w = self.kernel_weights(q, k, mk)
                o = self.attend(w, v)
                weights[:, list(heads)] = spread_pooled_keys(
                    upsample_time(w, s, n), sk, mask, n
                ).to(weights.dtype)
            out[:, list(heads)] = upsample_time(o, s, n).to(out.dtype)  # autocast: o may be bf16
            del q, k, v, o
        return self.with_weights(self.out_proj(self.merge_heads(out)), weights, mask)


@register_attention("mrs_linear")
class MultiresolutionHeadLinearAttention(MultiresolutionHeadAttention):
    """MrsHA with the linear (``elu + 1``) kernel inside each head (MrsLinear, 004 Table 5).

    Parameters
    ----------
    scales, key_scales : as in ``mrs``. ``dropout`` is unused (no attention matrix).
    """

    summary = "MrsFormer with the linear kernel (004 Table 5)"
    helps = ("O(N) with MrsFormer's scales; no gain over `linear`: [42] 92.15 (9 / 18 / 15, p "
             "0.37), [C] 96.70 / 97.24, [F] 0.990.")

    def kernel(self, q, k, v, mask):  # noqa: D102
        return linear_attention(q, k, v, mask)

    def kernel_weights(self, q, k, mask):  # noqa: D102
        return linear_weights(q, k, mask)
