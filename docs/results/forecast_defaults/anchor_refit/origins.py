"""The refit and the recency weights judged at several forecast origins, not one: anchors alone,
on the rows before TEST only (train and validation splits, scaled by the train split). At each
origin ``o`` (a fraction of those rows) the estimator's protocol is replayed on the rows before
``o``: the anchor chosen on their last 10% (fitted on the rest), then fitted again per variant
(``none``: not refitted, equal weights; ``refit``; ``refit+tau``: refitted, weighted by recency),
and scored on the windows of the next ``E`` rows (``E``: the validation split's length), which
stay before TEST. ``python3 origins.py DATASET``."""
import json
import sys

import numpy as np

from tsattn.datasets import forecasting_splits, load_forecasting
from tsattn.estimators import anchors
from tsattn.io import hold_out_tail, seasonal_period

ds = sys.argv[1]
ctx = 36 if ds == "illness" else 96
H = [24, 48] if ds == "illness" else [96, 336]
df = load_forecasting(ds)
sp = forecasting_splits(df, ds, ctx)
tr, va = sp.scaled("train"), sp.scaled("val")
rows = np.concatenate([tr, va[ctx:]])  # every row before TEST
E = len(va) - ctx
P = seasonal_period(df.index)
FRACS = [0.45, 0.55, 0.65, len(tr) / len(rows)]  # the last: the standard validation split
VARIANTS = {"none": (False, None), "refit": (True, None), "refit+0.25": (True, 0.25),
            "refit+0.125": (True, 0.125)}
rng = np.random.default_rng(0)
names = ["last", "linear", "nlinear"] + (["cycle", "ncycle"] if P > 1 else [])


def windows(series, lo, hi, h):
    """Contexts and targets of the windows whose targets lie in rows [lo, hi)."""
    st = np.arange(max(lo - ctx, 0), hi - ctx - h + 1)
    w = series[st[:, None] + np.arange(ctx + h)]
    return w[:, :ctx], w[:, ctx:]


out = {v: [] for v in VARIANTS}
for h in H:
    for f in FRACS:
        o = int(round(f * len(rows)))
        past = rows[:o]
        fit_rows, tail = hold_out_tail(past, 0.1, ctx, h)
        if tail is None:
            continue
        tc, tt = windows(tail, ctx, len(tail), h)
        ec, et = windows(rows, o, min(o + E, len(rows)), h)
        res = {}
        for v, (refit, tau) in VARIANTS.items():
            st = np.arange(len(fit_rows) - ctx - h + 1)
            errs = {n: np.mean((anchors.fit_anchor(n, fit_rows, st, ctx, h, P, rng, tau).forecast(tc) - tt) ** 2)
                    for n in names}
            pick = min(errs, key=errs.get)
            final = fit_rows if not refit else past
            fit = anchors.fit_anchor(pick, final, np.arange(len(final) - ctx - h + 1), ctx, h, P, rng, tau)
            res[v] = (pick, float(np.mean((fit.forecast(ec) - et) ** 2)))
            out[v].append(res[v][1])
        print(json.dumps(dict(ds=ds, h=h, origin=round(f, 3), **{v: [p, round(m, 4)] for v, (p, m) in res.items()})),
              flush=True)
base = np.array(out["none"])
print(json.dumps(dict(ds=ds, **{f"geomean {v}": round(float(np.exp(np.mean(np.log(np.array(m) / base)))), 4)
                                for v, m in out.items()},
                      **{f"worst {v}": round(float(np.max(np.array(m) / base)), 4) for v, m in out.items()})))
