"""``plot_forecast`` for one series: a panel per channel, on the series' time index."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from tsattn._plotting import pyplot
from tsattn.io import series as series_io

__all__ = ["MAX_PANELS", "column_axes", "draw_band", "plot_series"]

#: Channels drawn when ``channels`` is None (one panel each).
MAX_PANELS = 6


def _history_index(info: dict | None, n_rows: int) -> pd.Index:
    """The time index of the last ``n_rows`` rows of a series whose index ends with ``info``'s
    tail (the training series' when ``predict`` is given no context); steps ``-n_rows + 1 .. 0``
    when there is no index to continue."""
    tail = None if info is None else info.get("index")
    if isinstance(tail, pd.DatetimeIndex) and len(tail) >= 2:
        step = tail.freq if tail.freq is not None else tail[-1] - tail[-2]
        return pd.DatetimeIndex([tail[-1] - step * k for k in range(n_rows - 1, -1, -1)])
    if isinstance(tail, pd.PeriodIndex):
        return pd.period_range(end=tail[-1], periods=n_rows, freq=tail.freq)
    if tail is not None and pd.api.types.is_integer_dtype(tail) and len(tail):
        step = int(tail[-1] - tail[-2]) if len(tail) >= 2 else 1
        return pd.Index(int(tail[-1]) - step * np.arange(n_rows - 1, -1, -1))
    return pd.RangeIndex(-n_rows + 1, 1)


def _context(forecaster, y_context: Any) -> tuple[np.ndarray, pd.Index, list[str]]:
    """``(values (T, C), time index (T,), channel names)`` of one series' context: the rows
    given, or the end of the training series (its targets, back from the log scale)."""
    if y_context is None:
        values = forecaster.last_context_[:, : forecaster.n_channels_]  # covariates after them
        log = getattr(forecaster, "log_series_", None)
        if log is not None and log[0]:  # kept on the log scale (target_transform)
            values = np.exp(values)
        info = forecaster.input_kind_
        index = _history_index(info, len(values))
    else:
        if getattr(y_context, "ndim", np.ndim(y_context)) == 3:
            raise ValueError("plot_forecast draws one series: pass one context (T,) or (T, C) "
                             "(e.g. contexts[k]), not a 3-D array of windows.")  # fmt: skip
        values, info = series_io.as_series(y_context, "y_context")
        if isinstance(y_context, (pd.Series, pd.DataFrame)):
            index = y_context.index
        else:
            index = pd.RangeIndex(len(values))
    if info is not None and info.get("kind") == "frame":
        names = [str(c) for c in info["columns"]]
    elif info is not None and info.get("kind") == "series" and info.get("name") is not None:
        names = [str(info["name"])]
    else:
        names = [f"channel {k}" for k in range(values.shape[1])]
    return values, index, names


def _panels(channels: Sequence[int | str] | None, names: list[str]) -> list[int]:
    if channels is None:
        if len(names) > MAX_PANELS:
            warnings.warn(f"plot_forecast draws the first {MAX_PANELS} of {len(names)} channels; "
                          "pass channels=[...] (names or positions) to choose.", stacklevel=4)  # fmt: skip
        return list(range(min(len(names), MAX_PANELS)))
    out = []
    for c in channels:
        if isinstance(c, str):
            if c not in names:
                raise ValueError(f"channel {c!r} is not one of the series' channels {names}.")
            out.append(names.index(c))
        elif isinstance(c, (int, np.integer)) and -len(names) <= c < len(names):
            out.append(int(c) % len(names))
        else:
            raise ValueError(f"channel {c!r}: give names of {names} or positions below {len(names)}.")
    if not out:
        raise ValueError("channels is empty; give at least one channel (or None for all).")
    return out


def column_axes(ax: Any, n: int, width: float = 9.0, height: float = 2.6, what: str = "channel",
          whats: str = "channels") -> np.ndarray:  # fmt: skip
    if ax is None:
        plt = pyplot("tsattn.plotting", files=False)  # the session's backend: inline in a notebook
        _, axes = plt.subplots(n, 1, figsize=(width, height * n), squeeze=False, constrained_layout=True)
        return axes[:, 0]
    axes = np.atleast_1d(np.asarray(ax, dtype=object)).ravel()
    if len(axes) != n:
        raise ValueError(f"ax holds {len(axes)} axes for {n} {whats} to draw; pass one Axes per "
                         f"{what}, or ax=None.")  # fmt: skip
    return axes


def draw_band(a: Any, x: Any, lower: Any, upper: Any, coverage: float) -> None:
    a.fill_between(x, lower, upper, color="C0", lw=0, alpha=0.12 + 0.5 * (1 - coverage),
                   label=f"{coverage:.0%} interval")  # fmt: skip


def plot_series(forecaster, y_context: Any, y_true: Any, X: Any, coverages: list[float],
              channels: Sequence[int | str] | None, shown: int, components: bool, ax: Any) -> Any:  # fmt: skip
    """One series' forecast (:func:`tsattn.plotting.plot_forecast`), a panel per channel."""
    values, index, names = _context(forecaster, y_context)
    panels = _panels(channels, names)
    horizon, c = forecaster.horizon, values.shape[1]
    future = series_io.future_index(index, horizon)
    levels = sorted({a for cov in coverages for a in ((1 - cov) / 2, (1 + cov) / 2)})
    source = None if y_context is None else values  # None: predict's own end of training

    def arrays(out: Any) -> np.ndarray:  # any kind predict returns, as (horizon, C, k)
        return np.asarray(out, dtype=np.float64).reshape(horizon, c, -1)

    parts = {k: None if v is None else arrays(v)[..., 0]
             for k, v in forecaster.predict_components(source, X=X).items()}  # fmt: skip
    bounds = arrays(forecaster.predict_quantiles(source, levels, X=X)) if levels else None
    truth = None
    if y_true is not None:
        truth, _ = series_io.as_series(y_true, "y_true")
        if truth.shape[1] != c:
            raise ValueError(f"y_true has {truth.shape[1]} channels; the context has {c}.")
        truth = truth[:horizon]
    if isinstance(index, pd.PeriodIndex):  # matplotlib draws timestamps, not periods
        index, future = index.to_timestamp(), future.to_timestamp()
    axes = column_axes(ax, len(panels))
    for a, k in zip(axes, panels, strict=True):
        a.plot(index[-shown:], values[-shown:, k], color="0.25", lw=1.0, label="history")
        for cov in sorted(coverages, reverse=True):
            lo, hi = levels.index((1 - cov) / 2), levels.index((1 + cov) / 2)
            draw_band(a, future, bounds[:, k, lo], bounds[:, k, hi], cov)
        a.plot(future, parts["forecast"][:, k], color="C0", lw=1.6, label="forecast")
        if components and parts["anchor"] is not None:
            a.plot(future, parts["network"][:, k], color="C1", lw=1.0, ls="--",
                   label=f"network alone (blend_ {forecaster.blend_:.2f})")  # fmt: skip
            a.plot(future, parts["anchor"][:, k], color="C2", lw=1.0, ls=":",
                   label=f"anchor alone ({forecaster.anchor_})")  # fmt: skip
        if truth is not None:
            a.plot(future[: len(truth)], truth[:, k], color="k", lw=1.0, ls="-.", label="actual")
        a.axvline(index[-1], color="0.6", lw=0.8)
        a.set_title(names[k], fontsize=10, loc="left")
    axes[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return axes[0].figure
