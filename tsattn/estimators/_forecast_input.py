"""What ``TSForecaster``'s predict methods read: contexts, future covariates, their scaling.

:func:`read_predict_input` turns every form of ``predict(y, X)`` into a :class:`Contexts`: the
last ``context_length`` rows of each series to forecast (target channels, then covariates), the
future-known covariates' ``horizon`` rows, and the per-series statistics that scale them; the
forms are the end of the fitted series (``y=None``), one series, a long frame of series (seen in
fit or not: an unseen series is scaled by its own rows), and a batch of windows. :func:`pack` lays
them out as the network reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tsattn.estimators._log_scale import natural, series_mask, to_log
from tsattn.estimators._panel import pad_left, read_covariates, standardise
from tsattn.io import series as series_io
from tsattn.io.checks import check_channels
from tsattn.io.panel import is_long_frame, long_output, read_future_frame, read_long_frame

__all__ = ["Contexts", "pack", "read_predict_input"]


@dataclass
class Contexts:
    """Contexts ``(n, L, C + k)`` and future covariate rows ``(n, H, k_f)`` (None without any),
    unscaled, with each row's ``mean``/``scale`` ``(n, C + k)``, and how to format the output:
    ``info`` (a single series' kind, ``{"kind": "long"}``, or None for a batch), for long
    frames the series ``ids``, ``last_stamps`` and ``step``, ``low (n, C)``: the lowest
    target value of the rows read for each, the floor of its forecasts (None: not held; see
    :func:`read_predict_input`), and for a long ``y`` each series' target ``rows`` as given
    (``(T_i, C)``; the per-series choice's backtest reads them); ``log (n,)``: the rows read on
    the log scale, their targets (``values``, ``low``, ``rows``) logarithms and their forecasts
    ``exp()`` back (None: none)."""

    values: np.ndarray
    future: np.ndarray | None
    mean: np.ndarray
    scale: np.ndarray
    info: dict | None
    ids: list | None = None
    last_stamps: list | None = None
    step: Any = None
    low: np.ndarray | None = None
    rows: list | None = None
    log: np.ndarray | None = None

    @classmethod
    def of_series(cls, series: list[np.ndarray], targets: list[np.ndarray], context_length: int,
                  held: bool, **fields: Any) -> Contexts:  # fmt: skip
        """A long frame's contexts from whole ``series`` (each ``(T_i, C + k)``): each standardised
        by its own rows, its last ``context_length`` rows (left-padded); with ``held``, ``low`` the
        lowest value of its target rows ``targets`` (each ``(T_i, C)``). ``fields``: the other
        fields (``ids``, ``last_stamps``, ``step``, ``rows``)."""
        mean, scale = standardise(series)
        values = np.stack([pad_left(r, context_length)[-context_length:] for r in series])
        low = np.stack([t.min(axis=0) for t in targets]) if held else None
        return cls(values, None, mean, scale, {"kind": "long"}, low=low, **fields)

    def hold(self, out: np.ndarray) -> np.ndarray:
        """Forecasts ``(n, H, C[, q])`` in the series' units, held at or above ``low``."""
        if self.low is None:
            return out
        low = self.low[:, None, :]
        return np.maximum(out, low[..., None] if out.ndim == 4 else low)

    def natural(self, out: np.ndarray, n_targets: int) -> np.ndarray:
        """Forecasts ``(n, H, C[, q])`` in the series' units back from the log scale for the rows
        ``log`` marks (:func:`._log_scale.natural`, bounded by their contexts)."""
        return natural(out, self.log, self.values[:, :, :n_targets])

    def scaled(self) -> np.ndarray:
        """The contexts in the per-series standardised units the network reads (``future`` is
        scaled already)."""
        return (self.values - self.mean[:, None]) / self.scale[:, None]

    def unscale(self, out: np.ndarray, n_targets: int) -> np.ndarray:
        """Forecasts ``(n, H, C[, q])`` in standardised units back to the series' units."""
        mean, scale = self.mean[:, None, :n_targets], self.scale[:, None, :n_targets]
        if out.ndim == 4:
            mean, scale = mean[..., None], scale[..., None]
        return out * scale + mean

    def format(self, out: np.ndarray, column: str = "y") -> Any:
        """``out (n, H, C)`` in the input's kind (a long frame, the one series' kind, or an array)."""
        if self.info is None:
            return out
        if self.info["kind"] == "long":
            return long_output(self.ids, self.last_stamps, self.step, out[..., :1], [column])
        return series_io.format_output(out[0], self.info)


def read_predict_input(est: Any, y: Any, X: Any) -> Contexts:
    """``predict``'s ``y`` and ``X`` for the fitted forecaster ``est`` (see the module doc).
    Where ``est`` holds its forecasts above each series' lowest value (``series_low_`` set: a
    long frame without covariates), ``low`` is that of the rows read: the fitted series' own
    (``series_low_``), each series' rows of a long ``y``, or each window of a batch. Where the
    fit read series on the log scale (``log_series_``), so are the fitted ones, and the series or
    windows given that its ``target_transform`` takes (:func:`._log_scale.series_mask`)."""
    ctx_len, horizon, c = est.context_length_, est.horizon, est.n_channels_
    fitted_log = getattr(est, "log_series_", None)

    def log_mask(rows: list[np.ndarray]) -> np.ndarray | None:
        if fitted_log is None:
            return None
        mask = series_mask(est.target_transform, rows, c, ctx_len)
        return mask if mask.any() else None
    future_names = [est.covariates_[j] for j in est.future_]
    k = len(est.covariates_)
    long_fit = est.input_kind_.get("kind") == "long"
    held = getattr(est, "series_low_", None) is not None
    if y is None:
        mean, scale = est.series_mean_, est.series_scale_
        values = est.last_context_ if long_fit else est.last_context_[None]
        if long_fit:
            out = Contexts(values, None, mean, scale, {"kind": "long"}, est.series_ids_,
                           est.last_stamps_, est.step_, getattr(est, "series_low_", None),
                           log=fitted_log)  # fmt: skip
            return _long_future(out, X, future_names, est)
        out = Contexts(values, None, mean, scale, est.input_kind_, log=fitted_log)
        out.future = _one_future(est, X, future_names)
        return _scale_future(out, est)
    if is_long_frame(y):
        panel = read_long_frame(y, "y")
        if panel.covariate_names != est.covariates_:
            raise ValueError(f"y's covariate columns {panel.covariate_names} differ from fit's "
                             f"{est.covariates_}; pass the same columns.")
        mask = log_mask(panel.targets)
        targets = to_log(list(panel.targets), c, "y", mask, panel.ids)
        rows = [np.hstack([t, cv]) for t, cv in zip(targets, panel.covariates, strict=False)]
        out = Contexts.of_series(rows, targets, ctx_len, held, ids=panel.ids,
                                 last_stamps=panel.last_stamps, step=panel.step,
                                 rows=targets, log=mask)  # fmt: skip
        return _long_future(out, X, future_names, est)
    if getattr(y, "ndim", np.ndim(y)) == 2 and getattr(X, "ndim", np.ndim(X)) == 3:
        y = np.asarray(y, dtype=np.float64)[..., None]  # a batch of univariate windows (n, ctx)
    if getattr(y, "ndim", np.ndim(y)) == 3:  # a batch of windows
        contexts = series_io.as_windows(y, c, "y_context", type(est).__name__)
        mask = log_mask(list(contexts))
        contexts = to_log(contexts, c, "y_context", mask)
        series_io.check_length(contexts[0], ctx_len, 0, "y_context")
        length = contexts.shape[1]  # X's rows line up with y's, the horizon's after them
        low = contexts.min(axis=1) if held else None  # every row given, not only the context
        contexts = contexts[:, -ctx_len:]
        future = None
        if k:
            if X is None:
                raise ValueError(f"predict needs the covariates {est.covariates_} of each window: "
                                 f"pass X (n_windows, context_length[+ horizon], {k}).")
            x_win = series_io.finite(np.asarray(X, dtype=np.float64), "X")
            if x_win.ndim != 3 or len(x_win) != len(contexts) or x_win.shape[2] != k:
                raise ValueError(f"X must have shape (n_windows, context_length [+ horizon], {k}) "
                                 f"= ({len(contexts)}, {ctx_len} [+ {horizon}], {k}); got "
                                 f"{x_win.shape}.")
            allowed = (length + horizon,) if future_names else (length, length + horizon)
            if x_win.shape[1] not in allowed:
                raise ValueError(
                    f"X has {x_win.shape[1]} rows per window; y's windows have {length}, so X needs "
                    + (f"{length + horizon} (theirs and the {horizon} rows of the future "
                       f"covariates {future_names})." if future_names else
                       f"{length} (theirs), or {length + horizon} with the horizon's rows, which "
                       "are not read."))  # fmt: skip
            contexts = np.concatenate([contexts, x_win[:, length - ctx_len : length]], axis=2)
            if future_names:
                future = x_win[:, length : length + horizon, list(est.future_)]
        if long_fit:  # no per-series statistics for windows: each window's own
            mean, scale = standardise(list(contexts))
        else:
            mean = np.repeat(est.series_mean_, len(contexts), axis=0)
            scale = np.repeat(est.series_scale_, len(contexts), axis=0)
        return _scale_future(Contexts(contexts, future, mean, scale, None, low=low, log=mask), est)
    if long_fit:
        raise ValueError("this forecaster was fitted on a long frame: pass y as a long frame "
                         "(unique_id, ds, y ...) or a batch of windows (n, context_length, 1).")
    values, info = series_io.as_series(y, "y_context")
    check_channels(values.shape[1], c, "y_context", type(est).__name__)
    values = to_log(values, c, "y_context", fitted_log)
    if k:
        past = X
        if X is not None and len(X) == len(values) + horizon:  # the horizon's rows after
            past = X.iloc[: len(values)] if hasattr(X, "iloc") else np.asarray(X)[: len(values)]
        if past is None or len(past) < len(values):
            raise ValueError(f"predict(y_context, X) needs the covariates {est.covariates_} for "
                             f"every row of y_context (and the {horizon} rows after it for "
                             f"{future_names})." if future_names else ").")
        cov, _ = read_covariates(past, len(values), info)
        values = np.hstack([values, cov])
    series_io.check_length(values, ctx_len, 0, "y_context")
    out = Contexts(values[None, -ctx_len:], None, est.series_mean_, est.series_scale_, info,
                   log=fitted_log)
    if future_names:
        if X is not None and len(X) == len(values) + horizon:
            tail = X.iloc[len(values):] if hasattr(X, "iloc") else np.asarray(X)[len(values):]
            out.future = _one_future(est, tail, future_names)
        else:
            raise ValueError(f"predict(y_context, X) needs X with y_context's rows and the "
                             f"{horizon} rows after it (the future covariates {future_names}).")
    return _scale_future(out, est)


def _long_future(out: Contexts, X: Any, names: list[str], est: Any) -> Contexts:
    """``out`` with the future covariates ``names`` of each of its series read from the long frame
    ``X`` (their ``horizon`` rows after each series' end), scaled."""
    if names:
        if X is None:
            raise ValueError(f"predict needs the future covariates {names} for the {est.horizon} "
                             "steps after each series: pass X, a long frame with unique_id, ds "
                             "and those columns.")
        out.future = np.stack(read_future_frame(X, out.ids, out.last_stamps, out.step, names,
                                                est.horizon))  # fmt: skip
    return _scale_future(out, est)


def _one_future(est: Any, X: Any, names: list[str]) -> np.ndarray | None:
    """``(1, H, k_f)``: the future covariates of the one fitted series' next ``horizon`` steps
    from ``X``: its ``horizon`` rows of those columns (a frame with them, or an array of ``k_f`` or
    of all ``k`` covariate columns)."""
    if not names:
        return None
    horizon = est.horizon
    if X is None:
        raise ValueError(f"predict needs the future covariates {names} for the {horizon} steps "
                         f"ahead: pass X with {horizon} rows of them.")
    if hasattr(X, "columns"):
        absent = [n for n in names if n not in map(str, X.columns)]
        if absent:
            raise ValueError(f"X lacks the future covariate(s) {absent}; it has {list(X.columns)}.")
        X = X.rename(columns=str)[names]
    values = series_io.finite(np.asarray(X, dtype=np.float64), "X")
    values = values.reshape(len(values), -1)
    if values.shape[1] == len(est.covariates_) and values.shape[1] != len(names):
        values = values[:, list(est.future_)]
    if values.shape != (horizon, len(names)):
        raise ValueError(f"X must have {horizon} rows (the horizon) of the future covariates "
                         f"{names}; got shape {values.shape}.")
    return values[None]


def _scale_future(out: Contexts, est: Any) -> Contexts:
    if out.future is not None:
        cols = [est.n_channels_ + j for j in est.future_]
        out.future = (out.future - out.mean[:, None, cols]) / out.scale[:, None, cols]
    return out


def pack(contexts: np.ndarray, future: np.ndarray | None, n_targets: int,
         future_idx: tuple[int, ...], horizon: int) -> np.ndarray:  # fmt: skip
    """Scaled ``contexts (n, L, C + k)`` and ``future (n, H, k_f)`` as the covariate network's
    samples ``(n * C, L + H, 1 + k)``, channel-major within each window (window ``i``'s channel
    ``c`` at row ``i * C + c``), the horizon rows of the target and of past-only covariates zero."""
    n, length, width = contexts.shape
    k = width - n_targets
    out = np.zeros((n, n_targets, length + horizon, 1 + k))
    out[:, :, :length, 0] = contexts[:, :, :n_targets].transpose(0, 2, 1)
    out[:, :, :length, 1:] = contexts[:, None, :, n_targets:]
    if future is not None:
        for j, f in enumerate(future_idx):
            out[:, :, length:, 1 + f] = future[:, None, :, j]
    return out.reshape(n * n_targets, length + horizon, 1 + k)
