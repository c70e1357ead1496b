"""``bn``: Attention-BN, attention with recentred (and optionally standardised) queries and keys.

Eq. 26 of the supplement (000): ``softmax((q_i - beta*mu).(k_j - beta*mu) / sqrt(d))`` with ``mu`` the
mean of the real keys of each sample and head; ``bn_standardize=True`` also divides by the keys'
per-feature standard deviation (Eq. 22-23 of 001); ``learn_beta=True`` trains beta (Table 11 of 000).

This file declares ``beta``, ``bn_standardize`` and ``learn_beta`` for every BN variant.
"""

from __future__ import annotations

from numbers import Real

import torch
from sklearn.utils._param_validation import Interval
from torch import nn

from tsattn.attention.functional import bn_attention, bn_softmax_queries
from tsattn.attention.hyperparameters import FloatRange, HyperParameter
from tsattn.attention.registry import register_attention
from tsattn.attention.softmax import SoftmaxAttention
from tsattn.attention.weights import softmax_weights

__all__ = ["BETA", "BN_STANDARDIZE", "LEARN_BETA", "BetaMixin", "BatchNormAttention"]

BETA = HyperParameter(
    "beta",
    default=0.6,
    type="float",
    doc="Weight of the key mean subtracted from queries and keys (0 gives the plain kernel); 0.6 "
    "is the value of 000 Tables 12-13 for JapaneseVowels and several other UEA sets.",
    constraint=(Interval(Real, None, None, closed="neither"),),
    space=FloatRange(0.1, 1.2, step=0.05),  # 001 Tables 12-13 pick beta from 0.1 to 1.2
)
BN_STANDARDIZE = HyperParameter(
    "bn_standardize",
    default=False,
    type="bool",
    doc="Also divide queries and keys by the keys' standard deviation, ``sqrt(var_j k_j + eps)`` "
    "per feature (Eq. 22 of 001).",
    constraint=("boolean",),
)
LEARN_BETA = HyperParameter(
    "learn_beta",
    default=False,
    type="bool",
    doc="Train beta as a parameter (Table 11 of 000; adds ``beta`` to the state dict).",
    constraint=("boolean",),
)


class BetaMixin:
    """The ``beta`` of Attention-BN: a plain float, or a learnable scalar (Table 11 of 000).

    A fixed beta is not a buffer, so it does not enter the state dict and state dicts stay
    interchangeable with ``softmax``.
    """

    def _init_beta(self, beta: float, learn_beta: bool, standardize: bool) -> None:
        beta = BETA.check(beta)
        self.bn_standardize = bool(BN_STANDARDIZE.check(standardize))
        self.learn_beta = bool(LEARN_BETA.check(learn_beta))
        if self.learn_beta:
            self.beta = nn.Parameter(torch.tensor(float(beta)))
        else:
            self.beta = float(beta)

    def bn_queries(self, q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
        """Queries whose softmax scores over the raw keys equal Attention-BN's ``(B, h, Nq, d)``."""
        return bn_softmax_queries(q, k, self.beta, mask, self.bn_standardize)


@register_attention("bn")
class BatchNormAttention(BetaMixin, SoftmaxAttention):
    """Attention-BN.

    Parameters
    ----------
    beta, bn_standardize, learn_beta : see :data:`BETA`, :data:`BN_STANDARDIZE`, :data:`LEARN_BETA`.
    """

    hyperparameters = (BETA, BN_STANDARDIZE, LEARN_BETA)
    summary = "Attention-BN: keys and queries recentred by beta times the key mean (000 Eq. 26)"
    helps = ("Costs what softmax costs; no gain measured beyond noise: [42] 92.13 (8 / 22 / 12, "
             "p 0.41), [C] 96.78 / 97.15, [F] 0.994.")

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        beta: float = BETA.default,
        bn_standardize: bool = BN_STANDARDIZE.default,
        learn_beta: bool = LEARN_BETA.default,
    ) -> None:
        super().__init__(d_model, n_heads, dropout=dropout)
        self._init_beta(beta, learn_beta, bn_standardize)

    def kernel(self, q, k, v, mask):  # noqa: D102
        return bn_attention(q, k, v, self.beta, mask, self.bn_standardize, dropout_p=self.dropout_p)

    def kernel_weights(self, q, k, mask):  # noqa: D102
        return softmax_weights(self.bn_queries(q, k, mask), k, mask)
