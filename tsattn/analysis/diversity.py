"""Head diversity: how different the heads' attention maps are (001 Table 4, 004 Table 4).

:func:`head_diversity` runs a model once, captures the input ``x`` and ``mask`` of every attention
module inside it with forward hooks, recomputes each head's attention map explicitly from the module's
own weights (slow, materialising ``N x N``), and reports the mean and standard deviation of the
pairwise L2 (Frobenius) distances between the maps of different heads, averaged over layers.

Supported: the softmax family ``softmax``, ``bn``, ``sh``, ``bn_sh`` (and their subclasses whose
kernel is softmax over the same keys). A scaled head's map has ``N_s`` pooled columns; it is spread
back to the ``N`` original steps by giving each real step of a pooling window an equal share of that
window's weight, which is exactly the weight the step's value receives (a pooled value is the mean of
its window's real values), so every map is a distribution over the ``N`` steps. Padded rows and
columns are zero and excluded.
"""

from __future__ import annotations

import math
from itertools import combinations

import torch
from torch import nn

from tsattn.attention.batch_norm import BatchNormAttention
from tsattn.attention.functional import bn_recenter, pool_time
from tsattn.attention.scaled_heads import BatchNormScaledHeadAttention, ScaledHeadAttention
from tsattn.attention.softmax import SoftmaxAttention

__all__ = ["attention_maps", "head_diversity", "SUPPORTED"]

SUPPORTED = (SoftmaxAttention, BatchNormAttention, ScaledHeadAttention, BatchNormScaledHeadAttention)
_EXACT_TYPES = {
    "softmax": SoftmaxAttention,
    "bn": BatchNormAttention,
    "sh": ScaledHeadAttention,
    "bn_sh": BatchNormScaledHeadAttention,
}


def _is_supported(module: nn.Module) -> bool:
    return type(module) in _EXACT_TYPES.values()


@torch.no_grad()
def attention_maps(module: nn.Module, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Per-head attention maps ``(B, H, N, N)`` of a supported attention module on ``x``."""
    if not _is_supported(module):
        raise ValueError(
            f"attention maps are implemented for {sorted(_EXACT_TYPES)}, got "
            f"{type(module).__name__} ({getattr(module, 'name', '?')!r})."
        )
    b, n, _ = x.shape
    real = torch.ones(b, n, dtype=torch.bool, device=x.device) if mask is None else mask
    q = module.project_heads(module.q_proj, x)
    scales = getattr(module, "scales", (1,) * module.n_heads)
    beta = getattr(module, "beta", None)
    maps = []
    for h in range(module.n_heads):
        s = scales[h]
        xs, ms = pool_time(x, s, real)
        ms = torch.ones(xs.shape[:2], dtype=torch.bool, device=x.device) if ms is None else ms
        k = module.project_heads(module.k_proj, xs, [h])
        qh = q[:, h : h + 1]
        if beta is not None:
            qh, k = bn_recenter(qh, k, beta, ms, module.bn_standardize)
        scores = qh @ k.transpose(-2, -1) / math.sqrt(module.head_dim)
        a = torch.softmax(scores.masked_fill(~ms[:, None, None, :], float("-inf")), dim=-1)[:, 0]
        if s > 1:
            pad = xs.shape[1] * s - n
            counts = nn.functional.pad(real.to(x.dtype), (0, pad)).reshape(b, -1, s).sum(dim=-1)
            counts = counts.clamp_min(1.0)  # real steps per window (empty windows have weight 0)
            a = (a / counts[:, None, :]).repeat_interleave(s, dim=-1)[..., :n]
            a = a * real[:, None, :].to(a.dtype)
        maps.append(a * real[:, :, None].to(a.dtype))
    return torch.stack(maps, dim=1)


def _pairwise(maps: torch.Tensor) -> torch.Tensor:
    """L2 distances between every pair of heads, over all samples: ``(B * H(H-1)/2,)``."""
    pairs = list(combinations(range(maps.shape[1]), 2))
    if not pairs:
        return maps.new_zeros(0)
    return torch.stack(
        [torch.linalg.vector_norm(maps[:, i] - maps[:, j], dim=(-2, -1)) for i, j in pairs], dim=1
    ).flatten()


@torch.no_grad()
def head_diversity(model: nn.Module, *inputs, **kwargs) -> dict:
    """Layer-averaged mean and std of pairwise L2 distances between heads' attention maps.

    Parameters
    ----------
    model : any module containing supported attention modules (found by type); it is run once as
        ``model(*inputs, **kwargs)``, in its current train/eval mode.

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
            f"no supported attention module ({', '.join(sorted(_EXACT_TYPES))}) found in "
            f"{type(model).__name__}."
        )
    try:
        model(*inputs, **kwargs)
    finally:
        for handle in handles:
            handle.remove()
    layers = []
    for name, mod, x, mask in captured:
        d = _pairwise(attention_maps(mod, x, mask))
        layers.append({"name": name, "mean": float(d.mean()), "std": float(d.std(correction=0))})
    return {
        "mean": sum(layer["mean"] for layer in layers) / len(layers),
        "std": sum(layer["std"] for layer in layers) / len(layers),
        "per_layer": layers,
    }


def estimator_head_diversity(estimator, X) -> dict:
    """:func:`head_diversity` of a fitted ``TSClassifier``/``TSRegressor`` on series ``X``.

    ``X`` goes through the estimator's own validation and training standardisation; the network
    runs once in eval mode on all of ``X`` (padded to its longest series, padding masked).
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator, "module_")
    data = estimator._to_tensors(estimator._check_X_predict(X))
    idx = torch.arange(len(data), device=data.x.device)
    x, mask = data.batch(idx, fixed_len=estimator.head == "flatten")
    estimator.module_.eval()
    return head_diversity(estimator.module_, x, mask)
