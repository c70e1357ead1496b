"""How far the fitted blend is from the best one on the validation rows of each EPF market.

The forecast is ``b * network + (1 - b) * anchor``; its MSE is
``b^2 A + (1 - b)^2 B + 2 b (1 - b) C`` with A, B the network's and the anchor's MSE and C the mean
product of their errors. ``results.csv`` records A (``net_mse``), B (``anchor_mse``), the blend's MSE
and b, so C follows, and with it the b that minimises the MSE on the same windows (clipped to
[0, 1]): an oracle on the scored rows, a bound on what any rule for b could gain there::

    python3 docs/results/panels/epf_unseen/blend_check.py docs/results/panels/epf_unseen/val/*/results.csv
"""
from __future__ import annotations

import sys

import pandas as pd


def check(paths: list[str]) -> pd.DataFrame:
    rows = []
    for path in paths:
        frame = pd.read_csv(path)
        for _, r in frame[frame["model"] == "tsattn"].iterrows():
            a, b_mse, m, b = r["net_mse"], r["anchor_mse"], r["mse"], r["blend"]
            if not 0 < b < 1:
                continue
            c = (m - b * b * a - (1 - b) ** 2 * b_mse) / (2 * b * (1 - b))
            best = min(1.0, max(0.0, (b_mse - c) / (a + b_mse - 2 * c)))
            best_mse = best * best * a + (1 - best) ** 2 * b_mse + 2 * best * (1 - best) * c
            rows.append({"market": r["market"], "split": r["split"], "setting": r["setting"],
                         "blend": round(b, 3), "mse": round(m, 4), "network": round(a, 4),
                         "anchor": round(b_mse, 4), "best blend": round(best, 3),
                         "its mse": round(best_mse, 4), "gain %": round(100 * (1 - best_mse / m), 1)})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    table = check(sys.argv[1:])
    print("| " + " | ".join(table.columns) + " |\n|" + "---|" * len(table.columns))
    for row in table.itertuples(index=False):
        print("| " + " | ".join(str(v) for v in row) + " |")
