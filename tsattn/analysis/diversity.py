"""Head diversity: how different the heads' attention maps are (001 Table 4, 004 Table 4).

:func:`head_diversity` runs a model once, captures the input ``x`` and ``mask`` of every attention
module inside it with forward hooks, asks each module for its own weights
(``module(x, mask, need_weights=True)``, ``(B, H, N, N)`` on the original steps) and reports the
mean and standard deviation of the pairwise L2 (Frobenius) distances between the maps of different
heads, averaged over layers. Every variant whose ``supports_weights`` is True has such maps; a
scaled head's map spreads each pooled key's weight over the real steps of its window (the weight
their values receive), so every map is a distribution over the ``N`` steps. Padded rows and columns
are zero.
"""

from __future__ import annotations

from itertools import combinations

import torch
from torch import nn

__all__ = ["attention_maps", "head_diversity", "maps_diversity", "estimator_head_diversity"]


def _is_supported(module: nn.Module) -> bool:
    return bool(getattr(module, "supports_weights", False))


@torch.no_grad()
def attention_maps(module: nn.Module, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Per-head attention maps ``(B, H, N, N)`` of an attention module on ``x (B, N, d_model)``,
    computed by the module itself."""
    if not _is_supported(module):
        raise ValueError(
            f"{type(module).__name__} ({getattr(module, 'name', '?')!r}) cannot return attention "
            "weights (supports_weights is False)."
        )
    return module(x, mask, need_weights=True)[1]


def _pairwise(maps: torch.Tensor) -> torch.Tensor:
    """L2 distances between every pair of heads, over all samples: ``(B * H(H-1)/2,)``."""
    pairs = list(combinations(range(maps.shape[1]), 2))
    if not pairs:
        return maps.new_zeros(0)
    return torch.stack(
        [torch.linalg.vector_norm(maps[:, i] - maps[:, j], dim=(-2, -1)) for i, j in pairs], dim=1
    ).flatten()


def maps_diversity(maps: torch.Tensor) -> dict[str, float]:
    """Mean and std of the pairwise L2 distances between the heads of ``maps (B, H, N, N)``."""
    d = _pairwise(maps)
    return {"mean": float(d.mean()), "std": float(d.std(correction=0))}


def _summary(layers: list[dict]) -> dict:
    return {
        "mean": sum(layer["mean"] for layer in layers) / len(layers),
        "std": sum(layer["std"] for layer in layers) / len(layers),
        "per_layer": layers,
    }


@torch.no_grad()
def head_diversity(model: nn.Module, *inputs, **kwargs) -> dict:
    """Layer-averaged mean and std of pairwise L2 distances between heads' attention maps.

    Parameters
    ----------
    model : any module containing attention modules that return their weights (found by their
        ``supports_weights``); it is run once as ``model(*inputs, **kwargs)``, in its current
        train/eval mode.

    Returns
    -------
    dict with ``mean`` and ``std`` (averaged over layers), and ``per_layer``: a list of
    ``{"name", "mean", "std"}`` for each attention module, in call order.
    """
    captured: list[tuple[str, nn.Module, torch.Tensor, torch.Tensor | None]] = []
    handles = []
    for name, sub in model.named_modules():
        if _is_supported(sub):

            def hook(mod, args, kw, out, name=name):
                x = args[0] if args else kw["x"]
                mask = args[1] if len(args) > 1 else kw.get("mask")
                captured.append((name, mod, x.detach(), None if mask is None else mask.detach()))

            handles.append(sub.register_forward_hook(hook, with_kwargs=True))
    if not handles:
        raise ValueError(
            f"no supported attention module (one with supports_weights) found in "
            f"{type(model).__name__}."
        )
    try:
        model(*inputs, **kwargs)
    finally:
        for handle in handles:
            handle.remove()
    layers = [
        {"name": name, **maps_diversity(attention_maps(mod, x, mask))}
        for name, mod, x, mask in captured
    ]
    return _summary(layers)


def estimator_head_diversity(estimator, X) -> dict:
    """:func:`head_diversity` of a fitted ``TSClassifier``/``TSRegressor`` on series ``X``, from the
    maps of :meth:`~tsattn.estimators.collection.CollectionEstimator.attention_maps` (``X``
    standardised and masked as in ``predict``)."""
    maps = torch.from_numpy(estimator.attention_maps(X))  # (n, layers, H, N, N)
    layers = [
        {"name": f"encoder.layers.{i}.attention", **maps_diversity(maps[:, i])}
        for i in range(maps.shape[1])
    ]
    return _summary(layers)
