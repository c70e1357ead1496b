"""``plot_forecast`` for many series: a panel per series of a long frame (``unique_id``, ``ds``,
``y``, in the caller's column names), two columns of them, each series' history, forecast and
intervals on its ``ds``; the frames renamed to the forecaster's columns for ``predict``."""

from __future__ import annotations

import difflib
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from tsattn._plotting import pyplot
from tsattn.io.panel import ID, TARGET, TIME
from tsattn.plotting.series import column_axes, draw_band

__all__ = ["MAX_IDS", "plot_panel"]

#: Series of a long frame drawn when ``ids`` is None (one panel each), neuralforecast's default.
MAX_IDS = 8


def _grid(ax: Any, n: int) -> tuple[np.ndarray, int | None]:
    """One Axes per series, two columns of them in a new figure (``ncols``; None for the
    caller's ``ax``)."""
    if ax is not None:
        return column_axes(ax, n, what="series", whats="series"), None
    plt = pyplot("tsattn.plotting", files=False)
    ncols = 1 if n == 1 else 2
    rows = math.ceil(n / ncols)
    _, grid = plt.subplots(rows, ncols, figsize=(9.0 if ncols == 1 else 12.0, 2.6 * rows + 0.4),
                           squeeze=False, constrained_layout=True)  # fmt: skip
    for spare in grid.ravel()[n:]:  # an odd count leaves the last cell empty
        spare.remove()
    return grid.ravel()[:n], ncols


def _long(frame: Any, names: tuple[str, ...], what: str, fitted_long: bool) -> pd.DataFrame:
    """The long frame ``frame`` with the caller's columns ``names`` (series, time[, target])
    renamed ``unique_id, ds[, y]``, the names :meth:`TSForecaster.predict` reads."""
    hint = (" (this forecaster was fitted on a long frame: pass its series' rows, or None for "
            "the fitted series)" if fitted_long and what == "y_context" else "")  # fmt: skip
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"{what} must be a long frame with columns {list(names)}{hint}; got "
                         f"{type(frame).__name__}.")  # fmt: skip
    frame = frame.rename(columns=str)
    missing = [n for n in names if n not in frame.columns]
    if missing:
        raise ValueError(f"{what} lacks the column(s) {missing}{hint}; it has "
                         f"{list(frame.columns)}. Name the series, time and target columns with "
                         "id_col, time_col and target_col.")  # fmt: skip
    renamed = {n: s for n, s in zip(names, (ID, TIME, TARGET), strict=False) if n != s}
    clash = [s for s in renamed.values() if s in frame.columns and s not in renamed]
    if clash:
        raise ValueError(f"{what} has column(s) {clash} beside {list(renamed)}, which are read "
                         f"as {list(renamed.values())}: rename or drop them first.")  # fmt: skip
    return frame.rename(columns=renamed)


def _choose(ids: Any, known: list, max_ids: int, id_col: str, where: str) -> list:
    """The series drawn: ``ids`` (each one of ``known``, the close ones named where it is not),
    or the first ``max_ids`` of ``known``."""
    if ids is None:
        if len(known) > max_ids:
            warnings.warn(f"plot_forecast draws the first {max_ids} of {len(known)} series; pass "
                          f"ids=[...] ({id_col!r} values, e.g. {known[:3]}) to choose them, or "
                          "max_ids=.", stacklevel=4)  # fmt: skip
        return known[:max_ids]
    chosen = list(dict.fromkeys([ids] if isinstance(ids, (str, bytes)) or np.ndim(ids) == 0 else ids))
    if not chosen:
        raise ValueError("ids is empty; give at least one series (or None for the first ones).")
    present = set(known)
    absent = [i for i in chosen if i not in present]
    if absent:
        text = [str(k) for k in known]
        close = [known[text.index(m)] for m in difflib.get_close_matches(str(absent[0]), text, n=3)]
        raise ValueError(f"{id_col} {absent} not among the {len(known)} series of {where}; "
                         + (f"close to {absent[0]!r}: {close}." if close else
                            f"they include {known[:5]}."))  # fmt: skip
    return chosen


def _long_call(method: Any, y: pd.DataFrame | None, X: pd.DataFrame | None, **kwargs: Any) -> Any:
    """``method(y, X=X, ...)`` on frames with the standard columns, named to it (a forecaster
    fitted with other names reads them as it was told); its long frames' first three columns are
    named ``unique_id, ds, y``."""
    out = method(y, X=X, id_col=ID, time_col=TIME, target_col=TARGET, **kwargs)

    def standard(frame: Any) -> Any:
        if frame is None:
            return None
        frame = frame.rename(columns=dict(zip(frame.columns[:3], (ID, TIME, TARGET), strict=False)))
        return {k: g for k, g in frame.groupby(ID, sort=False)}

    if isinstance(out, dict):
        return {k: standard(v) for k, v in out.items()}
    if isinstance(out, tuple):
        return tuple(standard(v) for v in out)
    return standard(out)


def plot_panel(forecaster, y_context: Any, y_true: Any, X: Any, ids: Any, max_ids: int,
               coverages: list[float], shown: int, components: bool, ax: Any,
               names: tuple[str, str, str]) -> Any:  # fmt: skip
    """The series of a long frame, or the fitted ones (:func:`tsattn.plotting.plot_forecast`)."""
    fitted_long = bool(forecaster.fit_plan_.panel)
    frame = None if y_context is None else _long(y_context, names, "y_context", fitted_long)
    future = None if X is None else _long(X, names[:2], "X", fitted_long)
    truth = None if y_true is None else _long(y_true, names, "y_true", fitted_long)
    if frame is None:
        known, where = np.asarray(forecaster.series_ids_).tolist(), "the fitted series"
    else:
        known, where = np.unique(frame[ID].to_numpy()).tolist(), "y_context"
    chosen = _choose(ids, known, max_ids, names[0], where)
    if frame is not None:  # forecast only the series drawn, each from its own rows
        frame = frame[frame[ID].isin(chosen)]
        future = None if future is None else future[future[ID].isin(chosen)]
    point = _long_call(forecaster.predict, frame, future)
    bands = {c: _long_call(forecaster.predict_interval, frame, future, coverage=c) for c in coverages}
    parts = _long_call(forecaster.predict_components, frame, future) if components else None
    rows = {} if frame is None else {k: g.sort_values(TIME).tail(shown) for k, g in frame.groupby(ID)}
    actual = {} if truth is None else {k: g[g[TIME].isin(point[k][TIME])].sort_values(TIME)
                                       for k, g in truth.groupby(ID) if k in point}  # fmt: skip
    if truth is not None and not any(len(g) for g in actual.values()):
        raise ValueError(f"y_true shares no ({names[0]}, {names[1]}) row with the forecasts (the "
                         f"{forecaster.horizon} steps after each series' last row).")  # fmt: skip
    axes, ncols = _grid(ax, len(chosen))
    for j, (a, sid) in enumerate(zip(axes, chosen, strict=True)):
        fc = point[sid]
        x = fc[TIME].to_numpy()
        if sid in rows:
            a.plot(rows[sid][TIME].to_numpy(), rows[sid][TARGET].to_numpy(), color="0.25", lw=1.0,
                   label="history")  # fmt: skip
            a.axvline(rows[sid][TIME].iloc[-1], color="0.6", lw=0.8)
        for cov in sorted(coverages, reverse=True):
            lower, upper = (b[sid][TARGET].to_numpy() for b in bands[cov])
            draw_band(a, x, lower, upper, cov)
        a.plot(x, fc[TARGET].to_numpy(), color="C0", lw=1.6, label="forecast")
        if parts is not None and parts["anchor"] is not None:
            a.plot(x, parts["network"][sid][TARGET].to_numpy(), color="C1", lw=1.0, ls="--",
                   label=f"network alone (blend_ {forecaster.blend_:.2f})")  # fmt: skip
            a.plot(x, parts["anchor"][sid][TARGET].to_numpy(), color="C2", lw=1.0, ls=":",
                   label=f"anchor alone ({forecaster.anchor_})")  # fmt: skip
        if len(actual.get(sid, ())):
            a.plot(actual[sid][TIME].to_numpy(), actual[sid][TARGET].to_numpy(), color="k", lw=1.0,
                   ls="-.", label="actual")  # fmt: skip
        a.set_title(str(sid), fontsize=10, loc="left")
        if ncols is None or j + ncols >= len(chosen):
            a.set_xlabel(names[1])
        if ncols is None or j % ncols == 0:
            a.set_ylabel(names[2])
    handles, labels = axes[0].get_legend_handles_labels()
    if ncols is None:  # the caller's axes: a legend in the first
        axes[0].legend(handles, labels, fontsize=8, loc="upper left", frameon=False)
    else:  # above the grid
        axes[0].figure.legend(handles, labels, loc="outside upper center", ncols=len(labels),
                              fontsize=8, frameon=False)  # fmt: skip
    return axes[0].figure
