"""Peak memory of a fit and forecast on a synthetic panel of many short series (issue 51, item 6).

A long frame of ``--series`` series (each 20-80 daily steps, random level and scale, a weekly
cycle), one ``TSForecaster(horizon=6)`` fitted with its default context (96: the short series are
left-padded) for ``--steps`` optimiser steps (memory does not grow with steps), then ``predict()``
for every series. Prints and writes to ``memory.json`` the peak resident memory (the process's
``ru_maxrss``), the frame's size and the times.

    PYTHONPATH=. .venv/bin/python docs/results/panels/scale/memory.py --series 50000 --steps 100
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd

from tsattn import TSForecaster


def panel(n_series: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(20, 81, size=n_series)
    ids = np.repeat(np.arange(n_series), lengths)
    step = np.concatenate([np.arange(n) for n in lengths])
    level = rng.uniform(10, 1000, size=n_series)[ids]
    scale = rng.uniform(1, 50, size=n_series)[ids]
    y = level + scale * (np.sin(2 * np.pi * step / 7) + 0.3 * rng.standard_normal(len(ids)))
    return pd.DataFrame({"unique_id": ids, "ds": pd.Timestamp("2020-01-01") + pd.to_timedelta(step, "D"),
                         "y": y})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=50_000)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    t0 = time.time()
    df = panel(args.series)
    t1 = time.time()
    model = TSForecaster(horizon=6, max_steps=args.steps, random_state=0).fit(df)
    t2 = time.time()
    out = model.predict()
    t3 = time.time()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip()
    record = dict(series=args.series, rows=len(df), steps=args.steps, peak_rss_gib=round(peak, 2),
                  frame_mib=round(df.memory_usage(deep=True).sum() / 2**20, 1),
                  build_s=round(t1 - t0, 1), fit_s=round(t2 - t1, 1), predict_s=round(t3 - t2, 1),
                  forecast_rows=len(out), commit=commit, machine=platform.processor() or platform.machine())
    print(json.dumps(record))
    (Path(__file__).parent / "memory.json").write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
