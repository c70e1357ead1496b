"""Would the refitted anchor forecast better with recent windows weighted more? Anchors alone, chosen
as the estimator chooses (on the last 10% of the train split, fitted on the rest), refitted on the
whole train split with each window's row weighted ``exp(-age / (tau * T))`` (age: rows from the
window's end to the split's end, T the split's rows; ``tau=inf``: today's equal weights), scored on
the standard VALIDATION split (never TEST). ``python3 recency.py DATASET``."""
import json
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/anchor_choice")
from _common import by_horizon, ridge_rows, score, setup, wins  # noqa: E402

from tsattn.estimators import anchors  # noqa: E402

TAUS = [np.inf, 2.0, 1.0, 0.5, 0.25, 0.125, 0.0625]


def wridge(X, Y, wt, lam):
    """Weighted ridge: rows weighted ``wt`` (mean 1), penalty ``lam`` per row on the lags."""
    X1 = np.concatenate([X, np.ones((len(X), 1))], 1)
    pen = np.full(X1.shape[1], lam * len(X))
    pen[-1] = 0
    Xw = X1 * wt[:, None]
    return np.linalg.solve(Xw.T @ X1 + np.diag(pen), Xw.T @ Y)


ds, ctx, H, P, full, vo = setup()
means = {t: [] for t in TAUS}
for h, tr, (st, wt), evals in by_horizon(full, vo, ctx, H):
    sf, wf = wins(full, ctx, h, 0)
    if len(wf) > 20000:
        k = np.random.default_rng(0).choice(len(wf), 20000, replace=False)
        sf, wf = sf[k], wf[k]
    tails = {}
    for name in ["last", "linear", "nlinear"] + (["cycle", "ncycle"] if P > 1 else []):
        cyc, rel = "cycle" in name, name.startswith("n")
        Q = anchors.cycle_profile(tr, P) if cyc else None
        prof = (lambda s, Q=Q, h=h: Q[(s[:, None] + np.arange(ctx + h)) % P]) if cyc else (lambda s: 0)
        lam = anchors.RIDGE_LEVEL_FREE if rel else anchors.RIDGE
        R = None if name == "last" else ridge_rows(wt, st, prof, rel, ctx, h)
        coef = None if R is None else wridge(R[:, :ctx], R[:, ctx:], np.ones(len(R)), lam)
        tails[name] = score(name, coef, evals, prof, cyc, rel, ctx, h)["tail"]
    pick = min(tails, key=tails.get)
    cyc, rel = "cycle" in pick, pick.startswith("n")
    lam = anchors.RIDGE_LEVEL_FREE if rel else anchors.RIDGE
    out = {}
    for tau in TAUS:
        age = len(full) - (sf + ctx + h)
        w = np.exp(-age / (tau * len(full)))
        w = w / w.mean()
        Q = anchors.cycle_profile(full, P) if cyc else None
        prof = (lambda s, Q=Q, h=h: Q[(s[:, None] + np.arange(ctx + h)) % P]) if cyc else (lambda s: 0)
        R = None if pick == "last" else ridge_rows(wf, sf, prof, rel, ctx, h)
        coef = None if R is None else wridge(R[:, :ctx], R[:, ctx:], np.repeat(w, full.shape[1]), lam)
        out[tau] = score(pick, coef, {"val": evals["val"]}, prof, cyc, rel, ctx, h)["val"]
        means[tau].append(out[tau])
    print(json.dumps(dict(ds=ds, h=h, pick=pick, **{f"tau={t:g}": round(v, 4) for t, v in out.items()})),
          flush=True)
print(json.dumps(dict(ds=ds, **{f"geomean tau={t:g}": round(float(np.exp(np.mean(np.log(np.array(means[t])
      / np.array(means[np.inf]))))), 4) for t in TAUS})))
