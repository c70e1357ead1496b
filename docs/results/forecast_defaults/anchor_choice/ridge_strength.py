"""Would a stronger ridge penalty on the anchors' lag weights help, fixed or chosen on the tail?
Choice on the train split's tail (anchors alone, as the estimator's own tail), score of the chosen
anchor on the standard VALIDATION split (never TEST). Penalty per row: today's 1e-3 and larger."""
import sys, json, numpy as np
from tsattn.datasets import load_forecasting, forecasting_splits
from tsattn.estimators import _anchor
from tsattn.estimators._series import seasonal_period, hold_out_tail
ds = sys.argv[1]; ctx = 36 if ds == "illness" else 96
H = [24, 36, 48, 60] if ds == "illness" else [96, 192, 336, 720]
LAMS = [1e-3, 1e-2, 1e-1, 1.0]
df = load_forecasting(ds); sp = forecasting_splits(df, ds, ctx)
P = seasonal_period(df.index); full = sp.scaled("train"); vo = sp.scaled("val")
def ridge(X, Y, lam):
    X1 = np.concatenate([X, np.ones((len(X), 1))], 1); pen = np.full(X1.shape[1], lam * len(X)); pen[-1] = 0
    return np.linalg.solve(X1.T @ X1 + np.diag(pen), X1.T @ Y)
def wins(series, h, off):
    st = np.arange(len(series) - ctx - h + 1); return st + off, series[st[:, None] + np.arange(ctx + h)]
rules = {"today": [], **{f"lam={l:g}": [] for l in LAMS[1:]}, "joint": []}
for h in H:
    tr, tail = hold_out_tail(full, 0.1, ctx, h)
    if tail is None:
        continue  # no tail (Exchange h720): the estimator uses the 'linear' ridge there
    Q = _anchor.cycle_profile(tr, P)
    st, wt = wins(tr, h, 0)
    if len(wt) > 20000: k = np.random.default_rng(0).choice(len(wt), 20000, replace=False); st, wt = st[k], wt[k]
    evals = {"tail": wins(tail, h, len(tr) - ctx), "val": wins(vo, h, len(full) - ctx)}
    scores = {}
    for name in ["last", "linear", "nlinear"] + (["cycle", "ncycle"] if P > 1 else []):
        cyc, rel = "cycle" in name, name.startswith("n")
        prof = lambda s: Q[(s[:, None] + np.arange(ctx + h)) % P] if cyc else 0
        A = wt - prof(st); ma = A[:, ctx - 1:ctx] if rel else 0; An = A - ma
        R = An.transpose(0, 2, 1).reshape(-1, ctx + h)
        for lam in ([None] if name == "last" else LAMS):
            coef = None if lam is None else ridge(R[:, :ctx], R[:, ctx:], lam)
            sc = {}
            for ev, (s, w) in evals.items():
                B = w - prof(s); mb = B[:, ctx - 1:ctx] if (rel or name == "last") else 0; Bn = B - mb
                if name == "last":
                    pred = np.repeat(w[:, ctx - 1:ctx], h, 1)
                else:
                    pred = np.stack([np.concatenate([Bn[:, :ctx, c], np.ones((len(Bn), 1))], 1) @ coef
                                     for c in range(w.shape[2])], -1) + mb + (prof(s)[:, ctx:] if cyc else 0)
                sc[ev] = float(np.mean((pred - w[:, ctx:]) ** 2))
            scores[(name, lam)] = sc
    pick = lambda c: min(c, key=lambda n: scores[n]["tail"])
    at = lambda lam: [k for k in scores if k[1] in (None, lam)]
    picks = {"today": pick(at(1e-3)), **{f"lam={l:g}": pick(at(l)) for l in LAMS[1:]}, "joint": pick(list(scores))}
    for r, k in picks.items():
        rules[r].append(scores[k]["val"])
    print(json.dumps(dict(ds=ds, h=h, **{r: [k[0], k[1], round(scores[k]["val"], 4)] for r, k in picks.items()},
                          oracle=list(min(scores, key=lambda n: scores[n]["val"])))), flush=True)
print(json.dumps(dict(ds=ds, **{f"mean_{r}": round(float(np.mean(v)), 4) for r, v in rules.items()})))
