"""Shared pieces of the attention modules: projections, head splitting, per-head scales."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import torch
from torch import nn

from tsattn.attention.hyperparameters import HyperParameter
from tsattn.attention.registry import get_attention_class, list_attention
from tsattn.attention.weights import weighted_values

__all__ = [
    "MultiHeadProjections",
    "check_scales",
    "default_scales",
    "scale_presets",
]


class MultiHeadProjections(nn.Module):
    """Owns the four projections of multi-head attention.

    Every variant in the primal-dual family keeps exactly these parameters (``q_proj``, ``k_proj``,
    ``v_proj``, ``out_proj``: ``Linear(d_model, d_model)``), so a state dict trained with one variant
    loads into another of the same sizes and a trained model can switch attention.
    """

    #: The variant's hyperparameters (declared in its file; read by the registry).
    hyperparameters: tuple[HyperParameter, ...] = ()
    #: One line for the README's variants table: what the variant is and where it comes from.
    summary: str = ""
    #: One line for the guide's "Choosing a variant" table: what was measured of the variant
    #: (accuracy and cost against softmax, with the run behind each number) and where it helps.
    helps: str = ""
    #: Whether ``forward(x, mask, need_weights=True)`` returns each head's ``N x N`` weights.
    supports_weights: bool = False
    #: Why not, when it does not (for the error message).
    no_weights_reason: str = "it forms no attention matrix"

    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.d_model = d_model
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.dropout = float(dropout)
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    @property
    def dropout_p(self) -> float:
        return self.dropout if self.training else 0.0

    def attend(self, weights: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """``weights (B, h, Nq, Nk) @ v (B, h, Nk, d)`` with the attention dropout while training."""
        return weighted_values(weights, v, self.dropout_p)

    @staticmethod
    def with_weights(
        out: torch.Tensor, weights: torch.Tensor | None, mask: torch.Tensor | None
    ) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
        """``out`` when no weights were asked for; else ``(out, weights)`` with the rows of padded
        queries zeroed (their outputs are meaningless)."""
        if weights is None:
            return out
        if mask is not None:
            weights = weights * mask.to(weights.dtype)[:, None, :, None]
        return out, weights

    def weights_unavailable(self) -> ValueError:
        """The error for ``need_weights=True`` on a variant without an explicit map."""
        able = [n for n in list_attention() if get_attention_class(n).supports_weights]
        return ValueError(
            f"attention {getattr(self, 'name', type(self).__name__)!r} cannot return attention "
            f"weights: {self.no_weights_reason}, so there is no N x N map that its output is "
            f"computed from. Variants with exact maps: {', '.join(able)}."
        )

    def split_heads(self, x: torch.Tensor, n_heads: int | None = None) -> torch.Tensor:
        """``(B, N, h*d)`` -> ``(B, h, N, d)``."""
        b, n, _ = x.shape
        h = n_heads or self.n_heads
        return x.reshape(b, n, h, -1).transpose(1, 2)

    @staticmethod
    def merge_heads(x: torch.Tensor) -> torch.Tensor:
        """``(B, H, N, d)`` -> ``(B, N, H*d)``."""
        b, h, n, d = x.shape
        return x.transpose(1, 2).reshape(b, n, h * d)

    def project_heads(
        self, layer: nn.Linear, x: torch.Tensor, heads: Sequence[int] | None = None
    ) -> torch.Tensor:
        """Project ``x`` ``(B, N, d_model)`` with ``layer`` for a subset of ``heads`` -> ``(B, h, N, d)``.

        Only the output rows of the selected heads are computed, so pooling ``x`` first and projecting
        per group costs ``N_s * d_model * h * d`` multiply-adds, not ``N * d_model^2``.
        """
        if heads is None:
            return self.split_heads(layer(x))
        d = self.head_dim
        if tuple(heads) == tuple(range(heads[0], heads[0] + len(heads))):
            # consecutive heads: a slice of the weight, a view (no index tensor, no copy)
            w = layer.weight[heads[0] * d : (heads[-1] + 1) * d]
            b = layer.bias[heads[0] * d : (heads[-1] + 1) * d] if layer.bias is not None else None
        else:
            rows = torch.cat([torch.arange(h * d, (h + 1) * d) for h in heads]).to(x.device)
            w = layer.weight.index_select(0, rows)
            b = layer.bias.index_select(0, rows) if layer.bias is not None else None
        return self.split_heads(nn.functional.linear(x, w, b), n_heads=len(heads))


def default_scales(n_heads: int) -> tuple[int, ...]:
    """Per-head pooling factors: four resolutions doubling across heads, as in the papers.

    8 heads -> ``(1, 1, 2, 2, 4, 4, 8, 8)`` (001 J.1, 004 Sec. 3.1); 2 heads -> ``(1, 2)`` (LRA).
    """
    levels = min(n_heads, 4)
    return tuple(2 ** (h * levels // n_heads) for h in range(n_heads))


def check_scales(scales: Sequence[int] | None, n_heads: int, name: str = "scales") -> tuple[int, ...]:
    """Validate one pooling factor per head; ``None`` gives :func:`default_scales`."""
    if scales is None:
        return default_scales(n_heads)
    if isinstance(scales, (str, bytes)) or not isinstance(scales, Sequence):
        raise ValueError(
            f"{name} must be a sequence of {n_heads} positive integers (one per head), got {scales!r}."
        )
    if len(scales) != n_heads:
        raise ValueError(
            f"{name} has {len(scales)} entries but n_heads={n_heads}: give one pooling factor per "
            f"head, e.g. {default_scales(n_heads)}."
        )
    out = []
    for s in scales:
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or s != int(s) or s < 1:
            raise ValueError(
                f"{name} must hold positive integers, got {s!r} in {tuple(scales)!r}; e.g. "
                f"{default_scales(n_heads)}."
            )
        out.append(int(s))
    return tuple(out)


def scale_presets(n_heads: int) -> list[str]:
    """Per-head pooling factors to choose from, as ``"1,1,2,2,4,4,8,8"``-style strings.

    Factors double across the heads up to a top factor of 2, 4, 8 or 16 (``8`` with 8 heads is the
    papers' ``(1, 1, 2, 2, 4, 4, 8, 8)``, 001 J.1); the first head always keeps full resolution.
    The tuning space of ``scales``; strings, because Optuna's categorical choices must be scalars.
    """
    if isinstance(n_heads, bool) or not isinstance(n_heads, numbers.Integral) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer, got {n_heads!r}.")
    out: list[str] = []
    for top in (2, 4, 8, 16):
        steps = math.log2(top)
        if n_heads == 1:
            scales: tuple[int, ...] = (top,)
        else:
            scales = tuple(2 ** math.floor(h * steps / (n_heads - 1) + 0.5) for h in range(n_heads))
        text = ",".join(map(str, scales))
        if text not in out:
            out.append(text)
    return out
