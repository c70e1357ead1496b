"""What a network computes from its input with nothing learned, computed once per fit.

A network may compute features of a series that no training step changes (the random-kernel
features of the ``rocket`` tokenisers, :class:`~tsattn.nn.tokenizers.RocketTokenizer`): it then
offers ``fit_levels(batches)``, what it fits once on the training series before training (the
kernels' levels), ``fixed_features(x, mask)``, those features ``(B, ...)``, and takes them back as
``module(x, mask, fixed=...)``. :func:`fit_levels` fits them on the training data;
:func:`cache_fixed_features` computes the features of every training series once, so that a
training step recomputes only those of the series its augmentation changed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import torch
from torch import nn

__all__ = ["CACHE_BYTES", "cache_fixed_features", "fit_levels"]

#: The most memory the features of the training series may take; larger sets compute them per batch.
CACHE_BYTES = 512 * 2**20
#: Series per batch when fitting the levels and filling the cache (memory only).
CHUNK = 256


def _chunks(data) -> Iterator[tuple[torch.Tensor, torch.Tensor | None]]:
    for start in range(0, len(data), CHUNK):
        idx = torch.arange(start, min(start + CHUNK, len(data)), device=data.x.device)
        yield data.batch(idx)


def fit_levels(module: nn.Module, data) -> bool:
    """Fit what ``module`` fits once on the training series ``data`` (a
    :class:`~tsattn.training.TensorData`), e.g. the random-kernel levels; False when it fits nothing.
    Call it after building the network and before any training (pretraining included)."""
    method = getattr(module, "fit_levels", None)
    if method is None:
        return False
    with torch.no_grad():
        return bool(method(_chunks(data)))


def cache_fixed_features(module: nn.Module, data, limit: int = CACHE_BYTES) -> torch.Tensor | None:
    """``module.fixed_features`` of every series of ``data`` at the data's full padded length,
    ``(n, ...)`` on its device; None when the module has none or they would take more than
    ``limit`` bytes."""
    method = getattr(module, "fixed_features", None)
    if method is None or len(data) == 0 or not hasattr(data, "lengths"):
        return None
    chunks = _chunks(dataclasses.replace(data, fixed_len=True))  # every series at full length
    first = method(*next(chunks))
    if first is None:
        return None
    row_bytes = first[0].numel() * first.element_size()
    if row_bytes * len(data) > limit:
        return None
    return torch.cat([first, *(method(x, mask) for x, mask in chunks)])
