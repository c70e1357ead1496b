"""``conv1d``: Attention-Conv1D (000 Definition 4, Eq. 45, Appendix H; kernel size from J.2).

``h_i = sum_j softmax(Conv1D(Q, s)(i) . Conv1D(K, s)(j) / sqrt(d)) v_j``: the queries and the keys are
convolved along time by a depthwise 1-D convolution whose ``s``-tap kernel is the same for every
channel ("identical kernel channels"), with 'same' zero padding, then enter softmax attention through
``scaled_dot_product_attention``. Values are not convolved.

Choices where the paper is silent: Eq. 45 writes one operator ``Conv1D(., s)`` for both Q and K, so
one kernel (``kernel_size`` weights, no bias) is shared by queries and keys; it is initialised to the
identity (a centred delta), so an untrained layer starts as ``softmax`` attention. Padded steps of
``Q`` and ``K`` are zeroed before the convolution, so they do not leak into their real neighbours
(a real step next to padding sees exactly the zero 'same' padding it would see at the series' end).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from tsattn._validation import POSITIVE_INT
from tsattn.attention.hyperparameters import Choice, HyperParameter
from tsattn.attention.registry import register_attention
from tsattn.attention.softmax import SoftmaxAttention

KERNEL_SIZE = HyperParameter(
    "kernel_size",
    default=5,
    type="int",
    doc="Taps of the depthwise kernel shared by queries and keys along time (5: the LRA setting of "
    "000 J.2). Any positive integer; an even size pads one more step on the right.",
    constraint=(POSITIVE_INT,),
    space=Choice((3, 5, 7, 9)),
)


@register_attention("conv1d")
class Conv1dAttention(SoftmaxAttention):
    """Attention-Conv1D.

    Parameters
    ----------
    kernel_size : see :data:`KERNEL_SIZE`.

    Shapes: ``forward(x (B, N, d_model), mask (B, N) | None) -> (B, N, d_model)``.
    """

    hyperparameters = (KERNEL_SIZE,)
    summary = "Attention-Conv1D: queries and keys convolved along time (000 Def. 4)"
    helps = ("No gain measured: [42] 92.38 (11 / 24 / 7, p 0.74), [C] 96.32 (the lowest "
             "network-alone classifier on the 8 sets: 0 wins, 4 losses, p 0.125) / 97.14 "
             "anchored, [F] 0.990 (0.962 with the Fourier head).")

    def __init__(
        self, d_model: int, n_heads: int, *, dropout: float = 0.0,
        kernel_size: int = KERNEL_SIZE.default,
    ) -> None:
        super().__init__(d_model, n_heads, dropout=dropout)
        self.kernel_size = KERNEL_SIZE.check(kernel_size)
        weight = torch.zeros(self.kernel_size)
        weight[(self.kernel_size - 1) // 2] = 1.0
        self.conv_weight = nn.Parameter(weight)

    def conv_time(self, y: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        """Depthwise 'same' convolution along time of ``y`` ``(B, N, D)`` with the shared kernel."""
        if mask is not None:
            y = y * mask.to(y.dtype)[..., None]
        d = y.shape[-1]
        w = self.conv_weight.view(1, 1, -1).expand(d, 1, self.kernel_size)
        left = (self.kernel_size - 1) // 2
        y = F.pad(y.transpose(1, 2), (left, self.kernel_size - 1 - left))
        # contiguous: SDPA's fused CPU kernel needs unit stride on the feature axis (else math path)
        return F.conv1d(y, w, groups=d).transpose(1, 2).contiguous()

    def queries_keys(self, x, mask):  # noqa: D102 - convolved along time; values are not
        q = self.split_heads(self.conv_time(self.q_proj(x), mask))
        k = self.split_heads(self.conv_time(self.k_proj(x), mask))
        return q, k
