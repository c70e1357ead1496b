"""Would the anchor forecast better refitted, after the choice, on every training row, its
validation tail included? Anchors alone: chosen as the estimator chooses (lowest error on the last
10% of the train split, fitted on the rest, today's penalties), then scored on the standard
VALIDATION split (never TEST) as fitted on the first 90% (``today``) and refitted on the whole
train split, the seasonal profile included (``refit``). One JSON line per horizon, then the set's
means. ``python3 refit.py DATASET`` with ``TSATTN_DATA_DIR`` pointing at the forecasting sets."""
import json
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/anchor_choice")
from _common import by_horizon, ridge, ridge_rows, score, setup, wins  # noqa: E402

from tsattn.estimators import anchors  # noqa: E402

ds, ctx, H, P, full, vo = setup()
out = {"today": [], "refit": []}
for h, tr, (st, wt), evals in by_horizon(full, vo, ctx, H):
    sf, wf = wins(full, ctx, h, 0)  # every window of the whole train split
    if len(wf) > 20000:
        k = np.random.default_rng(0).choice(len(wf), 20000, replace=False)
        sf, wf = sf[k], wf[k]
    row = {}
    fits = {}
    for name in ["last", "linear", "nlinear"] + (["cycle", "ncycle"] if P > 1 else []):
        cyc, rel = "cycle" in name, name.startswith("n")
        lam = anchors.RIDGE_LEVEL_FREE if rel else anchors.RIDGE
        res = {}
        for part, rows, (s, w) in (("today", tr, (st, wt)), ("refit", full, (sf, wf))):
            Q = anchors.cycle_profile(rows, P) if cyc else None
            prof = (lambda s, Q=Q, h=h: Q[(s[:, None] + np.arange(ctx + h)) % P]) if cyc else (lambda s: 0)
            R = ridge_rows(w, s, prof, rel, ctx, h) if name != "last" else None
            coef = None if R is None else ridge(R[:, :ctx], R[:, ctx:], lam)
            res[part] = score(name, coef, evals, prof, cyc, rel, ctx, h)
        fits[name] = res
    pick = min(fits, key=lambda n: fits[n]["today"]["tail"])
    for part in out:
        out[part].append(fits[pick][part]["val"])
    print(json.dumps(dict(ds=ds, h=h, pick=pick, today=round(fits[pick]["today"]["val"], 4),
                          refit=round(fits[pick]["refit"]["val"], 4),
                          ratio=round(fits[pick]["refit"]["val"] / fits[pick]["today"]["val"], 4),
                          every={n: [round(r["today"]["val"], 4), round(r["refit"]["val"], 4)]
                                 for n, r in fits.items()})), flush=True)
g = np.exp(np.mean(np.log(np.array(out["refit"]) / np.array(out["today"]))))
print(json.dumps(dict(ds=ds, geomean_ratio=round(float(g), 4))))
