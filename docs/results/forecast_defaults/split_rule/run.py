"""One validation-split rule for one series and many (issue 76): the measurement.

Before issue 76 an array (one series) held out ``ceil(validation_fraction * T)`` rows where they
were at least ``horizon`` and left ``context_length + horizon`` rows for training (else no
validation: the network alone, the training loss monitored), while a long frame held out
``max(horizon, ceil(validation_fraction * T))`` rows of each series. The two differ on short
series. This fits single series where they differ, on validation data only: the first ``--series``
M4 Hourly training series, each cut at its last ``horizon`` training rows (the truth) and to the
``--rows`` rows before them (300: ``ceil(0.1 * 300) = 30 < 48``), at ``--commit``'s code, and writes
sMAPE and MASE (seasonality 24) per series and seed.

    PYTHONPATH=<a clean worktree of the commit> OMP_NUM_THREADS=1 python3 run.py --m4 <Hourly-train.csv> \
        --label <rule> --out rows.csv
    python3 run.py --compare rows.csv
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HORIZON, SEASON = 48, 24


def smape(truth: np.ndarray, pred: np.ndarray) -> float:
    return float(np.mean(200 * np.abs(truth - pred) / (np.abs(truth) + np.abs(pred))))


def mase(history: np.ndarray, truth: np.ndarray, pred: np.ndarray) -> float:
    scale = np.mean(np.abs(history[SEASON:] - history[:-SEASON]))
    return float(np.mean(np.abs(truth - pred)) / scale)


def run(args: argparse.Namespace) -> None:
    import torch

    import tsattn
    from tsattn import TSForecaster
    from tsattn.datasets.m4 import read_m4_csv

    torch.set_num_threads(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(tsattn.__file__).parent).stdout.strip()  # fmt: skip
    series = list(read_m4_csv(args.m4).items())[: args.series]
    rows = []
    for sid, values in series:
        history, truth = values[:-HORIZON][-args.rows :], values[-HORIZON:]
        for seed in args.seeds:
            start = time.perf_counter()
            model = TSForecaster(horizon=HORIZON, period=SEASON, max_steps=args.steps,
                                 random_state=seed, n_threads=1).fit(history)  # fmt: skip
            pred = model.predict()
            rows.append(dict(label=args.label, commit=commit, series=sid, seed=seed,
                             smape=smape(truth, pred), mase=mase(history, truth, pred),
                             validation=model.interval_source_, blend=model.blend_,
                             anchor=model.anchor_, seconds=time.perf_counter() - start))  # fmt: skip
            print(rows[-1], flush=True)
    out = pd.DataFrame(rows)
    path = Path(args.out)
    out.to_csv(path, mode="a", header=not path.exists(), index=False)


def compare(path: str) -> None:
    rows = pd.read_csv(path)
    per = rows.groupby(["label", "series"])[["smape", "mase"]].mean().unstack("label")
    table = rows.groupby("label")[["smape", "mase", "blend", "seconds"]].mean()
    table["validated"] = rows.groupby("label").validation.apply(lambda v: (v == "validation").mean())
    print(table.to_string(float_format="%.4f"))
    for metric in ("smape", "mase"):
        old, new = per[(metric, "series_rule")], per[(metric, "panel_rule")]
        ratio = float(np.exp(np.mean(np.log(new / old))))
        print(f"{metric}: panel rule / series rule, geometric mean over series {ratio:.4f}; "
              f"lower on {int((new < old).sum())} of {len(old)} series")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m4", help="M4's Hourly-train.csv")
    parser.add_argument("--label", choices=["series_rule", "panel_rule"])
    parser.add_argument("--out", default="rows.csv")
    parser.add_argument("--series", type=int, default=24)
    parser.add_argument("--rows", type=int, default=300)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--compare", metavar="CSV")
    args = parser.parse_args()
    if args.compare:
        compare(args.compare)
    else:
        run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
