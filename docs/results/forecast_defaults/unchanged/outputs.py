"""Default forecasts before and after a change that must not move them (issues 50 and 76).

Fits a few small fixed-seed ``TSForecaster``s (a synthetic seasonal series, ILI with a tiny
budget, the Fourier head, variate tokens, overlapping patches; since issue 76 also a panel of M4
Hourly series with the log scale, the floor and the per-series choice, a panel and one series with
covariates on LEAR's scale with the covariate anchor, and every predict input form) and writes
their forecasts, network and anchor parts, intervals and fitted attributes to ``outputs.npz``;
``--check`` compares a fresh run with that file instead (identical arrays, and the largest
absolute difference).

    OMP_NUM_THREADS=1 TSATTN_DATA_DIR=<local copy of the forecasting sets> PYTHONPATH=. python docs/results/forecast_defaults/unchanged/outputs.py [--check]

The M4 and EPF files are read from ``--shared`` (default ``../shared/datasets/forecasting``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

import pandas as pd

from tsattn import TSForecaster
from tsattn.datasets import load_forecasting
from tsattn.datasets.epf import read_epf_csv
from tsattn.datasets.m4 import read_m4_csv

HERE = Path(__file__).resolve().parent


def seasonal(n: int = 400, seed: int = 0) -> np.ndarray:
    """``(n, 2)``: two noisy cycles of 24 and 12 steps with a slow trend."""
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    a = np.sin(2 * np.pi * t / 24) + 0.01 * t + 0.1 * rng.standard_normal(n)
    b = np.cos(2 * np.pi * t / 12) + 0.1 * rng.standard_normal(n)
    return np.stack([a, b], axis=1)


def cases(ili: str) -> dict[str, tuple[dict, np.ndarray]]:
    """name -> (TSForecaster parameters, series)."""
    base = dict(horizon=12, context_length=48, max_steps=60, random_state=0)
    synth = seasonal()
    ili = load_forecasting(ili).iloc[:, -3:]  # weekly: period_ 52 from the index
    return {
        "synthetic": (base, synth),
        "synthetic_period": ({**base, "period": 24}, synth),
        "ili": (dict(horizon=24, context_length=36, max_steps=40, random_state=1), ili),
        "fourier": ({**base, "head": "fourier"}, synth),
        "variate": ({**base, "tokens": "variate"}, synth),
        "stride_half": ({**base, "patch_stride": "half"}, synth),
        "no_validation": ({**base, "validation_fraction": 0.0}, synth),
        # ceil(0.1 * 150) = 15 rows are fewer than the horizon: the split rule decides (issue 76)
        "short": (dict(horizon=24, context_length=96, max_steps=60, random_state=0), synth[:150]),
    }


def run(ili: str) -> dict[str, np.ndarray]:
    torch.manual_seed(0)
    out = {}
    for name, (params, series) in cases(ili).items():
        model = TSForecaster(**params).fit(series)
        if name == "synthetic":  # the validation series given (y_val) instead of the tail
            given = TSForecaster(**params).fit(series[:320], y_val=series[272:])
            out["synthetic_yval/forecast"] = np.asarray(given.predict(series))
            out["synthetic_yval/intervals"] = np.stack(given.predict_interval(series, coverage=0.8))
        parts = model.predict_components(series[-100:])
        out[f"{name}/forecast"] = np.asarray(model.predict())
        for part in ("network", "anchor"):
            if parts[part] is not None:
                out[f"{name}/{part}"] = np.asarray(parts[part])
        out[f"{name}/blend"] = np.asarray(model.blend_)
        out[f"{name}/intervals"] = np.stack(model.predict_interval(coverage=0.8))
        print(name, model.anchor_, round(float(model.blend_), 4), model.best_round_)
    return out


def m4_panel(shared: Path) -> pd.DataFrame:
    """20 M4 Hourly training series (H1-H16 and four spiky ones the log scale takes: H62,
    H124-H126), their last 150 to 380 rows (one of them 60: shorter than a window, padded),
    integer ``ds``."""
    values = read_m4_csv(shared / "m4" / "Hourly-train.csv")
    ids = [f"H{i}" for i in range(1, 17)] + ["H62", "H124", "H125", "H126"]
    frames = []
    for i, sid in enumerate(ids):
        v = values[sid]
        v = v[-(60 if i == 5 else 150 + 10 * i):]
        frames.append(pd.DataFrame({"unique_id": sid, "ds": np.arange(1, len(v) + 1), "y": v}))
    return pd.concat(frames, ignore_index=True)


def epf_panel(shared: Path) -> pd.DataFrame:
    """NP's last 60 days and BE's last 50 (hourly), each with its two day-ahead forecasts as
    future covariates ``load``/``wind`` and a seeded past-only covariate ``temp``."""
    rng = np.random.default_rng(0)
    frames = []
    for market, days in (("NP", 60), ("BE", 50)):
        df = read_epf_csv(shared / "epf" / f"{market}.csv", market).iloc[-24 * days:]
        df = df.set_axis(["unique_id", "ds", "y", "load", "wind"], axis=1)
        frames.append(df.assign(temp=rng.standard_normal(len(df))))
    return pd.concat(frames, ignore_index=True)


def _save(out: dict, name: str, what: str, value) -> None:
    if value is None:
        return
    if isinstance(value, pd.DataFrame):
        value = value.select_dtypes("number").to_numpy()
    elif isinstance(value, tuple):
        value = np.stack([_save_frame(v) for v in value])
    out[f"{name}/{what}"] = np.asarray(value, dtype=np.float64)


def _save_frame(value):
    return value.select_dtypes("number").to_numpy() if isinstance(value, pd.DataFrame) else value


def _fitted(out: dict, name: str, model: TSForecaster) -> None:
    for attr in ("blend_", "log_blend_", "log_series_", "series_choice_", "series_low_",
                 "series_mean_", "series_scale_", "interval_table_", "interval_floor_",
                 "period_", "context_length_", "anchor_penalty_"):
        _save(out, name, attr, getattr(model, attr, None))
    if getattr(model, "asinh_scale_", None) is not None:
        for field in ("centre", "scale", "limit"):
            _save(out, name, f"asinh_{field}", getattr(model.asinh_scale_, field))


def run_panels(shared: Path) -> dict[str, np.ndarray]:
    """The issue-76 cases: a panel without covariates, a covariate panel, one series with
    covariates; every predict form each supports."""
    out: dict[str, np.ndarray] = {}
    m4 = m4_panel(shared)
    model = TSForecaster(horizon=24, period=24, max_steps=40, random_state=0).fit(m4)
    name = "m4_panel"
    _fitted(out, name, model)
    _save(out, name, "forecast", model.predict())
    for part, value in model.predict_components().items():
        _save(out, name, f"fitted_{part}", value)
    _save(out, name, "intervals", model.predict_interval(coverage=0.8))
    _save(out, name, "quantiles", model.predict_quantiles(alpha=(0.05, 0.5, 0.95)))
    unseen = m4[m4.unique_id.isin(["H1", "H3", "H7"])].assign(
        unique_id=lambda d: "new" + d.unique_id, y=lambda d: d.y * 1.5)
    _save(out, name, "unseen", model.predict(unseen))
    _save(out, name, "unseen_intervals", model.predict_interval(unseen, coverage=0.9))
    for part, value in model.predict_components(unseen).items():
        _save(out, name, f"unseen_{part}", value)
    rows = m4[m4.unique_id == "H2"].y.to_numpy()
    windows = np.stack([rows[-model.context_length_ - k:len(rows) - k] for k in (0, 5, 9)])
    _save(out, name, "batch", model.predict(windows[..., None]))
    _save(out, name, "batch_quantiles", model.predict_quantiles(windows[..., None]))
    _save(out, name, "future_frame_ds", model.make_future_dataframe().ds)
    print(name, model.anchor_, model.blend_, model.log_blend_, model.series_choice_)

    epf = epf_panel(shared)
    name = "epf_panel"
    future = ["load", "wind"]
    last = epf.groupby("unique_id").tail(24)
    fit_rows = epf.drop(last.index)
    model = TSForecaster(horizon=24, context_length=168, future_covariates=future, max_steps=40,
                         random_state=0).fit(fit_rows)
    X = last[["unique_id", "ds", *future]]
    _fitted(out, name, model)
    _save(out, name, "forecast", model.predict(X=X))
    for part, value in model.predict_components(X=X).items():
        _save(out, name, f"fitted_{part}", value)
    _save(out, name, "intervals", model.predict_interval(X=X, coverage=0.8))
    _save(out, name, "quantiles", model.predict_quantiles(X=X, alpha=(0.1, 0.5, 0.9)))
    _save(out, name, "score", model.score(last[["unique_id", "ds", "y"]], X=X))
    given = fit_rows.groupby("unique_id").tail(400)
    _save(out, name, "given", model.predict(given, X=X))
    print(name, model.anchor_, model.blend_, model.anchor_penalty_)

    name = "epf_series"
    np_rows = epf[epf.unique_id == "NP"]
    y, cov = np_rows.y.to_numpy(), np_rows[["load", "wind", "temp"]].to_numpy()
    model = TSForecaster(horizon=24, context_length=96, future_covariates=[0, 1], max_steps=40,
                         random_state=2).fit(y[:-24], X=cov[:-24])
    _fitted(out, name, model)
    _save(out, name, "forecast", model.predict(X=cov[-24:, :2]))
    _save(out, name, "intervals", model.predict_interval(X=cov[-24:], coverage=0.8))
    _save(out, name, "context", model.predict(y[:-48], X=cov[:-24]))
    ctx = np.stack([y[-200 - k:-24 - k] for k in (0, 3)])
    xw = np.stack([cov[-200 - k:len(cov) - k] for k in (0, 3)])
    _save(out, name, "batch", model.predict(ctx, X=xw))
    for part, value in model.predict_components(X=cov[-24:, :2]).items():
        _save(out, name, f"fitted_{part}", value)
    print(name, model.anchor_, model.blend_, model.anchor_penalty_)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with outputs.npz")
    parser.add_argument("--ili", default="illness", help="'illness' (TSATTN_DATA_DIR) or its CSV")
    parser.add_argument("--shared", type=Path, default=HERE.parents[3].parent / "shared" / "datasets"
                        / "forecasting", help="the folder with m4/ and epf/")
    args = parser.parse_args()
    torch.set_num_threads(1)
    out = run(args.ili)
    out.update(run_panels(args.shared))
    if not args.check:
        np.savez(HERE / "outputs.npz", **out)
        return 0
    saved = np.load(HERE / "outputs.npz")
    bad = sorted(set(saved.files) ^ set(out))
    for key in sorted(set(saved.files) & set(out)):
        diff = float(np.max(np.abs(saved[key] - out[key]))) if saved[key].size else 0.0
        same = np.array_equal(saved[key], out[key])
        print(f"{key:32s} identical={same} max|diff|={diff:.3g}")
        if not same:
            bad.append(key)
    print("differ:", bad or "none")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
