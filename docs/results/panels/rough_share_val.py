"""A lead scored afterwards, not built: the own-scale series' share of the network per third of
their roughness, on M4 Hourly validation fits saved by ``m4_val.py``'s ``"save"`` (today's
default, a share per scale). For each saved fit (``<name>.npz`` beside its printed JSON line in
``<name>.json``, the directory layout ``.../npz/<name>.npz`` and ``.../<name>.json``), the
own-scale series are split into thirds by ``d`` (the mean absolute 24-step difference of their
fitted rows over their standard deviation) and each third's share is fitted on the series'
backtest window (``bt_*``: one horizon; squared errors weighted by ``1 / MASE scale``); the
log scale's series keep ``log_blend_``. Prints the OWA (against the split's Naive2) of the blend
with the two fitted shares and with the thirds', and of each after the per-series choice
(:mod:`tsattn.estimators._series_choice`'s rule, replayed: the seasonal naive, the anchor or the
last value where its backtest error is below half the blend's).

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python3 docs/results/panels/rough_share_val.py npz/share_H_o1_s0.npz ...
"""

import json
import sys
from pathlib import Path

import numpy as np

from tsattn import TSForecaster
from tsattn.benchmarks.m4_scores import mase_scale, naive2, smape
from tsattn.datasets import load_m4

H, M = 48, 24
SWITCH_RATIO = 0.5  # the per-series choice's ratio (tsattn.estimators._series_choice)
train = load_m4("Hourly")
LOG = {}


def log_series(origin, fit):
    """The fitted series the default reads on the log scale (``log_series_``), from a fit of one
    optimiser step on the same rows: the rule looks at the data only."""
    if origin not in LOG:
        model = TSForecaster(horizon=H, period=M, max_steps=1, random_state=0, n_threads=1).fit(fit)
        LOG[origin] = np.asarray(model.log_series_, dtype=bool)
    return LOG[origin]


def split(origin):
    rows = train if origin == 1 else train.drop(train.groupby("unique_id").tail((origin - 1) * H).index)
    held = rows.groupby("unique_id").tail(H)
    fit = rows.drop(held.index).reset_index(drop=True)
    return [g.y.to_numpy() for _, g in fit.groupby("unique_id")], held.y.to_numpy().reshape(-1, H), fit


def share_fit(net, anc, truth, w):
    diff = net - anc
    return float(np.clip((w[:, None] * diff * (truth - anc)).sum() / (w[:, None] * diff * diff).sum(), 0, 1))


def score(path: Path) -> dict:
    d = np.load(path)
    js = json.loads((path.parent.parent / f"{path.stem}.json").read_text())
    origin = int(js["kw"].get("origin", 1))
    rows, truth, fit = split(origin)
    scale = np.array([mase_scale(r, M) for r in rows])
    n2 = np.stack([naive2(r, H, M) for r in rows])
    n2s, n2m = float(np.mean(smape(truth, n2))), float(np.mean(np.mean(np.abs(truth - n2), axis=1) / scale))

    def owa(f):
        return 0.5 * (float(np.mean(smape(truth, f))) / n2s + float(np.mean(np.mean(np.abs(truth - f), axis=1) / scale)) / n2m)

    log = log_series(origin, fit)
    lg = log[:, None]
    space = lambda f: np.where(lg, np.log(np.maximum(f, 1e-300)), f)  # noqa: E731
    back = lambda f: np.where(lg, np.exp(np.minimum(f, 700)), f)  # noqa: E731
    net, anc, bt, bn, ba = (d[k] for k in ("network", "anchor", "bt_truth", "bt_network", "bt_anchor"))
    low, bt_low = (np.array([r.min() for r in rows])[:, None], np.array([r[:-H].min() for r in rows])[:, None])
    last = lambda v: np.repeat(np.array([r[-1] for r in v])[:, None], H, 1)  # noqa: E731
    cands = [d["snaive24"], np.maximum(anc, low), last(rows)]
    bt_cands = [np.maximum(d["bt_snaive24"], bt_low), np.maximum(ba, bt_low), np.maximum(last([r[:-H] for r in rows]), bt_low)]
    err = lambda f: np.mean(np.abs(space(bt) - space(f)), axis=1)  # noqa: E731
    errors = np.stack([err(c) for c in bt_cands])
    best, arg = errors.min(0), errors.argmin(0)

    def forecasts(share):
        mix = lambda n, a: np.maximum(back(share * space(n) + (1 - share) * space(a)), 0)  # noqa: E731
        blend, bt_blend = np.maximum(mix(net, anc), low), np.maximum(mix(bn, ba), bt_low)
        pick = best < SWITCH_RATIO * err(bt_blend)
        return blend, np.where(pick[:, None], np.stack(cands)[arg, np.arange(len(rows))], blend)

    two = np.where(log, js["log_blend"], js["blend"])[:, None]
    rough = np.array([np.mean(np.abs(r[M:] - r[:-M])) / r.std() for r in rows])
    third = np.digitize(rough, np.quantile(rough[~log], [1 / 3, 2 / 3]))
    thirds = two.copy()
    for g in range(3):
        m = ~log & (third == g)
        thirds[m] = share_fit(bn[m], ba[m], bt[m], 1 / scale[m])
    (b2, c2), (b3, c3) = forecasts(two), forecasts(thirds)
    return dict(fit=path.stem, origin=origin, seed=js["kw"]["random_state"],
                thirds_shares=[round(float(thirds[~log & (third == g)][0, 0]), 3) for g in range(3)],
                blend_two=round(owa(b2), 4), blend_thirds=round(owa(b3), 4),
                chosen_two=round(owa(c2), 4), chosen_saved=round(owa(d["forecast"]), 4),
                chosen_thirds=round(owa(c3), 4))


for name in sys.argv[1:]:
    print(json.dumps(score(Path(name))))
