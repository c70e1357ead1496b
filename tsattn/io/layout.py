"""Which layout a frame is: a long frame of many series, or one series.

A practitioner's frame comes in several layouts, and each is read as its user means it (the
column names are :class:`~tsattn.io.panel.Columns`, ``unique_id``, ``ds``, ``y`` by default):

- a long frame: the id, time and target columns, one row per series and step (neuralforecast's,
  statsforecast's layout), with integer or string ids;
- the same with ``(id, time)`` as a MultiIndex (sktime's and ``df.set_index([id, time])``'s), or
  with the time as its index and the id as a column: read as the long frame they hold;
- one series: an array, a Series, or a DataFrame of numeric columns (its channels) on a time index.

A frame is never read as one series when it has an id column or a non-numeric column, or a time
column beside the id: such a frame is a long frame whose columns are named otherwise, and the error
names the columns it expected and the keywords that name them (:func:`long_frame`).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from tsattn._validation import did_you_mean
from tsattn.io.panel import DEFAULT_COLUMNS, Columns

__all__ = ["columns_of", "long_frame"]


def columns_of(y: Any, id_col: str | None = None, time_col: str | None = None,
               target_col: str | None = None, default: Columns = DEFAULT_COLUMNS) -> Columns:
    """The column names to read ``y`` by: those given, else a named ``(id, time)``
    MultiIndex's level names (and a named Series' name for the target), else ``default``."""
    names = {"id": default.id, "time": default.time, "target": default.target}
    index = getattr(y, "index", None)
    if isinstance(index, pd.MultiIndex) and index.nlevels == 2:
        for key, level in zip(("id", "time"), index.names, strict=True):
            if level is not None:
                names[key] = str(level)
        if isinstance(y, pd.Series) and y.name is not None:
            names["target"] = str(y.name)
    given = {"id": id_col, "time": time_col, "target": target_col}
    return Columns(**{k: given[k] if given[k] is not None else v for k, v in names.items()})


def long_frame(y: Any, columns: Columns = DEFAULT_COLUMNS, what: str = "y") -> pd.DataFrame | None:
    """``y`` as a long frame with ``columns``' id, time and target columns (a copy only where a
    layout is changed), or None where ``y`` is one series (an array, a Series, a numeric
    DataFrame on a time index). An ambiguous frame is an error that says what was expected."""
    if isinstance(y, pd.Series) and isinstance(y.index, pd.MultiIndex):
        y = y.to_frame(columns.target if y.name is None else str(y.name))
    if not isinstance(y, pd.DataFrame):
        return None
    frame = y.rename(columns=str)
    if isinstance(frame.index, pd.MultiIndex):
        frame = _from_multiindex(frame, columns, what)
    elif columns.id in frame.columns and columns.time not in frame.columns \
            and _is_time_index(frame.index):  # fmt: skip
        frame = frame.rename_axis(columns.time).reset_index()  # the time as the index
    has_id, has_time = columns.id in frame.columns, columns.time in frame.columns
    if has_time and isinstance(frame[columns.time].dtype, pd.PeriodDtype):
        frame = frame.assign(**{columns.time: frame[columns.time].dt.to_timestamp()})
    if has_id and has_time:
        if columns.target not in frame.columns:
            numeric = [c for c in frame.columns if c not in (columns.id, columns.time)
                       and pd.api.types.is_numeric_dtype(frame[c])]  # fmt: skip
            hint = (f" If the target is {numeric[0]!r}, pass target_col={numeric[0]!r}." if
                    len(numeric) == 1 else f" Name the target with target_col= (one of {numeric})."
                    if numeric else "")  # fmt: skip
            raise ValueError(f"{what} is a long frame ({columns.id!r}, {columns.time!r}) without its "
                             f"target column {columns.target!r}; it has {list(frame.columns)}."
                             f"{hint}{did_you_mean(columns.target, list(frame.columns), n=1)}")
        return frame
    if has_id or has_time:
        missing = columns.time if has_id else columns.id
        raise ValueError(
            f"{what} has a {columns.id if has_id else columns.time!r} column but no {missing!r} "
            f"column: a long frame needs the id, time and target columns ({columns.id!r}, "
            f"{columns.time!r}, {columns.target!r}); name yours with id_col=, time_col=, "
            f"target_col= (its columns: {list(frame.columns)})."
            + (f" For one series, drop the id column and set the time as the index "
               f"(df.set_index({columns.time!r}))." if has_time else ""))  # fmt: skip
    odd = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])
           or pd.api.types.is_bool_dtype(frame[c])]  # fmt: skip
    if odd:
        raise ValueError(
            f"{what} has non-numeric column(s) {odd}, so it is not one series of numeric "
            f"channels. A long frame of many series needs the id, time and target columns "
            f"({columns.id!r}, {columns.time!r}, {columns.target!r} by default): name yours with "
            f"id_col=, time_col=, target_col= (its columns: {list(frame.columns)}).")  # fmt: skip
    return None


def _from_multiindex(frame: pd.DataFrame, columns: Columns, what: str) -> pd.DataFrame:
    """A frame indexed by ``(id, time)`` (the first two levels, whatever their names) as a long
    frame; its one column is the target where it has no column of the target's name."""
    if frame.index.nlevels != 2:
        raise ValueError(f"{what} has a MultiIndex of {frame.index.nlevels} levels; a long frame's "
                         "index is (id, time): reset the other levels first.")  # fmt: skip
    clash = [c for c in (columns.id, columns.time) if c in frame.columns]
    if clash:
        raise ValueError(f"{what} has an (id, time) MultiIndex and the column(s) {clash} too; "
                         "keep one of them (df.reset_index(drop=True) or drop the columns).")
    if columns.target not in frame.columns and len(frame.columns) == 1:
        frame = frame.rename(columns={frame.columns[0]: columns.target})
    out = frame.reset_index()
    return out.rename(columns=dict(zip(out.columns[:2], (columns.id, columns.time), strict=True)))


def _is_time_index(index: pd.Index) -> bool:
    return isinstance(index, (pd.DatetimeIndex, pd.PeriodIndex)) or (
        pd.api.types.is_integer_dtype(index) and not isinstance(index, pd.RangeIndex))
