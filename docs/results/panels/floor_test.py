"""Forecasts held at or above each series' lowest value, on the M4 TEST files, replayed from a
committed ``bench m4`` run's saved forecasts (``<run>/forecasts/test_tsattn_<seed>.csv.gz``): the
same fits, their forecast and interval bounds held at each series' lowest training value, as
``TSForecaster`` now holds them for a long frame without covariates (``series_low_``). Prints
one JSON line per seed and one with the means over seeds: sMAPE, MASE and OWA (against the
run's own Naive2 forecasts) and the 80% and 95% coverage, as run and held.

    python docs/results/panels/floor_test.py docs/results/panels/m4_hourly/tsattn_weighted $D/Hourly-train.csv $D/Hourly-test.csv
"""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from tsattn.benchmarks.m4 import read_m4, score_forecasts
from tsattn.datasets import m4_info

run, train_path, test_path = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
train, test = read_m4(train_path, test_path)
frequency = Path(train_path).name.split("-")[0]
m = m4_info(frequency).seasonal_period
low = train.groupby("unique_id")["y"].min()
naive2 = score_forecasts(train, test, pd.read_csv(run / "forecasts" / "test_naive2_0.csv.gz"), m)


def owa(s: dict) -> float:
    return 0.5 * (s["smape"] / naive2["smape"] + s["mase"] / naive2["mase"])


rows = []
for path in sorted((run / "forecasts").glob("test_tsattn_*.csv.gz")):
    pred = pd.read_csv(path)
    held = pred.copy()
    floor = held["unique_id"].map(low)
    for col in ("y", "lo95", "lo80", "hi80", "hi95"):
        held[col] = np.maximum(held[col], floor)
    row = {"seed": int(path.name.split("_")[-1].split(".")[0])}
    for name, frame in (("as_run", pred), ("held", held)):
        s = score_forecasts(train, test, frame, m)
        row[name] = {"smape": round(s["smape"], 3), "mase": round(s["mase"], 3),
                     "owa": round(owa(s), 4), "cov80": round(s["cov80"], 4), "cov95": round(s["cov95"], 4)}
    row["series_held"] = int(pred.loc[pred["y"] < floor, "unique_id"].nunique())
    rows.append(row)
    print(json.dumps({"run": run.as_posix(), **row}))
mean = {name: {k: round(float(np.mean([r[name][k] for r in rows])), 4) for k in rows[0][name]}
        for name in ("as_run", "held")}  # fmt: skip
sd = {name: round(float(np.std([r[name]["owa"] for r in rows], ddof=1)), 4) for name in ("as_run", "held")}
print(json.dumps({"run": run.as_posix(), "seeds": len(rows), "mean": mean, "owa_sd": sd}))
