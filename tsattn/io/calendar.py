"""Calendar covariates derived from the time stamps: known for every future step by construction.

:func:`add_calendar` appends to a frame with a ``ds`` column of datetimes (a long frame, or the
horizon's rows of ``predict(X=...)``) columns that encode where each step falls in the day, the
week or the year, as a sine and cosine pair per cycle (so that 23:00 lies next to 00:00) and a
0/1 weekend flag. They are covariates like any other: name them in ``future_covariates`` (the
calendar of every future step is known), as neuralforecast's ``augment_calendar_df`` or
mlforecast's ``date_features`` are used.

``features='auto'`` picks the cycles shorter than a year that the step can resolve (:data:`AUTO`):
hourly and finer steps the hour of the day, the day of the week and the weekend; daily steps the
day of the week, the weekend and the day of the year; weekly steps the week of the year; monthly
and quarterly steps the month or quarter. Chosen on EPF's validation rows for hourly steps
(``docs/results/panels/README.md``, "Calendar columns"); the other steps' sets follow the same
rule and were not measured.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from tsattn._validation import did_you_mean

__all__ = ["AUTO", "CYCLES", "add_calendar", "calendar_names"]

#: Cycles: name -> (the value from a ``DatetimeIndex``, its period).
CYCLES = {
    "hour": (lambda t: t.hour + t.minute / 60.0, 24.0),
    "dayofweek": (lambda t: t.dayofweek, 7.0),
    "dayofyear": (lambda t: t.dayofyear - 1.0, 365.25),
    "weekofyear": (lambda t: t.isocalendar().week.to_numpy(float) - 1.0, 52.18),
    "month": (lambda t: t.month - 1.0, 12.0),
    "quarter": (lambda t: t.quarter - 1.0, 4.0),
}
#: Flags: name -> 0/1 value.
FLAGS = {"weekend": lambda t: (t.dayofweek >= 5).astype(float)}
#: ``features='auto'``: (the longest step in hours, the features).
AUTO = ((1.0, ("hour", "dayofweek", "weekend")),
        (24.0, ("dayofweek", "weekend", "dayofyear")),
        (24.0 * 7, ("weekofyear",)),
        (24.0 * 31, ("month",)),
        (24.0 * 92, ("quarter",)))  # fmt: skip


def _resolve(features: Any, stamps: pd.DatetimeIndex) -> tuple[str, ...]:
    if features == "auto":
        if stamps.nunique() < 2:
            raise ValueError("features='auto' reads the step from the stamps, but there is one; "
                             "name the features (e.g. features=['hour', 'dayofweek']).")
        # the stamps' grid: a long frame's series share it, whatever their order and starts
        step = pd.Series(stamps.unique()).sort_values().diff().median() / pd.Timedelta(hours=1)
        for longest, names in AUTO:
            if step <= longest * 1.01:
                return names
        raise ValueError(f"the step is {step / 24:.0f} days: no calendar cycle shorter than a "
                         "year to encode; yearly series need no calendar columns.")
    names = (features,) if isinstance(features, str) else tuple(features)
    known = [*CYCLES, *FLAGS]
    for name in names:
        if name not in known:
            raise ValueError(f"unknown calendar feature {name!r}; the features are {known} or "
                             f"'auto'.{did_you_mean(name, known, n=1)}")
    return names


def calendar_names(features: Any = "auto", stamps: Any = None) -> list[str]:
    """The columns :func:`add_calendar` writes for ``features`` (``'auto'`` needs ``stamps``):
    ``cal_<cycle>_sin``, ``cal_<cycle>_cos`` per cycle, ``cal_<flag>`` per flag."""
    names = _resolve(features, pd.DatetimeIndex(stamps) if features == "auto" else None)
    out = []
    for name in names:
        out += [f"cal_{name}_sin", f"cal_{name}_cos"] if name in CYCLES else [f"cal_{name}"]
    return out


def add_calendar(frame: pd.DataFrame, features: Any = "auto", column: str = "ds") -> pd.DataFrame:
    """``frame`` with calendar columns of its ``column`` (datetimes) appended, a copy.

    Parameters
    ----------
    frame : DataFrame
        ``(n, ...)`` with a datetime column ``column`` (a long frame ``unique_id, ds, y, ...``, or
        a future frame ``unique_id, ds`` of the horizon's rows).
    features : 'auto', str or list of str
        Cycles of :data:`CYCLES` (``'hour'``, ``'dayofweek'``, ``'dayofyear'``, ``'weekofyear'``,
        ``'month'``, ``'quarter'``: a sine/cosine pair each) and flags (``'weekend'``: 0/1);
        ``'auto'``: by the step (:data:`AUTO`), the median gap between the distinct stamps.

    Returns
    -------
    DataFrame ``(n, ... + k)``, the new columns named by :func:`calendar_names`.

    >>> df = add_calendar(df)                                        # doctest: +SKIP
    >>> cal = [c for c in df.columns if c.startswith("cal_")]        # doctest: +SKIP
    >>> f = TSForecaster(horizon=24, future_covariates=cal).fit(df)  # doctest: +SKIP
    >>> f.predict(X=add_calendar(f.make_future_dataframe()))         # doctest: +SKIP
    """
    if not isinstance(frame, pd.DataFrame) or column not in frame.columns:
        raise ValueError(f"add_calendar needs a DataFrame with a {column!r} column of datetimes; "
                         f"got {type(frame).__name__}.")
    if not pd.api.types.is_datetime64_any_dtype(frame[column]):
        raise ValueError(f"{column!r} has dtype {frame[column].dtype}: calendar columns need "
                         f"datetimes (pd.to_datetime(frame[{column!r}])); integer steps have no "
                         "calendar.")
    stamps = pd.DatetimeIndex(frame[column])
    names = _resolve(features, stamps)
    out = frame.copy()
    for name in names:
        if name in CYCLES:
            value, period = CYCLES[name]
            angle = 2.0 * np.pi * np.asarray(value(stamps), dtype=float) / period
            out[f"cal_{name}_sin"], out[f"cal_{name}_cos"] = np.sin(angle), np.cos(angle)
        else:
            out[f"cal_{name}"] = np.asarray(FLAGS[name](stamps), dtype=float)
    return out
