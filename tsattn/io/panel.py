"""Long frames of many series, checked: the input of a global forecaster.

A long frame has one row per series and time step, columns ``unique_id``, ``ds`` and ``y`` (the
layout of neuralforecast, statsforecast and mlforecast), then any covariate columns; covariates may
also come as a separate frame ``X`` keyed by ``unique_id, ds``. :func:`read_panel` checks it and
returns a :class:`Panel`: the series one after another, sorted by ``(unique_id, ds)``, with their
common time step. :func:`read_future_covariates` checks the horizon's rows of the future-known
covariates that ``predict`` receives.

Every fault raises a ``ValueError`` that names it and the first series and time where it occurs:
a missing column; ``ds`` neither datetimes nor integers; a repeated ``(unique_id, ds)``; a series
with a gap or irregular steps; series at different frequencies; a missing or infinite value in
``y`` or a covariate; a non-numeric covariate; covariate rows missing for, or beyond, the rows of
``y``; a future covariate that is not a column. A covariate constant over every row (it carries no
information) is kept, with a ``UserWarning`` naming it, and listed in ``Panel.constant_covariates``.
Rows may come in any order (they are sorted).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Panel", "read_future_covariates", "read_panel"]

KEYS = ["unique_id", "ds"]
_LAYOUT = ("a long frame has columns unique_id, ds, y, then any covariates (one row per series "
           "and time step)")  # fmt: skip


@dataclass(frozen=True)
class Panel:
    """A checked long frame, series after series (rows never copied into windows).

    Attributes
    ----------
    ids : ndarray of shape (n_series,)
        The ``unique_id`` of each series, sorted.
    offsets : ndarray of shape (n_series + 1,), int64
        Series ``i`` is rows ``offsets[i]:offsets[i + 1]`` of ``y`` and ``covariates``.
    ds : ndarray of shape (n_rows,)
        The time of each row (datetime64 or int64).
    y : ndarray of shape (n_rows,), float64
    covariates : ndarray of shape (n_rows, n_covariates), float64
    covariate_names, future_covariates, constant_covariates : tuple of str
        Every covariate column in order; those known for the horizon at predict (the rest are
        past-only); those constant over every row.
    step : pandas.DateOffset or int
        The common step of ``ds`` (e.g. ``<Hour>``, ``<MonthEnd>``, or 1); None when every series
        has one row.
    """

    ids: np.ndarray
    offsets: np.ndarray
    ds: np.ndarray
    y: np.ndarray
    covariates: np.ndarray
    covariate_names: tuple[str, ...]
    future_covariates: tuple[str, ...]
    constant_covariates: tuple[str, ...]
    step: Any

    @property
    def lengths(self) -> np.ndarray:
        """Rows of each series, shape (n_series,)."""
        return np.diff(self.offsets)

    def series(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """``(y (T_i,), covariates (T_i, n_covariates))`` of series ``i`` (views)."""
        rows = slice(self.offsets[i], self.offsets[i + 1])
        return self.y[rows], self.covariates[rows]

    def future_ds(self, steps: int) -> pd.DataFrame:
        """The ``unique_id, ds`` of the ``steps`` rows after each series' last row."""
        if self.step is None:
            raise ValueError("every series has one row, so its time step is unknown; give at "
                             "least two rows of one series.")  # fmt: skip
        last = self.ds[self.offsets[1:] - 1]
        ahead = np.arange(1, steps + 1)
        if isinstance(self.step, (int, np.integer)):
            ds = (last[:, None] + ahead[None, :] * self.step).ravel()
        elif isinstance(self.step, pd.tseries.offsets.Tick):  # fixed length: no loop
            ds = (last[:, None] + ahead[None, :] * np.timedelta64(self.step.nanos, "ns")).ravel()
        else:
            ds = np.concatenate([(pd.Timestamp(t) + ahead * self.step).to_numpy() for t in last])
        return pd.DataFrame({"unique_id": np.repeat(self.ids, steps), "ds": ds})


def _first(frame: pd.DataFrame, mask: np.ndarray) -> str:
    row = frame.loc[mask].iloc[0]
    return f"series {row['unique_id']!r} at ds {row['ds']}"


def _join_covariates(y: pd.DataFrame, X: pd.DataFrame) -> pd.DataFrame:
    """``y`` with the covariate columns of ``X``, whose rows must be exactly ``y``'s keys."""
    if not isinstance(X, pd.DataFrame) or any(k not in X.columns for k in KEYS):
        raise ValueError(f"X must be a frame with columns unique_id, ds and the covariates; got "
                         f"{type(X).__name__} with columns {list(getattr(X, 'columns', []))}.")
    both = sorted(set(X.columns) & set(y.columns) - set(KEYS))
    if both:
        raise ValueError(f"covariate column(s) {both} are both in y and in X; give each once.")
    dup = X.duplicated(KEYS).to_numpy()
    if dup.any():
        raise ValueError(f"X has {int(dup.sum())} repeated (unique_id, ds) rows (first: "
                         f"{_first(X, dup)}); give one row per series and time step.")
    merged = y.merge(X, on=KEYS, how="outer", indicator=True, sort=False)
    for side, what in (("left_only", "has no row"), ("right_only", "has a row beyond the rows of y")):
        mask = (merged["_merge"] == side).to_numpy()
        if mask.any():
            hint = ("X needs a row for every (unique_id, ds) of y" if side == "left_only" else
                    "the horizon's rows of future covariates go to predict(X=...)")
            raise ValueError(f"X {what} for {int(mask.sum())} (unique_id, ds) pairs (first: "
                             f"{_first(merged, mask)}): its rows are misaligned with y; {hint}.")
    return merged.drop(columns="_merge")


def _check_ds(frame: pd.DataFrame) -> None:
    ds = frame["ds"]
    if not (pd.api.types.is_datetime64_any_dtype(ds) or pd.api.types.is_integer_dtype(ds)):
        raise ValueError(f"ds must hold datetimes or integers; got dtype {ds.dtype} (e.g. "
                         f"{ds.iloc[0]!r} for series {frame['unique_id'].iloc[0]!r}): convert "
                         "it with pd.to_datetime(df['ds']) or number the steps.")  # fmt: skip
    if frame["unique_id"].isna().any():
        raise ValueError("unique_id has missing values; name every series.")


def _step(frame: pd.DataFrame, offsets: np.ndarray) -> Any:
    """The common time step of every series; gaps, irregular steps and mixed frequencies raise."""
    ds = frame["ds"].to_numpy()
    starts = np.zeros(len(ds), dtype=bool)
    starts[offsets[:-1]] = True
    within = ~starts[1:]  # diff i is between rows i and i + 1 of one series
    diffs = np.diff(ds)[within]
    if diffs.size == 0:
        return None
    integer = pd.api.types.is_integer_dtype(frame["ds"])
    if (diffs == diffs[0]).all():
        return int(diffs[0]) if integer else pd.tseries.frequencies.to_offset(
            pd.Timedelta(diffs[0]))
    values, counts = np.unique(diffs, return_counts=True)
    usual = values[np.argmax(counts)]
    if integer or usual < np.timedelta64(28, "D"):  # steps of fixed length: name the odd one
        i = int(np.flatnonzero(within)[diffs != usual][0])
        a, b = frame.iloc[i], frame.iloc[i + 1]
        shown = usual if integer else pd.Timedelta(usual)
        raise ValueError(f"series {a['unique_id']!r} steps from ds {a['ds']} to {b['ds']}, where "
                         f"the panel's usual step is {shown}: a gap, an irregular step or another "
                         "frequency; give every series at one regular step, missing rows "
                         "filled.")  # fmt: skip
    return _calendar_step(frame, offsets)


def _calendar_step(frame: pd.DataFrame, offsets: np.ndarray) -> pd.DateOffset:
    """Steps of varying length (months, years): every series must follow one pandas frequency."""
    found: dict[str, str] = {}
    ds = pd.DatetimeIndex(frame["ds"])
    for i in range(len(offsets) - 1):
        times = ds[offsets[i]:offsets[i + 1]]
        if len(times) < 3:
            continue
        freq = pd.infer_freq(times)
        sid = frame["unique_id"].iloc[offsets[i]]
        if freq is None:
            raise ValueError(f"series {sid!r} has irregular times or a gap (from {times[0]} to "
                             f"{times[-1]} in {len(times)} rows); give every series at one "
                             "regular step, missing rows filled.")  # fmt: skip
        found.setdefault(freq, sid)
        if len(found) > 1:
            (f1, s1), (f2, s2) = found.items()
            raise ValueError(f"series at different frequencies: {s1!r} at {f1}, {s2!r} at {f2}; "
                             "fit one model per frequency (or resample).")
    if not found:
        raise ValueError("the time steps differ between series and none has three rows to read "
                         "its frequency from; give series at one regular step.")
    step = pd.tseries.frequencies.to_offset(next(iter(found)))
    for i in range(len(offsets) - 1):  # series too short to infer: their steps must agree
        times = ds[offsets[i]:offsets[i + 1]]
        if 1 < len(times) < 3 and times[0] + step != times[1]:
            raise ValueError(f"series {frame['unique_id'].iloc[offsets[i]]!r} steps from "
                             f"{times[0]} to {times[1]}, not one step of {step.freqstr}.")
    return step


def _numeric(frame: pd.DataFrame, columns: Sequence[str], what: str) -> np.ndarray:
    text = [c for c in columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if text:
        raise ValueError(f"{what} column(s) {text} are not numeric (dtype "
                         f"{frame[text[0]].dtype}); encode them as numbers first (e.g. "
                         "pd.get_dummies(df, columns=[...], dtype=float) for categories).")
    values = frame[list(columns)].to_numpy(dtype=np.float64).reshape(len(frame), len(columns))
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(f"{columns[col]!r} has {int(bad[:, col].sum())} missing or infinite "
                         f"values (first: {_first(frame, bad[:, col])}); fill them first (e.g. "
                         "df.groupby('unique_id')[col].transform(lambda s: s.interpolate("
                         "limit_direction='both'))).")  # fmt: skip
    return values


def read_panel(y: pd.DataFrame, X: pd.DataFrame | None = None,
               future_covariates: Sequence[str] | None = None) -> Panel:
    """Check a long frame (and its covariates) and return it as a :class:`Panel`.

    Parameters
    ----------
    y : pandas.DataFrame
        Columns ``unique_id``, ``ds`` (datetimes or integers), ``y``, then any covariates.
    X : pandas.DataFrame or None
        More covariates, columns ``unique_id``, ``ds`` and the covariates, one row for each row
        of ``y`` (in any order).
    future_covariates : sequence of str or None
        The covariates known for the horizon at predict; the others are past-only.

    Returns
    -------
    Panel
    """
    if not isinstance(y, pd.DataFrame):
        raise ValueError(f"y must be a pandas DataFrame here; got {type(y).__name__}. {_LAYOUT}.")
    missing = [c for c in (*KEYS, "y") if c not in y.columns]
    if missing:
        raise ValueError(f"y has no column(s) {missing} (columns: {list(y.columns)[:8]}); "
                         f"{_LAYOUT}.")  # fmt: skip
    if len(y) == 0:
        raise ValueError("y has no rows.")
    frame = y if X is None else _join_covariates(y, X)
    _check_ds(frame)
    dup = frame.duplicated(KEYS).to_numpy()
    if dup.any():
        raise ValueError(f"{int(dup.sum())} repeated (unique_id, ds) rows (first: "
                         f"{_first(frame, dup)}); give one row per series and time step "
                         "(e.g. df.groupby(['unique_id', 'ds'], as_index=False).mean()).")
    try:
        frame = frame.sort_values(KEYS, kind="stable", ignore_index=True)
    except TypeError as err:
        raise ValueError(f"unique_id mixes kinds that cannot be sorted ({err}); give every id "
                         "as a string (df['unique_id'].astype(str)).") from None
    ids = frame["unique_id"].to_numpy()
    change = np.flatnonzero(ids[1:] != ids[:-1]) + 1
    offsets = np.concatenate([[0], change, [len(frame)]]).astype(np.int64)
    step = _step(frame, offsets)
    names = tuple(c for c in frame.columns if c not in (*KEYS, "y"))
    future = tuple(future_covariates or ())
    unknown = [c for c in future if c not in names]
    if unknown:
        raise ValueError(f"future_covariates names {unknown}, not covariate columns of y or X "
                         f"(covariates: {list(names)}).")  # fmt: skip
    target = _numeric(frame, ["y"], "the target")[:, 0]
    covariates = _numeric(frame, names, "covariate")
    constant = tuple(c for c, v in zip(names, covariates.T, strict=True) if v.min() == v.max())
    if constant:
        warnings.warn(f"covariate(s) {list(constant)} are constant over every row given: they "
                      "carry no information for the fit (kept as they are).", UserWarning,
                      stacklevel=2)  # fmt: skip
    return Panel(ids=ids[offsets[:-1]], offsets=offsets, ds=frame["ds"].to_numpy(), y=target,
                 covariates=covariates, covariate_names=names, future_covariates=future,
                 constant_covariates=constant, step=step)


def read_future_covariates(X: pd.DataFrame | None, panel: Panel, horizon: int) -> np.ndarray:
    """The horizon's values of the future covariates, shape (n_series, horizon, n_future).

    ``X`` has columns ``unique_id``, ``ds`` and every future covariate of ``panel``, with a row for
    each of the ``horizon`` steps after each series' last row; other rows (earlier or later
    times) are ignored, a series not in ``panel`` raises, as does a missing row or value.
    """
    names = list(panel.future_covariates)
    if not names:
        return np.empty((len(panel.ids), horizon, 0))
    if X is None:
        raise ValueError(f"predict needs the horizon's rows of the future covariates {names} "
                         f"(X with columns unique_id, ds, {', '.join(names)}).")  # fmt: skip
    missing = [c for c in (*KEYS, *names) if c not in X.columns]
    if missing:
        raise ValueError(f"X has no column(s) {missing}; predict needs the horizon's rows of "
                         f"the future covariates {names}.")  # fmt: skip
    unknown = sorted(set(X["unique_id"]) - set(panel.ids), key=str)
    if unknown:
        raise ValueError(f"X has rows for series {unknown[:5]} that are not in the fitted panel; "
                         "give their own rows (predict(y=...)) to forecast them.")
    grid = panel.future_ds(horizon)
    dup = X.duplicated(KEYS).to_numpy()
    if dup.any():
        raise ValueError(f"X has repeated (unique_id, ds) rows (first: {_first(X, dup)}).")
    merged = grid.merge(X[[*KEYS, *names]], on=KEYS, how="left", indicator=True)
    absent = (merged["_merge"] == "left_only").to_numpy()
    if absent.any():
        raise ValueError(f"X has no row for {int(absent.sum())} of the horizon's (unique_id, ds) "
                         f"pairs (first: {_first(merged, absent)}); predict needs the next "
                         f"{horizon} rows of {names} for every series.")  # fmt: skip
    values = _numeric(merged, names, "future covariate")
    return values.reshape(len(panel.ids), horizon, len(names))
