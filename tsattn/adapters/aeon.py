"""aeon interface to :class:`tsattn.TSClassifier` and :class:`tsattn.TSRegressor`, for aeon's
benchmarking, pipelines and estimator checks.

>>> from tsattn.adapters.aeon import TSAttnAeonClassifier  # doctest: +SKIP
>>> TSAttnAeonClassifier(attention="bn_sh", max_epochs=2).fit(X, y).predict_proba(X)  # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np

from tsattn.estimators import TSClassifier

# The adapters' defaults are the wrapped estimators' own, so the two never train different models.
_C = TSClassifier().get_params()

try:
    from aeon.classification.base import BaseClassifier
    from aeon.regression.base import BaseRegressor
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tsattn.adapters.aeon needs aeon, which is not installed: pip install aeon"
    ) from err

__all__ = ["TSAttnAeonClassifier", "TSAttnAeonRegressor"]

_COLLECTION_PARAMS = (
    "attention", "d_model", "n_heads", "n_layers", "dim_feedforward", "dropout", "norm", "head",
    "max_epochs", "batch_size", "lr", "validation_fraction", "patience", "device", "random_state",
    "verbose",
)  # fmt: skip

# Only tags in aeon's registry (aeon.utils.tags.ESTIMATOR_TAGS): its checks reject any other.
# aeon hands equal-length data over as numpy3D and unequal-length data as a list of
# (channels, length_i) arrays, both of which the wrapped estimators pad and mask themselves.
# The same random_state trains the same network on CPU, and fitted models pickle (the weights
# travel as a state dict), so neither "non_deterministic" nor "cant_pickle" is set.
_COLLECTION_TAGS = {
    "python_dependencies": ["torch"],
    "capability:multivariate": True,
    "capability:unequal_length": True,
    "capability:missing_values": False,
    "algorithm_type": "deeplearning",
    "X_inner_type": ["np-list", "numpy3D"],
}


class _AeonCollectionMixin:
    """Shared constructor and fitting of the aeon classifier and regressor adapters."""

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

        params = {name: getattr(self, name) for name in _COLLECTION_PARAMS}
        params.update(self.estimator_params or {})
        self.estimator_ = getattr(tsattn, self._estimator_cls)(**params).fit(X, y)
        return self

    def _predict(self, X) -> np.ndarray:
        return self.estimator_.predict(X)

    @classmethod
    def _get_test_params(cls, parameter_set: str = "default"):
        tiny = dict(
            attention="softmax", d_model=8, n_heads=2, n_layers=1, dim_feedforward=16,
            max_epochs=2, validation_fraction=0.0, device="cpu", random_state=0,
        )  # fmt: skip
        return [tiny, {**tiny, "attention": "bn_sh", "norm": "layer"}]


class TSAttnAeonClassifier(_AeonCollectionMixin, BaseClassifier):
    """aeon classifier wrapping :class:`tsattn.TSClassifier`.

    Takes any aeon collection: equal-length series arrive as ``(n, channels, length)``, unequal
    lengths (e.g. JapaneseVowels) as a list of ``(channels, length_i)`` arrays, which the network
    pads and masks, never truncates. A model fitted on equal-length series predicts on that length.

    Parameters
    ----------
    attention, d_model, n_heads, n_layers, dim_feedforward, dropout, norm, head, max_epochs,
    batch_size, lr, validation_fraction, patience, device, random_state, verbose
        As :class:`tsattn.TSClassifier`, with its defaults.
    estimator_params : dict, optional
        Any other :class:`tsattn.TSClassifier` parameter (e.g. attention hyperparameters
        ``{"beta": 0.5}``).

    Attributes
    ----------
    estimator_ : the fitted :class:`tsattn.TSClassifier`.
    classes_ : labels as aeon sorts them; ``predict_proba`` columns follow this order.

    Examples
    --------
    >>> from aeon.datasets import load_basic_motions
    >>> from tsattn.adapters.aeon import TSAttnAeonClassifier
    >>> X, y = load_basic_motions(split="train")
    >>> clf = TSAttnAeonClassifier(attention="bn_sh", max_epochs=2)
    >>> proba = clf.fit(X, y).predict_proba(X)  # doctest: +SKIP
    """

    _estimator_cls = "TSClassifier"
    _tags = dict(_COLLECTION_TAGS)

    def _predict_proba(self, X) -> np.ndarray:
        proba = self.estimator_.predict_proba(X)
        order = [list(self.estimator_.classes_).index(c) for c in self.classes_]
        return proba[:, order]


class TSAttnAeonRegressor(_AeonCollectionMixin, BaseRegressor):
    """aeon regressor wrapping :class:`tsattn.TSRegressor` (parameters and input as
    :class:`TSAttnAeonClassifier`; ``estimator_`` is the fitted :class:`tsattn.TSRegressor`).

    Examples
    --------
    >>> from aeon.datasets import load_covid_3month
    >>> from tsattn.adapters.aeon import TSAttnAeonRegressor
    >>> X, y = load_covid_3month(split="train")
    >>> reg = TSAttnAeonRegressor(attention="softmax", max_epochs=2)
    >>> y_pred = reg.fit(X, y).predict(X)  # doctest: +SKIP
    """

    _estimator_cls = "TSRegressor"
    _tags = dict(_COLLECTION_TAGS)
