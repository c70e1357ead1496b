"""The season of a series: steps per seasonal cycle, read from its time index's frequency or,
where its time carries no frequency (integer steps, arrays, a ``RangeIndex``), from its values.

From the frequency (:func:`season_from_offset`, :func:`season_from_step`,
:func:`season_from_index`): the steps of the calendar cycle just above the step, where a whole
number of steps makes it; 1 where none does (``3W``, ``5MS``, ``5D``, ``11min``). A multiple
divides the count (``2h`` 12, ``3MS`` 4).

=================================  =============================================================
step (pandas alias)                season
=================================  =============================================================
under a day: ``h``, ``30min``      steps per day: ``h`` 24, ``2h`` 12, ``30min`` 48, ``15min``
                                   96, ``min`` 1440; where a day is no whole number of steps,
                                   per week (``7h`` 24); else 1
under a minute: ``s``, ``10s``     steps per hour: ``s`` 3600, ``10s`` 360
under a second: ``ms``, ``us``     1
business hours: ``bh``, ``cbh``    hours per business day: 8 for 9:00-17:00; ``2bh`` 4
days: ``D``, ``2D``                7 per week; ``nD`` 7/n where whole, else 1
business days: ``B``, ``C``        5 (``C``: its weekmask's days)
weeks: ``W``, ``W-MON``, ``7D``    52; ``2W`` 26, ``4W`` 13, ``3W`` 1
half months: ``SMS``, ``SME``      24
months: ``MS``, ``ME``, ``BMS``    12 (``BME``, ``WOM-1MON`` too); ``2MS`` 6, ``3MS`` 4
quarters: ``QS``, ``QE``, ``BQS``  4; ``2QS`` 2
half years (pandas 3)              2
years: ``YS``, ``YE``, ``BYS``     1 (no season)
=================================  =============================================================

A ``PeriodIndex`` reads its ``freq``; a ``DatetimeIndex`` its ``freq``, else the one
``pd.infer_freq`` finds, else (irregular stamps) its modal step: a fixed step as above, 28-31 days
12, 89-92 days 4, and daily stamps none of which falls on a weekend 5 (business days with
holidays).

From the values (:func:`season_from_data`, where there is no frequency): the lag of the highest
peak of the values' autocorrelation, averaged over every series and channel of a panel
(:func:`pooled_acf`), among the lags from 2 to a third of the median length (at most
:data:`MAX_SEASON`); 1 where that peak is below :data:`THRESHOLD` or below
:data:`STANDARD_ERRORS` of Bartlett's standard errors over the values pooled. The rule was chosen on the shared panels'
training and validation rows, never their test rows (``docs/results/forecast_defaults/season/``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset

__all__ = [
    "MAX_COLUMNS",
    "MAX_SEASON",
    "STANDARD_ERRORS",
    "THRESHOLD",
    "pooled_acf",
    "season_from_data",
    "season_from_index",
    "season_from_offset",
    "season_from_step",
]

_DAY, _WEEK = pd.Timedelta(days=1), pd.Timedelta(days=7)
#: Steps per year of the calendar offsets (by class name: pandas' names differ across versions).
_PER_YEAR = {
    **dict.fromkeys(("MonthBegin", "MonthEnd", "BusinessMonthBegin", "BusinessMonthEnd",
                     "CustomBusinessMonthBegin", "CustomBusinessMonthEnd", "WeekOfMonth",
                     "LastWeekOfMonth"), 12),  # fmt: skip
    **dict.fromkeys(("SemiMonthBegin", "SemiMonthEnd"), 24),
    **dict.fromkeys(("QuarterBegin", "QuarterEnd", "BQuarterBegin", "BQuarterEnd",
                     "FY5253Quarter"), 4),  # fmt: skip
    **dict.fromkeys(("HalfYearBegin", "HalfYearEnd", "BHalfYearBegin", "BHalfYearEnd"), 2),
    **dict.fromkeys(("YearBegin", "YearEnd", "BYearBegin", "BYearEnd", "FY5253", "Easter"), 1),
    "Week": 52,
}
_DURATION_KEYS = {"weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds",
                  "nanoseconds"}  # fmt: skip


def _whole(cycle: int, n: int) -> int:
    """``cycle / n`` where whole, else 1."""
    return cycle // n if n > 0 and cycle % n == 0 else 1


def _fixed(step: pd.Timedelta) -> int:
    """The season of a fixed step: an hour's steps (under a minute), a day's, a week's, or 52 per
    multiple of a week; 1 under a second."""
    if step < pd.Timedelta(seconds=1):
        return 1
    if step < pd.Timedelta(minutes=1):
        return _whole(3600, int(step.total_seconds())) if step % pd.Timedelta(seconds=1) == \
            pd.Timedelta(0) else 1  # fmt: skip
    if step < _DAY:
        for cycle in (_DAY, _WEEK):
            if cycle % step == pd.Timedelta(0):
                return int(cycle // step)
        return 1
    if step < _WEEK:
        return _whole(7, int(step // _DAY)) if step % _DAY == pd.Timedelta(0) else 1
    if step % _WEEK == pd.Timedelta(0):
        return _whole(52, int(step // _WEEK))
    return 1


def season_from_offset(freq: Any) -> int:
    """Steps per season of a pandas frequency (an offset or its alias, ``'h'``, ``'2h'``,
    ``'W-SUN'``, ``'MS'``), as the module's table gives."""
    offset = to_offset(freq)
    n, name = abs(int(offset.n)), type(offset).__name__
    if name in _PER_YEAR:
        return _whole(_PER_YEAR[name], n)
    if name in ("BusinessDay", "CustomBusinessDay"):
        days = len(str(getattr(offset, "weekmask", None) or "Mon Tue Wed Thu Fri").split())
        return _whole(days, n)
    if name in ("BusinessHour", "CustomBusinessHour"):
        minutes = sum((e.hour * 60 + e.minute - s.hour * 60 - s.minute) % 1440
                      for s, e in zip(offset.start, offset.end, strict=False))  # fmt: skip
        return _whole(minutes // 60, n) if minutes % 60 == 0 else 1
    if name == "DateOffset":  # a relativedelta: months or years, or a duration
        kwds = dict(offset.kwds)
        if set(kwds) == {"months"}:
            return _whole(12, n * abs(int(kwds["months"])))
        if set(kwds) == {"years"}:
            return 1
        if kwds and set(kwds) <= _DURATION_KEYS:
            return _fixed(pd.Timedelta(**kwds) * n)
        return _fixed(pd.Timedelta(days=n)) if not kwds else 1
    try:  # the fixed steps: Day and the ticks (Hour, Minute, ...)
        return _fixed(pd.Timedelta(int(offset.nanos), unit="ns"))
    except (AttributeError, TypeError, ValueError):
        return 1


def season_from_step(step: Any) -> int | None:
    """Steps per season of a time step: a pandas offset or alias (:func:`season_from_offset`), a
    ``Timedelta`` (a fixed step, or a month's or quarter's length in days: an irregular index's
    modal step); None for an integer step (no frequency: :func:`season_from_data`)."""
    if isinstance(step, (pd.Timedelta, np.timedelta64)) or hasattr(step, "total_seconds"):
        step = pd.Timedelta(step)
        if step % _DAY == pd.Timedelta(0):
            days = int(step // _DAY)
            if 28 <= days <= 31:
                return 12
            if 89 <= days <= 92:
                return 4
            if 365 <= days <= 366:
                return 1
        return _fixed(step)
    if step is None or isinstance(step, (bool, int, np.integer)):
        return None
    return season_from_offset(step)


def season_from_index(index: Any) -> int | None:
    """Steps per season of a time index: a ``PeriodIndex``'s ``freq``; a ``DatetimeIndex``'s
    ``freq``, the frequency ``pd.infer_freq`` finds, else its modal step (daily stamps none of
    which is on a weekend: 5). None for any other index (integers, a ``RangeIndex``): it
    carries no frequency."""
    if isinstance(index, pd.PeriodIndex):
        return season_from_offset(index.freq)
    if not isinstance(index, pd.DatetimeIndex):
        return None
    freq = index.freq
    if freq is None and len(index) >= 3:
        try:
            freq = pd.infer_freq(index)
        except (TypeError, ValueError):
            freq = None
    if freq is not None:
        return season_from_offset(freq)
    if len(index) < 2:
        return 1
    steps = pd.Series(index[1:] - index[:-1])
    step = steps.mode().iloc[0]
    if step == _DAY and len(index) >= 5 and not (index.dayofweek >= 5).any():
        return 5  # business days, holidays left out
    return season_from_step(step)



#: The longest season read from the values (steps); a third of the median length at most.
MAX_SEASON = 400
#: The pooled autocorrelation a season's peak must reach, and at least this many of Bartlett's
#: standard errors (:func:`season_from_data`); below either the values give no season.
THRESHOLD, STANDARD_ERRORS = 0.3, 1.5
#: The most channels :func:`season_from_data` reads (evenly spaced over a larger panel's).
MAX_COLUMNS = 1000


def _columns(rows: Any) -> list[np.ndarray]:
    """Every channel of every series of ``rows`` (one array ``(T,)`` / ``(T, C)`` or a list)."""
    if isinstance(rows, np.ndarray) or not isinstance(rows, Sequence):
        rows = [rows]
    out = []
    for r in rows:
        r = np.asarray(r, dtype=np.float64)
        r = r[:, None] if r.ndim == 1 else r.reshape(len(r), -1)
        out.extend(r[:, j] for j in range(r.shape[1]))
    return out


def pooled_acf(rows: Any, max_lag: int, difference: int = 0) -> np.ndarray:
    """``(max_lag + 1,)``: the autocorrelation (the biased estimate, denominator ``n``; 1 at lag 0)
    of each channel of each series of ``rows`` (one array ``(T,)`` or ``(T, C)``, or a list of
    them) after ``difference`` first differences, averaged over the channels that vary; zeros
    where none does. Non-finite values are dropped."""
    total, count = np.zeros(max_lag + 1), 0
    for x in _columns(rows):
        x = x[np.isfinite(x)]
        if difference:
            x = np.diff(x, n=difference)
        if len(x) < 2:
            continue
        x = x - x.mean()
        size = 1 << int(2 * len(x) - 1).bit_length()
        acf = np.fft.irfft(np.abs(np.fft.rfft(x, size)) ** 2, size)[: min(max_lag + 1, len(x))]
        if acf[0] <= 1e-12 * max(1.0, float(np.abs(x).max()) ** 2):
            continue  # a constant channel tells nothing
        total[: len(acf)] += acf / acf[0]
        count += 1
    return total / max(count, 1)


def season_from_data(rows: Any) -> int:
    """Steps per season read from the values of ``rows`` (one series ``(T,)`` or ``(T, C)``, or a
    list of series: a panel), for data whose time carries no frequency.

    The autocorrelation of the values, pooled over every channel and series
    (:func:`pooled_acf`; at most :data:`MAX_COLUMNS` channels, evenly spaced), at the lags from 2
    to ``min(MAX_SEASON, n // 3)`` (``n`` the median length: three seasons seen at least); the
    season is the lag ``s`` of its highest local peak, where that peak reaches :data:`THRESHOLD`
    and :data:`STANDARD_ERRORS` standard errors of Bartlett's formula at that lag,
    ``sqrt((1 + 2 sum_{k<s} r_k^2) / N)`` with ``N`` the values pooled (M4's seasonality test,
    over the panel); else 1. Chosen on the shared panels' training and validation rows
    (``docs/results/forecast_defaults/season/``): M4 Hourly 24, ETTh1 and ETTh2 24, ETTm1 96,
    illness 52, EPF NP and PJM 24, BE 168, exchange_rate 1; a spurious season in 0-8% of
    single synthetic series without one (none in panels of 20).
    """
    columns = _columns(rows)
    if len(columns) > MAX_COLUMNS:
        columns = [columns[i] for i in np.linspace(0, len(columns) - 1, MAX_COLUMNS).astype(int)]
    n = int(np.median([len(c) for c in columns])) if columns else 0
    top = min(MAX_SEASON, n // 3)
    if top < 2:
        return 1
    acf = pooled_acf(columns, top + 1)
    lags = np.arange(2, top + 1)
    peaks = lags[(acf[lags] > acf[lags - 1]) & (acf[lags] >= acf[lags + 1])]
    if not len(peaks):
        return 1
    season = int(peaks[np.argmax(acf[peaks])])
    se = np.sqrt((1 + 2 * np.sum(acf[1:season] ** 2)) / sum(len(c) for c in columns))
    return season if acf[season] >= max(THRESHOLD, STANDARD_ERRORS * se) else 1
