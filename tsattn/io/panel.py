"""Many series in one frame, and covariates beside them: the forecaster's panel input, checked.

A *long frame* has one row per series and time step, with the columns ``unique_id`` (the series),
``ds`` (its time: datetimes or integers) and ``y`` (the value), the convention of neuralforecast,
statsforecast and mlforecast; every further numeric column is a covariate. :func:`read_long_frame`
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
    "Panel",
    "continue_stamps",
    "is_long_frame",
    "long_output",
    "read_future_frame",
    "read_long_frame",
]

ID, TIME, TARGET = "unique_id", "ds", "y"


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


def is_long_frame(y: Any) -> bool:
    """Whether ``y`` is a long frame (a DataFrame with ``unique_id``, ``ds`` and ``y`` columns)."""
    return isinstance(y, pd.DataFrame) and {ID, TIME, TARGET} <= set(map(str, y.columns))


def _numeric(frame: pd.DataFrame, columns: list[str], what: str) -> np.ndarray:
    bad = [c for c in columns if not pd.api.types.is_numeric_dtype(frame[c])
           or pd.api.types.is_bool_dtype(frame[c])]  # fmt: skip
    if bad:
        raise ValueError(
            f"{what} has non-numeric column(s) {bad}: every column other than {ID!r} and {TIME!r} "
            f"must be numeric (the target {TARGET!r} and the covariates). Encode categories as "
            "numbers (e.g. one-hot with pd.get_dummies) or drop those columns."
        )
    return frame[columns].to_numpy(dtype=np.float64)


def _check_finite(frame: pd.DataFrame, values: np.ndarray, columns: list[str], what: str) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"{what} has NaN or infinite values in column {columns[col]!r} (first at series "
            f"{frame[ID].iloc[row]!r}, {TIME}={frame[TIME].iloc[row]!r}; {int(bad[:, col].sum())} "
            "in that column); impute them first (e.g. df.groupby('unique_id').ffill()) or drop "
            "the column."
        )


def _step(frame: pd.DataFrame, what: str) -> Any:
    """The time step every series shares; an error naming a series that has gaps or another step."""
    ds = frame[TIME]
    if not (pd.api.types.is_datetime64_any_dtype(ds) or pd.api.types.is_integer_dtype(ds)):
        raise ValueError(
            f"{what}'s {TIME!r} column has dtype {ds.dtype}; it must hold datetimes "
            f"(pd.to_datetime(df[{TIME!r}])) or integers (time step numbers)."
        )
    diffs = ds.groupby(frame[ID], sort=False).diff().dropna()
    if not len(diffs):  # every series a single row
        return pd.Timedelta(hours=1) if pd.api.types.is_datetime64_any_dtype(ds) else 1
    first = diffs.iloc[0]
    if (diffs == first).all():
        return int(first) if pd.api.types.is_integer_dtype(ds) else pd.Timedelta(first)
    if pd.api.types.is_datetime64_any_dtype(ds):  # calendar steps (months, quarters, years)
        freqs = {}
        for key, stamps in ds.groupby(frame[ID], sort=False):
            if len(stamps) >= 3:
                freqs.setdefault(pd.infer_freq(pd.DatetimeIndex(stamps.to_numpy())), key)
            if len(freqs) > 1:
                break
        if len(freqs) == 1 and None not in freqs:
            return pd.tseries.frequencies.to_offset(next(iter(freqs)))
    counts = diffs.value_counts()
    common = counts.index[0]
    odd = diffs[diffs != common].index[0]
    raise ValueError(
        f"{what}: every series must be regular with one shared time step, but series "
        f"{frame[ID].loc[odd]!r} steps by {diffs.loc[odd]} at {TIME}={frame[TIME].loc[odd]!r} "
        f"where most rows step by {common} (missing rows, or mixed frequencies). Fill the gaps "
        "(e.g. reindex each series on its full range and impute), or forecast series of "
        "different frequencies with separate models."
    )


def read_long_frame(df: pd.DataFrame, what: str = "y", covariates: Any = None) -> Panel:
    """A long frame (``unique_id``, ``ds``, ``y`` and covariate columns) as a :class:`Panel`.

    ``covariates``: another long frame with ``unique_id``, ``ds`` and covariate columns, joined on
    ``(unique_id, ds)`` (every row of ``df`` must find its covariates). Rows are sorted by
    ``(unique_id, ds)``; duplicated ``(unique_id, ds)``, NaN, non-numeric values, gaps and mixed
    time steps are errors that name the series.
    """
    if not is_long_frame(df):
        raise ValueError(f"{what} must be a long frame with columns {ID!r}, {TIME!r}, {TARGET!r}; "
                         f"got columns {list(map(str, getattr(df, 'columns', [])))}.")
    frame = df.rename(columns=str)
    if covariates is not None:
        frame = _join(frame, covariates, what)
    if frame.empty:
        raise ValueError(f"{what} has no rows.")
    dup = frame.duplicated([ID, TIME])
    if dup.any():
        row = frame[dup].iloc[0]
        raise ValueError(
            f"{what} has {int(dup.sum())} duplicated ({ID}, {TIME}) rows (e.g. series "
            f"{row[ID]!r} at {row[TIME]!r}); aggregate them first "
            f"(df.groupby([{ID!r}, {TIME!r}], as_index=False).mean())."
        )
    frame = frame.sort_values([ID, TIME], kind="stable").reset_index(drop=True)
    names = [c for c in frame.columns if c not in (ID, TIME, TARGET)]
    values = _numeric(frame, [TARGET, *names], what)
    _check_finite(frame, values, [TARGET, *names], what)
    step = _step(frame, what)
    ids, starts = np.unique(frame[ID].to_numpy(), return_index=True)
    order = np.argsort(starts)
    ids, starts = ids[order], starts[order]
    bounds = np.append(starts, len(frame))
    split = [values[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=False)]
    times = frame[TIME].to_numpy()
    stamps = [times[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=False)]
    last = list(pd.Series(times[bounds[1:] - 1]))
    return Panel(list(ids), [s[:, :1] for s in split], [s[:, 1:] for s in split], names, last,
                 step, stamps)  # fmt: skip


def _join(frame: pd.DataFrame, covariates: Any, what: str) -> pd.DataFrame:
    if not isinstance(covariates, pd.DataFrame) or not {ID, TIME} <= set(map(str, covariates.columns)):
        raise ValueError(f"X must be a long frame with columns {ID!r}, {TIME!r} and the covariates "
                         f"when {what} is a long frame; got {type(covariates).__name__}.")
    cov = covariates.rename(columns=str)
    clash = [c for c in cov.columns if c in frame.columns and c not in (ID, TIME)]
    if clash:
        raise ValueError(f"X and {what} both have column(s) {clash}; keep each covariate in one.")
    joined = frame.merge(cov, on=[ID, TIME], how="left", indicator=True)
    missing = joined["_merge"] != "both"
    if missing.any():
        row = joined[missing].iloc[0]
        raise ValueError(f"X has no row for {int(missing.sum())} row(s) of {what} (e.g. series "
                         f"{row[ID]!r} at {row[TIME]!r}); give the covariates for every row.")
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
                      horizon: int) -> list[np.ndarray]:  # fmt: skip
    """The ``horizon`` rows after each series' end of the covariates ``names`` from the long frame
    ``X`` (``unique_id``, ``ds``, those columns): ``(horizon, len(names))`` per series, in
    ``panel_ids``' order. An error names a series whose rows are missing or NaN."""
    if not isinstance(X, pd.DataFrame) or not {ID, TIME} <= set(map(str, X.columns)):
        raise ValueError(f"X must be a long frame with columns {ID!r}, {TIME!r} and {names} "
                         f"(the {horizon} rows after each series' end); got {type(X).__name__}.")
    frame = X.rename(columns=str)
    absent = [n for n in names if n not in frame.columns]
    if absent:
        raise ValueError(f"X lacks the future covariate(s) {absent}: predict needs their values "
                         f"for the {horizon} steps ahead of every series.")
    if frame.duplicated([ID, TIME]).any():
        raise ValueError("X has duplicated (unique_id, ds) rows; give one row per series and step.")
    _check_finite(frame, _numeric(frame, names, "X"), names, "X")
    wanted = pd.DataFrame({ID: np.repeat(np.asarray(panel_ids, dtype=object), horizon),
                           TIME: _future_stamps(last_stamps, step, horizon)})  # fmt: skip
    if pd.api.types.is_datetime64_any_dtype(frame[TIME]):
        wanted[TIME] = wanted[TIME].astype(frame[TIME].dtype)
    joined = wanted.merge(frame[[ID, TIME, *names]], on=[ID, TIME], how="left", indicator=True)
    missing = (joined["_merge"] != "both").to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        sid = joined[ID].iloc[row]
        first, last = joined[TIME].iloc[row - row % horizon], joined[TIME].iloc[row - row % horizon + horizon - 1]
        raise ValueError(
            f"X has no row for series {sid!r} at {TIME}={joined[TIME].iloc[row]!r}: predict needs "
            f"the future covariates {names} for the {horizon} steps after each series' last row; "
            f"pass them for {first!r} .. {last!r}."
        )
    values = joined[names].to_numpy(dtype=np.float64).reshape(len(panel_ids), horizon, len(names))
    return list(values)


def long_output(ids: list, last_stamps: list, step: Any, values: np.ndarray,
                columns: list[str]) -> pd.DataFrame:  # fmt: skip
    """Forecasts ``values (n_series, horizon, k)`` as a long frame ``unique_id, ds, *columns``."""
    horizon = values.shape[1]
    out = pd.DataFrame({ID: np.repeat(np.asarray(ids, dtype=object), horizon),
                        TIME: _future_stamps(last_stamps, step, horizon)})  # fmt: skip
    for k, name in enumerate(columns):
        out[name] = values[:, :, k].reshape(-1)
    return out
