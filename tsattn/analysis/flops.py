"""FLOP counting for attention on every backend.

:class:`torch.utils.flop_counter.FlopCounterMode` has formulas for the CUDA SDPA kernels but none for
``aten._scaled_dot_product_flash_attention_for_cpu`` (and its backward), so on CPU a fused SDPA call
counts 0 FLOPs. :func:`register_cpu_sdpa_flops` registers the same formulas for the CPU kernel:
``2 * Nq * Nk * (d + dv)`` per batch-and-head in forward (scores and weighted sum, as PyTorch counts
the other backends) and the five matrix products of the backward. Masks, dropout and the softmax
itself are not counted, as for the other backends.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch.utils.flop_counter import FlopCounterMode, flop_registry, register_flop_formula

from tsattn.attention.functional import head_padding

__all__ = ["register_cpu_sdpa_flops", "sdpa_forward_flops", "sdpa_backward_flops", "count_flops"]

_aten = torch.ops.aten


def sdpa_forward_flops(query_shape, key_shape, value_shape) -> int:
    """FLOPs of ``softmax(Q K^T) V`` for shapes ``(..., Nq, d)``, ``(..., Nk, d)``, ``(..., Nk, dv)``."""
    *lead, n_q, d = query_shape
    n_k, d_v = key_shape[-2], value_shape[-1]
    batch = math.prod(lead)
    return 2 * batch * n_q * n_k * d + 2 * batch * n_q * n_k * d_v


def sdpa_backward_flops(query_shape, key_shape, value_shape) -> int:
    """FLOPs of the SDPA backward: recompute scores, then grad of scores, V, Q and K (5 products)."""
    *lead, n_q, d = query_shape
    n_k, d_v = key_shape[-2], value_shape[-1]
    batch = math.prod(lead)
    return 2 * batch * n_q * n_k * (3 * d + 2 * d_v)


def register_cpu_sdpa_flops() -> None:
    """Register the CPU flash-attention FLOP formulas once (no-op if PyTorch already has them)."""
    fwd = getattr(_aten, "_scaled_dot_product_flash_attention_for_cpu", None)
    bwd = getattr(_aten, "_scaled_dot_product_flash_attention_for_cpu_backward", None)
    if fwd is not None and fwd not in flop_registry:

        @register_flop_formula(fwd)
        def _cpu_sdpa(query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs) -> int:
            return sdpa_forward_flops(query_shape, key_shape, value_shape)

    if bwd is not None and bwd not in flop_registry:

        @register_flop_formula(bwd)
        def _cpu_sdpa_backward(
            grad_out_shape, query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs
        ) -> int:
            return sdpa_backward_flops(query_shape, key_shape, value_shape)


register_cpu_sdpa_flops()


def count_flops(fn: Callable[[], object]) -> int:
    """Total FLOPs counted by ``FlopCounterMode`` while running ``fn()``.

    SDPA's head padding (:func:`tsattn.attention.functional.sdpa`) is off while counting, so the
    count is that of the formula at the real head dimension, not of the zero columns.
    """
    with head_padding(False), FlopCounterMode(display=False) as counter:
        fn()
    return int(counter.get_total_flops())
