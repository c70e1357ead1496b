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
from pathlib import Path

import numpy as np

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


def main(paths: list[str]) -> None:
    for path in paths:
        frequency, seed, origin = Path(path).stem.split("_")
        origin_n = int(origin[1:])
        info = m4_info(frequency)
        saved = np.load(path)
        truth, forecast, scale = saved["truth"], saved["forecast"], saved["scale"]
        rows = fit_rows(frequency, origin_n)
        bench = np.stack([naive2(r, info.horizon, info.seasonal_period) for r in rows])

        def scores(pred: np.ndarray) -> tuple[float, float]:
            return (float(np.mean(smape(truth, pred))),
                    float(np.mean(np.mean(np.abs(truth - pred), axis=1) / scale)))

        s2, m2 = scores(bench)
        c = CONTEXT[frequency]
        low = {"series": np.array([r.min() for r in rows]), "context": np.array([r[-c:].min() for r in rows])}
        high = {"series": np.array([r.max() for r in rows]), "context": np.array([r[-c:].max() for r in rows])}
        variants = {"none": forecast, "series": np.maximum(forecast, low["series"][:, None]),
                    "context": np.maximum(forecast, low["context"][:, None]),
                    "zero": np.maximum(forecast, 0.0),
                    "band_series": np.clip(forecast, low["series"][:, None], high["series"][:, None]),
                    "band_context": np.clip(forecast, low["context"][:, None], high["context"][:, None])}
        out = {"frequency": frequency, "seed": int(seed[1:]), "origin": origin_n,
               "naive2": [round(s2, 3), round(m2, 3)]}
        for name, pred in variants.items():
            s, m = scores(pred)
            out[name] = {"smape": round(s, 3), "mase": round(m, 3), "owa": round(0.5 * (s / s2 + m / m2), 4)}
        out["series_held"] = int((forecast < low["series"][:, None]).any(axis=1).sum())
        print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
