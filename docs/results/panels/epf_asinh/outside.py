"""A first look, before the library had it: TSForecaster fitted on data put on LEAR's scale outside it
(the price, and with mode ``asinh`` the covariates too, not the calendar: median/MAD of TRAIN, then
asinh), its forecasts ``sinh()`` back; validation MSE in the standardised units. Usage (repository
root): ``PYTHONPATH=. python3 docs/results/panels/epf_asinh/outside.py <market.csv> <setting> asinh|asinh_y <seed>``;
rows appended to ``outside.jsonl``."""
import json, sys, time
from pathlib import Path

import numpy as np
from tsattn.benchmarks.epf import read_epf, EPFData
from tsattn.benchmarks.panel_run import Parts
import pandas as pd
from tsattn.estimators import TSForecaster
path, setting, mode, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
d = EPFData(read_epf(path), 168, 24, calendar=True)
n = d.n_train
k = len(d.covariates) - len(d.calendar)
cols = ([] if mode == "asinh_y" else list(range(k))) + [d.values.shape[1] - 1]
plain = d.values.copy()
med = np.median(plain[:n], 0); mad = np.median(np.abs(plain[:n] - med), 0) * 1.4826
vals = plain.copy()
if mode.startswith("asinh"):
    for j in cols:
        vals[:, j] = np.arcsinh((plain[:, j] - med[j]) / mad[j])
inv = (lambda p: p) if mode == "plain" else (lambda p: np.sinh(p) * mad[-1] + med[-1])
d.values = vals
t = time.time()
g = TSForecaster(horizon=24, context_length=168, future_covariates=d.future(setting), random_state=seed,
                 n_threads=1).fit(vals[:n, -1], pd.DataFrame(vals[:n, :-1], columns=d.covariates))
fit_s = time.time() - t
y_ctx, x_win, _ = d.windows("val")
parts = Parts.of(g, np.ascontiguousarray(y_ctx), X=np.ascontiguousarray(x_win))
d.values = plain
_, _, y_true = d.windows("val")
mse = lambda a: float(np.mean((inv(np.asarray(a)[..., 0]) - y_true) ** 2))
row = dict(market=path.split("/")[-1][:-4], setting=setting, mode=mode, seed=seed, mse=mse(parts.forecast),
           network=mse(parts.network), anchor=mse(parts.anchor), blend=parts.blend, anchor_name=parts.anchor_name,
           fit_s=round(fit_s, 1))
print(json.dumps(row), flush=True)
open(Path(__file__).with_name("outside.jsonl"), "a").write(json.dumps(row) + "\n")
