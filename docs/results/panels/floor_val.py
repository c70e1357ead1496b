"""Forecasts held at or above a floor, scored on M4 VALIDATION from forecasts saved by
``m4_val.py`` (``"save": "<dir>/<Frequency>_s<seed>_o<origin>.npz"``): no new fit, the floor
applied afterwards to the saved forecast of each series. Prints one JSON line per file: OWA
against Naive2 of the same split for no floor and each floor: the series' lowest value over the
rows fitted on (``series``: what ``TSForecaster`` now does for a long frame without
covariates), the lowest value of its last ``context_length_`` rows (``context``: 336 Hourly,
208 Weekly, the rule's), zero (``zero``), and both bounds of the series or the context (``band_*``:
also held at or below the highest value).

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python docs/results/panels/m4_val.py Weekly '{"random_state": 1, "origin": 2, "save": "npz/Weekly_s1_o2.npz"}'
    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python docs/results/panels/floor_val.py npz/*.npz
"""

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tsattn.benchmarks.m4_frequencies import SETTINGS
from tsattn.benchmarks.m4_scores import naive2, smape
from tsattn.datasets import load_m4, m4_info

CONTEXT = {"Hourly": 336, "Weekly": 208}  # context_length='auto' on these panels


def fit_rows(frequency: str, origin: int) -> list[np.ndarray]:
    """Each series' rows fitted on at this origin (``m4_val.py``'s split), sorted by id."""
    info = m4_info(frequency)
    train = load_m4(info.frequency)
    if origin > 1:
        train = train.drop(train.groupby("unique_id").tail((origin - 1) * info.horizon).index)
    held = train.groupby("unique_id").tail(info.horizon)
    return [g.y.to_numpy() for _, g in train.drop(held.index).groupby("unique_id")]


@dataclass
class SavedFit:
    """One ``m4_val.py`` file read back: its frequency, seed and origin (from the name), the
    saved arrays, each series' fitted rows and Naive2's sMAPE and MASE on the same split."""

    frequency: str
    seed: int
    origin: int
    saved: Any
    rows: list[np.ndarray]
    naive2: tuple[float, float]

    @classmethod
    def read(cls, path: str) -> "SavedFit":
        frequency, seed, origin = Path(path).stem.split("_")
        info = m4_info(frequency)
        rows = fit_rows(frequency, int(origin[1:]))
        fit = cls(frequency, int(seed[1:]), int(origin[1:]), np.load(path), rows, (0.0, 0.0))
        bench = np.stack([naive2(r, info.horizon, info.seasonal_period) for r in rows])
        fit.naive2 = fit.scores(bench)
        return fit

    def scores(self, pred: np.ndarray) -> tuple[float, float]:
        """Mean sMAPE and MASE of ``pred (series, horizon)`` on the held-out truth."""
        truth, scale = self.saved["truth"], self.saved["scale"]
        return (float(np.mean(smape(truth, pred))),
                float(np.mean(np.mean(np.abs(truth - pred), axis=1) / scale)))

    def chosen(self, ratio: float = 0.5) -> np.ndarray:
        """The saved (held) forecast with ``series_choice_``'s rule applied afterwards: the
        seasonal naive forecast (the anchor's period), the last value or the anchor alone (held)
        where the lowest of their backtest errors is below ``ratio`` times the forecast's."""
        s, rows, h = self.saved, self.rows, self.saved["truth"].shape[1]
        period = SETTINGS[m4_info(self.frequency).frequency].period
        low = np.array([r.min() for r in rows])[:, None]
        bt_low = np.array([r[:-h].min() for r in rows])[:, None]
        candidates = [(s[f"snaive{period}"], s[f"bt_snaive{period}"],
                       np.array([len(r) - h >= period for r in rows])),
                      (np.stack([np.repeat(r[-1], h) for r in rows]),
                       np.stack([np.repeat(r[-h - 1], h) for r in rows]), np.ones(len(rows), bool)),
                      (np.maximum(s["anchor"], low), np.maximum(s["bt_anchor"], bt_low),
                       np.ones(len(rows), bool))]  # fmt: skip
        errors = np.stack([np.where(ok, np.mean(np.abs(s["bt_truth"] - bt), axis=1), np.inf)
                           for _, bt, ok in candidates])  # fmt: skip
        best = errors.argmin(axis=0)
        switch = errors.min(axis=0) < ratio * np.mean(np.abs(s["bt_truth"] - s["bt_forecast"]), axis=1)
        tests = np.stack([test for test, _, _ in candidates])
        return np.where(switch[:, None], tests[best, np.arange(len(rows))], s["forecast"])

    def owa(self, pred: np.ndarray) -> dict:
        """sMAPE, MASE and OWA against Naive2 of ``pred``, rounded as the rows keep them."""
        (s, m), (s2, m2) = self.scores(pred), self.naive2
        return {"smape": round(s, 3), "mase": round(m, 3), "owa": round(0.5 * (s / s2 + m / m2), 4)}


def main(paths: list[str]) -> None:
    for path in paths:
        fit = SavedFit.read(path)
        frequency, rows, forecast = fit.frequency, fit.rows, fit.saved["forecast"]
        c = CONTEXT[frequency]
        low = {"series": np.array([r.min() for r in rows]), "context": np.array([r[-c:].min() for r in rows])}
        high = {"series": np.array([r.max() for r in rows]), "context": np.array([r[-c:].max() for r in rows])}
        variants = {"none": forecast, "series": np.maximum(forecast, low["series"][:, None]),
                    "context": np.maximum(forecast, low["context"][:, None]),
                    "zero": np.maximum(forecast, 0.0),
                    "band_series": np.clip(forecast, low["series"][:, None], high["series"][:, None]),
                    "band_context": np.clip(forecast, low["context"][:, None], high["context"][:, None])}
        out = {"frequency": frequency, "seed": fit.seed, "origin": fit.origin,
               "naive2": [round(v, 3) for v in fit.naive2]}
        for name, pred in variants.items():
            out[name] = fit.owa(pred)
        out["series_held"] = int((forecast < low["series"][:, None]).any(axis=1).sum())
        print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
