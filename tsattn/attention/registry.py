"""The registry of named attention variants, and the resolved attention spec.

A variant is an :class:`torch.nn.Module` class registered with :func:`register_attention`. Its
constructor takes ``d_model`` and ``n_heads`` positionally, ``dropout`` by keyword, and its own
hyperparameters as keyword arguments; the class lists their declarations in ``hyperparameters``
(:class:`~tsattn.attention.hyperparameters.HyperParameter`) and describes itself in one line in
``summary``. The registry reads those declarations, never the signature, so a variant declares its
hyperparameters exactly once.

:func:`resolve_attention` turns a name and flat hyperparameters (``None``: the variant's default)
into an :class:`AttentionSpec`, warning about values the variant ignores; a network builds every
layer from that spec without resolving it again.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from numbers import Integral
from typing import Any

from torch import nn

from tsattn._validation import did_you_mean
from tsattn.attention.hyperparameters import HyperParameter

__all__ = [
    "AttentionSpec",
    "register_attention",
    "list_attention",
    "get_attention_class",
    "attention_hyperparameters",
    "all_hyperparameters",
    "hyperparameter_declarations",
    "build_attention",
    "resolve_attention",
    "check_model_size",
    "variants_table",
    "choosing_table",
]

_REGISTRY: dict[str, type[nn.Module]] = {}


def register_attention(name: str) -> Callable[[type[nn.Module]], type[nn.Module]]:
    """Class decorator adding an attention module to the registry under ``name``."""

    def decorator(cls: type[nn.Module]) -> type[nn.Module]:
        if name in _REGISTRY and _REGISTRY[name] is not cls:
            raise ValueError(f"attention {name!r} is already registered by {_REGISTRY[name]!r}")
        cls.name = name  # type: ignore[attr-defined]
        _REGISTRY[name] = cls
        return cls

    return decorator


def list_attention() -> list[str]:
    """Names of every registered attention variant, sorted."""
    return sorted(_REGISTRY)


def get_attention_class(name: str) -> type[nn.Module]:
    """The class registered as ``name``; a ``ValueError`` listing the valid names otherwise."""
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(
            f"Unknown attention {name!r}.{did_you_mean(name, _REGISTRY)} Valid names: "
            f"{', '.join(list_attention())}."
        )
    return _REGISTRY[name]


def _declared(name: str) -> tuple[HyperParameter, ...]:
    return tuple(getattr(get_attention_class(name), "hyperparameters", ()))


def attention_hyperparameters(name: str) -> dict[str, Any]:
    """The hyperparameters of variant ``name`` with their defaults."""
    return {hp.name: hp.default for hp in _declared(name)}


def all_hyperparameters() -> dict[str, list[str]]:
    """Every hyperparameter name used by some variant, mapped to the variants that use it."""
    users: dict[str, list[str]] = {}
    for name in list_attention():
        for hp in _declared(name):
            users.setdefault(hp.name, []).append(name)
    return users


def hyperparameter_declarations() -> dict[str, dict[HyperParameter, list[str]]]:
    """Every declaration, by hyperparameter name: ``{name: {declaration: [variants]}}``.

    One name usually has one declaration (``beta`` is declared in ``batch_norm.py`` and imported by
    every BN variant); ``scales`` has two, the scaled heads' and MrsFormer's query scales.
    """
    out: dict[str, dict[HyperParameter, list[str]]] = {}
    for name in list_attention():
        for hp in _declared(name):
            out.setdefault(hp.name, {}).setdefault(hp, []).append(name)
    return out


@dataclass(frozen=True)
class AttentionSpec:
    """A variant and the value of every one of its hyperparameters: all a layer needs.

    Made by :func:`resolve_attention`; ``build`` constructs a layer from it without checking the
    names again, so a network resolves once and builds ``n_layers`` layers.
    """

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def sized(self, n_tokens: int) -> AttentionSpec:
        """This spec with every length hyperparameter left None (``HyperParameter.sized``, e.g.
        ``s3``'s ``max_len``) set to ``n_tokens``, the tokens of the longest series the network
        is built for; the one place a network sizes its attention."""
        declared = {hp.name: hp for hp in get_attention_class(self.name).hyperparameters}
        fill = {k: int(n_tokens) for k, v in self.params.items()
                if v is None and k in declared and declared[k].sized}  # fmt: skip
        return replace(self, params={**self.params, **fill}) if fill else self

    def build(self, d_model: int, n_heads: int, dropout: float = 0.0) -> nn.Module:
        """A new layer: ``module(x (B, N, d_model), mask (B, N) | None) -> (B, N, d_model)``."""
        cls = get_attention_class(self.name)
        return cls(int(d_model), int(n_heads), dropout=float(dropout), **self.params)


def resolve_attention(
    name: str, hyper: Mapping[str, Any] | None = None, stacklevel: int = 2
) -> AttentionSpec:
    """The :class:`AttentionSpec` of variant ``name`` with flat hyperparameters ``hyper``.

    ``None`` values mean "the variant's default". A value for a hyperparameter that the variant does
    not use warns (naming the variants that do); a name no variant uses raises a ``ValueError``.
    Values are checked when a layer is built (some checks need ``d_model`` and ``n_heads``).
    """
    own = attention_hyperparameters(name)
    known = all_hyperparameters()
    params = dict(own)
    for key, value in (hyper or {}).items():
        if value is None:
            continue
        if key not in known:
            raise ValueError(
                f"Unknown attention hyperparameter {key!r}.{did_you_mean(key, known)} "
                f"Valid ones: {', '.join(sorted(known))}."
            )
        if key not in own:
            warnings.warn(
                f"Attention {name!r} ignores {key}={value!r} (used by: "
                f"{', '.join(known[key])}). {name!r} takes: {', '.join(own) or 'nothing'}.",
                UserWarning,
                stacklevel=stacklevel + 1,
            )
            continue
        params[key] = value
    return AttentionSpec(name, params)


def build_attention(
    name: str, d_model: int, n_heads: int, *, dropout: float = 0.0, **hyper: Any
) -> nn.Module:
    """Build attention variant ``name``.

    Parameters
    ----------
    name : a name from :func:`list_attention`.
    d_model, n_heads : model width and number of heads (``d_model % n_heads == 0``).
    dropout : dropout on the attention weights (training only).
    **hyper : variant hyperparameters, as :func:`resolve_attention` takes them.

    Returns
    -------
    module : called as ``module(x, mask=None)`` with ``x`` ``(B, N, d_model)`` and ``mask`` ``(B, N)``
        bool (True = real step); returns ``(B, N, d_model)``.
    """
    check_model_size(d_model, n_heads)
    return resolve_attention(name, hyper, stacklevel=3).build(d_model, n_heads, dropout)


def check_model_size(d_model: Any, n_heads: Any) -> None:
    """Raise a ``ValueError`` unless ``d_model`` and ``n_heads`` are positive with ``d_model % n_heads == 0``."""
    for label, value in (("d_model", d_model), ("n_heads", n_heads)):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
            raise ValueError(f"{label} must be a positive integer, got {value!r}.")
    if d_model % n_heads:
        raise ValueError(
            f"d_model={d_model} is not divisible by n_heads={n_heads}: each head gets "
            f"d_model / n_heads features. Choose e.g. d_model={n_heads * max(1, round(d_model / n_heads))}."
        )


def variants_table() -> str:
    """The README's table of variants (markdown), from the classes' ``summary`` and declarations."""
    lines = ["| name | what | hyperparameters (default) | attention maps |", "|---|---|---|---|"]
    for name in list_attention():
        cls = get_attention_class(name)
        hypers = ", ".join(
            f"`{hp.name}`" + ("" if hp.default is None else f" ({hp.default})")
            for hp in _declared(name)
        )
        maps = "yes" if getattr(cls, "supports_weights", False) else "no"
        summary = cls.summary.replace("*", r"\*")  # beta*mu is a product, not emphasis
        lines.append(f"| `{name}` | {summary} | {hypers or '-'} | {maps} |")
    return "\n".join(lines) + "\n"


def choosing_table() -> str:
    """The guide's "Choosing a variant" table (markdown): each variant's ``helps`` line, what
    was measured of it and where it helps."""
    lines = ["| name | where it helps (measured) |", "|---|---|"]
    for name in list_attention():
        lines.append(f"| `{name}` | {get_attention_class(name).helps} |")
    return "\n".join(lines) + "\n"
