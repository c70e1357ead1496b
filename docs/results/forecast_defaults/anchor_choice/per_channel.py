"""Would per-channel ridges as extra 'auto' candidates help? Choice on the train split's tail
(anchors alone, as the estimator's own tail), score of the chosen anchor on the standard
VALIDATION split (never TEST); today's five candidates vs those plus four per-channel ridges."""
import sys, json, numpy as np
from tsattn.estimators import _anchor
from _common import setup, ridge, split
ds, ctx, H, P, full, vo = setup()
tot = {"today": [], "perch": []}
for h in H:
    parts = split(full, vo, ctx, h)
    if parts is None:
        continue  # no tail (Exchange h720): the estimator uses the 'linear' ridge there
    tr, (st, wt), evals = parts
    Q = _anchor.cycle_profile(tr, P)
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
