"""One series in, one forecast out: the input checks and output formatting of a forecaster.

A series is a 1-D or 2-D array (time first) or a pandas Series/DataFrame; its values become a
``(T, C)`` float64 array, and ``info`` remembers the container (and the tail of its time index), so a
forecast comes back in the same kind, its index continuing the input's. ``owner`` in the checks is
the name of the estimator whose fitted channels the input must match, as the error states it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from tsattn.io.checks import check_channels

__all__ = [
    "as_series",
    "as_windows",
    "check_length",
    "finite",
    "format_output",
    "future_index",
    "format_quantiles",
    "seasonal_period",
]


def finite(values: np.ndarray, what: str) -> np.ndarray:
    """``values`` if every entry is finite; else a ``ValueError`` giving the first bad position."""
    if not np.isfinite(values).all():
        bad = np.argwhere(~np.isfinite(values))[0]
        raise ValueError(
            f"{what} contains NaN or infinite values (first at position {tuple(int(i) for i in bad)}); "
            "impute them first (e.g. df.interpolate() or df.ffill())."
        )
    return values


def as_windows(contexts: Any, n_channels: int, what: str, owner: str) -> np.ndarray:
    """A 3-D array of context windows ``(n_windows, length, n_channels)`` as float64, checked."""
    contexts = finite(np.asarray(contexts, dtype=np.float64), what)
    if contexts.shape[0] == 0:
        raise ValueError(f"{what} has 0 windows (shape {contexts.shape}); pass at least one.")
    check_channels(contexts.shape[2], n_channels, what, owner)
    return contexts


def as_series(y: Any, what: str) -> tuple[np.ndarray, dict]:
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
    return finite(values, what), info


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


def future_index(index: pd.Index, steps: int) -> pd.Index:
    """The ``steps`` time stamps after ``index`` (the series' own), as :func:`format_output`
    continues an input's index; a ``RangeIndex(steps)`` when it cannot be continued."""
    return _continue_index(_index_tail(index, "the index"), steps)


def format_output(forecast: np.ndarray, info: dict) -> Any:
    kind = info["kind"]
    if kind == "array1d":
        return forecast[:, 0]
    if kind == "array2d":
        return forecast
    index = _continue_index(info["index"], len(forecast))
    if kind == "series":
        return pd.Series(forecast[:, 0], index=index, name=info["name"])
    return pd.DataFrame(forecast, index=index, columns=info["columns"])


def format_quantiles(quantiles: np.ndarray, info: dict, alpha: np.ndarray) -> Any:
    """``quantiles (horizon, C, k)`` in the input's kind: arrays keep the last axis over ``alpha``
    (``(horizon, k)`` for a 1-D input); pandas gives a DataFrame with ``(column, alpha)`` columns
    on the continued index."""
    kind = info["kind"]
    if kind == "array1d":
        return quantiles[:, 0]
    if kind == "array2d":
        return quantiles
    names = [info["name"]] if kind == "series" else list(info["columns"])
    columns = pd.MultiIndex.from_product([names, [float(a) for a in alpha]])
    return pd.DataFrame(quantiles.reshape(len(quantiles), -1), columns=columns,
                        index=_continue_index(info["index"], len(quantiles)))  # fmt: skip


def check_length(values: np.ndarray, context_length: int, horizon: int, what: str) -> None:
    """Refuse a series shorter than one training window (``horizon=0``: than one context)."""
    need = context_length + horizon
    if len(values) >= need:
        return
    # a (channels, time) array read as (time, channels): say so
    transposed = (f" Time runs along the first axis: if {what}'s {values.shape[1]} columns are "
                  f"its time steps, pass {what}.T." if values.ndim == 2 and values.shape[1] >= need
                  else "")  # fmt: skip
    if not horizon:
        raise ValueError(
            f"{what} has {len(values)} time steps but context_length={context_length} are "
            f"needed; pass a longer context.{transposed}"
        )
    raise ValueError(
        f"{what} has {len(values)} time steps, fewer than context_length + horizon = "
        f"{context_length} + {horizon} = {need} needed for one training window. Pass a longer "
        f"series or lower context_length/horizon.{transposed}"
    )


def seasonal_period(index: pd.Index) -> int:
    """Steps per season read from a time index: a day of sub-daily data, a week of daily data, a
    year (52 or 12) of weekly or monthly data (a ``PeriodIndex`` too, as sktime passes), else 1."""
    if isinstance(index, pd.PeriodIndex):
        index = index.to_timestamp()
    if not isinstance(index, pd.DatetimeIndex) or len(index) < 3:
        return 1
    step = pd.Series(index[1:] - index[:-1]).median()
    day, week = pd.Timedelta(days=1), pd.Timedelta(days=7)
    if step < day:
        return max(1, int(round(day / step)))
    if step == day:
        return 7
    if step == week:
        return 52
    if pd.Timedelta(days=28) <= step <= pd.Timedelta(days=31):
        return 12
    return 1
