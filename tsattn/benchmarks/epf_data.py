"""An EPF market's file and its windows under TimeXer's protocol (:mod:`tsattn.benchmarks.epf`).

Rows split 70/10/20 in time, every column standardised with TRAIN statistics, every window of a
split at stride 1 (the first of val and test starting ``context`` rows before the split); the
covariate settings (:data:`SETTINGS`) say which covariates are known for the horizon.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["SETTINGS", "EPFData", "read_epf"]

#: The covariate settings: which covariates are known for the horizon, and whether calendar
#: columns join them.
SETTINGS = ("past", "future", "past+calendar", "future+calendar")


def read_epf(path: str | Path) -> pd.DataFrame:
    """An EPF market's CSV (``date``, the covariates, the price ``OT`` last) as a frame."""
    frame = pd.read_csv(path)
    frame.columns = [c.strip() for c in frame.columns]
    if frame.columns[0] != "date" or frame.columns[-1] != "OT" or frame.shape[1] < 3:
        raise ValueError(f"{path}: expected columns date, <covariates>, OT; got {list(frame.columns)}")
    return frame


class EPFData:
    """One market standardised with TRAIN statistics, and its windows.

    ``values``: ``(n, k + 1)``, the ``k`` covariates then the price; with ``calendar``, the
    calendar columns (:func:`tsattn.io.add_calendar` of ``date``, not standardised: sines,
    cosines and 0/1) are the last covariates (``calendar``: their names). ``ranges[split]``: the
    rows ``[start, stop)`` whose windows are scored (val and test start ``context`` rows before
    the split).
    """

    def __init__(self, frame: pd.DataFrame, context: int, horizon: int, calendar: bool = False) -> None:
        self.covariates = list(frame.columns[1:-1])
        raw = frame[self.covariates + ["OT"]].to_numpy(float)
        n = len(raw)
        n_train, n_test = int(0.7 * n), int(0.2 * n)
        n_val = n - n_train - n_test
        mean, std = raw[:n_train].mean(0), raw[:n_train].std(0)
        if np.any(std == 0):
            raise ValueError("a column is constant over TRAIN; it cannot be standardised")
        self.values = (raw - mean) / std
        self.calendar: list[str] = []
        if calendar:
            from tsattn.io import add_calendar

            stamps = pd.DataFrame({"ds": pd.to_datetime(frame["date"])})
            cal = add_calendar(stamps).drop(columns="ds")
            self.calendar = list(cal.columns)
            self.values = np.hstack([self.values[:, :-1], cal.to_numpy(float), self.values[:, -1:]])
            self.covariates += self.calendar
        self.context, self.horizon = context, horizon
        self.n_train = n_train
        self.ranges = {"train": (0, n_train), "val": (n_train - context, n_train + n_val),
                       "test": (n - n_test - context, n)}  # fmt: skip

    def windows(self, split: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(y_ctx (w, context), X_win (w, context + horizon, k), y_true (w, horizon))`` of every
        window of ``split`` at stride 1 (views, not copies)."""
        start, stop = self.ranges[split]
        span = self.context + self.horizon
        win = sliding_window_view(self.values[start:stop], span, axis=0)  # (w, k + 1, span)
        y = win[:, -1, :]
        return y[:, : self.context], win[:, :-1, :].transpose(0, 2, 1), y[:, self.context:]

    def future(self, setting: str) -> list[str]:
        """The covariates known for the horizon in ``setting`` (:data:`SETTINGS`): every one in
        ``future``, the calendar columns alone in ``past+calendar``, none in ``past``."""
        if setting not in SETTINGS:
            raise ValueError(f"unknown setting {setting!r}; the settings are {list(SETTINGS)}")
        if setting.endswith("+calendar") and not self.calendar:
            raise ValueError(f"setting {setting!r} needs EPFData(..., calendar=True)")
        if setting.startswith("future"):
            return list(self.covariates)
        return list(self.calendar)
