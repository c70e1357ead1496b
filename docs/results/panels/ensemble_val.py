"""Score an ensemble of fits on the validation windows (issue 51): the mean of the forecasts saved
by ``epf_val.py`` or ``m4_val.py`` (their ``"save"`` argument) for several seeds of one setting,
beside each seed's own score. Prints one JSON line per group.

    python3 docs/results/panels/ensemble_val.py epf NP_future_0.npz NP_future_1.npz NP_future_2.npz
    python3 docs/results/panels/ensemble_val.py m4 Hourly_0.npz Hourly_1.npz Hourly_2.npz

EPF: MSE of the standardised price (the forecast; the network alone). M4: sMAPE and MASE (the
saved ``scale`` is each series' in-sample seasonal-naive divisor).
"""

import json
import sys

import numpy as np

from tsattn.benchmarks.m4_scores import smape


def epf(truth, pred, _):
    return {"mse": round(float(np.mean((pred - truth) ** 2)), 4)}


def m4(truth, pred, scale):
    mase = np.mean(np.mean(np.abs(truth - pred), axis=1) / scale)
    return {"smape": round(float(np.mean(smape(truth, pred))), 3), "mase": round(float(mase), 3)}


kind, files = sys.argv[1], sys.argv[2:]
score = {"epf": epf, "m4": m4}[kind]
runs = [np.load(f) for f in files]
truth, scale = runs[0]["truth"], runs[0]["scale"] if "scale" in runs[0] else None
if any(not np.array_equal(r["truth"], truth) for r in runs):
    raise SystemExit("the files hold different validation windows: give one setting's seeds")
row = {"files": files}
for part in ("forecast", "network"):
    row[part] = {"seeds": [score(truth, r[part], scale) for r in runs],
                 "ensemble": score(truth, np.mean([r[part] for r in runs], axis=0), scale)}
print(json.dumps(row))
