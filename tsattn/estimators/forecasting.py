"""``TSForecaster``: multi-step forecasting of one (possibly multivariate) series with a transformer.

Instance-normalised context windows, patch tokens, the chosen attention and a linear or Fourier
(002, Algorithms 3-4) head, blended with a closed-form linear forecaster (:mod:`._anchor`);
intervals from the validation errors (:mod:`._intervals`); windows cut on the fly under a budget
of optimiser steps (:class:`tsattn.training.WindowData`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from sklearn.utils.validation import check_is_fitted

from tsattn.attention import AttentionSpec
from tsattn.estimators import _anchor, _intervals, persistence
from tsattn.estimators._forecaster_params import (
    LOSSES,
    REMOVED,
    REMOVED_ATTRIBUTES,
    REMOVED_NETWORK,
    ForecasterParams,
)
from tsattn.estimators._windows import WindowScores, window_tensors
from tsattn.estimators.params import declare
from tsattn.io import series as series_io
from tsattn.io import standardisation
from tsattn.nn.forecasting import ForecastingTransformer, check_combination, get_head, get_view
from tsattn.training import Budget, WindowData, autocast, resolve_device

__all__ = ["TSForecaster"]

#: Validation samples (windows, or window-channel pairs) kept at most for the calibration after
#: training (anchor, blend, intervals); a fixed random subset above.
MAX_VALID_SAMPLES = 32_768
#: Validation samples scored after each of the ``ROUNDS`` training rounds to pick the best one; a
#: fixed random subset above. Scoring 32,768 samples 20 times took a third of a default fit on
#: ETTm1 (docs/results/speed/fit_time/).
MAX_ROUND_SAMPLES = 8_192
#: ``max_steps='auto'``: optimiser steps whatever the data's size (the best round is kept, so a
#: small series is not overfitted by them; 300 steps left ILI 16-26% worse on validation).
AUTO_STEPS = 3000
#: Validation rounds per fit (each ``round_steps_`` optimiser steps).
ROUNDS = 20


@declare
class TSForecaster(WindowScores, ForecasterParams):
    """Transformer forecaster: the ``horizon`` steps after a ``context_length``-step window.

    What most fits set (every parameter, with why it exists and what it was measured to do:
    ``docs/guide/forecasting.md``)::

        horizon         steps forecast after each context
        context_length  steps of history read
        attention       the attention variant (tsattn.list_attention(); default 'softmax')
        max_steps       the budget in optimiser steps ('auto': 3000, the best round kept)
        device          'auto' (CUDA when present), 'cpu', 'cuda' or 'cuda:N'
        random_state    the seed of the initial weights, the batches and the subsets

    ``fit`` trains on the stride-1 windows of one series (cut on the fly: memory does not grow
    with the window count) for a budget of optimiser steps (``max_steps='auto'``: ``n_steps_``),
    validated ``ROUNDS`` times on the end of the series (``validation_fraction``) or on ``y_val``
    and keeping the best round's weights (stopping after ``patience`` rounds without a better
    one). Then, on the validation windows, the network's forecast is blended with the ``anchor``
    (``blend_``) and the errors calibrate the intervals of :meth:`predict_quantiles` and
    :meth:`predict_interval`. With ``channel_independent``, a sample is one channel of one window
    and ``batch_size`` counts such univariate windows. :meth:`score` is the *negative* MSE;
    :meth:`mse` and :meth:`mae` the errors. The series is standardised per channel with its
    training part's statistics (``channel_mean_``, ``channel_scale_``), the unit of the loss and of
    the long-horizon benchmarks.

    Attributes
    ----------
    module_ : the trained :class:`tsattn.nn.forecasting.ForecastingTransformer`; ``n_channels_``.
    channel_mean_, channel_scale_ : ndarray (n_channels,), training statistics.
    last_context_ : ndarray (context_length, n_channels), the end of the training series.
    patch_len_ : the patch length used (``patch_len='auto'``: ``context_length // 6``, at most 16).
    patch_stride_ : the steps between two patches' starts (``patch_len_`` without overlap).
    blend_, anchor_ : the network's share in the forecast (1 without anchor or validation data), the anchor used.
    anchor_refit_ : whether the chosen anchor was fitted again on the validation rows too (where
        they continue the training rows).
    period_ : steps per season of the seasonal anchor (1: none; also when the training rows are
        fewer than two seasons).
    interval_table_, interval_floor_, interval_source_ : the calibrated normalised errors.
    history_, best_round_, n_rounds_, round_steps_, n_steps_, max_steps_, interrupted_ : training
        record: a record of ``history_`` per validation round of ``round_steps_`` optimiser steps
        (its ``epoch``: passes over the training samples so far).
    """

    _network = ForecastingTransformer

    def __setstate__(self, state: dict) -> None:
        """A model saved before issue 50 loads when it left the removed options at the values
        whose behaviour was kept (:data:`REMOVED`), and fails naming them otherwise."""
        name = type(self).__name__
        persistence.drop_removed(state, REMOVED, name)
        if isinstance(state.get("network_params_"), dict):
            params = state["network_params_"] = dict(state["network_params_"])
            persistence.drop_removed(params, REMOVED_NETWORK, name)
            if "head_params" not in params:  # format 1: the Fourier head's n_harm was flat
                n_harm = params.pop("n_harm", None)
                params["head_params"] = {"n_harm": n_harm} if params["head"] == "fourier" else {}
        for attribute in REMOVED_ATTRIBUTES:
            state.pop(attribute, None)
        super().__setstate__(state)

    def _loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return LOSSES[self.loss](output, target)

    @staticmethod
    def _score_fn(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return -torch.nn.functional.mse_loss(output, target)

    def fit(self, y: Any, y_val: Any = None) -> TSForecaster:
        """Train on the series ``y`` (array ``(T,)`` or ``(T, C)``, Series or DataFrame, oldest row
        first; a ``DatetimeIndex`` must increase without duplicates and :meth:`predict` continues
        it). ``y_val``: a validation series in the same format (e.g. the standard validation split,
        starting ``context_length`` rows before its first target); default the end of ``y``."""
        spec = self._validate()
        train_data, valid_windows, seed, rng = self._build(y, y_val, spec)
        valid_data = None if valid_windows is None else valid_windows.sample(MAX_ROUND_SAMPLES, rng)
        self._train(train_data, valid_data, seed, rng)
        self._calibrate(train_data, valid_windows, rng)
        return self

    def _validate(self) -> AttentionSpec:
        spec = super()._validate()
        check_combination(self.head, self.tokens, context_length=self.context_length,
                          patch_len=self.patch_len, patch_stride=self.patch_stride,
                          channel_independent=self.channel_independent)  # fmt: skip
        return spec

    def _auto_steps(self, n_train: int) -> int:
        return AUTO_STEPS

    def _batch(self, n_train: int) -> int:
        """``batch_size`` univariate series: whole windows of every channel for variate tokens."""
        size = super()._batch(n_train)
        return max(1, size // self.n_channels_) if get_view(self.tokens).by_channel else size

    def _budget(self, n_train: int) -> Budget:
        """The step budget cut into ``ROUNDS`` validation rounds of ``round_steps`` steps."""
        budget = super()._budget(n_train)
        steps = budget.steps
        if steps is None:
            steps = budget.rounds * -(-n_train // self.batch_size_)
        round_steps = max(1, -(-steps // ROUNDS))
        return Budget(-(-steps // round_steps), steps, round_steps)

    def _build(self, y: Any, y_val: Any, spec: AttentionSpec):
        """Windows, standardisation, validation samples and ``network_params_`` (as the core's)."""
        values, self.input_kind_, train_vals, valid_vals = series_io.read_fit_series(
            y, y_val, self.validation_fraction, self.context_length, self.horizon, type(self).__name__)
        self.n_channels_ = self.n_features_in_ = values.shape[1]
        self.period_ = self._period(self.input_kind_, len(train_vals))
        seed, rng = self._random()
        self.channel_mean_, self.channel_scale_ = standardisation(train_vals)
        self.last_context_ = values[-self.context_length :].copy()
        self.patch_len_ = (min(16, max(1, self.context_length // 6)) if self.patch_len == "auto"
                           else int(self.patch_len))  # fmt: skip
        self.patch_stride_ = (max(1, self.patch_len_ // 2) if self.patch_stride == "half"
                              else self.patch_len_ if self.patch_stride is None else int(self.patch_stride))
        self.device_ = resolve_device(self.device)
        train_data = self._windows(train_vals)
        valid_windows = None if valid_vals is None else self._windows(valid_vals)
        self.network_params_ = dict(
            n_channels=self.n_channels_, context_length=int(self.context_length),
            horizon=int(self.horizon), head=self.head, head_params=self._head_params(),
            channel_independent=self._independent(), patch_len=self.patch_len_, tokens=self.tokens,
            anchor=self.anchor is not None, anchor_period=self.period_,
            patch_stride=self.patch_stride_,
            **self._trunk_params(spec),
        )  # fmt: skip
        return train_data, valid_windows, seed, rng

    def _head_params(self) -> dict[str, Any]:
        """The head's hyperparameters that are parameters here, as the network takes them."""
        declared = get_head(self.head).hyperparameters
        return {hp.name: hp.check(getattr(self, hp.name)) for hp in declared
                if hp.name in self._parameter_constraints}  # fmt: skip

    def _period(self, info: dict | None, n_train: int) -> int:
        """``period_``: the ``period`` parameter, ``'auto'`` read from the time index; 1 without a
        seasonal anchor or with fewer than two seasons of training rows."""
        period = self.period
        if period == "auto":
            index = (info or {}).get("index")
            period = 1 if index is None else series_io.seasonal_period(index)
        period = int(period or 1)
        if self.anchor not in ("auto", "cycle", "ncycle") or n_train < 2 * period:
            period = 1
        if self.anchor in ("cycle", "ncycle") and period == 1:  # never silently without a season
            raise ValueError(
                f"anchor={self.anchor!r} needs a season of at least 2 steps and two seasons of "
                f"training rows; got period={self.period!r} ({n_train} training rows). Pass "
                "period=<steps per season> (e.g. 24 for hourly data), or a pandas series with a "
                "regular DatetimeIndex and period='auto', or use anchor='auto'.")  # fmt: skip
        return period

    def _windows(self, values: np.ndarray) -> WindowData:
        """The stride-1 windows of ``values (T, C)``, scaled."""
        series = torch.tensor(self._scale(values), dtype=torch.float32, device=self.device_)
        starts = np.arange(len(series) - self.context_length - self.horizon + 1)
        return WindowData(series, self.context_length, self.horizon, starts, self._independent())

    def _independent(self) -> bool:
        """Whether a training sample is one channel of a window (patch tokens per channel)."""
        return bool(self.channel_independent) and not get_view(self.tokens).by_channel

    def _calibrate(self, train_data: WindowData, valid_windows: WindowData | None,
                   rng: np.random.Generator) -> None:  # fmt: skip
        """The anchor, ``blend_`` and the interval table from validation windows with every
        channel (training windows when there are none), at most ``MAX_VALID_SAMPLES`` values per
        step. Whole windows, not the training loop's (window, channel) samples: the seasonal
        anchor places a window in its season from all of its channels at once, as at predict."""
        self.interval_source_ = "validation" if valid_windows is not None else "train"
        source = train_data if valid_windows is None else valid_windows
        windows = WindowData(source.x, self.context_length, self.horizon,
                             source.starts.cpu().numpy(), channel_independent=False)  # fmt: skip
        valid_data = windows.sample(max(1, MAX_VALID_SAMPLES // self.n_channels_), rng)
        contexts, targets = (t.double().cpu().numpy() for t in (valid_data.x, valid_data.y))
        forecast = self._predict_tensor(valid_data).double().numpy()
        series, starts = train_data.x.double().cpu().numpy(), train_data.starts.cpu().numpy()
        self.blend_, self.anchor_ = 1.0, None
        if self.anchor is not None:
            fit, self.blend_, forecast = _anchor.choose(
                self.anchor, series, starts, self.period_, contexts, targets, forecast, rng,
                self.interval_source_ == "validation")  # fmt: skip
            self.anchor_ = fit.name
            self.module_.set_anchor(fit.weight, fit.bias, fit.cycle)
            self.module_.set_blend(self.blend_)
        crossfit = _anchor.crossfit_errors(
            series, starts, self.context_length, self.horizon, rng,
            max(1, MAX_VALID_SAMPLES // self.n_channels_))
        self.interval_table_, self.interval_floor_ = _intervals.calibrate(
            contexts, forecast, targets, crossfit)  # fmt: skip
        self.anchor_refit_ = False
        if self.anchor_ is not None and valid_windows is not None:
            self._refit_anchor(train_data.x, valid_windows.x, rng)

    def _refit_anchor(self, train: torch.Tensor, valid: torch.Tensor,
                      rng: np.random.Generator) -> None:  # fmt: skip
        """The chosen anchor fitted again on the rows of ``train (T, C)`` and
        ``valid (V, C)`` as one series, when ``valid`` starts with ``train``'s last
        ``context_length`` rows (it continues it); nothing otherwise."""
        rows = _joined(train, valid, self.context_length)
        if rows is None:
            return
        n, rows = self.context_length, rows.double().cpu().numpy()
        starts = np.arange(len(rows) - n - self.horizon + 1)
        fit = _anchor.fit_anchor(self.anchor_, rows, starts, n, self.horizon, self.period_, rng)
        self.module_.set_anchor(fit.weight, fit.bias, fit.cycle)
        self.anchor_refit_ = True

    def _scale(self, values: np.ndarray) -> np.ndarray:
        return (values - self.channel_mean_) / self.channel_scale_

    def _contexts(self, y_context: Any) -> tuple[np.ndarray, dict | None]:
        """``(scaled contexts (n, context_length, C), the input's kind)`` of ``y_context``."""
        if y_context is None:
            values, info = self.last_context_[None], self.input_kind_
        else:
            values, info = series_io.read_contexts(
                y_context, self.n_channels_, self.context_length, type(self).__name__)
        return self._scale(values[:, -self.context_length :]), info

    def _forecast(self, y_context: Any, alpha: np.ndarray | None = None):
        """``(forecasts, info)``: unscaled ``(n, horizon, C)`` point forecasts, or with ``alpha``
        ``(n, horizon, C, len(alpha))`` quantiles, and the input's kind (None for 3-D input)."""
        check_is_fitted(self, "module_")
        contexts, info = self._contexts(y_context)
        out = self._predict_tensor(window_tensors(contexts, self.device_)).double().numpy()
        mean, scale = self.channel_mean_, self.channel_scale_
        if alpha is None:
            return out * scale + mean, info
        out = _intervals.quantiles(out, contexts, self.interval_table_, self.interval_floor_, alpha)
        return out * scale[:, None] + mean[:, None], info

    def predict(self, y_context: Any = None) -> Any:
        """Forecast the ``horizon`` steps after a context: None, the end of the training series;
        one series (formats of :meth:`fit`, at least ``context_length`` rows, the last ones used);
        or a 3-D array ``(n_windows, length, n_channels)`` of contexts. Returns the input's kind
        (``(horizon,)``, ``(horizon, C)``, or a Series/DataFrame whose index continues the input's);
        ``(n_windows, horizon, C)`` for 3-D input."""
        out, info = self._forecast(y_context)
        return out if info is None else series_io.format_output(out[0], info)

    def predict_components(self, y_context: Any = None) -> dict[str, Any]:
        """What the forecast is made of: ``{"forecast": ..., "network": ..., "anchor": ...}``, the
        forecast of :meth:`predict`, the network's alone and the anchor's alone (None without an
        anchor), each of :meth:`predict`'s kind; ``forecast = blend_ * network + (1 - blend_) *
        anchor``. ``y_context`` as in :meth:`predict`."""
        check_is_fitted(self, "module_")
        contexts, info = self._contexts(y_context)
        data = window_tensors(contexts, self.device_)
        size = self._predict_batch()
        self.module_.eval()
        chunks = []
        with torch.inference_mode():
            for start in range(0, len(data), size):
                with autocast(self.device_, self.precision):
                    chunks.append(self.module_(data.x[start : start + size], parts=True))
        out = {}
        for k, name in enumerate(("forecast", "network", "anchor")):
            if chunks[0][k] is None:
                out[name] = None
                continue
            part = torch.cat([c[k].float() for c in chunks]).cpu().double().numpy()
            part = part * self.channel_scale_ + self.channel_mean_
            out[name] = part if info is None else series_io.format_output(part[0], info)
        return out

    def predict_quantiles(self, y_context: Any = None, alpha: Any = (0.1, 0.5, 0.9)) -> Any:
        """Quantiles at levels ``alpha`` (calibrated on the validation errors): arrays with a last
        axis over ``alpha``, or for pandas input a DataFrame with columns ``(column, alpha)`` on the
        continued index. ``y_context`` as in :meth:`predict`."""
        alpha = _intervals.check_levels(alpha)
        out, info = self._forecast(y_context, alpha)
        return out if info is None else series_io.format_quantiles(out[0], info, alpha)

    def predict_interval(self, y_context: Any = None, coverage: float = 0.9) -> tuple[Any, Any]:
        """``(lower, upper)``: the bounds of the central ``coverage`` interval (quantiles
        ``(1 -/+ coverage) / 2``), each of :meth:`predict`'s kind."""
        if not 0 < coverage < 1:
            raise ValueError(f"coverage must be strictly between 0 and 1; got {coverage}.")
        out, info = self._forecast(y_context, np.array([(1 - coverage) / 2, (1 + coverage) / 2]))
        lower, upper = (out[..., k] if info is None else series_io.format_output(out[0, ..., k], info)
                        for k in (0, 1))  # fmt: skip
        return lower, upper


def _joined(train: torch.Tensor, valid: torch.Tensor, n: int) -> torch.Tensor | None:
    """``train (T, C)`` continued by ``valid (V, C)`` as one series ``(T + V - n, C)`` when
    ``valid``'s first ``n`` rows (its first context) are ``train``'s last; None otherwise."""
    if len(train) < n or not torch.equal(valid[:n], train[-n:]):
        return None
    return torch.cat([train, valid[n:]])

