"""Set-up shared by this folder's numpy scripts (``per_channel``, ``stacking``, ``ridge_strength``,
``long_season``): anchors alone, fitted on the first 90% of the standard train split, chosen on its
last 10% (the estimator's own tail), scored on the standard VALIDATION split; never TEST.

``python3 <script>.py DATASET`` with ``TSATTN_DATA_DIR`` pointing at the forecasting sets."""
import sys

import numpy as np

from tsattn.datasets import forecasting_splits, load_forecasting
from tsattn.io import hold_out_tail, seasonal_period

#: Training windows kept at most (a fixed random subset above it).
MAX_WINDOWS = 20000


def setup():
    """``(dataset, context, horizons, period, train split, validation split)``, scaled by the
    train split's statistics, for the dataset named on the command line."""
    ds = sys.argv[1]
    ctx = 36 if ds == "illness" else 96
    horizons = [24, 36, 48, 60] if ds == "illness" else [96, 192, 336, 720]
    df = load_forecasting(ds)
    sp = forecasting_splits(df, ds, ctx)
    return ds, ctx, horizons, seasonal_period(df.index), sp.scaled("train"), sp.scaled("val")


def ridge(X, Y, lam=1e-3):
    """Ridge of ``Y`` on ``(X, 1)``, penalty ``lam`` per row on the weights, not the constant."""
    X1 = np.concatenate([X, np.ones((len(X), 1))], 1)
    pen = np.full(X1.shape[1], lam * len(X))
    pen[-1] = 0
    return np.linalg.solve(X1.T @ X1 + np.diag(pen), X1.T @ Y)


def wins(series, ctx, h, off):
    """``(starts + off, windows (n, ctx + h, C))``: every stride-1 window of ``series``."""
    st = np.arange(len(series) - ctx - h + 1)
    return st + off, series[st[:, None] + np.arange(ctx + h)]


def split(full, vo, ctx, h):
    """``(train rows, training windows, {"tail": ..., "val": ...} windows)`` at horizon ``h``, or
    None where the train split has no tail (Exchange at h720)."""
    tr, tail = hold_out_tail(full, 0.1, ctx, h)
    if tail is None:
        return None
    st, wt = wins(tr, ctx, h, 0)
    if len(wt) > MAX_WINDOWS:
        k = np.random.default_rng(0).choice(len(wt), MAX_WINDOWS, replace=False)
        st, wt = st[k], wt[k]
    return tr, (st, wt), {"tail": wins(tail, ctx, h, len(tr) - ctx), "val": wins(vo, ctx, h, len(full) - ctx)}


def ridge_rows(wt, st, prof, rel, ctx, h):
    """``(n * C, ctx + h)`` regression rows of the training windows ``wt`` (starts ``st``), less
    the seasonal profile ``prof(starts)`` (0 for none), less their last context value if ``rel``."""
    A = wt - prof(st)
    An = A - (A[:, ctx - 1:ctx] if rel else 0)
    return An.transpose(0, 2, 1).reshape(-1, ctx + h)


def by_horizon(full, vo, ctx, horizons):
    """``(h, train rows, (starts, training windows), evaluation windows)`` per horizon of
    :func:`split`, skipping those without a tail."""
    for h in horizons:
        parts = split(full, vo, ctx, h)
        if parts is not None:  # no tail (Exchange h720): the estimator uses the 'linear' ridge there
            yield (h, *parts)


def predict(name, coef, w, s, prof, seasonal, rel, ctx, h):
    """Forecasts ``(n, h, C)`` of anchor ``name`` for windows ``w`` (starts ``s``): ``"last"``, or
    the ridge ``coef`` (one for every channel, or a list of one per channel) on the windows less
    ``prof`` and, if ``rel``, their last value; the positions are known, so each window's phase
    comes from its row index, not from its values."""
    if name == "last":
        return np.repeat(w[:, ctx - 1:ctx], h, 1)
    B = w - prof(s); mb = B[:, ctx - 1:ctx] if rel else 0; Bn = B - mb
    coefs = coef if isinstance(coef, list) else [coef] * w.shape[2]
    return np.stack([np.concatenate([Bn[:, :ctx, c], np.ones((len(Bn), 1))], 1) @ coefs[c]
                     for c in range(w.shape[2])], -1) + mb + (prof(s)[:, ctx:] if seasonal else 0)


def score(name, coef, evals, prof, seasonal, rel, ctx, h):
    """``{"tail": mse, "val": mse}`` of :func:`predict` on the windows of ``evals``."""
    return {ev: float(np.mean((predict(name, coef, w, s, prof, seasonal, rel, ctx, h) - w[:, ctx:]) ** 2))
            for ev, (s, w) in evals.items()}
