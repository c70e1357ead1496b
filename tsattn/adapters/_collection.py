"""The constructor, fitting and prediction shared by the sktime and aeon adapters of
:class:`tsattn.TSClassifier` and :class:`tsattn.TSRegressor` (imports neither toolkit)."""

from __future__ import annotations

import abc
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T", bound=type)

#: Small, fast settings for the toolkits' estimator checks.
TEST_PARAMS = [
    dict(
        attention="softmax", d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=2,
        validation_fraction=0.0, device="cpu", random_state=0,
    ),  # fmt: skip
]
TEST_PARAMS.append({**TEST_PARAMS[0], "attention": "bn_sh", "norm": "layer"})


def mirror_parameters(estimator_cls: type, skip: tuple[str, ...] = ()) -> Callable[[T], T]:
    """Class decorator: the adapter's constructor takes every parameter of ``estimator_cls`` but
    ``skip``, in its order and with its defaults, and stores them unchanged.

    The parameter list is the estimator's own signature (its declarations), not a copy: a
    parameter added to the estimator reaches the adapter's ``get_params``, ``set_params``,
    ``clone`` and the toolkits' tuning without a change here. The adapter keeps the wrapped class
    in ``_estimator_cls``.
    """
    own = inspect.signature(estimator_cls.__init__)
    signature = own.replace(parameters=[p for p in own.parameters.values() if p.name not in skip])

    def decorate(adapter_cls: T) -> T:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            bound = signature.bind(self, *args, **kwargs)  # an unknown name raises TypeError
            bound.apply_defaults()
            for name, value in bound.arguments.items():
                if name != "self":
                    setattr(self, name, value)
            super(adapter_cls, self).__init__()

        __init__.__signature__ = signature  # what inspect, scikit-learn, sktime and aeon read
        __init__.__qualname__ = f"{adapter_cls.__qualname__}.__init__"
        __init__.__module__ = adapter_cls.__module__
        adapter_cls.__init__ = __init__
        adapter_cls._estimator_cls = estimator_cls
        # aeon's base declares an abstract __init__: recount, now that the class has its own
        return abc.update_abstractmethods(adapter_cls)

    return decorate


class CollectionAdapterMixin:
    """Put before the toolkit's ``BaseClassifier``/``BaseRegressor``, the adapter decorated with
    :func:`mirror_parameters` of the wrapped tsattn estimator."""

    _estimator_cls: type

    def _fit(self, X, y):
        self.estimator_ = self._estimator_cls(**self.get_params(deep=False)).fit(X, y)
        return self

    def _predict(self, X) -> np.ndarray:
        return self.estimator_.predict(X)

    def _predict_proba(self, X) -> np.ndarray:
        """Probabilities with columns in the toolkit's ``classes_`` order (classifiers only)."""
        proba = self.estimator_.predict_proba(X)
        order = [list(self.estimator_.classes_).index(c) for c in self.classes_]
        return proba[:, order]
