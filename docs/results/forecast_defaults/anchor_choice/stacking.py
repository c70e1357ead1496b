"""Anchors alone: the one chosen on the train split's tail (today) vs a stack of all of them with
non-negative weights summing to one fitted on that tail; scored on the standard VALIDATION split."""
import sys, json, numpy as np
from scipy.optimize import nnls
from tsattn.estimators import anchors
from _common import by_horizon, predict, setup, ridge, ridge_rows
ds, ctx, H, P, full, vo = setup()
acc = []
for h, tr, (st, wt), evals in by_horizon(full, vo, ctx, H):
    Q = anchors.cycle_profile(tr, P)
    preds = {"tail": {}, "val": {}}
    names = ["last", "linear", "nlinear"] + (["cycle", "ncycle"] if P > 1 else [])
    for name in names:
        cyc, rel = "cycle" in name, name.startswith("n")
        prof = lambda s: Q[(s[:, None] + np.arange(ctx + h)) % P] if cyc else 0
        if name != "last":
            R = ridge_rows(wt, st, prof, rel, ctx, h); coef = ridge(R[:, :ctx], R[:, ctx:])
        for ev, (s, w) in evals.items():
            p = predict(name, None if name == "last" else coef, w, s, prof, cyc, rel, ctx, h)
            preds[ev][name] = p
    tt, tv = evals["tail"][1][:, ctx:], evals["val"][1][:, ctx:]
    mse = lambda p, t: float(np.mean((p - t) ** 2))
    best = min(names, key=lambda n: mse(preds["tail"][n], tt))
    # simplex weights via nnls on augmented system (sum-to-one by a heavy row)
    X = np.stack([preds["tail"][n].ravel() for n in names], 1); y = tt.ravel()
    big = 1e3 * np.sqrt(len(y)); Xa = np.vstack([X, big * np.ones((1, len(names)))]); ya = np.append(y, big)
    wts, _ = nnls(Xa, ya)
    stack_val = mse(sum(w * preds["val"][n] for w, n in zip(wts, names)), tv)
    acc.append((mse(preds["val"][best], tv), stack_val))
    print(json.dumps(dict(ds=ds, h=h, choice=best, choice_val=round(acc[-1][0], 4), stack_val=round(stack_val, 4),
                          weights={n: round(float(w), 2) for n, w in zip(names, wts)})), flush=True)
print(json.dumps(dict(ds=ds, mean_choice=round(np.mean([a for a, _ in acc]), 4), mean_stack=round(np.mean([b for _, b in acc]), 4))))
