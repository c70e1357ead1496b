"""Backtests as neuralforecast's and statsforecast's ``cross_validation`` lays them out: the last
``n_windows`` forecast origins of every series, ``step_size`` rows apart, each forecast from the
rows before it and set beside what followed.

The forecaster is fitted once on each series' rows before its first origin (``refit=False``, as
neuralforecast does) or again before each origin (``refit=True``); a fitted series is read on its
fitted scale at every origin (:func:`.frames.read_predict`), so the windows differ only by the rows
they see. Each series' origins count back from its own end (series of different lengths and
calendars each get ``n_windows`` windows).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from tsattn.io.layout import long_frame
from tsattn.io.panel import Columns

__all__ = ["cross_validation"]


def cross_validation(est: Any, df: Any, n_windows: int, step_size: int | None, refit: bool,
                     X: Any, level: Any, columns: Columns, fit_params: dict) -> pd.DataFrame:  # fmt: skip
    """See :meth:`tsattn.TSForecaster.cross_validation`."""
    h = int(est.horizon)
    step = h if step_size is None else int(step_size)
    if not (isinstance(n_windows, (int, np.integer)) and n_windows >= 1) or step < 1:
        raise ValueError(f"n_windows and step_size must be positive integers; got n_windows="
                         f"{n_windows!r}, step_size={step_size!r}.")  # fmt: skip
    frame = long_frame(df, columns, "df")
    if frame is None:
        raise ValueError("cross_validation takes a long frame (its id, time and target columns; "
                         "one series as a long frame of one id); for one array, cut it and call "
                         "fit and predict.")  # fmt: skip
    own = [c for c in frame.columns if c not in (columns.id, columns.time, columns.target)]
    if X is not None:  # X's covariates beside the frame's own, as fit joins them
        frame = frame.merge(X, on=[columns.id, columns.time], how="left")
    frame = frame.sort_values([columns.id, columns.time], kind="stable").reset_index(drop=True)
    position = frame.groupby(columns.id, sort=False).cumcount(ascending=False).to_numpy()
    need = h + (n_windows - 1) * step  # rows after the first origin
    length = frame.groupby(columns.id, sort=False)[columns.time].transform("size").to_numpy()
    short = frame.loc[length <= need, columns.id].unique()
    if len(short):
        raise ValueError(f"series {list(short[:5])} have at most {need} rows: too few for "
                         f"{n_windows} window(s) of horizon {h}, {step} rows apart, and rows "
                         "before the first origin. Lower n_windows or step_size, or drop them.")
    covariates = [c for c in frame.columns if c not in (columns.id, columns.time, columns.target)]
    keys = [columns.id, columns.time]
    parts = []
    for k in range(n_windows):
        after = need - k * step  # rows of each series after this origin
        seen = frame[position >= after]
        if refit or k == 0:
            x_fit = None if X is None else seen[keys + [c for c in covariates if c not in own]]
            est.fit(seen[[*keys, columns.target, *own]], X=x_fit, id_col=columns.id,
                    time_col=columns.time, target_col=columns.target, **fit_params)  # fmt: skip
        horizon_rows = frame[(position < after) & (position >= after - h)]
        x_future = horizon_rows[keys + covariates] if covariates else None
        cutoff = seen.groupby(columns.id, sort=False)[columns.time].last()
        out = _forecast(est, seen, x_future, level, columns)
        out["cutoff"] = out[columns.id].map(cutoff)
        truth = horizon_rows[[columns.id, columns.time, columns.target]]
        parts.append(out.merge(truth, on=[columns.id, columns.time], how="left"))
    result = pd.concat(parts, ignore_index=True)
    order = [columns.id, columns.time, "cutoff", columns.target, "forecast"]
    return result[order + [c for c in result.columns if c not in order]]


def _forecast(est: Any, seen: pd.DataFrame, x_future: Any, level: Any, columns: Columns
              ) -> pd.DataFrame:  # fmt: skip
    """The forecast of the rows after each series of ``seen`` (as ``forecast``), with the
    central intervals of ``level`` (percentages, as ``lo-<l>``/``hi-<l>``) where asked."""
    kw = dict(X=x_future, id_col=columns.id, time_col=columns.time, target_col=columns.target)
    out = est.predict(seen, level=level, **kw) if level is not None else est.predict(seen, **kw)
    return out.rename(columns={columns.target: "forecast"})
