"""Would averaging k ``TSForecaster`` fits (seeds 0..k-1) beat one? Each fits the train split
(its own last 10% for the step kept and the blend) and is scored on the standard VALIDATION
split (never TEST). One JSON line per fit, then per horizon the mean and spread of the single fits
and the ensemble's MSE over its first 1..k members.

    python3 ensemble.py DATASET K [--steps N] HORIZON [HORIZON ...]
"""
import argparse, json, time

import numpy as np

from tsattn import TSForecaster
from tsattn.datasets import forecasting_splits, load_forecasting
from tsattn.datasets.forecasting import sliding_windows

ap = argparse.ArgumentParser()
ap.add_argument("dataset"); ap.add_argument("k", type=int); ap.add_argument("horizons", type=int, nargs="+")
ap.add_argument("--steps", type=int, default=None, help="max_steps of each member (default: 'auto')")
a = ap.parse_args()
ctx = 36 if a.dataset == "illness" else 96
df = load_forecasting(a.dataset); sp = forecasting_splits(df, a.dataset, ctx)
tr, va = sp.scaled_frame("train"), sp.scaled_frame("val")
for h in a.horizons:
    c, t = (np.asarray(x) for x in sliding_windows(va.to_numpy(), ctx, h))
    preds, singles = [], []
    for s in range(a.k):
        t0 = time.time()
        est = TSForecaster(h, ctx, random_state=s, max_steps=a.steps or "auto").fit(tr)
        p = est.predict(c); preds.append(p); singles.append(float(np.mean((p - t) ** 2)))
        print(json.dumps(dict(ds=a.dataset, h=h, steps=est.n_steps_, seed=s, mse=round(singles[-1], 4),
                              blend=round(est.blend_, 3), secs=round(time.time() - t0))), flush=True)
    ens = [float(np.mean((np.mean(preds[:j], 0) - t) ** 2)) for j in range(1, a.k + 1)]
    print(json.dumps(dict(ds=a.dataset, h=h, steps=a.steps or "auto", mean_single=round(np.mean(singles), 4),
                          sd_single=round(np.std(singles), 4), ens_by_k=[round(e, 4) for e in ens])), flush=True)
