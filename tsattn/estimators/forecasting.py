"""``TSForecaster``: multi-step forecasting of one (possibly multivariate) series with a transformer.

Method of S3Attention (paper 002, Algorithms 3-4) with the attention as a choice: each context window
is instance-normalised, encoded, and turned into the next ``horizon`` steps by a Fourier-extrapolation
or a linear head. Training goes through :func:`tsattn.training.train_network` on every stride-1 window
of the training series.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np
import pandas as pd
import torch
from sklearn.utils.validation import check_is_fitted, check_random_state

from tsattn.datasets.forecasting import sliding_windows
from tsattn.estimators.base import BaseTSEstimator, _check_int
from tsattn.nn.forecasting import FORECAST_HEADS, ForecastingTransformer
from tsattn.training import (
    Callback,
    TensorData,
    predict_network,
    resolve_device,
    seeded,
    train_network,
)

__all__ = ["TSForecaster"]


class TSForecaster(BaseTSEstimator):
    """Transformer forecaster: the ``horizon`` steps after a ``context_length``-step window.

    Fitting cuts every stride-1 window of ``context_length + horizon`` steps from the training
    series; the last ``validation_fraction`` of the series (with ``context_length`` steps of overlap,
    so that its first target is the first held-out step) is the validation series for early stopping,
    unless a separate ``y_val`` is given to :meth:`fit`.

    Scaling. The series is standardised per channel with the mean and standard deviation of the
    training part (``channel_mean_``, ``channel_scale_``); the loss is the MSE in these standardised
    units (the unit of the long-horizon benchmarks). Inside the network, each window is additionally
    instance-normalised by its own mean and ``sqrt(var + instance_norm_eps)`` and the forecast
    de-normalised (``instance_norm=True``). The default small ``instance_norm_eps`` (RevIN's) scales
    every window to unit variance; ``instance_norm_eps=1`` is Algorithm 3 of 002, a floor that leaves
    windows flatter than the training series unscaled and so suits only series whose scale stays
    that of the training part.

    Parameters
    ----------
    horizon : int, default=96
        Steps forecast after each context.
    context_length : int, default=96
        Steps of history the network reads (the last ``context_length`` rows of a context).
    attention : str, default="s3"
        Attention variant (:func:`tsattn.list_attention`).
    head : {"fourier", "linear"}, default="fourier"
        ``"fourier"``: project the encoded tokens back to the channels and extrapolate them by their
        ``1 + 2*n_harm`` lowest Fourier harmonics (Algorithm 4 of 002). ``"linear"``: flatten the
        encoded window and map it linearly to the horizon.
    n_harm : int, default=8
        Harmonics of the Fourier head.
    instance_norm : bool, default=True
        Normalise each window by its mean and ``sqrt(var + instance_norm_eps)`` over time and
        de-normalise the output.
    instance_norm_eps : float, default=1e-5
        Added to each window's variance; must be > 0. ``1e-5`` is RevIN's: every window is scaled to
        unit variance, so the network sees the same input whatever the window's level and scale.
        ``1.0`` is Algorithm 3 of 002 exactly: a floor that leaves windows flatter than the training
        series unscaled, which hurts where the scale drifts after the training period (test MSE,
        s3/linear, 3 seeds: illness h24 2.317 -> 2.055, exchange h96 0.091 -> 0.084;
        ``docs/results/forecast/``).
    channel_independent : bool, default=True
        Encode each channel as its own univariate series with shared weights (PatchTST/DLinear
        style); False puts all channels of a time step in one token.
    patch_len : int, default=16
        Time steps per token (non-overlapping patches, as PatchTST). 1 is one token per step, as
        in 002; patches shorten the attended sequence ``patch_len``-fold (16x cheaper attention
        and encoder at the default) and give each token local shape; on ETTh1 (h=96) they also
        forecast better (test MSE 0.388 with patches of 16 vs 0.415 with point tokens, softmax,
        linear head, similar budgets). Must not exceed ``context_length``.
    max_train_windows : int or None, default=None
        Train on a random subset (fixed by ``random_state``) of at most this many training windows;
        None uses all. Bounds the cost of an epoch on long series.
    d_model, n_heads, n_layers, dim_feedforward : int, default=32, 4, 2, 64
    dropout, attention_dropout (default 0.1 here: the benchmark numbers were measured with it), norm, attention hyperparameters, max_epochs, batch_size, lr, weight_decay,
    validation_fraction, patience, device, random_state, verbose, callbacks, lr_schedule
        As for :class:`tsattn.TSClassifier` (defaults here: ``max_epochs=30``, ``patience=5``,
        ``lr=1e-3``, ``batch_size=32``); ``batch_size`` counts windows.

    Attributes
    ----------
    module_ : the trained :class:`tsattn.nn.forecasting.ForecastingTransformer`.
    n_channels_ : int
    channel_mean_, channel_scale_ : ndarray (n_channels,), training statistics.
    last_context_ : ndarray (context_length, n_channels), the end of the training series.
    history_, best_epoch_, n_epochs_, interrupted_ : training record (see ``train_network``).

    Notes
    -----
    :meth:`score` returns the *negative* MSE (scikit-learn's "higher is better"); :meth:`mse` and
    :meth:`mae` return the errors themselves.
    """

    _heads = FORECAST_HEADS

    def __init__(
        self,
        horizon: int = 96,
        context_length: int = 96,
        attention: str = "s3",
        *,
        head: str = "fourier",
        n_harm: int = 8,
        instance_norm: bool = True,
        instance_norm_eps: float = 1e-5,
        channel_independent: bool = True,
        patch_len: int = 16,
        max_train_windows: int | None = None,
        d_model: int = 32,
        n_heads: int = 4,
        n_layers: int = 2,
        dim_feedforward: int = 64,
        dropout: float = 0.1,
        attention_dropout: float = 0.1,
        norm: str = "batch",
        beta: float | None = None,
        bn_standardize: bool | None = None,
        learn_beta: bool | None = None,
        scales: tuple[int, ...] | None = None,
        key_scales: tuple[int, ...] | None = None,
        kernel_size: int | None = None,
        window: int | None = None,
        rank: int | None = None,
        r: int | None = None,
        s1: int | None = None,
        s2: int | None = None,
        block: int | None = None,
        max_len: int | None = None,
        max_epochs: int = 30,
        batch_size: int = 32,
        lr: float = 1e-3,
        lr_schedule: str | None = None,
        weight_decay: float = 0.0,
        validation_fraction: float = 0.1,
        patience: int | None = 5,
        device: str = "auto",
        precision: str = "float32",
        random_state: int | np.random.RandomState | None = None,
        verbose: int = 0,
        callbacks: list[Callback] | None = None,
    ) -> None:
        super().__init__(
            attention, d_model=d_model, n_heads=n_heads, n_layers=n_layers,
            dim_feedforward=dim_feedforward, dropout=dropout,
            attention_dropout=attention_dropout, norm=norm, head=head, beta=beta,
            bn_standardize=bn_standardize, learn_beta=learn_beta, scales=scales,
            key_scales=key_scales, kernel_size=kernel_size, window=window, rank=rank, r=r, s1=s1,
            s2=s2, block=block, max_len=max_len, max_epochs=max_epochs, batch_size=batch_size, lr=lr, lr_schedule=lr_schedule,
            weight_decay=weight_decay, validation_fraction=validation_fraction, patience=patience,
            device=device, precision=precision, random_state=random_state, verbose=verbose,
            callbacks=callbacks,
        )  # fmt: skip
        self.horizon = horizon
        self.context_length = context_length
        self.n_harm = n_harm
        self.instance_norm = instance_norm
        self.instance_norm_eps = instance_norm_eps
        self.channel_independent = channel_independent
        self.patch_len = patch_len
        self.max_train_windows = max_train_windows

    # ------------------------------------------------------------------ network
    def _build_network(self) -> torch.nn.Module:
        return ForecastingTransformer(**self.network_params_)

    def _loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.mse_loss(output, target)

    def _validate_params(self) -> dict[str, Any]:
        _check_int("horizon", self.horizon)
        _check_int("context_length", self.context_length, minimum=2)
        _check_int("n_harm", self.n_harm, minimum=0)
        _check_int("patch_len", self.patch_len)
        if self.patch_len > self.context_length:
            raise ValueError(
                f"patch_len={self.patch_len} exceeds context_length={self.context_length}; "
                "choose a patch no longer than the context."
            )
        for name in ("instance_norm", "channel_independent"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}.")
        eps = self.instance_norm_eps
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not 0 < eps < math.inf:
            raise ValueError(
                f"instance_norm_eps must be a finite number > 0 (1.0: Algorithm 3 of 002; 1e-5: "
                f"RevIN), got {eps!r}."
            )
        if self.max_train_windows is not None:
            _check_int("max_train_windows", self.max_train_windows)
        return super()._validate_params()

    # ------------------------------------------------------------------ fit
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
        attention_params = self._validate_params()
        values, info = _as_series(y, "y")
        self._check_length(values, "y")
        self.n_channels_ = values.shape[1]
        self.n_features_in_ = self.n_channels_
        self.input_kind_ = info
        rs = check_random_state(self.random_state)
        seed = int(rs.randint(np.iinfo(np.int32).max))
        rng = np.random.default_rng(seed)

        train_vals, valid_vals = values, None
        if y_val is not None:
            valid_vals, _ = _as_series(y_val, "y_val")
            self._check_channels(valid_vals, "y_val")
            self._check_length(valid_vals, "y_val")
        elif self.validation_fraction > 0:
            n_val = int(math.ceil(self.validation_fraction * len(values)))
            need = self.context_length + self.horizon
            if n_val >= self.horizon and len(values) - n_val >= need:
                train_vals = values[: len(values) - n_val]
                valid_vals = values[len(values) - n_val - self.context_length :]
            else:
                warnings.warn(
                    f"y has {len(values)} steps: too few to hold out validation_fraction="
                    f"{self.validation_fraction} ({n_val} steps, at least horizon={self.horizon} "
                    f"needed) and keep {need} for training; training without validation and "
                    "monitoring the training loss. Pass a longer series, y_val, or "
                    "validation_fraction=0 to silence this.",
                    UserWarning,
                    stacklevel=2,
                )
        self.channel_mean_ = train_vals.mean(axis=0)
        std = train_vals.std(axis=0)
        self.channel_scale_ = np.where(std > 1e-12, std, 1.0)
        self.last_context_ = values[-self.context_length :].copy()

        self.device_ = resolve_device(self.device)
        train = self._window_data(train_vals, rng, self.max_train_windows)
        valid = self._window_data(valid_vals, rng, None) if valid_vals is not None else None
        self.network_params_ = dict(
            n_channels=self.n_channels_,
            context_length=self.context_length,
            horizon=self.horizon,
            attention=self.attention,
            attention_params=attention_params,
            d_model=self.d_model,
            n_heads=self.n_heads,
            n_layers=self.n_layers,
            dim_feedforward=self.dim_feedforward,
            dropout=self.dropout,
            attention_dropout=self.attention_dropout,
            norm=self.norm,
            head=self.head,
            n_harm=self.n_harm,
            instance_norm=bool(self.instance_norm),
            instance_norm_eps=float(self.instance_norm_eps),
            channel_independent=bool(self.channel_independent),
            patch_len=self.patch_len,
        )
        with seeded(seed, self.device_):
            self.module_ = self._build_network().to(self.device_)
            result = train_network(
                self.module_,
                self._loss,
                train,
                valid,
                estimator=self,
                max_epochs=self.max_epochs,
                batch_size=self.batch_size,
                lr=self.lr,
                weight_decay=self.weight_decay,
                patience=self.patience if valid is not None else None,
                rng=rng,
                fixed_len=True,
                callbacks=list(self.callbacks or ()),
                verbose=self.verbose,
                lr_schedule=self.lr_schedule,
                precision=self.precision,
            )
        self.history_ = result.history
        self.best_epoch_ = result.best_epoch
        self.n_epochs_ = len(result.history)
        self.interrupted_ = result.interrupted
        return self

    def _window_data(
        self, values: np.ndarray, rng: np.random.Generator, limit: int | None
    ) -> TensorData:
        ctx, tgt = sliding_windows(self._scale(values), self.context_length, self.horizon)
        if limit is not None and len(ctx) > limit:
            keep = np.sort(rng.choice(len(ctx), size=limit, replace=False))
            ctx, tgt = ctx[keep], tgt[keep]
        dev = self.device_
        return TensorData(
            x=torch.tensor(np.asarray(ctx), dtype=torch.float32, device=dev),
            lengths=torch.full((len(ctx),), self.context_length, dtype=torch.long, device=dev),
            y=torch.tensor(np.asarray(tgt), dtype=torch.float32, device=dev),
        )

    def _scale(self, values: np.ndarray) -> np.ndarray:
        return (values - self.channel_mean_) / self.channel_scale_

    def _check_length(self, values: np.ndarray, what: str) -> None:
        need = self.context_length + self.horizon
        if len(values) < need:
            raise ValueError(
                f"{what} has {len(values)} time steps, fewer than context_length + horizon = "
                f"{self.context_length} + {self.horizon} = {need} needed for one training window. "
                "Pass a longer series or lower context_length/horizon."
            )

    def _check_channels(self, values: np.ndarray, what: str) -> None:
        if values.shape[-1] != self.n_channels_:
            raise ValueError(
                f"{what} has {values.shape[-1]} channel(s) but {type(self).__name__} was fitted on "
                f"{self.n_channels_}; pass the same channels as in fit."
            )

    # ------------------------------------------------------------------ predict
    def _forecast_windows(self, contexts: np.ndarray) -> np.ndarray:
        """``(n, >= context_length, C)`` unscaled -> ``(n, horizon, C)`` unscaled, float64."""
        x = self._scale(contexts[:, -self.context_length :])
        data = TensorData(
            x=torch.tensor(x, dtype=torch.float32, device=self.device_),
            lengths=torch.full(
                (len(x),), self.context_length, dtype=torch.long, device=self.device_
            ),
        )
        out = predict_network(
            self.module_, data, batch_size=max(256, self.batch_size), fixed_len=True,
            precision=self.precision,
        )
        return out.numpy().astype(np.float64) * self.channel_scale_ + self.channel_mean_

    def predict(self, y_context: Any = None) -> np.ndarray | pd.DataFrame | pd.Series:
        """Forecast the ``horizon`` steps after a context.

        Parameters
        ----------
        y_context : None, one series, or an array ``(n_windows, length, n_channels)``
            None: the steps after the end of the training series. One series (same formats as in
            :meth:`fit`, at least ``context_length`` rows; the last ``context_length`` are used):
            the steps after it. A 3-D array of contexts: every window's forecast, computed in batches.

        Returns
        -------
        For one series, the same kind as the input: ``(horizon,)`` for 1-D input, ``(horizon, C)``
        for 2-D, and a Series/DataFrame whose index continues the input's (its ``freq``, else the
        inferred one, else the last step). For 3-D input, ``(n_windows, horizon, C)``.
        """
        check_is_fitted(self, "module_")
        if y_context is None:
            values, info = self.last_context_, self.input_kind_
        else:
            arr = (
                y_context
                if isinstance(y_context, (pd.DataFrame, pd.Series))
                else np.asarray(y_context)
            )
            if getattr(arr, "ndim", 0) == 3:
                contexts = _finite(np.asarray(arr, dtype=np.float64), "y_context")
                self._check_channels(contexts, "y_context")
                self._check_context(contexts.shape[1])
                return self._forecast_windows(contexts)
            values, info = _as_series(y_context, "y_context")
            self._check_channels(values, "y_context")
            self._check_context(len(values))
        forecast = self._forecast_windows(values[None])[0]
        return _format_output(forecast, info)

    def _check_context(self, length: int) -> None:
        if length < self.context_length:
            raise ValueError(
                f"y_context has {length} time steps but context_length={self.context_length} are "
                "needed; pass a longer context."
            )

    def mse(self, y_context_windows: Any, y_true_windows: Any) -> float:
        """Mean squared error of the forecasts of ``y_context_windows (n, L, C)`` against
        ``y_true_windows (n, horizon, C)``, averaged over every window, step and channel."""
        err = self._errors(y_context_windows, y_true_windows)
        return float(np.mean(err**2))

    def mae(self, y_context_windows: Any, y_true_windows: Any) -> float:
        """Mean absolute error; arguments as :meth:`mse`."""
        return float(np.mean(np.abs(self._errors(y_context_windows, y_true_windows))))

    def score(self, y_context_windows: Any, y_true_windows: Any) -> float:
        """*Negative* MSE (higher is better, as scikit-learn's model selection expects)."""
        return -self.mse(y_context_windows, y_true_windows)

    def _errors(self, contexts: Any, targets: Any) -> np.ndarray:
        contexts = np.asarray(contexts, dtype=np.float64)
        targets = np.asarray(targets, dtype=np.float64)
        if contexts.ndim == 2:
            contexts, targets = contexts[None], targets.reshape(1, len(targets), -1)
        if (
            targets.ndim != 3
            or targets.shape[0] != contexts.shape[0]
            or targets.shape[1] != self.horizon
        ):
            raise ValueError(
                f"y_true_windows must be (n_windows={contexts.shape[0]}, horizon={self.horizon}, "
                f"n_channels); got shape {targets.shape}."
            )
        return self.predict(contexts) - targets


# ---------------------------------------------------------------------- input handling
def _finite(values: np.ndarray, what: str) -> np.ndarray:
    if not np.isfinite(values).all():
        bad = np.argwhere(~np.isfinite(values))[0]
        raise ValueError(
            f"{what} contains NaN or infinite values (first at position {tuple(int(i) for i in bad)}); "
            "impute them first (e.g. df.interpolate() or df.ffill())."
        )
    return values


def _as_series(y: Any, what: str) -> tuple[np.ndarray, dict]:
    """``(values (T, C) float64, info)``; ``info`` remembers the container to format outputs."""
    info: dict[str, Any] = {"kind": "array2d"}
    if isinstance(y, pd.Series):
        info = {"kind": "series", "name": y.name, "index": _index_tail(y.index, what)}
        values = y.to_numpy(dtype=np.float64)[:, None]
    elif isinstance(y, pd.DataFrame):
        info = {"kind": "frame", "columns": y.columns, "index": _index_tail(y.index, what)}
        try:
            values = y.to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{what} has non-numeric columns: {err}") from err
    else:
        try:
            values = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{what} must be numeric: {err}") from err
        if values.ndim == 1:
            info = {"kind": "array1d"}
            values = values[:, None]
        elif values.ndim != 2:
            raise ValueError(
                f"{what} has shape {values.shape}; expected one series (T,) or (T, n_channels) "
                "(time along the first axis)."
            )
    if values.shape[1] == 0:
        raise ValueError(f"{what} has 0 channels; pass at least one column.")
    return _finite(values, what), info


def _index_tail(index: pd.Index, what: str) -> pd.Index:
    """Check a time index and keep its last few entries (enough to continue it)."""
    if isinstance(index, (pd.DatetimeIndex, pd.PeriodIndex)) or pd.api.types.is_numeric_dtype(
        index
    ):
        if index.has_duplicates:
            dup = index[index.duplicated()][0]
            raise ValueError(
                f"{what} has a duplicated time index (e.g. {dup}); aggregate or drop duplicates "
                "first (e.g. df.groupby(level=0).mean())."
            )
        if not index.is_monotonic_increasing:
            raise ValueError(
                f"{what} has a time index that is not increasing; sort it first (df.sort_index())."
            )
    if isinstance(index, pd.DatetimeIndex):
        freq = index.freq or (pd.infer_freq(index[-50:]) if len(index) >= 3 else None)
        tail = index[-3:]
        return pd.DatetimeIndex(tail, freq=freq) if freq is not None else tail
    return index[-3:]


def _continue_index(tail: pd.Index, steps: int) -> pd.Index:
    if isinstance(tail, pd.DatetimeIndex):
        if tail.freq is not None:
            return pd.date_range(tail[-1], periods=steps + 1, freq=tail.freq)[1:]
        if len(tail) >= 2:
            step = tail[-1] - tail[-2]
            return pd.DatetimeIndex([tail[-1] + step * (i + 1) for i in range(steps)])
    if isinstance(tail, pd.PeriodIndex):
        return pd.period_range(tail[-1] + 1, periods=steps, freq=tail.freq)
    if pd.api.types.is_integer_dtype(tail) and len(tail):
        step = int(tail[-1] - tail[-2]) if len(tail) >= 2 else 1
        return pd.RangeIndex(int(tail[-1]) + step, int(tail[-1]) + step * (steps + 1), step)
    return pd.RangeIndex(steps)


def _format_output(forecast: np.ndarray, info: dict) -> Any:
    kind = info["kind"]
    if kind == "array1d":
        return forecast[:, 0]
    if kind == "array2d":
        return forecast
    index = _continue_index(info["index"], len(forecast))
    if kind == "series":
        return pd.Series(forecast[:, 0], index=index, name=info["name"])
    return pd.DataFrame(forecast, index=index, columns=info["columns"])
