"""How to scale the forecast errors that calibrate TSForecaster's intervals, chosen on VALIDATION.

The intervals are split conformal: errors on held-out windows, divided by a per-window scale,
give a quantile table per horizon step; a new window's interval is its forecast plus its own
scale times those quantiles (``tsattn/estimators/intervals.py``). Two scales are compared:

* ``level``: the context's standard deviation over time (the scale before this study);
* ``diff``: the standard deviation of the context's one-step changes (its local volatility),
  which for a random walk such as Exchange does not grow with a trend inside the window.

Protocol (as the estimator's fit on the train split): the level-free ridge anchor (``nlinear``)
fitted on the first 90% of the train split is the point forecast; its errors on the train split's
last 10% (the estimator's own tail) calibrate; coverage, width and pinball loss are measured on
the VALIDATION split. TEST is printed for information only and chooses nothing. Exchange h720 has
no tail (as in ``../anchor_choice``) and is skipped.

``python3 intervals.py DATASET`` with ``TSATTN_DATA_DIR`` pointing at the forecasting sets.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "anchor_choice"))
from _common import by_horizon, predict, ridge, ridge_rows, setup, wins  # noqa: E402

from tsattn.datasets import forecasting_splits, load_forecasting  # noqa: E402
from tsattn.estimators.intervals import LEVELS  # noqa: E402

LEVEL_FREE_PENALTY = 1.0  # the estimator's RIDGE_LEVEL_FREE


def scale(contexts, kind, floor):
    """``(n, 1, C)`` per-window scale of ``contexts (n, L, C)``."""
    if kind == "level":
        s = contexts.std(axis=1, ddof=1, keepdims=True)
    else:
        s = np.diff(contexts, axis=1).std(axis=1, ddof=1, keepdims=True)
    return np.sqrt(s**2 + floor**2)


def normalised(contexts, forecasts, targets, kind, floor=None):
    """``(errors (n, h, C) / scale, floor)``."""
    if floor is None:
        floor = max(0.1 * float(np.median(scale(contexts, kind, 0.0))), 1e-8)
    return (targets - forecasts) / scale(contexts, kind, floor), floor


def table_of(errs):
    pooled = np.concatenate([e.transpose(1, 0, 2).reshape(e.shape[1], -1) for e in errs], axis=1)
    return np.quantile(pooled, LEVELS, axis=1)


def crossfit(tr, ctx, h, folds=5, fit_windows=20000, kept=32768):
    """Out-of-fold windows of the training rows ``tr``: the ridge fitted on the windows that read
    none of a block's rows (at most ``fit_windows`` of them) forecasts at most ``kept // C //
    folds`` of the block's windows (the estimator keeps ``MAX_VALID_SAMPLES // C`` in all);
    ``(contexts, forecasts, targets)``."""
    rng = np.random.default_rng(0)
    st = np.arange(len(tr) - ctx - h + 1)
    block = np.minimum((np.arange(len(st)) * folds) // len(st), folds - 1)
    per_block = max(1, kept // tr.shape[1] // folds)
    take = lambda s: tr[s[:, None] + np.arange(ctx + h)]  # noqa: E731
    out = []
    for b in range(folds):
        inside = st[block == b]
        lo, hi = inside.min(), inside.max() + ctx + h  # rows the block's windows use
        train = st[(st + ctx + h <= lo) | (st >= hi)]
        if len(train) < 2 * ctx:
            continue
        if len(train) > fit_windows:
            train = np.sort(rng.choice(train, fit_windows, replace=False))
        rows = ridge_rows(take(train), train, lambda s: 0.0, True, ctx, h)
        coef = ridge(rows[:, :ctx], rows[:, ctx:], LEVEL_FREE_PENALTY)
        if len(inside) > per_block:
            inside = np.sort(rng.choice(inside, per_block, replace=False))
        w = take(inside)
        f = predict("nlinear", coef, w, inside, lambda s: 0.0, False, True, ctx, h)
        out.append((w[:, :ctx], f, w[:, ctx:]))
    return [np.concatenate(x) for x in zip(*out)]


def interval(table, floor, contexts, forecasts, kind, coverage):
    lo_q, hi_q = (1 - coverage) / 2, (1 + coverage) / 2
    lo = np.stack([np.interp(lo_q, LEVELS, table[:, k]) for k in range(table.shape[1])])
    hi = np.stack([np.interp(hi_q, LEVELS, table[:, k]) for k in range(table.shape[1])])
    s = scale(contexts, kind, floor)
    return forecasts + s * lo[None, :, None], forecasts + s * hi[None, :, None]


def scores(lo, hi, y, coverage):
    q = (1 - coverage) / 2
    pin = (np.maximum(q * (y - lo), (q - 1) * (y - lo)) + np.maximum((1 - q) * (y - hi), -q * (y - hi))) / 2
    return float(np.mean((y >= lo) & (y <= hi))), float(np.mean(hi - lo)), float(np.mean(pin))


def main():
    ds, ctx, horizons, _, full, vo = setup()
    sp = forecasting_splits(load_forecasting(ds), ds, ctx)
    test = sp.scaled("test")
    for h, tr, (st, wt), ev in by_horizon(full, vo, ctx, horizons):
        rows = ridge_rows(wt, st, lambda s: 0.0, True, ctx, h)
        coef = ridge(rows[:, :ctx], rows[:, ctx:], LEVEL_FREE_PENALTY)
        parts = {"tail": ev["tail"][1], "val": ev["val"][1], "test": wins(test, ctx, h, 0)[1]}
        fc = {k: predict("nlinear", coef, w, np.zeros(len(w), int), lambda s: 0.0, False, True, ctx, h)
              for k, w in parts.items()}
        cf = crossfit(tr, ctx, h)
        for kind, source in (("level", "tail"), ("diff", "tail"), ("level", "tail+crossfit"),
                             ("diff", "tail+crossfit")):
            err, floor = normalised(parts["tail"][:, :ctx], fc["tail"], parts["tail"][:, ctx:], kind)
            errs = [err]
            if source == "tail+crossfit":
                errs.append(normalised(*cf, kind, floor)[0])
            table = table_of(errs)
            out = [ds, h, kind, source]
            for split in ("val", "test"):
                w = parts[split]
                for cov in (0.8, 0.95):
                    lo, hi = interval(table, floor, w[:, :ctx], fc[split], kind, cov)
                    c, width, pin = scores(lo, hi, w[:, ctx:], cov)
                    out += [f"{split}{round(cov * 100)} cov {c:.3f} width {width:.3f} pinball {pin:.4f}"]
            print(" | ".join(map(str, out)), flush=True)


if __name__ == "__main__":
    main()
