"""aeon interface to :class:`tsattn.TSClassifier` and :class:`tsattn.TSRegressor`, for aeon's
benchmarking, pipelines and estimator checks.

>>> from tsattn.adapters.aeon import TSAttnAeonClassifier  # doctest: +SKIP
>>> TSAttnAeonClassifier(attention="bn_sh", max_epochs=2).fit(X, y).predict_proba(X)  # doctest: +SKIP
"""

from __future__ import annotations

from tsattn.adapters._collection import TEST_PARAMS, CollectionAdapterMixin, RegressorAdapterMixin

try:
    from aeon.classification.base import BaseClassifier
    from aeon.regression.base import BaseRegressor
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tsattn.adapters.aeon needs aeon, which is not installed: pip install aeon"
    ) from err

__all__ = ["TSAttnAeonClassifier", "TSAttnAeonRegressor"]

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


class _AeonCollectionMixin(CollectionAdapterMixin):
    @classmethod
    def _get_test_params(cls, parameter_set: str = "default"):
        return [dict(p) for p in TEST_PARAMS]


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


class TSAttnAeonRegressor(RegressorAdapterMixin, _AeonCollectionMixin, BaseRegressor):
    """aeon regressor wrapping :class:`tsattn.TSRegressor` (parameters and input as
    :class:`TSAttnAeonClassifier`, with :class:`tsattn.TSRegressor`'s defaults;
    ``estimator_`` is the fitted :class:`tsattn.TSRegressor`).

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
