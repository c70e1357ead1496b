"""The linear-kernel family: ``linear``, ``linear_bn``, ``linear_sh``, ``linear_bn_sh``.

Linear attention (001 Sec. 2.2.1, Katharopoulos et al. 2020) replaces ``exp(q.k/sqrt(d))`` by
``phi(q).phi(k)`` with ``phi(x) = elu(x) + 1`` and is computed in ``O(N)``
(:func:`tsattn.attention.functional.linear_attention`). The BN / SH / BN+SH versions (end of
Sec. 2.3 and Table 5 of 001) put this kernel in place of softmax inside the existing classes, so each
shares its constructor, hyperparameters and state dict with ``softmax`` / ``bn`` / ``sh`` /
``bn_sh``; BN recentres both queries and keys, ``phi(q - beta*mu)``, ``phi(k - beta*mu)``.

There are no attention weights to drop out, so ``dropout`` has no effect in this family.
"""

from __future__ import annotations

from tsattn.attention.batch_norm import BatchNormAttention
from tsattn.attention.functional import (
    bn_recenter,
    linear_attention,
    linear_bn_attention,
)
from tsattn.attention.registry import register_attention
from tsattn.attention.scaled_heads import BatchNormScaledHeadAttention, ScaledHeadAttention
from tsattn.attention.softmax import SoftmaxAttention
from tsattn.attention.weights import linear_weights


@register_attention("linear")
class LinearAttention(SoftmaxAttention):
    """Linear attention with the ``elu + 1`` feature map, ``O(N)`` time and memory.

    Parameters
    ----------
    d_model, n_heads : model width and number of heads.
    dropout : accepted for a uniform signature; unused (no attention matrix is formed).
    """

    summary = "linear attention, feature map elu + 1, O(N) (001 Sec. 2.2.1, Katharopoulos 2020)"
    helps = ("O(N): 0.03 of softmax's attention time at N = 8192 (0.33 at 512; memory 1.44 "
             "times), level in accuracy ([42] 92.34 (14 / 17 / 11, p 0.63), [C] 96.74 / 97.20, "
             "[F] 0.982): the choice for sequences of thousands of tokens.")

    def kernel(self, q, k, v, mask):  # noqa: D102
        return linear_attention(q, k, v, mask)

    def kernel_weights(self, q, k, mask):  # noqa: D102
        return linear_weights(q, k, mask)


@register_attention("linear_bn")
class LinearBatchNormAttention(BatchNormAttention):
    """Linear Attention-BN: ``phi(q - beta*mu).phi(k - beta*mu)``.

    Parameters
    ----------
    beta, bn_standardize, learn_beta : as in ``bn`` (``beta=0`` gives ``linear``).
    """

    summary = "linear Attention-BN: phi(q - beta*mu) . phi(k - beta*mu) (001 end of Sec. 2.3)"
    helps = ("O(N) as `linear`, no gain over it: [42] 92.08 (12 / 14 / 16, p 0.36), [C] 96.50 "
             "(network alone 0 wins, 3 losses) / 97.24, [F] 0.978.")

    def kernel(self, q, k, v, mask):  # noqa: D102
        return linear_bn_attention(q, k, v, self.beta, mask, self.bn_standardize)

    def kernel_weights(self, q, k, mask):  # noqa: D102
        return linear_weights(*bn_recenter(q, k, self.beta, mask, self.bn_standardize), mask)


@register_attention("linear_sh")
class LinearScaledHeadAttention(ScaledHeadAttention):
    """Linear Attention-SH: the linear kernel between full-length queries and pooled keys/values.

    Parameters
    ----------
    scales : as in ``sh``.
    """

    summary = "linear Attention-SH: the linear kernel on scaled heads (001 Table 5)"
    helps = ("O(N) as `linear`, no gain over it: [42] 92.15 (12 / 19 / 11, p 0.64), [C] 96.53 / "
             "97.24, [F] 0.986.")

    def kernel(self, q, k, v, mask, scale=1):  # noqa: D102
        return linear_attention(q, k, v, mask)

    def kernel_weights(self, q, k, mask, scale=1):  # noqa: D102
        return linear_weights(q, k, mask)


@register_attention("linear_bn_sh")
class LinearBatchNormScaledHeadAttention(BatchNormScaledHeadAttention):
    """Linear Attention-BN+SH: per head, recentre by the mean of its pooled keys, then linear kernel.

    Parameters
    ----------
    scales : as in ``sh``.
    beta, bn_standardize, learn_beta : as in ``bn``.
    """

    summary = "linear Attention-BN+SH (001 Table 5)"
    helps = ("O(N) as `linear`, no gain over it: [42] 91.98 (12 / 20 / 10, p 0.36), [C] 96.57 / "
             "97.21, [F] 0.990.")

    def kernel(self, q, k, v, mask, scale=1):  # noqa: D102
        return linear_bn_attention(q, k, v, self.beta, mask, self.bn_standardize)

    def kernel_weights(self, q, k, mask, scale=1):  # noqa: D102
        return linear_weights(*bn_recenter(q, k, self.beta, mask, self.bn_standardize), mask)
