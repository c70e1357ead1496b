"""Many series in one frame, and covariates beside them: the forecaster's panel input, checked.

A *long frame* has one row per series and time step, with an id column (the series), a time
column (datetimes or integers) and a target column (the value), named ``unique_id``, ``ds`` and
``y`` by default (the convention of neuralforecast, statsforecast and mlforecast) or as a
:class:`Columns` says (``store``, ``date``, ``sales``); every further numeric column is a
covariate. :mod:`tsattn.io.layout` tells a long frame from one series. :func:`read_long_frame`
reads it into a :class:`Panel`: the rows of each series in time order, its covariates, and what is
needed to continue its time stamps (:func:`continue_stamps`). :func:`read_future_frame` reads the
future rows of the covariates known ahead (``predict(X=...)``) and checks that they are the rows
after each series' end. :func:`long_output` writes forecasts back as a long frame.
Every check says what was wrong and how to fix it; nothing is dropped or filled silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "ID",
    "TIME",
    "TARGET",
    "Columns",
    "DEFAULT_COLUMNS",
    "Panel",
    "continue_stamps",
    "is_long_frame",
    "long_output",
    "read_future_frame",
    "read_long_frame",
]

ID, TIME, TARGET = "unique_id", "ds", "y"


@dataclass(frozen=True)
class Columns:
    """The names of a long frame's id, time and target columns (``fit``'s ``id_col``,
    ``time_col``, ``target_col``)."""

    id: str = ID
    time: str = TIME
    target: str = TARGET

    def __post_init__(self) -> None:
        names = (self.id, self.time, self.target)
        if len(set(names)) < 3 or not all(isinstance(n, str) and n for n in names):
            raise ValueError(f"id_col, time_col and target_col must be three different column "
                             f"names; got {names}.")  # fmt: skip


#: ``unique_id``, ``ds``, ``y``: the names a long frame's columns have unless told otherwise.
DEFAULT_COLUMNS = Columns()


@dataclass
class Panel:
    """Series of one frame, each in time order.

    Attributes
    ----------
    ids : list
        The ``unique_id`` of each series, in the frame's sorted order.
    targets : list of ndarray
        ``(T_i, 1)`` float64 values of each series.
    covariates : list of ndarray
        ``(T_i, k)`` float64 covariate rows of each series (``k = 0`` without any).
    covariate_names : list of str
        The ``k`` covariate columns, in the frame's order.
    last_stamps : list
        Each series' last ``ds``.
    step : pd.Timedelta, pandas offset or int
        The time step shared by every series (an offset such as ``'MS'`` for calendar steps, an
        int for integer ``ds``).
    stamps : list of ndarray
        Each series' ``ds`` values, in time order.
    lengths : ndarray
        ``(n_series,)`` rows of each series.
    """

    ids: list
    targets: list[np.ndarray]
    covariates: list[np.ndarray]
    covariate_names: list[str]
    last_stamps: list
    step: Any
    stamps: list = field(default_factory=list)
    lengths: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.lengths = np.array([len(t) for t in self.targets], dtype=np.int64)


def is_long_frame(y: Any, columns: Columns = DEFAULT_COLUMNS) -> bool:
    """Whether ``y`` is a long frame: a DataFrame with ``columns``' id, time and target columns."""
    return isinstance(y, pd.DataFrame) and {columns.id, columns.time, columns.target} <= set(
        map(str, y.columns))  # fmt: skip


def _numeric(frame: pd.DataFrame, names: list[str], what: str, cols: Columns) -> np.ndarray:
    bad = [c for c in names if not pd.api.types.is_numeric_dtype(frame[c])
           or pd.api.types.is_bool_dtype(frame[c])]  # fmt: skip
    if bad:
        raise ValueError(
            f"{what} has non-numeric column(s) {bad}: every column other than {cols.id!r} and "
            f"{cols.time!r} must be numeric (the target {cols.target!r} and the covariates). "
            "Encode categories as numbers (e.g. one-hot with pd.get_dummies) or drop those "
            "columns."
        )
    return frame[names].to_numpy(dtype=np.float64)


def _check_finite(frame: pd.DataFrame, values: np.ndarray, names: list[str], what: str,
                  cols: Columns) -> None:  # fmt: skip
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"{what} has NaN or infinite values in column {names[col]!r} (first at series "
            f"{frame[cols.id].iloc[row]!r}, {cols.time}={frame[cols.time].iloc[row]!r}; "
            f"{int(bad[:, col].sum())} in that column); impute them first (e.g. "
            f"df.groupby({cols.id!r}).ffill()) or drop the column."
        )


def _step(frame: pd.DataFrame, what: str, cols: Columns) -> Any:
    """The time step every series shares; an error naming a series that has gaps or another step."""
    key, time = cols.id, cols.time  # the id and time columns' names in this frame
    ds = frame[time]
    if not (pd.api.types.is_datetime64_any_dtype(ds) or pd.api.types.is_integer_dtype(ds)):
        raise ValueError(
            f"{what}'s {time!r} column has dtype {ds.dtype}; it must hold datetimes "
            f"(pd.to_datetime(df[{time!r}])) or integers (time step numbers)."
        )
    diffs = ds.groupby(frame[key], sort=False).diff().dropna()
    if not len(diffs):  # every series a single row
        return pd.Timedelta(hours=1) if pd.api.types.is_datetime64_any_dtype(ds) else 1
    first = diffs.iloc[0]
    if (diffs == first).all():
        return int(first) if pd.api.types.is_integer_dtype(ds) else pd.Timedelta(first)
    if pd.api.types.is_datetime64_any_dtype(ds):  # calendar steps (months, quarters, years)
        freqs = {}
        for sid, stamps in ds.groupby(frame[key], sort=False):
            if len(stamps) >= 3:
                freqs.setdefault(pd.infer_freq(pd.DatetimeIndex(stamps.to_numpy())), sid)
            if len(freqs) > 1:
                break
        if len(freqs) == 1 and None not in freqs:
            return pd.tseries.frequencies.to_offset(next(iter(freqs)))
    counts = diffs.value_counts()
    common = counts.index[0]
    odd = diffs[diffs != common].index[0]
    raise ValueError(
        f"{what}: every series must be regular with one shared time step, but series "
        f"{frame[key].loc[odd]!r} steps by {diffs.loc[odd]} at {time}={frame[time].loc[odd]!r} "
        f"where most rows step by {common} (missing rows, or mixed frequencies). Fill the gaps "
        "(e.g. reindex each series on its full range and impute), or forecast series of "
        "different frequencies with separate models."
    )


def read_long_frame(df: pd.DataFrame, what: str = "y", covariates: Any = None,
                    columns: Columns = DEFAULT_COLUMNS) -> Panel:  # fmt: skip
    """A long frame (the id, time and target columns ``columns`` names, and covariate columns) as
    a :class:`Panel`.

    ``covariates``: another long frame with the id, time and covariate columns, joined on (id,
    time) (every row of ``df`` must find its covariates). Rows are sorted by (id, time);
    duplicated (id, time) rows, NaN, non-numeric values, gaps and mixed time steps are errors that
    name the series.
    """
    key, time, target = columns.id, columns.time, columns.target
    if not is_long_frame(df, columns):
        raise ValueError(f"{what} must be a long frame with columns {key!r}, {time!r}, {target!r}; "
                         f"got columns {list(map(str, getattr(df, 'columns', [])))}.")
    frame = df.rename(columns=str)
    if covariates is not None:
        frame = _join(frame, covariates, what, columns)
    if frame.empty:
        raise ValueError(f"{what} has no rows.")
    dup = frame.duplicated([key, time])
    if dup.any():
        row = frame[dup].iloc[0]
        raise ValueError(
            f"{what} has {int(dup.sum())} duplicated ({key}, {time}) rows (e.g. series "
            f"{row[key]!r} at {row[time]!r}); aggregate them first "
            f"(df.groupby([{key!r}, {time!r}], as_index=False).mean())."
        )
    frame = frame.sort_values([key, time], kind="stable").reset_index(drop=True)
    names = [c for c in frame.columns if c not in (key, time, target)]
    values = _numeric(frame, [target, *names], what, columns)
    _check_finite(frame, values, [target, *names], what, columns)
    step = _step(frame, what, columns)
    ids, starts = np.unique(frame[key].to_numpy(), return_index=True)
    order = np.argsort(starts)
    ids, starts = ids[order], starts[order]
    bounds = np.append(starts, len(frame))
    split = [values[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=False)]
    times = frame[time].to_numpy()
    stamps = [times[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=False)]
    last = list(pd.Series(times[bounds[1:] - 1]))
    return Panel(list(ids), [s[:, :1] for s in split], [s[:, 1:] for s in split], names, last,
                 step, stamps)  # fmt: skip


def _join(frame: pd.DataFrame, covariates: Any, what: str, cols: Columns) -> pd.DataFrame:
    key, time = cols.id, cols.time
    if not isinstance(covariates, pd.DataFrame) or not {key, time} <= set(map(str, covariates.columns)):
        raise ValueError(f"X must be a long frame with columns {key!r}, {time!r} and the covariates "
                         f"when {what} is a long frame; got {type(covariates).__name__}.")
    cov = covariates.rename(columns=str)
    clash = [c for c in cov.columns if c in frame.columns and c not in (key, time)]
    if clash:
        raise ValueError(f"X and {what} both have column(s) {clash}; keep each covariate in one.")
    joined = frame.merge(cov, on=[key, time], how="left", indicator=True)
    missing = joined["_merge"] != "both"
    if missing.any():
        row = joined[missing].iloc[0]
        raise ValueError(f"X has no row for {int(missing.sum())} row(s) of {what} (e.g. series "
                         f"{row[key]!r} at {row[time]!r}); give the covariates for every row.")
    return joined.drop(columns="_merge")


def continue_stamps(last: Any, step: Any, steps: int) -> list:
    """The ``steps`` time stamps after ``last`` at ``step`` (an int, a Timedelta or an offset)."""
    return list(_future_stamps([last], step, steps))


def _future_stamps(last_stamps: list, step: Any, steps: int) -> np.ndarray:
    """The ``steps`` stamps after each of ``last_stamps``, flattened series by series."""
    k = np.arange(1, steps + 1)
    if isinstance(step, (int, np.integer)):
        return (np.asarray(last_stamps, dtype=np.int64)[:, None] + int(step) * k).reshape(-1)
    if isinstance(step, pd.Timedelta):
        last = pd.DatetimeIndex(last_stamps).to_numpy()
        return (last[:, None] + step.to_timedelta64() * k).reshape(-1)
    return np.concatenate([pd.date_range(pd.Timestamp(t), periods=steps + 1, freq=step)[1:]
                           .to_numpy() for t in last_stamps])  # fmt: skip


def read_future_frame(X: Any, panel_ids: list, last_stamps: list, step: Any, names: list[str],
                      horizon: int, columns: Columns = DEFAULT_COLUMNS) -> list[np.ndarray]:  # fmt: skip
    """The ``horizon`` rows after each series' end of the covariates ``names`` from the long frame
    ``X`` (the id and time columns ``columns`` names, and those columns): ``(horizon,
    len(names))`` per series, in ``panel_ids``' order. An error names a series whose rows are
    missing or NaN."""
    key, time = columns.id, columns.time
    if not isinstance(X, pd.DataFrame) or not {key, time} <= set(map(str, X.columns)):
        raise ValueError(f"X must be a long frame with columns {key!r}, {time!r} and {names} "
                         f"(the {horizon} rows after each series' end); got {type(X).__name__}.")
    frame = X.rename(columns=str)
    absent = [n for n in names if n not in frame.columns]
    if absent:
        raise ValueError(f"X lacks the future covariate(s) {absent}: predict needs their values "
                         f"for the {horizon} steps ahead of every series.")
    if frame.duplicated([key, time]).any():
        raise ValueError(f"X has duplicated ({key}, {time}) rows; give one row per series and step.")
    _check_finite(frame, _numeric(frame, names, "X", columns), names, "X", columns)
    wanted = pd.DataFrame({key: np.repeat(_ids(panel_ids), horizon),
                           time: _future_stamps(last_stamps, step, horizon)})  # fmt: skip
    if pd.api.types.is_datetime64_any_dtype(frame[time]):
        wanted[time] = wanted[time].astype(frame[time].dtype)
    joined = wanted.merge(frame[[key, time, *names]], on=[key, time], how="left", indicator=True)
    missing = (joined["_merge"] != "both").to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        sid = joined[key].iloc[row]
        first, last = joined[time].iloc[row - row % horizon], joined[time].iloc[row - row % horizon + horizon - 1]
        raise ValueError(
            f"X has no row for series {sid!r} at {time}={joined[time].iloc[row]!r}: predict needs "
            f"the future covariates {names} for the {horizon} steps after each series' last row; "
            f"pass them for {first!r} .. {last!r}."
        )
    values = joined[names].to_numpy(dtype=np.float64).reshape(len(panel_ids), horizon, len(names))
    return list(values)


def long_output(ids: list, last_stamps: list, step: Any, values: np.ndarray,
                names: list, columns: Columns = DEFAULT_COLUMNS) -> pd.DataFrame:  # fmt: skip
    """Forecasts ``values (n_series, horizon, k)`` as a long frame: the id and time columns
    ``columns`` names, then ``names`` (one per ``k``); the ids keep their dtype."""
    horizon = values.shape[1]
    out = pd.DataFrame({columns.id: np.repeat(_ids(ids), horizon),
                        columns.time: _future_stamps(last_stamps, step, horizon)})  # fmt: skip
    for k, name in enumerate(names):
        out[name] = values[:, :, k].reshape(-1)
    return out


def _ids(ids: list) -> np.ndarray:
    """The ids as an array of their own dtype where they share one (ints stay ints), else
    objects."""
    array = np.asarray(ids)
    return array if array.dtype.kind in "iub" else np.asarray(ids, dtype=object)
