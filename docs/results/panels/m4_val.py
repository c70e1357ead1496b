"""An M4 frequency on VALIDATION: the last ``horizon`` steps of each training series held out (the
test file is never read). Prints one JSON line: sMAPE and MASE (the competition's seasonal period
``m``) of ``TSForecaster(horizon=h, period=p, random_state=0, **params)`` fitted on the rest as one
long frame, of its network alone, and of the seasonal naive forecast.

    TSATTN_DATA_DIR=../shared/datasets PYTHONPATH=. python docs/results/panels/m4_val.py '{"context_length": 336}'
    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python docs/results/panels/m4_val.py Weekly '{"d_model": 128}'
    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python docs/results/panels/m4_val.py Weekly:40 '{"d_model": 128}'

The frequency (default Hourly) gives the horizon and ``m`` (:func:`tsattn.datasets.m4_info`) and
the anchor's ``period`` (``bench m4``'s, :data:`tsattn.benchmarks.m4_frequencies.SETTINGS`: Hourly
24, Weekly 52; a JSON ``period`` overrides it). ``Weekly:40``: a panel of 40 of its series, drawn without replacement
by numpy's generator seeded 0 (a smaller panel of the same kind). A JSON ``"save": "<file>.npz"``
writes the held-out truth and the forecast, network and anchor alone (each ``(series, horizon)``)
there, with the seasonal naive forecasts (``snaive<m>``, at the competition's ``m`` and the
anchor's period) and the same for the backtest window (``bt_*``: the model forecasting each
series' last ``horizon`` fitted rows from the rows before them), to score combinations of fits and
per-series rules afterwards. ``"origin": 2`` holds out the horizon before the last
one (the last horizon dropped), a second validation origin.
"""

import json
import sys
import time

import numpy as np

from tsattn import TSForecaster
from tsattn.benchmarks.m4_frequencies import SETTINGS
from tsattn.benchmarks.m4_scores import mase_scale, smape
from tsattn.datasets import load_m4, m4_info

args = sys.argv[1:]
frequency = args.pop(0) if args and not args[0].lstrip().startswith("{") else "Hourly"
frequency, _, n_series = frequency.partition(":")
info = m4_info(frequency)
H, M = info.horizon, info.seasonal_period
train = load_m4(info.frequency)
if n_series:
    ids = train.unique_id.unique()
    keep = np.random.default_rng(0).choice(ids, int(n_series), replace=False)
    train = train[train.unique_id.isin(keep)].reset_index(drop=True)
params = {"period": SETTINGS[info.frequency].period, "random_state": 0,
          **(json.loads(args[0]) if args else {})}
save = params.pop("save", None)
origin = int(params.pop("origin", 1))  # 2: the horizon before the last one is held out instead
if origin > 1:
    train = train.drop(train.groupby("unique_id").tail((origin - 1) * H).index).reset_index(drop=True)
held = train.groupby("unique_id").tail(H)
fit_rows = train.drop(held.index)
truth = held.y.to_numpy().reshape(-1, H)  # sorted by unique_id, then ds, as predict's output
series = [g.y.to_numpy() for _, g in fit_rows.groupby("unique_id")]


scale = np.array([mase_scale(v, M) for v in series])  # MASE's divisor of each series


def scores(pred: np.ndarray) -> tuple[float, float]:
    return (float(np.mean(smape(truth, pred))),
            float(np.mean(np.mean(np.abs(truth - pred), axis=1) / scale)))


t0 = time.time()
model = TSForecaster(horizon=H, **params).fit(fit_rows)
fit_s = time.time() - t0
pred = model.predict().y.to_numpy().reshape(-1, H)
net = model.predict_components()["network"].y.to_numpy().reshape(-1, H)
if save:
    parts = model.predict_components()
    extra = {"anchor": parts["anchor"].y.to_numpy().reshape(-1, H)}
    # The backtest: the same model forecasting each series' last H fitted rows from the rows
    # before them (a long frame at predict), the choice window of a per-series rule.
    last = fit_rows.groupby("unique_id").tail(H)
    before = fit_rows.drop(last.index)
    bt = model.predict_components(y=before)
    extra.update(bt_truth=last.y.to_numpy().reshape(-1, H),
                 **{f"bt_{k}": v.y.to_numpy().reshape(-1, H) for k, v in bt.items()})
    for m in sorted({M, params["period"]}):  # seasonal naive at each season, both windows
        extra[f"snaive{m}"] = np.stack([np.resize(v[-m:], H) for v in series])
        extra[f"bt_snaive{m}"] = np.stack([np.resize(v[:-H][-m:], H) for v in series])
    np.savez_compressed(save, truth=truth, forecast=pred, network=net, scale=scale, **extra)
snaive = np.stack([np.resize(v[-M:], H) for v in series])
(s, m), (sn, mn), (ss, ms) = scores(pred), scores(net), scores(snaive)
logged = getattr(model, "log_series_", None)  # the series read on the log scale
print(json.dumps(dict(frequency=info.frequency, n_series=len(series), kw={**params, **({"origin": origin} if origin > 1 else {})}, fit_s=round(fit_s, 1),
                      steps=int(model.n_steps_), blend=round(model.blend_, 3),
                      log_blend=None if getattr(model, "log_blend_", None) is None else round(model.log_blend_, 3),
                      anchor=model.anchor_, log_series=0 if logged is None else int(logged.sum()), smape=round(s, 3), mase=round(m, 3),
                      net_smape=round(sn, 3), net_mase=round(mn, 3), snaive_smape=round(ss, 3),
                      snaive_mase=round(ms, 3))))
