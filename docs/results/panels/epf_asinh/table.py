"""The TEST table of ``epf_asinh/``: ours on LEAR's scale (3 seeds: mean and sd), the ridge, the
ridge on LEAR's scale, NHITS and the naive forecasts, all from this folder's ``test/*/results.csv``,
and TimeXer's published MSE (our rows before LEAR's scale were in folders removed in issue 78).
Run from the repository root: ``python3 docs/results/panels/epf_asinh/table.py``."""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path

from tsattn.benchmarks.epf import PUBLISHED

HERE = Path(__file__).parent
MARKETS = ["NP", "PJM", "BE", "FR", "DE"]


def read(paths):
    out = defaultdict(list)  # (market, setting, model) -> rows
    for path in paths:
        for r in csv.DictReader(open(path)):
            if r["status"] == "ok" and r["split"] == "test":
                out[(r["market"], r["setting"], r["model"])].append(r)
    return out


def cell(rs, key="mse", sd=False):
    if not rs:
        return "-"
    v = [float(r[key]) for r in rs]
    text = f"{statistics.mean(v):.4f}"
    return text + (f" ± {statistics.stdev(v):.4f}" if sd and len(v) > 1 else "")


def main() -> None:
    now = read(HERE.glob("test/*/results.csv"))
    published = {m: mse for m, model, mse, _ in PUBLISHED if model == "TimeXer"}
    print("| model (test MSE, standardised price) | " + " | ".join(MARKETS) + " |")
    print("|---|" + "---|" * len(MARKETS))
    for setting, label in (("future", "future-known"), ("past+calendar", "past-only and calendar")):
        lines = [(f"**TSForecaster, LEAR's scale**, {label} (3 seeds, ± sd)", now, "tsattn", True),
                 (f"ridge, {label}", now, "ridge", False),
                 (f"lear (the ridge on LEAR's scale), {label}", now, "lear", False),
                 (f"NHITS, {label} (500 steps, seed 0)", now, "nf:NHITS", False)]
        for text, rows, model, sd in lines:
            print(f"| {text} | " + " | ".join(cell(rows[(m, setting, model)], sd=sd) for m in MARKETS) + " |")
        if setting == "past+calendar":
            print("| TimeXer, published (past-only and the time stamps) | "
                  + " | ".join(f"{published[m]:.3f}" if m in published else "-" for m in MARKETS) + " |")
    print("| previous day / previous week | " + " | ".join(
        f"{cell(now[(m, 'none', 'naive_day')])} / {cell(now[(m, 'none', 'naive_week')])}" for m in MARKETS) + " |")
    print("\nWhat the model did (means over seeds): blend_, network alone, anchor alone; 80% / 95% coverage")
    for setting in ("future", "past+calendar"):
        for m in MARKETS:
            rs = now[(m, setting, "tsattn")]
            if rs:
                print(f"- {m} {setting}: blend {cell(rs, 'blend')}, network {cell(rs, 'net_mse')}, "
                      f"anchor {cell(rs, 'anchor_mse')}, MAE {cell(rs, 'mae')}; "
                      f"cov80 {cell(rs, 'cov80')}, cov95 {cell(rs, 'cov95')}; "
                      f"seconds {min(float(r['seconds']) for r in rs):.0f}-{max(float(r['seconds']) for r in rs):.0f}")


if __name__ == "__main__":
    main()
