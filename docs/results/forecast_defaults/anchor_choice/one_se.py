"""Anchor choice: argmin vs the one-standard-error rule (simplest anchor within one SE of the
best; SE from non-overlapping blocks of windows), chosen on the train split's tail, scored on the
standard VALIDATION split (never TEST). Anchors alone."""
import sys, json, numpy as np, torch
from tsattn.datasets import load_forecasting, forecasting_splits
from tsattn.estimators import anchors
from tsattn.io import hold_out_tail, seasonal_period
from tsattn.datasets.forecasting import sliding_windows
from tsattn.nn.forecasting import LinearAnchor
ORDER = ["last", "nlinear", "linear", "ncycle", "cycle"]  # simplest first
ds = sys.argv[1]; ctx = 36 if ds == "illness" else 96
H = [24, 36, 48, 60] if ds == "illness" else [96, 192, 336, 720]
df = load_forecasting(ds); sp = forecasting_splits(df, ds, ctx)
period = seasonal_period(df.index)
train_all = sp.scaled("train"); val_outer = sp.scaled("val")
for h in H:
    tr, va = hold_out_tail(train_all, 0.1, ctx, h)
    mu, sd = tr.mean(0), tr.std(0); sd[sd == 0] = 1
    tr_z, va_z, vo_z = (tr - mu) / sd, (va - mu) / sd, (val_outer - mu) / sd
    per = period if len(tr) >= 2 * period else 1
    names = [n for n in ORDER if per > 1 or "cycle" not in n]
    def fit(name, series):
        if name == "last":
            return anchors.last_value_anchor(ctx, h) + (None,)
        starts = np.arange(len(series) - ctx - h + 1); cyc = None; s = series
        if name.endswith("cycle"):
            cyc = anchors.cycle_profile(series, per); s = series - cyc[np.arange(len(series)) % per]
        return anchors.fit_linear_anchor(s, starts, ctx, h, np.random.default_rng(0), relative=name.startswith("n")) + (cyc,)
    def errs(params, series):
        w, b, cyc = params
        m = LinearAnchor(ctx, h, series.shape[1], per).double()
        with torch.no_grad():
            m.set(w, b, cyc)
            c, t = sliding_windows(series, ctx, h)
            p = m(torch.as_tensor(np.array(c))).numpy()
        return ((p - np.array(t)) ** 2).mean(axis=(1, 2))  # per window
    res = {}
    for name in names:
        prm = fit(name, tr_z)
        res[name] = (errs(prm, va_z), float(errs(prm, vo_z).mean()))
    tail = {n: r[0].mean() for n, r in res.items()}
    best = min(tail, key=tail.get)
    n = len(res[best][0]); blk = max(1, min(h, n // 10))
    def se(n1):  # SE of the paired difference n1 - best, block means
        d = res[n1][0] - res[best][0]; k = len(d) // blk
        if k < 2: return np.inf
        bm = d[: k * blk].reshape(k, blk).mean(1); return bm.std(ddof=1) / np.sqrt(k)
    one = next(nm for nm in names if tail[nm] - tail[best] <= se(nm))
    print(json.dumps(dict(ds=ds, h=h, nblocks=n // blk, argmin=best, argmin_val=round(res[best][1], 4), onese=one,
                          onese_val=round(res[one][1], 4), val={k: round(v[1], 4) for k, v in res.items()},
                          tail={k: round(float(v), 4) for k, v in tail.items()})), flush=True)
