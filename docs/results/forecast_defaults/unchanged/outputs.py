"""Default forecasts before and after a change that must not move them (issue 50).

Fits a few small fixed-seed ``TSForecaster``s (a synthetic seasonal series, ILI with a tiny
budget, the Fourier head, variate tokens, overlapping patches) and writes their forecasts,
network and anchor parts and fitted attributes to ``outputs.npz``; ``--check`` compares a fresh
run with that file instead (``np.allclose`` and the largest absolute difference).

    OMP_NUM_THREADS=1 TSATTN_DATA_DIR=<local copy of the forecasting sets> PYTHONPATH=. python docs/results/forecast_defaults/unchanged/outputs.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

from tsattn import TSForecaster
from tsattn.datasets import load_forecasting

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
    }


def run(ili: str) -> dict[str, np.ndarray]:
    torch.manual_seed(0)
    out = {}
    for name, (params, series) in cases(ili).items():
        model = TSForecaster(**params).fit(series)
        parts = model.predict_components(series[-100:])
        out[f"{name}/forecast"] = np.asarray(model.predict())
        for part in ("network", "anchor"):
            if parts[part] is not None:
                out[f"{name}/{part}"] = np.asarray(parts[part])
        out[f"{name}/blend"] = np.asarray(model.blend_)
        out[f"{name}/intervals"] = np.stack(model.predict_interval(coverage=0.8))
        print(name, model.anchor_, round(float(model.blend_), 4), model.best_round_)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with outputs.npz")
    parser.add_argument("--ili", default="illness", help="'illness' (TSATTN_DATA_DIR) or its CSV")
    args = parser.parse_args()
    torch.set_num_threads(1)
    out = run(args.ili)
    if not args.check:
        np.savez(HERE / "outputs.npz", **out)
        return 0
    saved = np.load(HERE / "outputs.npz")
    bad = sorted(set(saved.files) ^ set(out))
    for key in sorted(set(saved.files) & set(out)):
        diff = float(np.max(np.abs(saved[key] - out[key]))) if saved[key].size else 0.0
        same = np.array_equal(saved[key], out[key])
        print(f"{key:32s} identical={same} max|diff|={diff:.3g}")
        if not np.allclose(saved[key], out[key], rtol=1e-5, atol=1e-6):
            bad.append(key)
    print("differ:", bad or "none")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
