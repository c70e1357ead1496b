"""sktime interface to :class:`tsattn.TSForecaster`, for sktime pipelines, tuning and evaluation.

>>> from tsattn.adapters.sktime import TSAttnForecaster  # doctest: +SKIP
>>> TSAttnForecaster(context_length=24, attention="softmax").fit(y, fh=[1, 2, 3]).predict()  # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tsattn.adapters._collection import TEST_PARAMS, CollectionAdapterMixin, mirror_parameters
from tsattn.estimators import TSClassifier, TSForecaster, TSRegressor

try:
    from sktime.classification.base import BaseClassifier
    from sktime.forecasting.base import BaseForecaster
    from sktime.regression.base import BaseRegressor
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tsattn.adapters.sktime needs sktime, which is not installed: pip install 'tsattn[sktime]'"
    ) from err

__all__ = ["TSAttnForecaster", "TSAttnClassifier", "TSAttnRegressor"]


@mirror_parameters(TSForecaster, skip=("horizon",))
class TSAttnForecaster(BaseForecaster):
    """sktime forecaster wrapping :class:`tsattn.TSForecaster`.

    The network's horizon is the largest step of the ``fh`` given to ``fit`` (required there);
    ``predict`` accepts any out-of-sample ``fh`` within it and forecasts from the last
    ``context_length`` observations seen (``update`` appends data to ``y_seen_`` and, with
    ``update_params=True``, refits on all of it). ``predict_quantiles`` and ``predict_interval``
    (sktime's interval API) return :meth:`tsattn.TSForecaster.predict_quantiles`, calibrated on the
    validation errors. Exogenous ``X`` is ignored.

    Parameters
    ----------
    **params
        Every parameter of :class:`tsattn.TSForecaster` but ``horizon`` (attention
        hyperparameters such as ``beta`` included), with its defaults: the signature is the
        estimator's own.

    Examples
    --------
    >>> from sktime.datasets import load_airline
    >>> from tsattn.adapters.sktime import TSAttnForecaster
    >>> y = load_airline()
    >>> model = TSAttnForecaster(context_length=24, attention="softmax", max_steps=20)
    >>> y_pred = model.fit(y, fh=[1, 2, 3]).predict()  # doctest: +SKIP
    """

    _tags = {
        "authors": ["tsattn developers"],
        "python_dependencies": ["torch"],
        "capability:multivariate": True,
        "capability:exogenous": False,
        "capability:insample": False,
        "capability:missing_values": False,
        "capability:random_state": True,
        "capability:pred_int": True,
        "capability:pred_int:insample": False,
        "y_inner_mtype": "pd.DataFrame",
        "requires-fh-in-fit": True,
        "fit_is_empty": False,
    }

    def _fit(self, y: pd.DataFrame, X=None, fh=None):
        steps = self._steps(fh)
        self.forecaster_ = TSForecaster(horizon=int(steps.max()), **self.get_params(deep=False))
        self.forecaster_.fit(y)  # the frame: period='auto' reads the season off its index
        # Own copy of the data seen: sktime 1.3 stops keeping it in ``_y`` by default.
        self.y_seen_ = y
        return self

    def _update(self, y: pd.DataFrame, X=None, update_params: bool = True):
        new = y.loc[~y.index.isin(self.y_seen_.index)]
        self.y_seen_ = pd.concat([self.y_seen_, new])
        if update_params:
            self.forecaster_.fit(self.y_seen_)
        return self

    def _steps(self, fh) -> np.ndarray:
        steps = np.asarray(fh.to_relative(self.cutoff), dtype=np.int64)
        if (steps < 1).any():
            raise NotImplementedError(
                f"TSAttnForecaster forecasts out of sample only; fh has steps {steps.tolist()}, "
                "pass steps >= 1."
            )
        return steps

    def _check_within_horizon(self, steps: np.ndarray) -> np.ndarray:
        horizon = self.forecaster_.horizon
        if steps.max() > horizon:
            raise ValueError(
                f"fh reaches {int(steps.max())} steps ahead but the model was fitted for at most "
                f"{horizon}; fit again with this fh."
            )
        return steps

    def _predict(self, fh, X=None):
        steps = self._check_within_horizon(self._steps(fh))
        forecast = self.forecaster_.predict(self.y_seen_.to_numpy(dtype=np.float64))
        index = fh.to_absolute_index(self.cutoff)
        return pd.DataFrame(forecast[steps - 1], index=index, columns=self.y_seen_.columns)

    def _predict_quantiles(self, fh, X, alpha):
        steps = self._check_within_horizon(self._steps(fh))
        quantiles = self.forecaster_.predict_quantiles(self.y_seen_.to_numpy(dtype=np.float64),
                                                       alpha=alpha)  # (horizon, C, k)  # fmt: skip
        columns = pd.MultiIndex.from_product([self.y_seen_.columns, list(alpha)])
        values = quantiles[steps - 1].reshape(len(steps), -1)
        return pd.DataFrame(values, index=fh.to_absolute_index(self.cutoff), columns=columns)

    @classmethod
    def get_test_params(cls, parameter_set: str = "default"):
        tiny = dict(
            context_length=6, patch_len=2, attention="softmax", d_model=8, n_heads=2, n_layers=1,
            dim_feedforward=16, max_epochs=2, validation_fraction=0.0, device="cpu",
            random_state=0,
        )  # fmt: skip
        return [tiny, {**tiny, "head": "linear", "channel_independent": False, "patch_len": 1}]


_COLLECTION_TAGS = {
    "authors": ["tsattn developers"],
    "python_dependencies": ["torch"],
    "capability:multivariate": True,
    "capability:random_state": True,
    "X_inner_mtype": "numpy3D",
}


class _CollectionMixin(CollectionAdapterMixin):
    @classmethod
    def get_test_params(cls, parameter_set: str = "default"):
        return [dict(p) for p in TEST_PARAMS]


@mirror_parameters(TSClassifier)
class TSAttnClassifier(_CollectionMixin, BaseClassifier):
    """sktime classifier wrapping :class:`tsattn.TSClassifier` (parameters as there;
    every parameter of it, with its defaults, attention hyperparameters such as ``beta`` included).

    Examples
    --------
    >>> from sktime.datasets import load_basic_motions
    >>> from tsattn.adapters.sktime import TSAttnClassifier
    >>> X, y = load_basic_motions(split="train", return_type="numpy3D")
    >>> clf = TSAttnClassifier(attention="bn_sh", max_epochs=2).fit(X, y)  # doctest: +SKIP
    """

    _tags = {**_COLLECTION_TAGS, "capability:predict_proba": True}


@mirror_parameters(TSRegressor)
class TSAttnRegressor(_CollectionMixin, BaseRegressor):
    """sktime regressor wrapping :class:`tsattn.TSRegressor` (every parameter of it, with its
    defaults).

    Examples
    --------
    >>> from tsattn.adapters.sktime import TSAttnRegressor
    >>> reg = TSAttnRegressor(attention="softmax", max_epochs=2)  # doctest: +SKIP
    """

    _tags = dict(_COLLECTION_TAGS)
