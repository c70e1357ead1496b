"""Would a stronger ridge penalty on the anchors' lag weights help, fixed or chosen on the tail?
Choice on the train split's tail (anchors alone, as the estimator's own tail), score of the chosen
anchor on the standard VALIDATION split (never TEST). Penalty per row: today's 1e-3 and larger, on
every ridge (``lam=``) or on the level-free ones only (``free=``, whose shrinkage target is the last
value), or chosen with the anchor on the tail (``joint``)."""
import sys, json, numpy as np
from tsattn.estimators import anchors
from _common import by_horizon, setup, ridge, ridge_rows, score
ds, ctx, H, P, full, vo = setup()
LAMS = [1e-3, 1e-2, 1e-1, 1.0, 10.0]
RULES = ["today"] + [f"{k}={l:g}" for k in ("lam", "free") for l in LAMS[1:]] + ["joint"]
rules = {r: [] for r in RULES}
for h, tr, (st, wt), evals in by_horizon(full, vo, ctx, H):
    Q = anchors.cycle_profile(tr, P)
    scores = {}
    for name in ["last", "linear", "nlinear"] + (["cycle", "ncycle"] if P > 1 else []):
        cyc, rel = "cycle" in name, name.startswith("n")
        prof = lambda s: Q[(s[:, None] + np.arange(ctx + h)) % P] if cyc else 0
        R = ridge_rows(wt, st, prof, rel, ctx, h)
        for lam in ([None] if name == "last" else LAMS):
            coef = None if lam is None else ridge(R[:, :ctx], R[:, ctx:], lam)
            sc = score(name, coef, evals, prof, cyc, rel, ctx, h)
            scores[(name, lam)] = sc
    pick = lambda c: min(c, key=lambda n: scores[n]["tail"])
    at = lambda lam: [k for k in scores if k[1] in (None, lam)]
    free = lambda lam: [k for k in scores if k[1] in (None, lam if k[0].startswith("n") else 1e-3)]
    picks = {"today": pick(at(1e-3)), **{f"lam={l:g}": pick(at(l)) for l in LAMS[1:]},
             **{f"free={l:g}": pick(free(l)) for l in LAMS[1:]}, "joint": pick(list(scores))}
    for r, k in picks.items():
        rules[r].append(scores[k]["val"])
    print(json.dumps(dict(ds=ds, h=h, **{r: [k[0], k[1], round(scores[k]["val"], 4)] for r, k in picks.items()},
                          oracle=list(min(scores, key=lambda n: scores[n]["val"])))), flush=True)
print(json.dumps(dict(ds=ds, **{f"mean_{r}": round(float(np.mean(v)), 4) for r, v in rules.items()})))
