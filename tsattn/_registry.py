"""The one class-decorator registry the plug-in families share (forecasting heads and token
views, covariate roles, target scales): a name maps to a class, set once, and the class learns
its ``name``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["register"]

T = TypeVar("T", bound=type)


def register(registry: dict[str, Any], kind: str, name: str) -> Callable[[T], T]:
    """A class decorator adding its class to ``registry`` under ``name`` (``kind`` names the
    family in the error raised when another class holds the name already)."""

    def decorator(cls: T) -> T:
        if name in registry and registry[name] is not cls:
            raise ValueError(f"{kind} {name!r} is already registered by {registry[name]!r}.")
        cls.name = name
        registry[name] = cls
        return cls

    return decorator
