"""A per-series choice between the forecast and another one (seasonal naive, the network or the
anchor alone), scored on M4 VALIDATION from
forecasts saved by ``m4_val.py`` (``"save": "<dir>/<Frequency>_s<seed>_o<origin>.npz"``): no new
fit. The choice for a series is made on its backtest window (the fitted model forecasting the
series' last ``horizon`` fitted rows from the rows before them, ``bt_*`` in the file), never on the
held-out rows it is scored on: the other forecast replaces the model's where its mean absolute
error on that window is below ``ratio`` times the model's. Prints one JSON line per file: OWA
against Naive2 of the same split for the forecast as fitted (``none``) and for each candidate
(``snaive<m>``, each season saved; ``network``, ``anchor``: held at the series' lowest value as the
forecast is) alone and at each ratio, with the number of series switched.

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python docs/results/panels/m4_val.py Hourly '{"random_state": 1, "origin": 2, "save": "npz/Hourly_s1_o2.npz"}'
    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python docs/results/panels/choice_val.py npz/*.npz
"""

import json
import sys
from pathlib import Path

import numpy as np

from tsattn.benchmarks.m4_frequencies import SETTINGS
from tsattn.datasets import m4_info

sys.path.insert(0, str(Path(__file__).parent))
from floor_val import SavedFit  # noqa: E402  (m4_val.py's split and files)

RATIOS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def mae(truth: np.ndarray, pred: np.ndarray) -> np.ndarray:
    return np.mean(np.abs(truth - pred), axis=1)


results = []
for path in sys.argv[1:]:
    fit = SavedFit.read(path)
    frequency, saved, rows, owa = fit.frequency, fit.saved, fit.rows, fit.owa
    info = m4_info(frequency)
    forecast = saved["forecast"]
    out = {"frequency": frequency, "seed": fit.seed, "origin": fit.origin,
           "naive2": [round(v, 3) for v in fit.naive2], "none": owa(forecast)}
    model_bt = mae(saved["bt_truth"], saved["bt_forecast"])
    low = np.array([r.min() for r in rows])[:, None]  # the library's floor, test and backtest
    bt_low = np.array([r[: -info.horizon].min() for r in rows])[:, None]
    candidates = {k: (saved[k], saved[f"bt_{k}"]) for k in saved.files if k.startswith("snaive")}
    h = info.horizon
    candidates["snaive1"] = (np.stack([np.repeat(r[-1], h) for r in rows]),  # the last value
                             np.stack([np.repeat(r[-h - 1], h) for r in rows]))
    short = {k: np.array([len(r) < int(k[6:]) + info.horizon for r in rows])  # no season to repeat
             for k in candidates}
    period = SETTINGS[info.frequency].period
    candidates.update({k: (np.maximum(saved[k], low), np.maximum(saved[f"bt_{k}"], bt_low))
                       for k in ("network", "anchor")})
    for key, (test, bt) in sorted(candidates.items()):
        naive_bt = np.where(short.get(key, False), np.inf, mae(saved["bt_truth"], bt))
        out[key] = {"alone": owa(test)}
        for r in RATIOS:
            switch = naive_bt < r * model_bt
            pred = np.where(switch[:, None], test, forecast)
            out[key][str(r)] = {**owa(pred), "switched": int(switch.sum())}
    # Several candidates: the one of lowest backtest error, where it is below ratio times the
    # model's (else the model's forecast).
    groups = {"period+anchor": [f"snaive{period}", "anchor"],
              "period+last+anchor": sorted({f"snaive{period}", "snaive1", "anchor"}),
              "snaive+anchor": [k for k in candidates if k.startswith("snaive")] + ["anchor"],
              "all": sorted(candidates)}
    for name, keys in groups.items():
        errs = np.stack([np.where(short.get(k, False), np.inf, mae(saved["bt_truth"], candidates[k][1]))
                         for k in keys])  # (k, n)
        best = errs.argmin(axis=0)
        tests = np.stack([candidates[k][0] for k in keys])  # (k, n, H)
        out[name] = {}
        for r in RATIOS:
            switch = errs.min(axis=0) < r * model_bt
            pred = np.where(switch[:, None], tests[best, np.arange(len(best))], forecast)
            out[name][str(r)] = {**owa(pred), "switched": int(switch.sum())}
    print(json.dumps(out))
    results.append(out)

# The summary: per rule and ratio, the OWA ratio to ``none`` averaged over the seeds of each
# (frequency, origin), then over those pairs (the mean of the ratios, as the panels' decisions).
pairs = sorted({(r["frequency"], r["origin"]) for r in results})
summary = {"pairs": [f"{f} o{o}" for f, o in pairs]}
common = set.intersection(*({k for k, v in x.items() if isinstance(v, dict) and str(RATIOS[0]) in v}
                            for x in results))  # fmt: skip
for name in sorted(common):
    for r in map(str, RATIOS):
        per_pair = [float(np.mean([x[name][r]["owa"] / x["none"]["owa"] for x in results
                                   if (x["frequency"], x["origin"]) == pair])) for pair in pairs]
        summary[f"{name}@{r}"] = [round(v, 4) for v in per_pair] + [round(float(np.mean(per_pair)), 4)]
print(json.dumps({"summary": summary}))
