"""Would seasonal anchors on a longer season help, a week (168 rows) of the hourly ETT sets, 672 of
ETTm1's quarter-hours, a year (52 weeks, today's) of ILI, 4 weeks (28 days) of Exchange, as
more 'auto' candidates beside today's daily/weekly ones? Choice on the train split's tail (anchors
alone, as the estimator's own tail), score of the chosen anchor on the standard VALIDATION split."""
import sys, json, numpy as np
from tsattn.estimators import anchors
from _common import by_horizon, setup, ridge, ridge_rows, score
ds, ctx, H, P, full, vo = setup()
LONG = {24: 168, 96: 672, 7: 28, 52: 52}[P]
tot = {"today": [], "long": []}
for h, tr, (st, wt), evals in by_horizon(full, vo, ctx, H):
    scores = {}
    for name, period in [("last", 0), ("linear", 0), ("nlinear", 0), ("cycle", P), ("ncycle", P),
                         ("cycle", LONG), ("ncycle", LONG)]:
        if 2 * period > len(tr):
            continue
        Q = anchors.cycle_profile(tr, period) if period else None
        rel = name.startswith("n")
        prof = lambda s: Q[(s[:, None] + np.arange(ctx + h)) % period] if period else 0
        R = ridge_rows(wt, st, prof, rel, ctx, h)
        coef = None if name == "last" else ridge(R[:, :ctx], R[:, ctx:])
        sc = score(name, coef, evals, prof, bool(period), rel, ctx, h)
        scores[f"{name}{period or ''}"] = sc
    pick = lambda c: min(c, key=lambda n: scores[n]["tail"])
    today = [n for n in scores if not n.endswith(str(LONG)) or LONG == P]
    a, b = pick(today), pick(list(scores))
    tot["today"].append(scores[a]["val"]); tot["long"].append(scores[b]["val"])
    print(json.dumps(dict(ds=ds, h=h, today=a, today_val=round(scores[a]["val"], 4), long=b,
                          long_val=round(scores[b]["val"], 4), oracle=min(scores, key=lambda n: scores[n]["val"]),
                          scores={n: round(v["val"], 4) for n, v in scores.items()})), flush=True)
print(json.dumps(dict(ds=ds, mean_today=round(float(np.mean(tot["today"])), 4), mean_long=round(float(np.mean(tot["long"])), 4))))
