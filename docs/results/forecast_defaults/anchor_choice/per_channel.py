"""Would per-channel ridges as extra 'auto' candidates help? Choice on the train split's tail
(anchors alone, as the estimator's own tail), score of the chosen anchor on the standard
VALIDATION split (never TEST); today's five candidates vs those plus four per-channel ridges."""
import sys, json, numpy as np
from tsattn.datasets import load_forecasting, forecasting_splits
from tsattn.estimators import _anchor
from tsattn.estimators._series import seasonal_period, hold_out_tail
ds = sys.argv[1]; ctx = 36 if ds == "illness" else 96
H = [24, 36, 48, 60] if ds == "illness" else [96, 192, 336, 720]
df = load_forecasting(ds); sp = forecasting_splits(df, ds, ctx)
P = seasonal_period(df.index); full = sp.scaled("train"); vo = sp.scaled("val")
def ridge(X, Y, lam=1e-3):
    X1 = np.concatenate([X, np.ones((len(X), 1))], 1); pen = np.full(X1.shape[1], lam * len(X)); pen[-1] = 0
    return np.linalg.solve(X1.T @ X1 + np.diag(pen), X1.T @ Y)
def wins(series, h, off):
    st = np.arange(len(series) - ctx - h + 1); return st + off, series[st[:, None] + np.arange(ctx + h)]
tot = {"today": [], "perch": []}
for h in H:
    tr, tail = hold_out_tail(full, 0.1, ctx, h)
    Q = _anchor.cycle_profile(tr, P)
    st, wt = wins(tr, h, 0)
    if len(wt) > 20000: k = np.random.default_rng(0).choice(len(wt), 20000, replace=False); st, wt = st[k], wt[k]
    evals = {"tail": wins(tail, h, len(tr) - ctx), "val": wins(vo, h, len(full) - ctx)}
    scores = {}
    for name in ["last", "linear", "nlinear", "cycle", "ncycle"]:
        for per in (False, True):
            if name == "last" and per: continue
            cyc, rel = "cycle" in name, name.startswith("n")
            prof = lambda s: Q[(s[:, None] + np.arange(ctx + h)) % P] if cyc else 0
            A = wt - prof(st); ma = A[:, ctx - 1:ctx] if rel else 0; An = A - ma
            if name != "last":
                coefs = ([ridge(An[:, :ctx, c], An[:, ctx:, c]) for c in range(wt.shape[2])] if per else
                         [ridge(*(lambda R: (R[:, :ctx], R[:, ctx:]))(An.transpose(0, 2, 1).reshape(-1, ctx + h)))] * wt.shape[2])
            sc = {}
            for ev, (s, w) in evals.items():
                B = w - prof(s); mb = B[:, ctx - 1:ctx] if (rel or name == "last") else 0; Bn = B - mb
                if name == "last":
                    pred = np.repeat(w[:, ctx - 1:ctx], h, 1)
                else:
                    pred = np.stack([np.concatenate([Bn[:, :ctx, c], np.ones((len(Bn), 1))], 1) @ coefs[c]
                                     for c in range(w.shape[2])], -1) + mb + (prof(s)[:, ctx:] if cyc else 0)
                sc[ev] = float(np.mean((pred - w[:, ctx:]) ** 2))
            scores[name + ("/perch" if per else "")] = sc
    today = [n for n in scores if "/perch" not in n and (P > 1 or "cycle" not in n)]
    allc = [n for n in scores if P > 1 or "cycle" not in n]
    pick = lambda c: min(c, key=lambda n: scores[n]["tail"])
    a, b = pick(today), pick(allc)
    tot["today"].append(scores[a]["val"]); tot["perch"].append(scores[b]["val"])
    print(json.dumps(dict(ds=ds, h=h, today=a, today_val=round(scores[a]["val"], 4), perch=b, perch_val=round(scores[b]["val"], 4),
                          oracle=min(allc, key=lambda n: scores[n]["val"]))), flush=True)
print(json.dumps(dict(ds=ds, mean_today=round(np.mean(tot["today"]), 4), mean_perch=round(np.mean(tot["perch"]), 4))))
