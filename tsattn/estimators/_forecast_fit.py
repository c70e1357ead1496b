"""``TSForecaster``'s fit and predict over one series or many, with or without covariates.

``fit`` reads its input (:mod:`._panel`), standardises each series on its own training rows, lays
the series end to end and trains one network on the windows of all of them
(:class:`~tsattn.training.WindowData`, or :class:`~tsattn.training.CovariateWindowData` with
covariates), then fits the anchor, the blend and the interval table on the validation windows
(:meth:`_calibrate`). The predict methods read their input through :mod:`._forecast_input` and
give forecasts back in its kind: the one series' kind, a long frame, or arrays for a batch.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import torch
from sklearn.utils.validation import check_is_fitted

from tsattn.estimators import _anchor, _asinh_scale, _intervals, _log_scale, _series_choice
from tsattn.estimators._covariate_anchor import fit_covariate_anchor
from tsattn.estimators._forecast_input import Contexts, pack, read_predict_input
from tsattn.estimators._panel import (
    FitInput,
    lay_out,
    pad_left,
    read_fit_input,
    resolve_future,
    seasonal_weights,
    split_panel,
    standardise,
)
from tsattn.estimators._windows import window_tensors
from tsattn.io import series as series_io
from tsattn.io.panel import ID, TARGET, TIME, is_long_frame, long_output, read_long_frame
from tsattn.training import CovariateWindowData, WindowData, autocast, resolve_device, torch_threads

__all__ = ["PanelForecasting"]

#: Validation samples (windows, or window-channel pairs) kept at most for the calibration after
#: training (anchor, blend, intervals); a fixed random subset above.
MAX_VALID_SAMPLES = 32_768
#: Validation samples scored after each training round to pick the best one; a fixed random
#: subset above. Scoring 32,768 samples 20 times took a third of a default fit on ETTm1
#: (docs/results/speed/fit_time/).
MAX_ROUND_SAMPLES = 8_192
#: A long frame's ridge anchor weighs each series' squared errors by its seasonal weight
#: (:func:`~tsattn.estimators._panel.seasonal_weights`: as MASE weighs them); the blend and the
#: choice of anchor by that weight to this power. Chosen on M4 Hourly and Weekly validation, two
#: origins, 3 seeds, among 0 (every series alike), 0.5 and 1: OWA 0.960 of equal weights on the
#: mean of the four, 1 leaving the forecast to the ridge (``docs/results/panels/README.md``,
#: "Series weighted as MASE weighs them").
BLEND_WEIGHT_POWER = 0.5


class PanelForecasting:
    """The data path of :class:`~tsattn.TSForecaster` (its parameters are declared there)."""

    def fit(self, y: Any, X: Any = None, y_val: Any = None) -> Any:
        """Train on ``y``: one series (array ``(T,)`` or ``(T, C)``, Series or DataFrame, oldest
        row first; :meth:`predict` continues a ``DatetimeIndex``), or a long frame with columns
        ``unique_id``, ``ds``, ``y`` (many series, one network; further numeric columns are
        covariates). ``X``: covariates, one row per row of ``y`` (an array or frame for one
        series; a long frame with ``unique_id``, ``ds`` for a long ``y``); those named in
        ``future_covariates`` are known for the horizon too, the others are read up to the
        forecast origin only. ``y_val``: a validation series for one series without covariates
        (e.g. the standard validation split, starting ``context_length`` rows before its first
        target); default the end of each series (``validation_fraction``)."""
        spec = self._validate()
        data = read_fit_input(y, X, y_val, type(self).__name__)
        self.log_series_ = _log_scale.resolve(
            self.target_transform, data.rows, data.n_targets, data.ids,
            bool(data.covariate_names), self._resolve_context(data))  # fmt: skip
        if self.log_series_ is not None:  # those series on the log scale from here on
            data.rows = _log_scale.to_log(data.rows, data.n_targets, "y", self.log_series_, data.ids)
            if data.valid is not None:  # one series
                data.valid = _log_scale.to_log(data.valid, data.n_targets, "y_val", self.log_series_)
        train_data, valid_windows, seed, rng = self._build(data, spec)
        valid_data = None if valid_windows is None else valid_windows.sample(MAX_ROUND_SAMPLES, rng)
        self._train(train_data, valid_data, seed, rng)
        self._calibrate(train_data, valid_windows, rng)
        # A long frame without covariates: each series' forecast chosen on its last horizon
        # (_series_choice; the network did not train on those rows, its validation tail).
        self.series_choice_ = None
        if self.series_low_ is not None:
            self.series_choice_ = self._choose_series([r[:, : self.n_channels_] for r in data.rows],
                                                      self.log_series_)  # fmt: skip
        return self

    # ------------------------------------------------------------------ build
    def _build(self, data: FitInput, spec):
        """Per-series scaling, training and validation windows, and ``network_params_``."""
        self.context_length_ = n = self._resolve_context(data)
        h = self.horizon
        self.input_kind_ = data.info
        self.covariates_ = list(data.covariate_names)
        self.future_ = resolve_future(self.future_covariates, self.covariates_)
        self.n_channels_ = self.n_features_in_ = c = data.n_targets
        self.series_ids_, self.last_stamps_, self.step_ = data.ids, data.last_stamps, data.step
        # A long frame without covariates has its forecasts and their quantiles held at or above
        # each series' lowest value (Contexts.hold). Chosen on M4 Hourly and Weekly validation,
        # two origins, 3 seeds, against no floor and the context's lowest value: OWA lower on
        # all four (docs/results/panels/README.md, "Forecasts held above the series' lowest value").
        self.series_low_ = None
        if data.ids is not None and not data.covariate_names:
            self.series_low_ = np.stack([r[:, :c].min(axis=0) for r in data.rows])
        if data.ids is None:  # one series: today's checks and validation tail
            values = data.rows[0]
            series_io.check_length(values, n, h, "y")
            if data.valid is not None:
                series_io.check_length(data.valid, n, h, "y_val")
                train, valid = [values], [data.valid]
            elif self.validation_fraction > 0:
                tail = series_io.hold_out_tail(values, self.validation_fraction, n, h)
                train, valid = [tail[0]], [tail[1]]
            else:
                train, valid = [values], [None]
            self.last_context_ = values[-n:].copy()
        else:
            train, valid = split_panel(data.rows, self.validation_fraction, n, h)
            self.last_context_ = np.stack([pad_left(r, n)[-n:] for r in data.rows])
        self.series_mean_, self.series_scale_ = standardise(train)
        self.d_model_ = self._resolve_width(len(train))
        self.dropout_ = self._resolve_dropout(len(train))
        flat = [name for j, name in enumerate(self.covariates_)
                if all(np.ptp(r[:, c + j]) == 0 for r in train)]  # fmt: skip
        if flat:
            warnings.warn(f"covariate(s) {flat} are constant over the training rows of every "
                          "series: they carry nothing to learn from and are kept as they are "
                          "(scaled by 1); drop them to silence this.", UserWarning, stacklevel=3)
        self.channel_mean_, self.channel_scale_ = self.series_mean_[0, :c], self.series_scale_[0, :c]
        self.period_ = self._period(self._time_info(data), int(np.median([len(t) for t in train])))
        seed, rng = self._random()
        self.patch_len_ = (min(16, max(1, n // 6)) if self.patch_len == "auto" else int(self.patch_len))
        self.patch_stride_ = (max(1, self.patch_len_ // 2) if self.patch_stride == "half"
                              else self.patch_len_ if self.patch_stride is None else int(self.patch_stride))
        self.device_ = resolve_device(self.device)
        scale = [(self.series_mean_[i], self.series_scale_[i]) for i in range(len(train))]
        self._scaled_rows = [None if r is None else (r - m) / s
                             for r, (m, s) in zip(data.rows, scale, strict=False)]  # fmt: skip
        scaled = [(r - m) / s for r, (m, s) in zip(train, scale, strict=False)]
        valid = [None if v is None else (v - m) / s for v, (m, s) in zip(valid, scale, strict=False)]
        # the target on LEAR's scale from here on (_asinh_scale): 'asinh', or 'auto' with covariates
        self.asinh_scale_ = None
        if self.target_transform == "asinh" or (self.target_transform == "auto"
                                                and bool(data.covariate_names)):  # fmt: skip
            self.asinh_scale_ = asinh = _asinh_scale.fit_scale(scaled, c)
            scaled, valid, self._scaled_rows = (
                [None if r is None else asinh.forward(r) for r in rows]
                for rows in (scaled, valid, self._scaled_rows))  # fmt: skip
        train_data, owner = self._windows(scaled)
        valid_windows = valid_owner = None
        if any(v is not None for v in valid):
            valid_windows, valid_owner = self._windows(valid)
        self._anchor_weights = None
        if data.ids is not None and not data.covariate_names:  # a long frame without covariates
            w = seasonal_weights(scaled, self.period_)
            self._anchor_weights = (w[owner], None if valid_owner is None else w[valid_owner])
        # each validation window's scale (True: its series is read on the log scale)
        self._valid_log = None
        if self.log_series_ is not None and valid_owner is not None and not self.covariates_:
            self._valid_log = self.log_series_[valid_owner]
        self.network_params_ = self._network_params(spec)
        return train_data, valid_windows, seed, rng

    def _time_info(self, data: FitInput) -> dict:
        """The input's kind, with a short time index for a long frame of datetimes (so that
        ``period='auto'`` reads the season from its step)."""
        if data.ids is None or isinstance(data.step, (int, np.integer)):
            return data.info
        return {**data.info, "index": pd.date_range("2000-01-03", periods=3, freq=data.step)}

    def _windows(self, rows: list[np.ndarray | None]) -> tuple[WindowData, np.ndarray]:
        """The windows of the scaled series ``rows`` laid end to end (None entries skipped), and
        the series (index in ``rows``) of each window."""
        series, starts, owner = lay_out(rows, self.context_length_, self.horizon)
        tensor = torch.tensor(series, dtype=torch.float32, device=self.device_)
        if self.covariates_:
            return CovariateWindowData(tensor, self.context_length_, self.horizon, starts,
                                       self.n_channels_, self.future_), owner  # fmt: skip
        return WindowData(tensor, self.context_length_, self.horizon, starts,
                          self._independent()), owner  # fmt: skip

    # ------------------------------------------------------------------ calibrate
    def _calibrate(self, train_data: WindowData, valid_windows: WindowData | None,
                   rng: np.random.Generator) -> None:  # fmt: skip
        """The anchor, ``blend_`` and the interval table from the validation windows (training
        windows when there are none), at most ``MAX_VALID_SAMPLES`` values per step."""
        self.interval_source_ = "validation" if valid_windows is not None else "train"
        source = train_data if valid_windows is None else valid_windows
        c = self.n_channels_
        if self.covariates_:
            sample = source.sample(MAX_VALID_SAMPLES, rng)
            contexts = sample.x[:, : self.context_length_, :1].double().cpu().numpy()
        else:
            windows = WindowData(source.x, self.context_length_, self.horizon,
                                 source.starts.cpu().numpy(), channel_independent=False)  # fmt: skip
            idx = windows.sample_indices(max(1, MAX_VALID_SAMPLES // c), rng)  # weights follow idx
            sample = windows.materialise(idx)
            contexts = sample.x.double().cpu().numpy()
        targets = sample.y.double().cpu().numpy()
        forecast = self._predict_tensor(sample).double().numpy()
        series = train_data.x[:, :c].double().cpu().numpy()
        starts = train_data.starts.cpu().numpy()
        self.blend_, self.anchor_, self.log_blend_ = 1.0, None, None
        validation = valid_windows is not None
        if self.anchor is not None and self.covariates_:
            weight, bias, self.anchor_penalty_ = fit_covariate_anchor(train_data, valid_windows, rng)
            self.module_.set_anchor(weight, bias)
            with torch.inference_mode():
                simple = self.module_.anchor(sample.x).double().cpu().numpy()
            self.blend_ = _anchor.fit_blend(forecast, simple, targets) if validation else 1.0
            forecast = self.blend_ * forecast + (1 - self.blend_) * simple
            self.anchor_ = "lear"
            self.module_.set_blend(self.blend_)
        elif self.anchor is not None:
            weights = None
            if self._anchor_weights is not None:
                train_w, valid_w = self._anchor_weights
                sample_w = (train_w if valid_windows is None else valid_w)[idx]
                weights = (train_w, sample_w**BLEND_WEIGHT_POWER)
            network = forecast
            fit, self.blend_, forecast = _anchor.choose(
                self.anchor, series, starts, self.period_, contexts, targets, forecast, rng,
                validation, weights)  # fmt: skip
            log_rows = None if self._valid_log is None else self._valid_log[idx]
            if validation and log_rows is not None and log_rows.any() and not log_rows.all():
                # a share per scale: the series on the log scale apart from the others
                simple = fit.forecast(contexts)
                self.blend_, self.log_blend_ = _anchor.fit_blends(
                    network, simple, targets, None if weights is None else weights[1], log_rows)
                share = np.where(log_rows, self.log_blend_, self.blend_)[:, None, None]
                forecast = share * network + (1 - share) * simple
            self.anchor_ = fit.name
            self.module_.set_anchor(fit.weight, fit.bias, fit.cycle)
            self.module_.set_blend(self.blend_)
        crossfit = _anchor.crossfit_errors(series, starts, self.context_length_, self.horizon, rng,
                                           max(1, MAX_VALID_SAMPLES // c))  # fmt: skip
        self.interval_table_, self.interval_floor_ = _intervals.calibrate(
            contexts, forecast, targets, crossfit)  # fmt: skip
        self.anchor_refit_ = False
        if self.anchor_ is not None and validation and not self.covariates_:
            self._refit_anchor(train_data.x, valid_windows.x, rng)
        del self._scaled_rows, self._anchor_weights, self._valid_log

    def _refit_anchor(self, train: torch.Tensor, valid: torch.Tensor,
                      rng: np.random.Generator) -> None:  # fmt: skip
        """The chosen anchor fitted again on every row, the validation rows included: for one
        series when ``valid`` continues ``train`` (its first ``context_length`` rows are
        ``train``'s last), for a long frame on each series' whole rows."""
        n, weights = self.context_length_, None
        if self.series_ids_ is None:
            if len(train) < n or not torch.equal(valid[:n], train[-n:]):
                return
            rows = torch.cat([train, valid[n:]]).double().cpu().numpy()
            starts = np.arange(len(rows) - n - self.horizon + 1)
        else:
            rows, starts, owner = lay_out(self._scaled_rows, n, self.horizon)
            if self._anchor_weights is not None:
                weights = seasonal_weights(self._scaled_rows, self.period_)[owner]
        fit = _anchor.fit_anchor(self.anchor_, rows, starts, n, self.horizon, self.period_, rng,
                                 weights)  # fmt: skip
        self.module_.set_anchor(fit.weight, fit.bias, fit.cycle)
        self.anchor_refit_ = True

    # ------------------------------------------------------------------ predict
    def _network_input(self, inp: Contexts) -> tuple[np.ndarray, np.ndarray]:
        """``(network input, scaled target contexts (n, L, C))`` of ``inp``."""
        scaled = inp.scaled()
        c = self.n_channels_
        future = inp.future
        if self.asinh_scale_ is not None:
            scaled = self.asinh_scale_.forward(scaled)
            if future is not None:
                future = self.asinh_scale_.forward(future, [c + j for j in self.future_])
        if not self.covariates_:
            return scaled, scaled
        return pack(scaled, future, c, self.future_, self.horizon), scaled[:, :, :c]

    def _unpack(self, out: np.ndarray, n: int) -> np.ndarray:
        """Network outputs back to ``(n, H, C)`` (covariate samples are one channel each)."""
        if not self.covariates_:
            return out
        return out.reshape(n, self.n_channels_, self.horizon).transpose(0, 2, 1)

    def _forecast(self, y: Any, X: Any = None, alpha: np.ndarray | None = None):
        """``(forecasts, contexts)``: unscaled ``(n, horizon, C)`` point forecasts, or with
        ``alpha`` ``(n, horizon, C, len(alpha))`` quantiles, and the input read."""
        check_is_fitted(self, "module_")
        inp = read_predict_input(self, y, X)
        choice = self._choice(inp, y)
        if choice is None and self._log_share(inp) is None:
            net_in, contexts = self._network_input(inp)
            out = self._predict_tensor(window_tensors(net_in, self.device_)).double().numpy()
            out = self._unpack(out, len(contexts))
        else:  # the quantiles below are around each series' chosen forecast or share
            (out, _, anchor), contexts = self._parts(inp)
            if choice is not None:
                out = _series_choice.apply(choice, out, anchor, contexts, self.period_)
        if alpha is not None:
            out = _intervals.quantiles(out, contexts, self.interval_table_, self.interval_floor_,
                                       alpha)  # fmt: skip
        return inp.natural(inp.hold(self._unscale(inp, out)), self.n_channels_), inp

    def _unscale(self, inp: Contexts, out: np.ndarray) -> np.ndarray:
        """Forecasts ``(n, H, C[, q])`` as the network makes them (standardised, on the asinh
        scale where ``asinh_scale_`` is set) in the series' units (their logarithms for the rows
        ``inp.log`` marks)."""
        if self.asinh_scale_ is not None:
            out = self.asinh_scale_.inverse(out)
        return inp.unscale(out, self.n_channels_)

    def _choice(self, inp: Contexts, y: Any) -> np.ndarray | None:
        """Each series' chosen forecast (``series_choice_``'s codes) for the input read: the
        fitted series' own, a long ``y``'s from each series' given rows, None for a batch (or a
        model without the choice, or where every series keeps the blend)."""
        if getattr(self, "series_choice_", None) is None or inp.info is None:
            return None
        choice = self.series_choice_ if y is None else self._choose_series(inp.rows, inp.log)
        return choice if choice.any() else None

    def _choose_series(self, rows: list[np.ndarray], log: np.ndarray | None) -> np.ndarray:
        """``(n,)`` codes of :mod:`._series_choice` for the series ``rows`` (each ``(T_i, C)``,
        unscaled; those ``log`` marks already on the log scale): the model, as it forecasts a long frame, forecasting each series' last
        ``horizon`` rows from the rows before them, beside the seasonal naive forecast of
        ``period_`` steps, the last value repeated and the anchor alone (held at the same
        floor)."""
        h, n = self.horizon, self.context_length_
        usable = np.array([len(r) > h for r in rows])
        before = [r[:-h] if ok else r for r, ok in zip(rows, usable, strict=True)]
        truth = np.stack([r[-h:] if ok else np.zeros((h, r.shape[1]))
                          for r, ok in zip(rows, usable, strict=True)])  # fmt: skip
        inp = Contexts.of_series(before, before, n, held=True, log=log)  # as predict reads a long y
        (forecast, _, anchor), contexts = self._parts(inp)

        def unscaled(part):
            return inp.hold(self._unscale(inp, part))

        period = max(1, int(self.period_))
        last = _series_choice.seasonal_naive(contexts, 1, h)
        candidates = [(_series_choice.LAST, unscaled(last), usable)]
        if 1 < period <= n:
            has_season = usable & np.array([len(b) >= period for b in before])
            naive = _series_choice.seasonal_naive(contexts, period, h)
            candidates.append((_series_choice.NAIVE, unscaled(naive), has_season))
        if anchor is not None:
            candidates.append((_series_choice.ANCHOR, unscaled(anchor), usable))
        return _series_choice.choose(truth, unscaled(forecast), candidates)

    def _parts(self, inp: Contexts) -> tuple[list[np.ndarray | None], np.ndarray]:
        """``([forecast, network, anchor], contexts)``: the blended forecast, the network's and
        the anchor's (None without an anchor), each ``(n, horizon, C)`` in the standardised
        units, for the input read ``inp`` (the same batches as :meth:`predict`, on the fit's
        threads), and the scaled target contexts ``(n, L, C)``."""
        net_in, contexts = self._network_input(inp)
        data = window_tensors(net_in, self.device_)
        size = self._predict_batch()
        self.module_.eval()
        chunks = []
        with torch.inference_mode(), torch_threads(getattr(self, "n_threads_", None)):
            for start in range(0, len(data), size):
                with autocast(self.device_, self.precision):
                    chunks.append(self.module_(data.x[start : start + size], parts=True))
        parts = []
        for k in range(3):
            if chunks[0][k] is None:
                parts.append(None)
                continue
            part = torch.cat([c[k].float() for c in chunks]).cpu().double().numpy()
            parts.append(self._unpack(part, len(contexts)))
        share = self._log_share(inp)
        if share is not None:  # the rows on the log scale take their own share (log_blend_)
            log = inp.log
            parts[0] = parts[0].copy()
            parts[0][log] = share * parts[1][log] + (1 - share) * parts[2][log]
        return parts, contexts

    def _log_share(self, inp: Contexts) -> float | None:
        """``log_blend_`` where the input has rows on the log scale to blend by it, else None."""
        share = getattr(self, "log_blend_", None)
        if share is None or inp.log is None or not inp.log.any():
            return None
        return share

    def predict(self, y: Any = None, X: Any = None) -> Any:
        """Forecast the ``horizon`` steps after a context. ``y``: None, the end of every fitted
        series; one series (formats of :meth:`fit`, at least ``context_length`` rows, the last
        ones used); a long frame (``unique_id``, ``ds``, ``y`` ...: each series forecast from its
        own rows, seen in fit or not); or a batch ``(n_windows, length, n_channels)`` of
        contexts. ``X``: the covariates: for the fitted series or a long frame, a long frame of
        the future covariates' ``horizon`` rows after each series; for one series, its rows and
        the ``horizon`` after them (or, with ``y=None``, the ``horizon`` rows); for a batch,
        ``(n_windows, length [+ horizon], k)``. Returns the input's kind: ``(horizon,)``,
        ``(horizon, C)``, a Series/DataFrame whose index continues the input's, a long frame
        ``unique_id, ds, y``, or ``(n_windows, horizon, C)`` for a batch."""
        out, inp = self._forecast(y, X)
        return inp.format(out)

    def make_future_dataframe(self) -> pd.DataFrame:
        """The ``unique_id, ds`` rows of the ``horizon`` steps after each series of the fitted long
        frame (neuralforecast's name), ``(n_series * horizon, 2)``: the frame to fill with the
        future covariates that ``predict(X=...)`` reads (e.g. :func:`tsattn.io.add_calendar`)."""
        check_is_fitted(self, "module_")
        if self.series_ids_ is None:
            raise ValueError("make_future_dataframe needs a model fitted on a long frame "
                             "(unique_id, ds, y); for one series the horizon's rows are the "
                             f"{self.horizon} rows after its end.")
        empty = np.zeros((len(self.series_ids_), self.horizon, 0))
        return long_output(self.series_ids_, self.last_stamps_, self.step_, empty, [])

    def predict_components(self, y: Any = None, X: Any = None) -> dict[str, Any]:
        """What the forecast is made of: ``{"forecast": ..., "network": ..., "anchor": ...}``, the
        forecast of :meth:`predict`, the network's alone and the anchor's alone (None without an
        anchor), each of :meth:`predict`'s kind; ``forecast = blend_ * network + (1 - blend_) *
        anchor`` (of their logarithms, ``exp()`` back, for a series on the log scale,
        ``log_series_``, with ``log_blend_`` for ``blend_`` where it is set; for a long frame without covariates, where ``series_choice_`` gives a series the
        seasonal naive forecast, the last value or the anchor's, that one, and held at or above
        each series' lowest value), the same numbers as :meth:`predict`'s (the same batches, on
        the fit's threads).
        ``y`` and ``X`` as in :meth:`predict`."""
        check_is_fitted(self, "module_")
        inp = read_predict_input(self, y, X)
        parts, contexts = self._parts(inp)
        choice = self._choice(inp, y)
        if choice is not None:
            parts[0] = _series_choice.apply(choice, parts[0], parts[2], contexts, self.period_)
        out = {}
        for name, part in zip(("forecast", "network", "anchor"), parts, strict=True):
            if part is None:
                out[name] = None
                continue
            part = self._unscale(inp, part)
            part = inp.hold(part) if name == "forecast" else part
            out[name] = inp.format(inp.natural(part, self.n_channels_))
        return out

    def predict_quantiles(self, y: Any = None, alpha: Any = (0.1, 0.5, 0.9), X: Any = None) -> Any:
        """Quantiles at levels ``alpha`` (calibrated on the validation errors): arrays with a last
        axis over ``alpha``; for pandas input a DataFrame with columns ``(column, alpha)`` on the
        continued index; for a long frame a long frame with a column per level. ``y`` and ``X``
        as in :meth:`predict`."""
        alpha = _intervals.check_levels(alpha)
        out, inp = self._forecast(y, X, alpha)
        if inp.info is None:
            return out
        if inp.info["kind"] == "long":
            frame = inp.format(out[..., 0])
            frame = frame.drop(columns=TARGET)
            for j, a in enumerate(alpha):
                frame[float(a)] = out[:, :, 0, j].reshape(-1)
            return frame
        return series_io.format_quantiles(out[0], inp.info, alpha)

    def predict_interval(self, y: Any = None, coverage: float = 0.9, X: Any = None
                         ) -> tuple[Any, Any]:  # fmt: skip
        """``(lower, upper)``: the bounds of the central ``coverage`` interval (quantiles
        ``(1 -/+ coverage) / 2``), each of :meth:`predict`'s kind. The point forecast lies
        between them but is not their midpoint or the median: it is the blend of network and
        anchor, the intervals the errors' own quantiles around it."""
        if not 0 < coverage < 1:
            raise ValueError(f"coverage must be strictly between 0 and 1; got {coverage}.")
        out, inp = self._forecast(y, X, np.array([(1 - coverage) / 2, (1 + coverage) / 2]))
        return tuple(inp.format(out[..., k]) for k in (0, 1))

    def score(self, y: Any, X: Any = None) -> float:
        """*Negative* MSE (higher is better, as scikit-learn's model selection expects), in one
        of two conventions. scikit-learn's, on windows: ``score(contexts (n, L, C), targets (n,
        horizon, C))``. sktime's, on what follows the fitted series: ``score(y, X=None)`` with
        ``y`` the rows after the end of fit (one series' next rows, or a long frame of each
        series' next rows), ``X`` the future covariates as :meth:`predict` takes them; the first
        ``min(horizon, len(y))`` steps are scored."""
        if getattr(y, "ndim", np.ndim(y)) == 3:
            return -self.mse(y, X)
        check_is_fitted(self, "module_")
        if is_long_frame(y):
            truth = read_long_frame(y, "y")
            forecast = self.predict(X=X)
            merged = forecast.merge(pd.DataFrame(
                {ID: np.repeat(np.asarray(truth.ids, dtype=object), truth.lengths),
                 TIME: np.concatenate(truth.stamps),
                 "truth": np.concatenate(truth.targets)[:, 0]}), on=[ID, TIME])  # fmt: skip
            if merged.empty:
                raise ValueError("y shares no (unique_id, ds) row with the forecast of the next "
                                 f"{self.horizon} steps after each fitted series.")
            return -float(np.mean((merged[TARGET] - merged["truth"]) ** 2))
        values, _ = series_io.as_series(y, "y")
        steps = min(self.horizon, len(values))
        forecast, _ = self._forecast(None, X)
        return -float(np.mean((forecast[0, :steps] - values[:steps]) ** 2))

