"""aeon interface to :class:`tsattn.TSClassifier` and :class:`tsattn.TSRegressor`, for aeon's
benchmarking, pipelines and estimator checks.

>>> from tsattn.adapters.aeon import TSAttnAeonClassifier  # doctest: +SKIP
>>> TSAttnAeonClassifier(attention="bn_sh", max_epochs=2).fit(X, y).predict_proba(X)  # doctest: +SKIP

Each adapter takes every parameter of the estimator it wraps, with its defaults: its signature is
the estimator's own.
"""

from __future__ import annotations

from tsattn.adapters._collection import TEST_PARAMS, CollectionAdapterMixin, mirror_parameters
from tsattn.estimators import TSClassifier, TSRegressor

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


@mirror_parameters(TSClassifier)
class TSAttnAeonClassifier(_AeonCollectionMixin, BaseClassifier):
    """aeon classifier wrapping :class:`tsattn.TSClassifier`.

    Takes any aeon collection: equal-length series arrive as ``(n, channels, length)``, unequal
    lengths (e.g. JapaneseVowels) as a list of ``(channels, length_i)`` arrays, which the network
    pads and masks, never truncates. A model fitted on equal-length series predicts on that length.

    Parameters
    ----------
    **params
        Every parameter of :class:`tsattn.TSClassifier` (attention hyperparameters such as
        ``beta`` included), with its defaults.

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

    _tags = dict(_COLLECTION_TAGS)


@mirror_parameters(TSRegressor)
class TSAttnAeonRegressor(_AeonCollectionMixin, BaseRegressor):
    """aeon regressor wrapping :class:`tsattn.TSRegressor` (every parameter of it, with its
    defaults; input as :class:`TSAttnAeonClassifier`; ``estimator_`` is the fitted
    :class:`tsattn.TSRegressor`).

    Examples
    --------
    >>> from aeon.datasets import load_covid_3month
    >>> from tsattn.adapters.aeon import TSAttnAeonRegressor
    >>> X, y = load_covid_3month(split="train")
    >>> reg = TSAttnAeonRegressor(attention="softmax", max_epochs=2)
    >>> y_pred = reg.fit(X, y).predict(X)  # doctest: +SKIP
    """

    _tags = dict(_COLLECTION_TAGS)
