"""The sparse family: ``sparse``, ``sparse_bn``, ``sparse_sh``, ``sparse_bn_sh``.

Sparse attention (001 Sec. 2.2.2, Eq. 16; Child et al. 2019) is softmax attention restricted to a
fixed pattern ``M_i``. We use Child et al.'s *fixed* factorised pattern made bidirectional and merged
into every head: query ``i`` sees every key of its own block of length ``block`` and the *summary*
keys, the last position of every block (``j mod block == block - 1``); see
:func:`tsattn.attention.functional.fixed_sparse_pattern`. The pattern is a cached boolean matrix per
``(length, block, device)``, combined with the key-padding mask and passed to
``scaled_dot_product_attention``.

Scaled heads (``sparse_sh``, ``sparse_bn_sh``; Table 10 of 001): the pattern lives on the *pooled*
key axis of each head. A full-length query ``i`` of a head with pooling factor ``s`` sits at pooled
position ``i // s`` (the window it falls in); the block length on that axis is ``ceil(block / s)``
(the same span of original time steps), or with ``block=None`` ``ceil(sqrt(pooled real length))``.
With all scales 1 this is exactly ``sparse``.
"""

from __future__ import annotations

from tsattn.attention.base import check_positive_int
from tsattn.attention.batch_norm import BatchNormAttention
from tsattn.attention.functional import sparse_attention, sparse_bn_attention
from tsattn.attention.registry import register_attention
from tsattn.attention.scaled_heads import BatchNormScaledHeadAttention, ScaledHeadAttention
from tsattn.attention.softmax import SoftmaxAttention


class _BlockMixin:
    """The ``block`` hyperparameter: ``None`` (about ``sqrt(N)`` at forward time) or a positive int."""

    def _init_block(self, block: int | None) -> None:
        self.block = None if block is None else check_positive_int("block", block)

    def _pooled_block(self, scale: int) -> int | None:
        return None if self.block is None else -(-self.block // scale)


_BLOCK_DOC = """block : length of the blocks of the fixed pattern, in time steps. ``None`` (default) uses
        ``ceil(sqrt(n))`` with ``n`` each sample's number of real steps, computed at forward time.
        A block at least as long as the series gives full softmax attention."""


@register_attention("sparse")
class SparseAttention(_BlockMixin, SoftmaxAttention):
    __doc__ = f"""Sparse attention with Child et al.'s fixed pattern (bidirectional), through SDPA.

    Parameters
    ----------
    {_BLOCK_DOC}
    """

    def __init__(
        self, d_model: int, n_heads: int, *, dropout: float = 0.0, block: int | None = None
    ) -> None:
        super().__init__(d_model, n_heads, dropout=dropout)
        self._init_block(block)

    def kernel(self, q, k, v, mask):  # noqa: D102
        return sparse_attention(q, k, v, mask, self.block, dropout_p=self.dropout_p)


@register_attention("sparse_bn")
class SparseBatchNormAttention(_BlockMixin, BatchNormAttention):
    __doc__ = f"""Sparse Attention-BN: recentre by ``beta * mean(real keys)``, then the sparse pattern.

    Parameters
    ----------
    {_BLOCK_DOC}
    beta, bn_standardize, learn_beta : as in ``bn`` (``beta=0`` gives ``sparse``).
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        block: int | None = None,
        beta: float = 0.6,
        bn_standardize: bool = False,
        learn_beta: bool = False,
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


@register_attention("sparse_sh")
class SparseScaledHeadAttention(_BlockMixin, ScaledHeadAttention):
    __doc__ = f"""Sparse Attention-SH: each head's sparse pattern on its pooled key axis.

    Parameters
    ----------
    scales : as in ``sh``.
    {_BLOCK_DOC} On a head with pooling factor ``s`` the block covers ``ceil(block / s)`` pooled keys.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        scales=None,
        block: int | None = None,
    ) -> None:
        super().__init__(d_model, n_heads, dropout=dropout, scales=scales)
        self._init_block(block)

    def kernel(self, q, k, v, mask, scale=1):  # noqa: D102
        return sparse_attention(
            q, k, v, mask, self._pooled_block(scale), query_scale=scale, dropout_p=self.dropout_p
        )


@register_attention("sparse_bn_sh")
class SparseBatchNormScaledHeadAttention(_BlockMixin, BatchNormScaledHeadAttention):
    __doc__ = f"""Sparse Attention-BN+SH: per head, recentre by its pooled keys' mean, then the
    sparse pattern on its pooled key axis.

    Parameters
    ----------
    scales : as in ``sh``.
    {_BLOCK_DOC}
    beta, bn_standardize, learn_beta : as in ``bn``.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        scales=None,
        block: int | None = None,
        beta: float = 0.6,
        bn_standardize: bool = False,
        learn_beta: bool = False,
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
