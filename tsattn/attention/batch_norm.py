"""``bn``: Attention-BN, attention with recentred (and optionally standardised) queries and keys.

Eq. 26 of the supplement (000): ``softmax((q_i - beta*mu).(k_j - beta*mu) / sqrt(d))`` with ``mu`` the
mean of the real keys of each sample and head; ``bn_standardize=True`` also divides by the keys'
per-feature standard deviation (Eq. 22-23 of 001); ``learn_beta=True`` trains beta (Table 11 of 000).
"""

from __future__ import annotations

from tsattn.attention.base import BetaMixin
from tsattn.attention.functional import bn_attention
from tsattn.attention.registry import register_attention
from tsattn.attention.softmax import SoftmaxAttention


@register_attention("bn")
class BatchNormAttention(BetaMixin, SoftmaxAttention):
    """Attention-BN.

    Parameters
    ----------
    beta : weight of the key mean that is subtracted (0 gives softmax). Default 0.6, the value of
        000 Tables 12-13 for JapaneseVowels and several other UEA sets.
    bn_standardize : also divide queries and keys by ``sqrt(var_j k_j + eps)`` (Eq. 22).
    learn_beta : make beta a trained parameter (adds ``beta`` to the state dict).
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        beta: float = 0.6,
        bn_standardize: bool = False,
        learn_beta: bool = False,
    ) -> None:
        super().__init__(d_model, n_heads, dropout=dropout)
        self._init_beta(beta, learn_beta, bn_standardize)

    def kernel(self, q, k, v, mask):  # noqa: D102
        return bn_attention(q, k, v, self.beta, mask, self.bn_standardize, dropout_p=self.dropout_p)
