"""Every form ``fit`` and ``predict`` take, read into one :class:`~.data.ForecastData`.

``fit``: one series (an array ``(T,)``/``(T, C)``, a Series or a DataFrame) with covariates ``X``
beside it (an array or frame, row by row) and ``y_val``; or a long frame (``unique_id``, ``ds``,
``y`` and covariate columns, or covariates in a long ``X``). ``predict``: the end of the fitted
series (``y=None``), one series, a long frame (series seen in fit or not: an unseen series is
scaled by its own rows), or a batch of context windows, each with its covariates and the future
ones' horizon rows (``X``). The per-series statistics of the rows read follow the fit: the
fitted series' own, or those of the rows given (:func:`read_predict`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from tsattn.estimators.forecaster.data import ForecastData, Form, labels, last_contexts
from tsattn.estimators.forecaster.roles import Covariates
from tsattn.estimators.forecaster.scales import Floor, Standardise
from tsattn.io import series as series_io
from tsattn.io.checks import check_channels
from tsattn.io.panel import ID, TIME, is_long_frame, read_future_frame, read_long_frame

__all__ = ["read_continuation", "read_covariates", "read_fit", "read_predict"]


def read_covariates(X: Any, n_rows: int, info: dict | None, what: str = "X"
                    ) -> tuple[np.ndarray, list[str]]:  # fmt: skip
    """Covariate rows ``(n_rows, k)`` and their names from an array ``(T,)``/``(T, k)``, a
    Series or a DataFrame (names ``x0, x1, ...`` for arrays), aligned row by row with the series;
    a pandas ``X`` beside a pandas series must share its index."""
    values, x_info = series_io.as_series(X, what)
    if len(values) != n_rows:
        raise ValueError(f"{what} has {len(values)} rows but the series has {n_rows}; give one "
                         "covariate row per time step of the series.")
    index = (info or {}).get("index")
    if isinstance(X, (pd.Series, pd.DataFrame)) and index is not None:
        if not X.index[-len(index):].equals(index):
            raise ValueError(f"{what}'s index does not match the series' (its last stamps are "
                             f"{list(X.index[-len(index):])}, the series' {list(index)}); align "
                             f"them first (e.g. {what}.reindex(y.index)).")
    if x_info["kind"] == "frame":
        names = [str(c) for c in x_info["columns"]]
    elif x_info["kind"] == "series" and x_info["name"] is not None:
        names = [str(x_info["name"])]
    else:
        names = [f"x{j}" for j in range(values.shape[1])]
    return values, names


def read_fit(y: Any, X: Any, y_val: Any, owner: str) -> ForecastData:
    """``fit``'s ``y`` (one series, or a long frame), ``X`` and ``y_val`` read and checked (the
    covariates' names; the fit plan gives them their roles); ``owner`` names the estimator in
    errors."""
    if is_long_frame(y):
        if y_val is not None:
            raise ValueError("y_val goes with one series; a long frame's validation rows are the "
                             "last rows of each of its series (validation_fraction).")
        panel = read_long_frame(y, "y", covariates=X)
        rows = [np.hstack([t, c]) for t, c in zip(panel.targets, panel.covariates, strict=False)]
        form = Form({"kind": "long"}, panel.ids, panel.last_stamps, panel.step)
        return ForecastData(rows, 1, Covariates(tuple(panel.covariate_names)), form)
    values, info = series_io.as_series(y, "y")
    names: list[str] = []
    if X is not None:
        cov, names = read_covariates(X, len(values), info)
        values = np.hstack([values, cov])
        if y_val is not None:
            raise ValueError("y_val with covariates is not supported: pass the whole series and "
                             "its covariates; the validation rows are its tail "
                             "(validation_fraction).")
    valid = None
    if y_val is not None:
        valid, _ = series_io.as_series(y_val, "y_val")
        series_io.check_channels(valid.shape[1], values.shape[1], "y_val", owner)
    return ForecastData([values], values.shape[1] - len(names), Covariates(tuple(names)),
                        Form(info), valid=valid)  # fmt: skip


def read_predict(est: Any, y: Any, X: Any) -> ForecastData:
    """``predict``'s ``y`` and ``X`` for the fitted forecaster ``est`` (see the module doc), the
    contexts on the fit's series scale, ``mean``/``scale``, ``low`` and ``selected`` those of the
    rows read: the fitted series' own (``y=None``), each series' given rows (a long ``y``; a
    batch of windows of a long fit), or the fitted series' (one series; a batch of windows of one
    series). Forecasts are held (``low``) where the fit holds them: at the fitted series' lowest
    values, or at the lowest of the rows given."""
    plan = est.fit_plan_
    chain = plan.scales
    n, c, covariates = est.context_length_, est.n_channels_, plan.covariates

    def selected(rows: list[np.ndarray]) -> np.ndarray | None:
        if est.log_series_ is None:  # the series scale took no fitted series: none given either
            return None
        return chain.select(rows, c, n)

    if y is None:
        if plan.panel:
            data = ForecastData([], c, covariates, Form({"kind": "long"}, est.series_ids_,
                                                        est.last_stamps_, est.step_),
                                mean=est.series_mean_, scale=est.series_scale_, low=est.series_low_,
                                selected=est.log_series_, contexts=est.last_context_)  # fmt: skip
            return _long_future(data, X, est)
        data = ForecastData([], c, covariates, Form(est.input_kind_), mean=est.series_mean_,
                            scale=est.series_scale_, selected=est.log_series_,
                            contexts=est.last_context_[None])  # fmt: skip
        data.future = _one_future(est, X)
        return _scale_future(data, est)
    if is_long_frame(y):
        panel = read_long_frame(y, "y")
        if panel.covariate_names != list(covariates.names):
            raise ValueError(f"y's covariate columns {panel.covariate_names} differ from fit's "
                             f"{list(covariates.names)}; pass the same columns.")
        mask = selected(panel.targets)
        targets = chain.to_series_scale(list(panel.targets), c, mask, "y",
                                        labels("y", len(panel.targets), panel.ids))  # fmt: skip
        rows = [np.hstack([t, cv]) for t, cv in zip(targets, panel.covariates, strict=False)]
        mean, scale = Standardise.stats(rows)
        data = ForecastData(rows, c, covariates, Form({"kind": "long"}, panel.ids,
                                                      panel.last_stamps, panel.step),
                            mean=mean, scale=scale, selected=mask,
                            low=Floor.lows(targets) if chain.floor else None,
                            contexts=last_contexts(rows, n))  # fmt: skip
        return _long_future(data, X, est)
    if getattr(y, "ndim", np.ndim(y)) == 2 and getattr(X, "ndim", np.ndim(X)) == 3:
        y = np.asarray(y, dtype=np.float64)[..., None]  # a batch of univariate windows (n, ctx)
    if getattr(y, "ndim", np.ndim(y)) == 3:
        return _read_windows(est, y, X, selected)
    if plan.panel:
        raise ValueError("this forecaster was fitted on a long frame: pass y as a long frame "
                         "(unique_id, ds, y ...) or a batch of windows (n, context_length, 1).")
    return _read_one(est, y, X)


def read_continuation(y: Any) -> pd.DataFrame | np.ndarray:
    """``score``'s ``y``, the rows after the end of fit: a long frame of each series' next rows as
    ``unique_id, ds, truth``, or one series' next values ``(T, C)``."""
    if not is_long_frame(y):
        return series_io.as_series(y, "y")[0]
    truth = read_long_frame(y, "y")
    return pd.DataFrame({ID: np.repeat(np.asarray(truth.ids, dtype=object), truth.lengths),
                         TIME: np.concatenate(truth.stamps),
                         "truth": np.concatenate(truth.targets)[:, 0]})  # fmt: skip


def _read_windows(est: Any, y: Any, X: Any, selected) -> ForecastData:
    """A batch of context windows ``(n, T, C)`` and their covariates ``X (n, T [+ H], k)``."""
    plan = est.fit_plan_
    chain = plan.scales
    ctx_len, horizon, c = est.context_length_, est.horizon, est.n_channels_
    covariates, k = plan.covariates, len(plan.covariates)
    future_names = covariates.future_names
    contexts = series_io.as_windows(y, c, "y_context", type(est).__name__)
    mask = selected(list(contexts))
    contexts = chain.to_series_scale(contexts, c, mask, "y_context",
                                     labels("y_context", len(contexts), unit="window"))  # fmt: skip
    series_io.check_length(contexts[0], ctx_len, 0, "y_context")
    length = contexts.shape[1]  # X's rows line up with y's, the horizon's after them
    low = contexts.min(axis=1) if chain.floor else None  # every row given, not only the context
    contexts = contexts[:, -ctx_len:]
    future = None
    if k:
        if X is None:
            raise ValueError(f"predict needs the covariates {list(covariates.names)} of each "
                             f"window: pass X (n_windows, context_length[+ horizon], {k}).")
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
            future = x_win[:, length : length + horizon, list(covariates.future)]
    if plan.panel:  # no per-series statistics for windows: each window's own
        mean, scale = Standardise.stats(list(contexts))
    else:
        mean = np.repeat(est.series_mean_, len(contexts), axis=0)
        scale = np.repeat(est.series_scale_, len(contexts), axis=0)
    data = ForecastData([], c, covariates, Form(None), mean=mean, scale=scale, low=low,
                        selected=mask, contexts=contexts, future=future)  # fmt: skip
    return _scale_future(data, est)


def _read_one(est: Any, y: Any, X: Any) -> ForecastData:
    """One series' context ``y`` (at least ``context_length`` rows), its covariates' rows and
    the future ones' horizon rows after them (``X``)."""
    plan = est.fit_plan_
    chain = plan.scales
    ctx_len, horizon, c = est.context_length_, est.horizon, est.n_channels_
    covariates = plan.covariates
    future_names = covariates.future_names
    values, info = series_io.as_series(y, "y_context")
    check_channels(values.shape[1], c, "y_context", type(est).__name__)
    values = chain.to_series_scale(values, c, est.log_series_, "y_context", ["y_context"])
    if len(covariates):
        past = X
        if X is not None and len(X) == len(values) + horizon:  # the horizon's rows after
            past = X.iloc[: len(values)] if hasattr(X, "iloc") else np.asarray(X)[: len(values)]
        if past is None or len(past) < len(values):
            raise ValueError(f"predict(y_context, X) needs the covariates {list(covariates.names)} "
                             f"for every row of y_context (and the {horizon} rows after it for "
                             f"{future_names})." if future_names else ").")
        cov, _ = read_covariates(past, len(values), info)
        values = np.hstack([values, cov])
    series_io.check_length(values, ctx_len, 0, "y_context")
    data = ForecastData([], c, covariates, Form(info), mean=est.series_mean_,
                        scale=est.series_scale_, selected=est.log_series_,
                        contexts=values[None, -ctx_len:])  # fmt: skip
    if future_names:
        if X is not None and len(X) == len(values) + horizon:
            tail = X.iloc[len(values):] if hasattr(X, "iloc") else np.asarray(X)[len(values):]
            data.future = _one_future(est, tail)
        else:
            raise ValueError(f"predict(y_context, X) needs X with y_context's rows and the "
                             f"{horizon} rows after it (the future covariates {future_names}).")
    return _scale_future(data, est)


def _long_future(data: ForecastData, X: Any, est: Any) -> ForecastData:
    """``data`` with the future covariates of each of its series read from the long frame ``X``
    (their ``horizon`` rows after each series' end), scaled."""
    names = data.covariates.future_names
    if names:
        if X is None:
            raise ValueError(f"predict needs the future covariates {names} for the {est.horizon} "
                             "steps after each series: pass X, a long frame with unique_id, ds "
                             "and those columns.")
        form = data.form
        data.future = np.stack(read_future_frame(X, form.ids, form.last_stamps, form.step, names,
                                                 est.horizon))  # fmt: skip
    return _scale_future(data, est)


def _one_future(est: Any, X: Any) -> np.ndarray | None:
    """``(1, H, k_f)``: the future covariates of the one fitted series' next ``horizon`` steps
    from ``X``: its ``horizon`` rows of those columns (a frame with them, or an array of ``k_f`` or
    of all ``k`` covariate columns)."""
    covariates = est.fit_plan_.covariates
    names = covariates.future_names
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
    if values.shape[1] == len(covariates) and values.shape[1] != len(names):
        values = values[:, list(covariates.future)]
    if values.shape != (horizon, len(names)):
        raise ValueError(f"X must have {horizon} rows (the horizon) of the future covariates "
                         f"{names}; got shape {values.shape}.")
    return values[None]


def _scale_future(data: ForecastData, est: Any) -> ForecastData:
    if data.future is not None:
        cols = [est.n_channels_ + j for j in data.covariates.future]
        data.future = (data.future - data.mean[:, None, cols]) / data.scale[:, None, cols]
    return data
