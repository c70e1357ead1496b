"""EPF under TimeXer's protocol on the VALIDATION rows (70/10/20 split by rows, every column
standardised with the training rows' statistics, context 168, horizon 24, every validation
window). Prints one JSON line: the MSE/MAE of ``TSForecaster`` fitted on the training rows with
the two day-ahead forecasts as covariates (``future``: known for the horizon; ``past``: read up to
the forecast origin), of its network and its anchor alone, and of the previous day. A third
argument, JSON, gives further ``TSForecaster`` parameters (``random_state`` included) and
``"calendar": true``: the calendar columns of :func:`tsattn.io.add_calendar` (hour of the day,
day of the week, weekend) join the covariates, known for the horizon in both settings; and
``"save": "<file>.npz"``: the validation windows' truth and the forecast, network and anchor
(each ``(windows, 24)``) are written there, to score combinations of fits afterwards. A
``"context_length"`` other than the protocol's 168 reads longer contexts for the same targets.

    TSATTN_DATA_DIR=../shared/datasets PYTHONPATH=. python docs/results/panels/epf_val.py NP future
"""

import json
import sys
import time

import numpy as np
import pandas as pd

from tsattn import TSForecaster
from tsattn.datasets import load_epf
from tsattn.io import add_calendar

market, setting = sys.argv[1], sys.argv[2]
params = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
calendar = params.pop("calendar", False)
save = params.pop("save", None)
frame = load_epf(market)
names = [c for c in frame.columns if c not in ("unique_id", "ds", "y")]
values = frame[[*names, "y"]].to_numpy(float)  # covariates, then the price
n_tr, n_te = int(0.7 * len(values)), int(0.2 * len(values))
n_va = len(values) - n_tr - n_te
z = (values - values[:n_tr].mean(0)) / values[:n_tr].std(0)
known = names if setting == "future" else []
if calendar:  # not standardised (sines, cosines, 0/1), after the covariates, known ahead
    cal = add_calendar(frame[["ds"]]).drop(columns="ds")
    z = np.hstack([z[:, :-1], cal.to_numpy(float), z[:, -1:]])
    names, known = [*names, *cal.columns], [*known, *cal.columns]
L, H = params.pop("context_length", 168), 24
starts = np.arange(n_tr - L, n_tr + n_va - L - H + 1)
y_ctx = np.stack([z[i : i + L, -1] for i in starts])
x_win = np.stack([z[i : i + L + H, :-1] for i in starts])
truth = np.stack([z[i + L : i + L + H, -1] for i in starts])
t0 = time.time()
model = TSForecaster(horizon=H, context_length=L,  # random_state 0 unless the JSON names one
                     future_covariates=known,
                     **{"random_state": 0, **params})
model.fit(z[:n_tr, -1], pd.DataFrame(z[:n_tr, :-1], columns=names))
fit_s = time.time() - t0
parts = model.predict_components(y_ctx, X=x_win)
if save:
    np.savez_compressed(save, truth=truth, **{k: parts[k][..., 0] for k in ("forecast", "network", "anchor")})


def mse(p):
    return None if p is None else round(float(np.mean((p[..., 0] - truth) ** 2)), 4)


print(json.dumps(dict(market=market, setting=setting, kw={**params, **({"calendar": True} if calendar else {}),
                                                         **({"context_length": L} if L != 168 else {})}, fit_s=round(fit_s, 1),
                      steps=int(model.n_steps_), blend=round(model.blend_, 3),
                      mse=mse(parts["forecast"]),
                      mae=round(float(np.mean(np.abs(parts["forecast"][..., 0] - truth))), 4),
                      net_mse=mse(parts["network"]), anchor_mse=mse(parts["anchor"]),
                      naive_day=round(float(np.mean((y_ctx[:, -24:] - truth) ** 2)), 4))))
