"""M4 Hourly on VALIDATION: the last 48 steps of each training series held out (the test file is
never read). Prints one JSON line: sMAPE and MASE (m = 24) of ``TSForecaster(horizon=48,
period=24, random_state=0, **params)`` fitted on the rest as one long frame, of its network alone,
and of the seasonal naive forecast.

    TSATTN_DATA_DIR=../shared/datasets PYTHONPATH=. python docs/results/panels/m4_val.py '{"context_length": 336}'
"""

import json
import sys
import time

import numpy as np

from tsattn import TSForecaster
from tsattn.datasets import load_m4

H = 48
train = load_m4("Hourly")
held = train.groupby("unique_id").tail(H)
fit_rows = train.drop(held.index)
truth = held.y.to_numpy().reshape(-1, H)  # sorted by unique_id, then ds, as predict's output
series = [g.y.to_numpy() for _, g in fit_rows.groupby("unique_id")]


def scores(pred: np.ndarray) -> tuple[float, float]:
    smape = np.mean(200 * np.abs(truth - pred) / (np.abs(truth) + np.abs(pred)))
    scale = np.array([np.mean(np.abs(v[24:] - v[:-24])) for v in series])
    return float(smape), float(np.mean(np.mean(np.abs(truth - pred), axis=1) / scale))


params = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
t0 = time.time()
model = TSForecaster(horizon=H, period=24, random_state=0, **params).fit(fit_rows)
fit_s = time.time() - t0
pred = model.predict().y.to_numpy().reshape(-1, H)
net = model.predict_components()["network"].y.to_numpy().reshape(-1, H)
snaive = np.stack([np.tile(v[-24:], 2) for v in series])
(s, m), (sn, mn), (ss, ms) = scores(pred), scores(net), scores(snaive)
print(json.dumps(dict(kw=params, fit_s=round(fit_s, 1), steps=int(model.n_steps_),
                      blend=round(model.blend_, 3), anchor=model.anchor_, smape=round(s, 3),
                      mase=round(m, 3), net_smape=round(sn, 3), net_mase=round(mn, 3),
                      snaive_smape=round(ss, 3), snaive_mase=round(ms, 3))))
