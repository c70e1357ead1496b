"""Cost of the CPU dropout mask (``tsattn bench dropout-mask``), the evidence behind
:func:`tsattn.layers.dropout.random_bytes`.

Times ``torch.randint(0, 256, dtype=uint8)`` (one random byte per draw, the mask before commit
642ef26), :func:`~tsattn.layers.dropout.random_bytes` (eight bytes per 64-bit draw, the mask
since) and ``torch.bernoulli`` (``F.dropout``'s path) for the largest mask of the UEA-sized encoder,
``(32, 315, 256)``, and returns the median milliseconds of each.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import torch

from tsattn.layers.dropout import random_bytes

__all__ = ["dropout_mask_times"]


def _median_ms(fn: Callable[[], object], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def dropout_mask_times(shape: tuple[int, ...] = (32, 315, 256), repeats: int = 20) -> dict:
    """Median milliseconds per mask of each way to draw it, and the ratio the layer relies on."""
    summary = {
        "shape": list(shape), "threads": torch.get_num_threads(), "repeats": repeats,
        "randint_uint8_ms": _median_ms(
            lambda: torch.randint(0, 256, shape, dtype=torch.uint8), repeats),
        "random_bytes_ms": _median_ms(lambda: random_bytes(shape), repeats),
        "bernoulli_float_ms": _median_ms(lambda: torch.empty(shape).bernoulli_(0.8), repeats),
    }  # fmt: skip
    summary["randint_over_random_bytes"] = summary["randint_uint8_ms"] / summary["random_bytes_ms"]
    return summary
