"""How to weigh the two sources of TSForecaster's calibration errors, chosen on VALIDATION.

Today (``tsattn/estimators/intervals.py``) the normalised errors of the forecast on the
validation windows are pooled with out-of-fold errors of the level-free ridge over the whole
training period, one value each. Where the validation windows are few (ILI, Exchange at long
horizons, short series) the ridge's errors outnumber the forecast's and set the width, wider than
the forecast's own errors where the network beats the ridge: the 80% intervals over-cover (ILI
h48 0.91 on validation). Schemes compared, each on the same fitted default ``TSForecaster``:

* ``pooled``: today's, every error one value;
* ``equal``: the two sources half the mass each (weighted quantiles);
* ``ratio``: the ridge's out-of-fold errors rescaled per horizon step by how much smaller the
  forecast's errors are than the ridge's on the same validation windows (root mean squares of the
  normalised errors; the ridge refitted on every training window, so the validation windows are
  held out for both), then pooled;
* ``ratio1``: the same with one ratio over all steps;
* ``valid``: the validation errors alone (the calibration before the pooling).

Protocol: the bench's validation protocol (``tsattn bench forecast --split val``): the default
estimator fitted on the train split, its last 10% the validation tail that calibrates; coverage,
width and pinball loss on every window of the VALIDATION split. One JSON line per (set, horizon,
seed, scheme) on stdout.

``python3 sources.py DATASET [--context-length L] [--horizons H ...] [--seeds S ...]`` with
``TSATTN_DATA_DIR`` pointing at the forecasting sets (a CSV file's path works as in the bench);
``python3 sources.py --summary sources.jsonl`` prints the tables of the README.
"""

import argparse
import json
import time

import numpy as np

from tsattn.benchmarks.forecast import BenchmarkData, ForecastBenchmark
from tsattn.datasets import load_forecasting
from tsattn.estimators import anchors, intervals
from tsattn.estimators.intervals import LEVELS
from tsattn.estimators.forecasting import TSForecaster

COVERAGES = (0.8, 0.95)
SCHEMES = ("pooled", "equal", "ratio", "ratio1", "valid")


def weighted_table(pooled: list[np.ndarray], masses: list[float]) -> np.ndarray:
    """``(len(LEVELS), horizon)`` quantiles of the sources ``(horizon, n_i)``, source i carrying
    ``masses[i]`` of the total (each value within it alike)."""
    values = np.concatenate(pooled, axis=1)
    weights = np.concatenate([np.full(p.shape[1], m / p.shape[1]) for p, m in zip(pooled, masses, strict=True)])
    table = np.empty((len(LEVELS), values.shape[0]))
    for k in range(values.shape[0]):
        order = np.argsort(values[k])
        w = weights[order]
        cum = (np.cumsum(w) - w / 2) / w.sum()
        table[:, k] = np.interp(LEVELS, cum, values[k, order])
    return table


def flat(errors: np.ndarray) -> np.ndarray:
    """``(n, horizon, C)`` -> ``(horizon, n * C)``."""
    return errors.transpose(1, 0, 2).reshape(errors.shape[1], -1)


def tables(capture: dict) -> dict[str, np.ndarray]:
    c, f, t = capture["valid"]
    floor = max(0.1 * float(np.median(np.sqrt(c.var(axis=1, ddof=1)))), 1e-8)
    spread = lambda x: intervals.spread(x, floor)  # noqa: E731
    e_val = flat((t - f) / spread(c))
    out = {"valid": np.quantile(e_val, LEVELS, axis=1)}
    if capture["crossfit"] is None:
        return out | {k: out["valid"] for k in SCHEMES}, floor
    cc, cf, ct = capture["crossfit"]
    e_cf = flat((ct - cf) / spread(cc))
    e_ridge = flat((t - capture["ridge_valid"]) / spread(c))
    per_step = np.sqrt((e_val**2).mean(axis=1) / (e_ridge**2).mean(axis=1))[:, None]
    overall = np.sqrt((e_val**2).mean() / (e_ridge**2).mean())
    out["pooled"] = np.quantile(np.concatenate([e_val, e_cf], axis=1), LEVELS, axis=1)
    out["equal"] = weighted_table([e_val, e_cf], [0.5, 0.5])
    out["ratio"] = np.quantile(np.concatenate([e_val, e_cf * per_step], axis=1), LEVELS, axis=1)
    out["ratio1"] = np.quantile(np.concatenate([e_val, e_cf * overall], axis=1), LEVELS, axis=1)
    return out, floor


def fit_captured(data: BenchmarkData, horizon: int, seed: int) -> tuple[TSForecaster, dict]:
    """The default forecaster fitted as the bench's validation protocol, with what its
    calibration saw."""
    capture: dict = {}
    calibrate, crossfit = intervals.calibrate, anchors.crossfit_errors

    def spy_crossfit(series, starts, context_length, horizon_, rng, max_windows):
        capture["series"], capture["starts"] = series, starts
        capture["crossfit"] = crossfit(series, starts, context_length, horizon_, rng, max_windows)
        return capture["crossfit"]

    def spy_calibrate(contexts, forecasts, targets, extra=None):
        capture["valid"] = (contexts, forecasts, targets)
        return calibrate(contexts, forecasts, targets, extra)

    intervals.calibrate, anchors.crossfit_errors = spy_calibrate, spy_crossfit
    try:
        est = TSForecaster(horizon, data.context, n_threads=1, random_state=seed)
        est.fit(data.splits.scaled_frame("train"))
    finally:
        intervals.calibrate, anchors.crossfit_errors = calibrate, crossfit
    assert est.interval_source_ == "validation"
    ridge = anchors.fit_anchor("nlinear", capture["series"], capture["starts"], data.context,
                               horizon, 1, np.random.default_rng(0))
    capture["ridge_valid"] = ridge.forecast(capture["valid"][0])
    return est, capture


def scores(lo, hi, y, coverage):
    q = (1 - coverage) / 2
    pin = (np.maximum(q * (y - lo), (q - 1) * (y - lo))
           + np.maximum((1 - q) * (y - hi), -q * (y - hi))) / 2
    return float(np.mean((y >= lo) & (y <= hi))), float(np.mean(hi - lo)), float(np.mean(pin))


def summary(path: str) -> None:
    """80% / 95% coverage per pair and scheme (mean over seeds), and per scheme: the range of
    the pairs' 80% coverage, the pairs outside 70-90%, the mean distance to the nominal level,
    and the pinball loss relative to ``pooled`` (geometric mean over the pairs)."""
    import pandas as pd

    rows = pd.read_json(path, lines=True)
    pairs = rows.groupby(["dataset", "horizon", "scheme"])[["cov80", "cov95", "pinball80", "pinball95"]].mean()
    for key in ("cov80", "cov95"):
        print(pairs[key].unstack("scheme")[list(SCHEMES)].round(3).to_markdown(), "\n")
    cov80, cov95 = (pairs[k].unstack("scheme") for k in ("cov80", "cov95"))
    table = pd.DataFrame({
        "80% coverage min": cov80.min(), "80% coverage max": cov80.max(),
        "pairs outside 70-90%": ((cov80 < 0.7) | (cov80 > 0.9)).sum(),
        "mean abs. deviation 80%": (cov80 - 0.8).abs().mean(),
        "mean abs. deviation 95%": (cov95 - 0.95).abs().mean(),
    })  # fmt: skip
    for key in ("pinball80", "pinball95"):
        ratio = pairs[key].unstack("scheme")
        table[f"{key} / pooled"] = np.exp(np.log(ratio.div(ratio["pooled"], axis=0)).mean())
    print(table.loc[list(SCHEMES)].round(3).to_markdown())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset", nargs="?")
    parser.add_argument("--summary", metavar="JSONL")
    parser.add_argument("--context-length", type=int)
    parser.add_argument("--horizons", type=int, nargs="+")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    if args.summary:
        return summary(args.summary)
    config = ForecastBenchmark(datasets=[args.dataset], split="val", horizons=args.horizons,
                               context_length=args.context_length)
    data = BenchmarkData(config, args.dataset, load_forecasting(args.dataset))
    levels = [a for c in COVERAGES for a in ((1 - c) / 2, (1 + c) / 2)]
    for horizon in args.horizons or data.horizons:
        contexts, targets = data.splits.windows("val", horizon)
        contexts, targets = np.array(contexts), np.array(targets)
        for seed in args.seeds:
            t0 = time.perf_counter()
            est, capture = fit_captured(data, horizon, seed)
            fit_s = time.perf_counter() - t0
            found, floor = tables(capture)
            assert np.allclose(found["pooled" if capture["crossfit"] is not None else "valid"],
                               est.interval_table_)  # the estimator's own table, recomputed
            n_valid = capture["valid"][2].shape[0] * capture["valid"][2].shape[2]
            n_cf = 0 if capture["crossfit"] is None else np.prod(capture["crossfit"][2].shape) // horizon
            for scheme in SCHEMES:
                est.interval_table_, est.interval_floor_ = found[scheme], floor
                q = est.predict_quantiles(contexts, levels)
                row = dict(dataset=data.name, horizon=horizon, seed=seed, scheme=scheme,
                           n_valid=int(n_valid), n_crossfit=int(n_cf), blend=est.blend_,
                           fit_s=round(fit_s, 1))
                for k, cov in enumerate(COVERAGES):
                    c, w, p = scores(q[..., 2 * k], q[..., 2 * k + 1], targets, cov)
                    tag = round(cov * 100)
                    row |= {f"cov{tag}": round(c, 4), f"width{tag}": round(w, 4),
                            f"pinball{tag}": round(p, 5)}
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
