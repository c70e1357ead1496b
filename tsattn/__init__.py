"""tsattn: time-series transformers whose attention mechanism is a choice.

>>> from tsattn import TSClassifier, list_attention
>>> list_attention()  # doctest: +SKIP
['bn', 'bn_sh', 'sh', 'softmax', ...]
>>> TSClassifier(attention="bn_sh").fit(X, y).predict(X_test)  # doctest: +SKIP

The names below are imported on first use, so ``import tsattn.datasets`` (or the command line's
``datasets`` commands) does not pay for importing torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from tsattn._version import __version__

_LAZY = {
    "TSClassifier": "tsattn.estimators",
    "TSRegressor": "tsattn.estimators",
    "TSForecaster": "tsattn.estimators",
    "build_attention": "tsattn.attention",
    "list_attention": "tsattn.attention",
}

__all__ = ["TSClassifier", "TSRegressor", "TSForecaster", "build_attention", "list_attention", "__version__"]

if TYPE_CHECKING:  # pragma: no cover
    from tsattn.attention import build_attention, list_attention
    from tsattn.estimators import TSClassifier, TSForecaster, TSRegressor


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tsattn' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names: ``__all__`` and the subpackages imported so far (``tsattn.datasets``...),
    not the names this module uses itself (``importlib``, ``TYPE_CHECKING``, ``annotations``)."""
    loaded = {n for n, v in globals().items() if isinstance(v, type(importlib)) and not n.startswith("_")}
    return sorted({*__all__, *(loaded - {"importlib"})})
