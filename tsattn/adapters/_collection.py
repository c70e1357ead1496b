"""The constructor, fitting and prediction shared by the sktime and aeon adapters of
:class:`tsattn.TSClassifier` and :class:`tsattn.TSRegressor` (imports neither toolkit)."""

from __future__ import annotations

import numpy as np

from tsattn.estimators import TSClassifier

# The adapters' defaults are the wrapped estimators' own, so the two never train different models.
_C = TSClassifier().get_params()

#: Parameters the adapters expose by name; ``estimator_params`` passes any other.
COLLECTION_PARAMS = (
    "attention", "d_model", "n_heads", "n_layers", "dim_feedforward", "dropout", "norm", "head",
    "max_epochs", "batch_size", "lr", "validation_fraction", "patience", "device", "random_state",
    "verbose",
)  # fmt: skip

#: Small, fast settings for the toolkits' estimator checks.
TEST_PARAMS = [
    dict(
        attention="softmax", d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=2,
        validation_fraction=0.0, device="cpu", random_state=0,
    ),  # fmt: skip
]
TEST_PARAMS.append({**TEST_PARAMS[0], "attention": "bn_sh", "norm": "layer"})


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
        self.attention = attention
        self.d_model = d_model
        self.n_heads = n_heads
        self.n_layers = n_layers
        self.dim_feedforward = dim_feedforward
        self.dropout = dropout
        self.norm = norm
        self.head = head
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.validation_fraction = validation_fraction
        self.patience = patience
        self.device = device
        self.random_state = random_state
        self.verbose = verbose
        self.estimator_params = estimator_params
        super().__init__()

    def _fit(self, X, y):
        import tsattn

        params = {name: getattr(self, name) for name in COLLECTION_PARAMS}
        params.update(self.estimator_params or {})
        self.estimator_ = getattr(tsattn, self._estimator_cls)(**params).fit(X, y)
        return self

    def _predict(self, X) -> np.ndarray:
        return self.estimator_.predict(X)

    def _predict_proba(self, X) -> np.ndarray:
        """Probabilities with columns in the toolkit's ``classes_`` order (classifiers only)."""
        proba = self.estimator_.predict_proba(X)
        order = [list(self.estimator_.classes_).index(c) for c in self.classes_]
        return proba[:, order]
