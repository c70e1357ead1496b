"""The forecaster's input as series of rows: one series or many (a long frame), with covariates.

``fit`` reads its input into a :class:`FitInput`: each series' rows ``(T_i, C + k)``, the ``C``
target channels first and the ``k`` covariates after them. Each series is standardised on its own
training rows (:func:`standardise`), cut into training and validation rows
(:func:`split_panel`: the last rows of each series, as the M4 rules hold out the last horizon),
left-padded with its first row where it is shorter than a window (:func:`pad_left`), and the
padded series are laid end to end so that one tensor holds them all, with the window starts that
stay inside one series (:func:`lay_out`): one network learns from every series' windows.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tsattn._validation import did_you_mean
from tsattn.io import series as series_io
from tsattn.io.checks import standardisation
from tsattn.io.panel import is_long_frame, read_long_frame

__all__ = ["FitInput", "lay_out", "pad_left", "read_covariates", "read_fit_input",
           "resolve_future", "seasonal_weights", "split_panel", "standardise"]


@dataclass
class FitInput:
    """What ``fit`` was given. ``rows``: each series ``(T_i, n_targets + k)``; ``info``: the
    input's kind (``{"kind": "long", ...}`` for a long frame); ``ids``, ``last_stamps`` and
    ``step`` for long frames (None otherwise); ``valid``: ``y_val``'s rows for one series."""

    rows: list[np.ndarray]
    info: dict
    n_targets: int
    covariate_names: list[str]
    ids: list | None = None
    last_stamps: list | None = None
    step: Any = None
    valid: np.ndarray | None = None


def read_covariates(X: Any, n_rows: int, info: dict | None, what: str = "X"
                    ) -> tuple[np.ndarray, list[str]]:  # fmt: skip
    """Covariate rows ``(n_rows, k)`` and their names from an array ``(T,)``/``(T, k)``, a
    Series or a DataFrame (names ``x0, x1, ...`` for arrays), aligned row by row with the series;
    a pandas ``X`` beside a pandas series must share its index."""
    values, x_info = series_io.as_series(X, what)
    if len(values) != n_rows:
        raise ValueError(f"{what} has {len(values)} rows but the series has {n_rows}; give one "
                         "covariate row per time step of the series.")
    index = (info or {}).get("index")
    if isinstance(X, (pd.Series, pd.DataFrame)) and index is not None:
        if not X.index[-len(index):].equals(index):
            raise ValueError(f"{what}'s index does not match the series' (its last stamps are "
                             f"{list(X.index[-len(index):])}, the series' {list(index)}); align "
                             f"them first (e.g. {what}.reindex(y.index)).")
    if x_info["kind"] == "frame":
        names = [str(c) for c in x_info["columns"]]
    elif x_info["kind"] == "series" and x_info["name"] is not None:
        names = [str(x_info["name"])]
    else:
        names = [f"x{j}" for j in range(values.shape[1])]
    return values, names


def resolve_future(future_covariates: Any, names: list[str]) -> tuple[int, ...]:
    """Indices among ``names`` of the covariates ``future_covariates`` names (column names, or
    positions for covariates without names); an error names one that is not a covariate."""
    if future_covariates is None:
        return ()
    if not names:
        raise ValueError(f"future_covariates={list(future_covariates)} but fit got no covariates; "
                         "pass them as X (or as columns of the long frame beside unique_id, ds, y).")
    out = []
    for item in future_covariates:
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            if not 0 <= item < len(names):
                raise ValueError(f"future_covariates has position {item}, but X has {len(names)} "
                                 "covariate columns.")
            out.append(int(item))
        elif str(item) in names:
            out.append(names.index(str(item)))
        else:
            raise ValueError(f"future_covariates names {item!r}, which is not a covariate column "
                             f"(covariates: {names}).{did_you_mean(item, names, n=1)}")
    return tuple(dict.fromkeys(out))


def read_fit_input(y: Any, X: Any, y_val: Any, owner: str) -> FitInput:
    """``fit``'s ``y`` (one series, or a long frame), ``X`` and ``y_val`` read and checked."""
    if is_long_frame(y):
        if y_val is not None:
            raise ValueError("y_val goes with one series; a long frame's validation rows are the "
                             "last rows of each of its series (validation_fraction).")
        panel = read_long_frame(y, "y", covariates=X)
        rows = [np.hstack([t, c]) for t, c in zip(panel.targets, panel.covariates, strict=False)]
        return FitInput(rows, {"kind": "long"}, 1, panel.covariate_names, panel.ids,
                        panel.last_stamps, panel.step)  # fmt: skip
    values, info = series_io.as_series(y, "y")
    names: list[str] = []
    if X is not None:
        cov, names = read_covariates(X, len(values), info)
        values = np.hstack([values, cov])
        if y_val is not None:
            raise ValueError("y_val with covariates is not supported: pass the whole series and "
                             "its covariates; the validation rows are its tail "
                             "(validation_fraction).")
    valid = None
    if y_val is not None:
        valid, _ = series_io.as_series(y_val, "y_val")
        series_io.check_channels(valid.shape[1], values.shape[1], "y_val", owner)
    return FitInput([values], info, values.shape[1] - len(names), names, valid=valid)


def standardise(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Each series' per-column mean and scale, ``(n_series, columns)`` each."""
    stats = [standardisation(r) for r in rows]
    return np.stack([m for m, _ in stats]), np.stack([s for _, s in stats])


def seasonal_weights(rows: list[np.ndarray | None], period: int) -> np.ndarray:
    """``(n_series,)``: one over the squared mean absolute difference at lag ``period`` (lag 1
    where a series is not longer than ``period``) of each standardised series ``rows[i] (T_i, C)``
    over its target columns, 1 for a None entry or a constant series. Weighing a series' squared
    errors by it weighs them as MASE, the M4 competition's scaled error, does: a smooth series,
    whose seasonal naive forecast errs little, counts for more."""
    out = np.ones(len(rows))
    for i, r in enumerate(rows):
        if r is None or len(r) < 2:
            continue
        lag = period if len(r) > period else 1
        d = float(np.mean(np.abs(r[lag:] - r[:-lag])))
        if d > 1e-12:
            out[i] = 1.0 / d**2
    return out


def pad_left(rows: np.ndarray, length: int) -> np.ndarray:
    """``rows (T, C)`` with its first row repeated before it up to ``length`` rows."""
    if len(rows) >= length:
        return rows
    return np.concatenate([np.repeat(rows[:1], length - len(rows), axis=0), rows])


def split_panel(rows: list[np.ndarray], fraction: float, context_length: int, horizon: int
                ) -> tuple[list[np.ndarray], list[np.ndarray | None]]:  # fmt: skip
    """Each series' training rows and validation rows (the last ``max(horizon, ceil(fraction *
    T_i))`` rows after ``context_length`` rows of context, left-padded where the series is
    shorter): ``(train, valid)``, ``valid[i]`` None for a series too short to spare them (fewer
    than ``horizon + 1`` rows) or when ``fraction`` is 0."""
    train, valid = [], []
    for r in rows:
        n_val = max(horizon, math.ceil(fraction * len(r))) if fraction > 0 else 0
        if not n_val or len(r) - n_val < 1:
            train.append(r)
            valid.append(None)
            continue
        train.append(r[: len(r) - n_val])
        valid.append(pad_left(r, context_length + n_val)[-(context_length + n_val):])
    if fraction > 0 and all(v is None for v in valid):
        warnings.warn(f"every series is at most horizon={horizon} rows long: no validation rows "
                      "can be held out; training without validation and monitoring the training "
                      "loss. Pass longer series or validation_fraction=0 to silence this.",
                      UserWarning, stacklevel=4)  # fmt: skip
    return train, valid


def lay_out(rows: list[np.ndarray | None], context_length: int, horizon: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The series end to end, each left-padded to at least one window: ``(series (R, C),
    window starts inside one series, the series of each start)``; ``None`` entries are skipped."""
    span = context_length + horizon
    parts, starts, owner, offset = [], [], [], 0
    for i, r in enumerate(rows):
        if r is None:
            continue
        r = pad_left(r, span)
        parts.append(r)
        n = len(r) - span + 1
        starts.append(offset + np.arange(n))
        owner.append(np.full(n, i))
        offset += len(r)
    if not parts:
        return np.zeros((0, 0)), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(parts), np.concatenate(starts), np.concatenate(owner)
