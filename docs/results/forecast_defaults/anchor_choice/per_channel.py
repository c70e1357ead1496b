"""Would per-channel ridges as extra 'auto' candidates help? Choice on the train split's tail
(anchors alone, as the estimator's own tail), score of the chosen anchor on the standard
VALIDATION split (never TEST); today's five candidates vs those plus four per-channel ridges."""
import sys, json, numpy as np
from tsattn.estimators import anchors
from _common import by_horizon, setup, ridge, score
ds, ctx, H, P, full, vo = setup()
tot = {"today": [], "perch": []}
for h, tr, (st, wt), evals in by_horizon(full, vo, ctx, H):
    Q = anchors.cycle_profile(tr, P)
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
            sc = score(name, None if name == "last" else coefs, evals, prof, cyc, rel, ctx, h)
            scores[name + ("/perch" if per else "")] = sc
    today = [n for n in scores if "/perch" not in n and (P > 1 or "cycle" not in n)]
    allc = [n for n in scores if P > 1 or "cycle" not in n]
    pick = lambda c: min(c, key=lambda n: scores[n]["tail"])
    a, b = pick(today), pick(allc)
    tot["today"].append(scores[a]["val"]); tot["perch"].append(scores[b]["val"])
    print(json.dumps(dict(ds=ds, h=h, today=a, today_val=round(scores[a]["val"], 4), perch=b, perch_val=round(scores[b]["val"], 4),
                          oracle=min(allc, key=lambda n: scores[n]["val"]))), flush=True)
print(json.dumps(dict(ds=ds, mean_today=round(np.mean(tot["today"]), 4), mean_perch=round(np.mean(tot["perch"]), 4))))
