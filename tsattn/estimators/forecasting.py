"""``TSForecaster``: multi-step forecasting of one (possibly multivariate) series with a transformer.

Method of S3Attention (paper 002, Algorithms 3-4) with the attention as a choice: each context window
is instance-normalised, cut into patch tokens, encoded, and turned into the next ``horizon`` steps by
a Fourier-extrapolation or a linear head. The single-series part of the estimator core: it shares
the core's parameters and training and adds the windowing of one series.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
import torch
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from tsattn._validation import POSITIVE_INT
from tsattn.attention import AttentionSpec
from tsattn.datasets.forecasting import sliding_windows
from tsattn.estimators._series import (
    as_series,
    as_windows,
    check_channels,
    check_length,
    format_output,
    hold_out_tail,
)
from tsattn.estimators.base import ATTENTION, BaseTSEstimator
from tsattn.estimators.params import declare, default, param
from tsattn.nn.forecasting import FORECAST_HEADS, ForecastingTransformer
from tsattn.training import TensorData, resolve_device

__all__ = ["TSForecaster"]


@declare
class TSForecaster(BaseTSEstimator):
    """Transformer forecaster: the ``horizon`` steps after a ``context_length``-step window.

    Fitting cuts every stride-1 window of ``context_length + horizon`` steps from the training
    series; the last ``validation_fraction`` of the series (with ``context_length`` steps of overlap,
    so that its first target is the first held-out step) is the validation series for early stopping,
    unless a separate ``y_val`` is given to :meth:`fit`. ``batch_size`` counts windows. :meth:`score`
    is the *negative* MSE (scikit-learn's "higher is better"); :meth:`mse` and :meth:`mae` the errors.

    Scaling. The series is standardised per channel with the mean and standard deviation of the
    training part (``channel_mean_``, ``channel_scale_``); the loss is the MSE in these standardised
    units (the unit of the long-horizon benchmarks). Inside the network, each window is additionally
    instance-normalised by its own mean and ``sqrt(var + instance_norm_eps)`` and the forecast
    de-normalised (``instance_norm=True``).

    Attributes
    ----------
    module_ : the trained :class:`tsattn.nn.forecasting.ForecastingTransformer`; ``n_channels_``.
    channel_mean_, channel_scale_ : ndarray (n_channels,), training statistics.
    last_context_ : ndarray (context_length, n_channels), the end of the training series.
    history_, best_epoch_, n_epochs_, interrupted_ : training record (see ``tsattn.training``).
    """

    horizon: int = param(96, [POSITIVE_INT], "Steps forecast after each context.", kw_only=False)
    context_length: int = param(
        96, [Interval(Integral, 2, None, closed="left")], "Steps of history the network reads "
        "(the last ``context_length`` rows of a context).", kw_only=False,
    )  # fmt: skip
    attention: str = param("s3", **ATTENTION, kw_only=False)
    head: str = param(
        "fourier", [StrOptions(set(FORECAST_HEADS))], "``'fourier'``: project the encoded tokens "
        "back to the channels and extrapolate them by their ``1 + 2*n_harm`` lowest Fourier "
        "harmonics (Algorithm 4 of 002). ``'linear'``: map the flattened encoded window linearly "
        "to the horizon."
    )
    n_harm: int = param(8, [Interval(Integral, 0, None, closed="left")], "Harmonics of the Fourier head.")
    instance_norm: bool = param(
        True, ["boolean"], "Normalise each window by its mean and ``sqrt(var + instance_norm_eps)`` "
        "over time and de-normalise the output."
    )
    instance_norm_eps: float = param(
        1e-5, [Interval(Real, 0, None, closed="neither")], "Added to each window's variance. "
        "``1e-5`` is RevIN's: every window is scaled to unit variance, so the network sees the same "
        "input whatever the window's level and scale. ``1.0`` is Algorithm 3 of 002 exactly: a floor "
        "that leaves windows flatter than the training series unscaled, which hurts where the scale "
        "drifts after the training period (``docs/results/forecast/``).",
        hint="1.0 is Algorithm 3 of 002, 1e-5 RevIN's.",
    )
    channel_independent: bool = param(
        True, ["boolean"], "Encode each channel as its own univariate series with shared weights "
        "(PatchTST/DLinear style); False puts all channels of a time step in one token."
    )
    patch_len: int = param(
        16, [POSITIVE_INT], "Time steps per token (non-overlapping patches, as PatchTST; at most "
        "``context_length``). 1 is one token per step, as in 002; patches shorten the attended "
        "sequence ``patch_len``-fold and give each token local shape (``docs/results/forecast/``)."
    )
    max_train_windows: int | None = param(
        None, [POSITIVE_INT, None], "Train on a random subset (fixed by ``random_state``) of at "
        "most this many training windows; None uses all. Bounds the cost of an epoch on long series."
    )
    d_model: int = default(32)
    n_heads: int = default(4)
    n_layers: int = default(2)
    dim_feedforward: int = default(64)
    dropout: float = default(0.1)
    attention_dropout: float = default(0.1)
    max_epochs: int = default(30)
    lr_schedule: str | None = default(None)
    weight_decay: float = default(0.0)
    validation_fraction: float = default(0.1)
    patience: int | None = default(5)

    _network = ForecastingTransformer

    def _loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.mse_loss(output, target)

    def fit(self, y: Any, y_val: Any = None) -> TSForecaster:
        """Train on the series ``y``; returns ``self``.

        Parameters
        ----------
        y : array (T,) or (T, n_channels), pandas Series or DataFrame
            One series, oldest row first. A ``DatetimeIndex`` must be increasing without duplicates;
            :meth:`predict` continues it.
        y_val : same format, optional
            A validation series for early stopping (e.g. the standard validation split, starting
            ``context_length`` rows before its first target). Default: the end of ``y``.
        """
        spec = self._validate()
        return self._train(*self._build(y, y_val, spec), fixed_len=True)

    def _validate(self) -> AttentionSpec:
        spec = super()._validate()
        if self.patch_len > self.context_length:
            raise ValueError(f"patch_len={self.patch_len} exceeds context_length="
                             f"{self.context_length}; choose a patch no longer than the context.")
        return spec

    def _build(self, y: Any, y_val: Any, spec: AttentionSpec):
        """Windows, standardisation, validation series and ``network_params_`` (as the core's)."""
        values, self.input_kind_ = as_series(y, "y")
        check_length(values, self.context_length, self.horizon, "y")
        self.n_channels_ = self.n_features_in_ = values.shape[1]
        seed, rng = self._random()
        train_vals, valid_vals = values, None
        if y_val is not None:
            valid_vals, _ = as_series(y_val, "y_val")
            check_channels(valid_vals, self.n_channels_, "y_val")
            check_length(valid_vals, self.context_length, self.horizon, "y_val")
        elif self.validation_fraction > 0:
            train_vals, valid_vals = hold_out_tail(
                values, self.validation_fraction, self.context_length, self.horizon
            )
        self.channel_mean_, self.channel_scale_ = self._standardisation(train_vals)
        self.last_context_ = values[-self.context_length :].copy()

        self.device_ = resolve_device(self.device)
        train_data = self._window_data(train_vals, rng, self.max_train_windows)
        valid_data = self._window_data(valid_vals, rng, None) if valid_vals is not None else None
        if self.max_len is None and "max_len" in spec.params:  # a window's tokens, exactly
            n_tokens = -(-self.context_length // self.patch_len)
            spec = AttentionSpec(spec.name, {**spec.params, "max_len": n_tokens})
        self.network_params_ = dict(
            n_channels=self.n_channels_, context_length=int(self.context_length),
            horizon=int(self.horizon), head=self.head, n_harm=int(self.n_harm),
            instance_norm=bool(self.instance_norm), instance_norm_eps=float(self.instance_norm_eps),
            channel_independent=bool(self.channel_independent), patch_len=int(self.patch_len),
            **self._trunk_params(spec),
        )  # fmt: skip
        return train_data, valid_data, seed, rng

    def _window_data(self, values: np.ndarray, rng: np.random.Generator, limit: int | None) -> TensorData:
        ctx, tgt = sliding_windows(self._scale(values), self.context_length, self.horizon)
        if limit is not None and len(ctx) > limit:
            keep = np.sort(rng.choice(len(ctx), size=limit, replace=False))
            ctx, tgt = ctx[keep], tgt[keep]
        return self._tensors(np.asarray(ctx), np.asarray(tgt))

    def _tensors(self, contexts: np.ndarray, targets: np.ndarray | None = None) -> TensorData:
        dev = self.device_
        y = None if targets is None else torch.tensor(targets, dtype=torch.float32, device=dev)
        lengths = torch.full((len(contexts),), self.context_length, dtype=torch.long, device=dev)
        return TensorData(torch.tensor(contexts, dtype=torch.float32, device=dev), lengths, y)

    def _scale(self, values: np.ndarray) -> np.ndarray:
        return (values - self.channel_mean_) / self.channel_scale_

    def _forecast_windows(self, contexts: np.ndarray) -> np.ndarray:
        """``(n, >= context_length, C)`` unscaled -> ``(n, horizon, C)`` unscaled, float64."""
        out = self._predict_tensor(self._tensors(self._scale(contexts[:, -self.context_length :])), True)
        return out.numpy().astype(np.float64) * self.channel_scale_ + self.channel_mean_

    def predict(self, y_context: Any = None) -> np.ndarray | pd.DataFrame | pd.Series:
        """Forecast the ``horizon`` steps after a context.

        Parameters
        ----------
        y_context : None, one series, or an array ``(n_windows, length, n_channels)``
            None: the steps after the end of the training series. One series (same formats as in
            :meth:`fit`, at least ``context_length`` rows; the last ``context_length`` are used):
            the steps after it. A 3-D array of contexts (at least one window): every window's
            forecast, computed in batches.

        Returns
        -------
        For one series, the same kind as the input (``(horizon,)``, ``(horizon, C)``, or a
        Series/DataFrame whose index continues the input's); for 3-D input ``(n_windows, horizon, C)``.
        """
        check_is_fitted(self, "module_")
        if y_context is None:
            values, info = self.last_context_, self.input_kind_
        else:
            if getattr(y_context, "ndim", np.ndim(y_context)) == 3:
                contexts = as_windows(y_context, self.n_channels_, "y_context")
                check_length(contexts[0], self.context_length, 0, "y_context")
                return self._forecast_windows(contexts)
            values, info = as_series(y_context, "y_context")
            check_channels(values, self.n_channels_, "y_context")
            check_length(values, self.context_length, 0, "y_context")
        return format_output(self._forecast_windows(values[None])[0], info)

    def mse(self, y_context_windows: Any, y_true_windows: Any) -> float:
        """Mean squared error of the forecasts of ``y_context_windows (n, L, C)`` against
        ``y_true_windows (n, horizon, C)``, averaged over every window, step and channel."""
        return float(np.mean(self._errors(y_context_windows, y_true_windows) ** 2))

    def mae(self, y_context_windows: Any, y_true_windows: Any) -> float:
        """Mean absolute error; arguments as :meth:`mse`."""
        return float(np.mean(np.abs(self._errors(y_context_windows, y_true_windows))))

    def score(self, y_context_windows: Any, y_true_windows: Any) -> float:
        """*Negative* MSE (higher is better, as scikit-learn's model selection expects)."""
        return -self.mse(y_context_windows, y_true_windows)

    def _errors(self, contexts: Any, targets: Any) -> np.ndarray:
        check_is_fitted(self, "module_")
        contexts = np.asarray(contexts, dtype=np.float64)
        targets = np.asarray(targets, dtype=np.float64)
        if contexts.ndim == 2:
            contexts, targets = contexts[None], targets.reshape(1, len(targets), -1)
        expected = (contexts.shape[0], self.horizon, self.n_channels_)
        if targets.shape != expected:
            raise ValueError(
                f"y_true_windows must have shape (n_windows, horizon, n_channels) = {expected}; "
                f"got {targets.shape}."
            )
        return self.predict(contexts) - targets
