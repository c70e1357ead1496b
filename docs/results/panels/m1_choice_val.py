"""The per-series choice (``series_choice_``) on series no default was chosen on: M1 Yearly, 181
short yearly series (15-58 steps, horizon 6) that ship with aeon (Monash's ``m1_yearly_dataset``,
each series whole, its last 6 steps the competition's test). Only validation origins are read: the
6 steps before the last 6 (origin 2) and the 6 before those (origin 3: the series left with at
least 9 rows to fit on), never the test steps.
Fits today's default ``TSForecaster(horizon=6, random_state=seed)`` on the long frame of the rows
before the origin and prints one JSON line: sMAPE and MASE (m = 1) of the forecast (the chosen
one), of the blend it replaced (``blend_ * network + (1 - blend_) * anchor``, ``log_blend_`` for
``blend_`` on the log scale where set, held at each
series' lowest value as the library holds it), of the network alone, and of the naive forecast,
with how many series each candidate took.

    PYTHONPATH=. python docs/results/panels/m1_choice_val.py '{"random_state": 1, "origin": 3}'
"""

import json
import sys
import time

import numpy as np
import pandas as pd
from aeon.datasets import load_forecasting

from tsattn import TSForecaster
from tsattn.benchmarks.m4_scores import mase_scale, smape

H = 6
params = {"random_state": 0, **(json.loads(sys.argv[1]) if len(sys.argv) > 1 else {})}
origin = int(params.pop("origin", 2))
if origin < 2:
    raise SystemExit("origin 1 is M1's test horizon: validation origins are 2 and up")
frame = load_forecasting("m1_yearly_dataset")
# each series cut before the origin; at origin 3 and later those left with fewer than 9 rows to
# fit on are dropped (origin 3 cuts 18 steps: M1's shortest series has 15); origin 2 keeps all 181
# (the shortest with 3 rows to fit on), as its rows in m1_choice_val.jsonl were made
series = [np.asarray(v, dtype=float)[: len(v) - (origin - 1) * H] for v in frame.series_value]
if origin > 2:
    series = [s for s in series if len(s) >= H + 9]
ids = [f"T{i:03d}" for i in range(len(series))]  # sorted as predict's output
fit_rows = [s[:-H] for s in series]
truth = np.stack([s[-H:] for s in series])
df = pd.concat([pd.DataFrame({"unique_id": i, "ds": np.arange(len(r)) + 1, "y": r})
                for i, r in zip(ids, fit_rows, strict=True)], ignore_index=True)  # fmt: skip
scale = np.array([mase_scale(r, 1) for r in fit_rows])


def scores(pred: np.ndarray) -> list[float]:
    return [round(float(np.mean(smape(truth, pred))), 3),
            round(float(np.mean(np.mean(np.abs(truth - pred), axis=1) / scale)), 3)]


t0 = time.time()
model = TSForecaster(horizon=H, **params).fit(df)
fit_s = time.time() - t0
parts = {k: (None if v is None else v.y.to_numpy().reshape(-1, H))
         for k, v in model.predict_components().items()}  # fmt: skip
blend = model.blend_ * parts["network"] + (1 - model.blend_) * parts["anchor"]
logged = np.zeros(len(blend), dtype=bool) if model.log_series_ is None else model.log_series_
if logged.any():  # the series read on the log scale blend the logarithms, by their own share
    share = model.blend_ if getattr(model, "log_blend_", None) is None else model.log_blend_
    blend[logged] = np.exp(share * np.log(parts["network"][logged])
                           + (1 - share) * np.log(parts["anchor"][logged]))
low = model.series_low_[:, 0].copy()
low[logged] = np.exp(low[logged])  # the floor in the series' units
blend = np.maximum(blend, low[:, None])
naive = np.repeat(np.stack([r[-1:] for r in fit_rows]), H, axis=1)
codes, counts = np.unique(model.series_choice_, return_counts=True)
print(json.dumps(dict(set="M1 Yearly", n_series=len(series), origin=origin, kw=params,
                      fit_s=round(fit_s, 1), context=int(model.context_length_),
                      blend=round(model.blend_, 3), anchor=model.anchor_,
                      log_blend=None if getattr(model, "log_blend_", None) is None else round(model.log_blend_, 3), log_series=int(logged.sum()),
                      choices={int(c): int(n) for c, n in zip(codes, counts, strict=True)},
                      chosen=scores(parts["forecast"]), held_blend=scores(blend),
                      network=scores(parts["network"]), naive=scores(naive))))
