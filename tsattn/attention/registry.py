"""The registry of named attention variants.

A variant is an :class:`torch.nn.Module` class registered with :func:`register_attention`. Its
constructor takes ``d_model`` and ``n_heads`` positionally, ``dropout`` by keyword, and its own
hyperparameters as keyword arguments with defaults; the registry reads those from the signature, so a
variant declares its hyperparameters exactly once.
"""

from __future__ import annotations

import difflib
import inspect
import warnings
from collections.abc import Callable
from typing import Any

from torch import nn

__all__ = [
    "register_attention",
    "list_attention",
    "get_attention_class",
    "attention_hyperparameters",
    "all_hyperparameters",
    "build_attention",
    "resolve_hyperparameters",
    "check_model_size",
]

_REGISTRY: dict[str, type[nn.Module]] = {}
_COMMON = ("self", "d_model", "n_heads", "dropout")


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
        close = difflib.get_close_matches(str(name), _REGISTRY, n=3)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(
            f"Unknown attention {name!r}.{hint} Valid names: {', '.join(list_attention())}."
        )
    return _REGISTRY[name]


def attention_hyperparameters(name: str) -> dict[str, Any]:
    """The hyperparameters of variant ``name`` with their defaults (read from its signature)."""
    sig = inspect.signature(get_attention_class(name).__init__)
    return {
        p.name: p.default
        for p in sig.parameters.values()
        if p.name not in _COMMON and p.kind is p.KEYWORD_ONLY
    }


def all_hyperparameters() -> dict[str, list[str]]:
    """Every hyperparameter name used by some variant, mapped to the variants that use it."""
    users: dict[str, list[str]] = {}
    for name in list_attention():
        for hp in attention_hyperparameters(name):
            users.setdefault(hp, []).append(name)
    return users


def build_attention(
    name: str, d_model: int, n_heads: int, *, dropout: float = 0.0, **hyper: Any
) -> nn.Module:
    """Build attention variant ``name``.

    Parameters
    ----------
    name : a name from :func:`list_attention`.
    d_model, n_heads : model width and number of heads (``d_model % n_heads == 0``).
    dropout : dropout on the attention weights (training only).
    **hyper : variant hyperparameters. ``None`` means the variant's default. A value for a
        hyperparameter that this variant does not use warns (it would be silently ignored otherwise);
        a name no variant uses raises.

    Returns
    -------
    module : called as ``module(x, mask=None)`` with ``x`` ``(B, N, d_model)`` and ``mask`` ``(B, N)``
        bool (True = real step); returns ``(B, N, d_model)``.
    """
    cls = get_attention_class(name)
    check_model_size(d_model, n_heads)
    kwargs = resolve_hyperparameters(name, hyper, stacklevel=3)
    return cls(d_model, n_heads, dropout=dropout, **kwargs)


def resolve_hyperparameters(name: str, hyper: dict[str, Any], stacklevel: int = 2) -> dict[str, Any]:
    """Keep the hyperparameters that variant ``name`` uses.

    ``None`` values mean "the variant's default" and are dropped; a value the variant does not use
    warns (naming the variants that do); a name that no variant uses raises a ``ValueError``.
    """
    own = attention_hyperparameters(name)
    known = all_hyperparameters()
    kwargs = {}
    for key, value in hyper.items():
        if value is None:
            continue
        if key not in known:
            close = difflib.get_close_matches(key, known, n=3)
            hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
            raise ValueError(
                f"Unknown attention hyperparameter {key!r}.{hint} "
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
        kwargs[key] = value
    return kwargs


def check_model_size(d_model: Any, n_heads: Any) -> None:
    """Raise a ``ValueError`` unless ``d_model`` and ``n_heads`` are positive with ``d_model % n_heads == 0``."""
    for label, value in (("d_model", d_model), ("n_heads", n_heads)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{label} must be a positive integer, got {value!r}.")
    if d_model % n_heads:
        raise ValueError(
            f"d_model={d_model} is not divisible by n_heads={n_heads}: each head gets "
            f"d_model / n_heads features. Choose e.g. d_model={n_heads * max(1, round(d_model / n_heads))}."
        )
