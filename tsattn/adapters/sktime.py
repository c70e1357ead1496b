"""sktime interface to :class:`tsattn.TSForecaster`, for sktime pipelines, tuning and evaluation.

>>> from tsattn.adapters.sktime import TSAttnForecaster  # doctest: +SKIP
>>> TSAttnForecaster(context_length=24, attention="softmax").fit(y, fh=[1, 2, 3]).predict()  # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tsattn.adapters._collection import (
    TEST_PARAMS,
    CollectionAdapterMixin,
    RegressorAdapterMixin,
    store_arguments,
    wrapped_params,
)
from tsattn.estimators import TSForecaster

# The adapters' defaults are the wrapped estimators' own, so the two never train different models.
_F = TSForecaster().get_params()

try:
    from sktime.classification.base import BaseClassifier
    from sktime.forecasting.base import BaseForecaster
    from sktime.regression.base import BaseRegressor
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tsattn.adapters.sktime needs sktime, which is not installed: pip install 'tsattn[sktime]'"
    ) from err

__all__ = ["TSAttnForecaster", "TSAttnClassifier", "TSAttnRegressor"]


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
    context_length, attention, head, n_harm, anchor, period, instance_norm, instance_norm_eps,
    channel_independent, patch_len, loss, d_model, n_heads, n_layers, dim_feedforward, dropout,
    max_epochs, max_steps, batch_size, lr,
    validation_fraction, patience, max_train_windows, device, random_state, verbose
        As :class:`tsattn.TSForecaster`.
    forecaster_params : dict, optional
        Any other :class:`tsattn.TSForecaster` parameter (e.g. attention hyperparameters
        ``{"beta": 0.5}``).

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

    def __init__(
        self,
        context_length: int = _F['context_length'],
        attention: str = _F['attention'],
        head: str = _F['head'],
        n_harm: int = _F['n_harm'],
        anchor: str | None = _F['anchor'],
        period: int | str | None = _F['period'],
        instance_norm: bool = _F['instance_norm'],
        instance_norm_eps: float = _F['instance_norm_eps'],
        channel_independent: bool = _F['channel_independent'],
        patch_len: int | str = _F['patch_len'],
        loss: str = _F['loss'],
        d_model: int = _F['d_model'],
        n_heads: int = _F['n_heads'],
        n_layers: int = _F['n_layers'],
        dim_feedforward: int = _F['dim_feedforward'],
        dropout: float = _F['dropout'],
        max_epochs: int | None = _F['max_epochs'],
        max_steps: int | str | None = _F['max_steps'],
        batch_size: int = _F['batch_size'],
        lr: float = _F['lr'],
        validation_fraction: float = _F['validation_fraction'],
        patience: int | None = _F['patience'],
        max_train_windows: int | None = _F['max_train_windows'],
        device: str = _F['device'],
        random_state: int | None = _F['random_state'],
        verbose: int = _F['verbose'],
        forecaster_params: dict | None = None,
    ) -> None:
        store_arguments(self, locals())
        super().__init__()

    def _fit(self, y: pd.DataFrame, X=None, fh=None):
        steps = self._steps(fh)
        params = wrapped_params(self, "forecaster_params")
        self.forecaster_ = TSForecaster(horizon=int(steps.max()), **params)
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


class TSAttnClassifier(_CollectionMixin, BaseClassifier):
    """sktime classifier wrapping :class:`tsattn.TSClassifier` (parameters as there;
    ``estimator_params`` passes any other, e.g. ``{"beta": 0.5}``).

    Examples
    --------
    >>> from sktime.datasets import load_basic_motions
    >>> from tsattn.adapters.sktime import TSAttnClassifier
    >>> X, y = load_basic_motions(split="train", return_type="numpy3D")
    >>> clf = TSAttnClassifier(attention="bn_sh", max_epochs=2).fit(X, y)  # doctest: +SKIP
    """

    _estimator_cls = "TSClassifier"
    _tags = {**_COLLECTION_TAGS, "capability:predict_proba": True}


class TSAttnRegressor(RegressorAdapterMixin, _CollectionMixin, BaseRegressor):
    """sktime regressor wrapping :class:`tsattn.TSRegressor` (parameters as
    :class:`TSAttnClassifier`).

    Examples
    --------
    >>> from tsattn.adapters.sktime import TSAttnRegressor
    >>> reg = TSAttnRegressor(attention="softmax", max_epochs=2)  # doctest: +SKIP
    """

    _estimator_cls = "TSRegressor"
    _tags = dict(_COLLECTION_TAGS)
