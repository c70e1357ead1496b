"""The sparse family: ``sparse``, ``sparse_bn``, ``sparse_sh``, ``sparse_bn_sh``.

Sparse attention (001 Sec. 2.2.2, Eq. 16; Child et al. 2019) is softmax attention restricted to a
fixed pattern ``M_i``. We use Child et al.'s *fixed* factorised pattern made bidirectional and merged
into every head: query ``i`` sees every key of its own block of length ``block`` and the *summary*
keys, the last position of every block (``j mod block == block - 1``); see
:func:`tsattn.attention.sparse_pattern.fixed_sparse_pattern`. The pattern is a cached boolean
matrix per ``(length, block, device)``, combined with the key-padding mask
(:func:`~tsattn.attention.sparse_pattern.sparse_attn_mask`) and passed to
``scaled_dot_product_attention``.

Scaled heads (``sparse_sh``, ``sparse_bn_sh``; Table 10 of 001): the pattern lives on the *pooled*
key axis of each head. A full-length query ``i`` of a head with pooling factor ``s`` sits at pooled
position ``i // s`` (the window it falls in); the block length on that axis is ``ceil(block / s)``
(the same span of original time steps), or with ``block=None`` ``ceil(sqrt(pooled real length))``.
With all scales 1 this is exactly ``sparse``.
"""

from __future__ import annotations

from tsattn._validation import POSITIVE_INT
from tsattn.attention.batch_norm import BETA, BN_STANDARDIZE, LEARN_BETA, BatchNormAttention
from tsattn.attention.functional import (
    sparse_attention,
    sparse_bn_attention,
)
from tsattn.attention.hyperparameters import Choice, HyperParameter
from tsattn.attention.registry import register_attention
from tsattn.attention.scaled_heads import (
    SCALES,
    BatchNormScaledHeadAttention,
    ScaledHeadAttention,
)
from tsattn.attention.softmax import SoftmaxAttention
from tsattn.attention.sparse_pattern import sparse_attn_mask
from tsattn.attention.weights import softmax_weights

BLOCK = HyperParameter(
    "block",
    default=None,
    type="int",
    doc="Length of the blocks of the fixed pattern, in time steps. ``None`` uses ``ceil(sqrt(n))`` "
    "with ``n`` each sample's number of real steps, computed at forward time. A block at least "
    "as long as the series gives full softmax attention. On a scaled head with pooling factor "
    "``s`` the block covers ``ceil(block / s)`` pooled keys.",
    constraint=(POSITIVE_INT,),
    space=Choice((None, 8, 16, 32)),
)


class _BlockMixin:
    """The ``block`` hyperparameter: ``None`` (about ``sqrt(N)`` at forward time) or a positive int."""

    def _init_block(self, block: int | None) -> None:
        self.block = None if block is None else BLOCK.check(block)

    def _pooled_block(self, scale: int) -> int | None:
        return None if self.block is None else -(-self.block // scale)

    def _pattern_weights(self, q, k, mask, scale: int = 1):
        """Softmax weights restricted to the pattern (with the key padding) ``(B, h, Nq, Nk)``."""
        block = self._pooled_block(scale)
        allowed = sparse_attn_mask(q.shape[-2], k.shape[-2], mask, block, scale, q.device)
        return softmax_weights(q, k, attn_mask=allowed)


@register_attention("sparse")
class SparseAttention(_BlockMixin, SoftmaxAttention):
    """Sparse attention with Child et al.'s fixed pattern (bidirectional), through SDPA.

    Parameters
    ----------
    block : see :data:`BLOCK`.
    """

    hyperparameters = (BLOCK,)
    summary = "softmax restricted to Child et al.'s fixed pattern, bidirectional (001 Eq. 16)"
    helps = ("Child et al.'s fixed pattern (cost not profiled); level with softmax: [42] 92.31 "
             "(11 / 19 / 12, p 1.00), [C] 96.68 / 97.68 (the highest anchored on the 8 sets: 3 "
             "wins, 0 losses, p 0.25), [F] 0.995.")

    def __init__(
        self, d_model: int, n_heads: int, *, dropout: float = 0.0, block: int | None = BLOCK.default
    ) -> None:
        super().__init__(d_model, n_heads, dropout=dropout)
        self._init_block(block)

    def kernel(self, q, k, v, mask):  # noqa: D102
        return sparse_attention(q, k, v, mask, self.block, dropout_p=self.dropout_p)

    def kernel_weights(self, q, k, mask):  # noqa: D102
        return self._pattern_weights(q, k, mask)


@register_attention("sparse_bn")
class SparseBatchNormAttention(_BlockMixin, BatchNormAttention):
    """Sparse Attention-BN: recentre by ``beta * mean(real keys)``, then the sparse pattern.

    Parameters
    ----------
    block : as in ``sparse``.
    beta, bn_standardize, learn_beta : as in ``bn`` (``beta=0`` gives ``sparse``).
    """

    hyperparameters = (BLOCK, BETA, BN_STANDARDIZE, LEARN_BETA)
    summary = "sparse Attention-BN (001 Table 10)"
    helps = ("The best mean rank on the 42 sets (8.17) and the highest network-alone classifier "
             "on the 8, within noise: [42] 92.12 (15 / 15 / 12, p 0.99), [C] 97.05 (5 wins, 1 "
             "loss, p 0.094) / 97.52, [F] 1.006.")

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        block: int | None = BLOCK.default,
        beta: float = BETA.default,
        bn_standardize: bool = BN_STANDARDIZE.default,
        learn_beta: bool = LEARN_BETA.default,
    ) -> None:
        super().__init__(
            d_model, n_heads, dropout=dropout, beta=beta, bn_standardize=bn_standardize,
            learn_beta=learn_beta,
        )
        self._init_block(block)

    def kernel(self, q, k, v, mask):  # noqa: D102
        return sparse_bn_attention(
            q, k, v, self.beta, mask, self.bn_standardize, self.block, dropout_p=self.dropout_p
        )

    def kernel_weights(self, q, k, mask):  # noqa: D102
        return self._pattern_weights(self.bn_queries(q, k, mask), k, mask)


@register_attention("sparse_sh")
class SparseScaledHeadAttention(_BlockMixin, ScaledHeadAttention):
    """Sparse Attention-SH: each head's sparse pattern on its pooled key axis.

    Parameters
    ----------
    scales : as in ``sh``.
    block : as in ``sparse``, counted in time steps.
    """

    hyperparameters = (SCALES, BLOCK)
    summary = "sparse Attention-SH: the pattern on each head's pooled keys (001 Table 10)"
    helps = ("No gain; the lowest on the 42 sets, a lean below softmax (not after Holm's "
             "correction for 16 tests): [42] 91.72 (5 / 21 / 16, p 0.012), [C] 96.71 / 97.39, "
             "[F] 0.983.")

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        scales=SCALES.default,
        block: int | None = BLOCK.default,
    ) -> None:
        super().__init__(d_model, n_heads, dropout=dropout, scales=scales)
        self._init_block(block)

    def kernel(self, q, k, v, mask, scale=1):  # noqa: D102
        return sparse_attention(
            q, k, v, mask, self._pooled_block(scale), query_scale=scale, dropout_p=self.dropout_p
        )

    def kernel_weights(self, q, k, mask, scale=1):  # noqa: D102
        return self._pattern_weights(q, k, mask, scale)


@register_attention("sparse_bn_sh")
class SparseBatchNormScaledHeadAttention(_BlockMixin, BatchNormScaledHeadAttention):
    """Sparse Attention-BN+SH: per head, recentre by its pooled keys' mean, then the
    sparse pattern on its pooled key axis.

    Parameters
    ----------
    scales : as in ``sh``.
    block : as in ``sparse``.
    beta, bn_standardize, learn_beta : as in ``bn``.
    """

    hyperparameters = (SCALES, BLOCK, BETA, BN_STANDARDIZE, LEARN_BETA)
    summary = "sparse Attention-BN+SH (001 Table 10)"
    helps = ("No gain beyond noise: [42] 92.13 (9 / 19 / 14, p 0.33), [C] 97.00 / 97.46, [F] "
             "0.972.")

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        scales=SCALES.default,
        block: int | None = BLOCK.default,
        beta: float = BETA.default,
        bn_standardize: bool = BN_STANDARDIZE.default,
        learn_beta: bool = LEARN_BETA.default,
    ) -> None:
        super().__init__(
            d_model, n_heads, dropout=dropout, scales=scales, beta=beta,
            bn_standardize=bn_standardize, learn_beta=learn_beta,
        )
        self._init_block(block)

    def kernel(self, q, k, v, mask, scale=1):  # noqa: D102
        return sparse_bn_attention(
            q, k, v, self.beta, mask, self.bn_standardize, self._pooled_block(scale),
            query_scale=scale, dropout_p=self.dropout_p,
        )

    def kernel_weights(self, q, k, mask, scale=1):  # noqa: D102
        return self._pattern_weights(self.bn_queries(q, k, mask), k, mask, scale)
