"""The constructor, fitting and prediction shared by the sktime and aeon adapters of
:class:`tsattn.TSClassifier` and :class:`tsattn.TSRegressor` (imports neither toolkit)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tsattn.estimators import TSClassifier, TSRegressor

# The adapters' defaults are the wrapped estimators' own, so the two never train different models.
_C = TSClassifier().get_params()
_R = TSRegressor().get_params()

#: Small, fast settings for the toolkits' estimator checks.
TEST_PARAMS = [
    dict(
        attention="softmax", d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=2,
        validation_fraction=0.0, device="cpu", random_state=0,
    ),  # fmt: skip
]
TEST_PARAMS.append({**TEST_PARAMS[0], "attention": "bn_sh", "norm": "layer"})


def store_arguments(adapter: Any, arguments: dict[str, Any]) -> None:
    """Store an adapter's constructor arguments (its ``locals()``) unchanged, as the toolkits'
    ``__init__`` contract wants, without writing ``self.x = x`` once per parameter."""
    for name, value in arguments.items():
        if name not in ("self", "__class__"):
            setattr(adapter, name, value)


def wrapped_params(adapter: Any, extra: str) -> dict[str, Any]:
    """The wrapped estimator's parameters: the adapter's own (but ``extra``) updated by ``extra``."""
    params = adapter.get_params(deep=False)
    return {**{k: v for k, v in params.items() if k != extra}, **(params[extra] or {})}


class CollectionAdapterMixin:
    """Put before the toolkit's ``BaseClassifier``/``BaseRegressor``; ``_estimator_cls`` names the
    wrapped tsattn estimator."""

    _estimator_cls: str

    def __init__(
        self,
        attention: str = _C['attention'],
        d_model: int = _C['d_model'],
        n_heads: int = _C['n_heads'],
        n_layers: int = _C['n_layers'],
        dim_feedforward: int = _C['dim_feedforward'],
        dropout: float = _C['dropout'],
        norm: str = _C['norm'],
        head: str = _C['head'],
        max_epochs: int = _C['max_epochs'],
        batch_size: int = _C['batch_size'],
        lr: float = _C['lr'],
        validation_fraction: float = _C['validation_fraction'],
        patience: int | None = _C['patience'],
        device: str = _C['device'],
        random_state: int | None = _C['random_state'],
        verbose: int = _C['verbose'],
        estimator_params: dict | None = None,
    ) -> None:
        store_arguments(self, locals())
        super().__init__()

    def _fit(self, X, y):
        import tsattn.estimators

        params = wrapped_params(self, "estimator_params")
        self.estimator_ = getattr(tsattn.estimators, self._estimator_cls)(**params).fit(X, y)
        return self

    def _predict(self, X) -> np.ndarray:
        return self.estimator_.predict(X)

    def _predict_proba(self, X) -> np.ndarray:
        """Probabilities with columns in the toolkit's ``classes_`` order (classifiers only)."""
        proba = self.estimator_.predict_proba(X)
        order = [list(self.estimator_.classes_).index(c) for c in self.classes_]
        return proba[:, order]


class RegressorAdapterMixin(CollectionAdapterMixin):
    """:class:`CollectionAdapterMixin` with :class:`tsattn.TSRegressor`'s defaults where they differ
    from the classifier's (``validation_fraction``, 0.2 by the regression CV)."""

    def __init__(
        self,
        attention: str = _R['attention'],
        d_model: int = _R['d_model'],
        n_heads: int = _R['n_heads'],
        n_layers: int = _R['n_layers'],
        dim_feedforward: int = _R['dim_feedforward'],
        dropout: float = _R['dropout'],
        norm: str = _R['norm'],
        head: str = _R['head'],
        max_epochs: int = _R['max_epochs'],
        batch_size: int = _R['batch_size'],
        lr: float = _R['lr'],
        validation_fraction: float = _R['validation_fraction'],
        patience: int | None = _R['patience'],
        device: str = _R['device'],
        random_state: int | None = _R['random_state'],
        verbose: int = _R['verbose'],
        estimator_params: dict | None = None,
    ) -> None:
        store_arguments(self, locals())
        super(CollectionAdapterMixin, self).__init__()  # the toolkit's base, after the mixins
