"""Issue 77, item 4's goal on M4 Hourly's VALIDATION split (the last 48 steps of each training
series held out, as ``docs/results/panels/m4_val.py`` holds them; the test file is never read):
``TSForecaster(horizon=48, random_state=seed)`` fitted on the rest as one long frame (integer
``ds``), with the given ``period`` (``auto``: the parameter left at its default, the season then
read from the values; an integer: that season). Prints one JSON line: sMAPE, MASE (the
competition's ``m`` = 24) and OWA against Naive2 on the same split, ``period_``, ``anchor_``,
``context_length_`` and the fit's seconds.

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. OMP_NUM_THREADS=1 python docs/results/forecast_defaults/season/goal_val.py auto 0
    TSATTN_DATA_DIR=$DATA PYTHONPATH=. OMP_NUM_THREADS=1 python docs/results/forecast_defaults/season/goal_val.py 24 0
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from tsattn import TSForecaster
from tsattn.benchmarks.m4_scores import mase_scale, naive2, smape
from tsattn.datasets import load_m4, m4_info

period, seed = sys.argv[1], int(sys.argv[2])
info = m4_info("Hourly")
H, M = info.horizon, info.seasonal_period
train = load_m4(info.frequency)
held = train.groupby("unique_id").tail(H)
fit_rows = train.drop(held.index)
truth = held.y.to_numpy().reshape(-1, H)  # sorted by unique_id, then ds, as predict's output
series = [g.y.to_numpy() for _, g in fit_rows.groupby("unique_id")]
scale = np.array([mase_scale(v, M) for v in series])


def scores(pred: np.ndarray) -> tuple[float, float]:
    return (float(np.mean(smape(truth, pred))),
            float(np.mean(np.mean(np.abs(truth - pred), axis=1) / scale)))


s2, m2 = scores(np.stack([naive2(v, H, M) for v in series]))
params = {} if period == "auto" else {"period": int(period)}
t0 = time.time()
model = TSForecaster(horizon=H, random_state=seed, **params).fit(fit_rows)
fit_s = time.time() - t0
s, m = scores(model.predict().y.to_numpy().reshape(-1, H))
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                        cwd=Path(__file__).parent).stdout.strip()  # fmt: skip
print(json.dumps(dict(period=period, seed=seed, period_=int(model.period_), anchor=model.anchor_,
                      context=int(model.context_length_), smape=round(s, 3), mase=round(m, 4),
                      owa=round(0.5 * (s / s2 + m / m2), 4), naive2=[round(s2, 3), round(m2, 4)],
                      fit_s=round(fit_s, 1), commit=commit)))
