"""Anchor choice by one validation tail (the estimator's rule) vs by expanding-window folds of the
training series (fits on the first 50/60/70/80% of it, each scored on the next 10%, the tail too);
both choices scored on the standard VALIDATION split, anchors alone (no network). No TEST row read.

    TSATTN_DATA_DIR=... python3 docs/results/forecast_defaults/anchor_choice/anchor_cv.py ETTh1 [HORIZONS]
"""
import sys, json, numpy as np, torch
from tsattn.datasets import load_forecasting, forecasting_splits
from tsattn.estimators import anchors
from tsattn.io import hold_out_tail, seasonal_period
from tsattn.datasets.forecasting import sliding_windows
from tsattn.nn.forecasting import LinearAnchor

ds = sys.argv[1]; ctx = 36 if ds == "illness" else 96
H = [int(h) for h in sys.argv[2:]] or ([24, 36, 48, 60] if ds == "illness" else [96, 192, 336, 720])
df = load_forecasting(ds); sp = forecasting_splits(df, ds, ctx)
period = seasonal_period(df.index)
train_all = sp.scaled("train"); val_outer = sp.scaled("val")
FOLDS = (0.5, 0.6, 0.7, 0.8)
for h in H:
    tr, va = hold_out_tail(train_all, 0.1, ctx, h)
    if va is None:  # too short a training series for a tail (Exchange at h720): no choice made
        continue
    mu, sd = tr.mean(0), tr.std(0); sd[sd == 0] = 1
    z = lambda v: (v - mu) / sd
    tr_z, va_z, vo_z = z(tr), z(va), z(val_outer)
    per = period if len(tr) >= 2 * period else 1
    names = ["linear", "nlinear", "last"] + (["cycle", "ncycle"] if per > 1 else [])
    def fit(name, series):
        if name == "last":
            return anchors.last_value_anchor(ctx, h) + (None,)
        starts = np.arange(len(series) - ctx - h + 1)
        cyc = None; s = series
        if name.endswith("cycle"):
            cyc = anchors.cycle_profile(series, per); s = series - cyc[np.arange(len(series)) % per]
        w, b = anchors.fit_linear_anchor(s, starts, ctx, h, np.random.default_rng(0), relative=name.startswith("n"))
        return w, b, cyc
    def score(params, series):
        w, b, cyc = params
        m = LinearAnchor(ctx, h, series.shape[1], per).double()
        with torch.no_grad():
            m.set(w, b, cyc)
            c, t = sliding_windows(series, ctx, h)
            if len(c) > 2000: idx = np.linspace(0, len(c) - 1, 2000).astype(int); c, t = c[idx], t[idx]
            p = m(torch.as_tensor(np.array(c))).numpy()
        return float(np.mean((p - np.array(t)) ** 2))
    n = len(tr_z); fold_len = max(h, int(0.1 * n))
    res = {}
    for name in names:
        params = fit(name, tr_z)
        r = dict(tail=score(params, va_z), outer=score(params, vo_z), folds=[])
        for f in FOLDS:
            cut = int(f * n)
            if cut - ctx - h + 1 < 10 or cut + fold_len > n: continue
            r["folds"].append(score(fit(name, tr_z[:cut]), tr_z[cut - ctx: cut + fold_len]))
        r["cv"] = float(np.mean(r["folds"] + [r["tail"]]))
        res[name] = r
    pick = lambda key: min(res, key=lambda k: res[k][key])
    row = dict(ds=ds, h=h, tail=pick("tail"), tail_outer=round(res[pick("tail")]["outer"], 4),
               cv=pick("cv"), cv_outer=round(res[pick("cv")]["outer"], 4),
               oracle=pick("outer"), oracle_outer=round(res[pick("outer")]["outer"], 4))
    print(json.dumps(row), flush=True)
    for k, v in res.items(): print("   ", k, {a: (round(b, 4) if isinstance(b, float) else [round(x, 4) for x in b]) for a, b in v.items()}, flush=True)
