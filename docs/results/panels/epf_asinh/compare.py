"""LEAR's scale against the prices' own, on the validation rows of the five EPF markets: the
mean over seeds 0 and 1 of each (market, setting)'s MSE, the network's and the anchor's alone, and
the blend; the ridge peers beside. Run from the repository root:
``python3 docs/results/panels/epf_asinh/compare.py`` (reads only the committed results.csv files)."""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
UNSEEN = HERE.parent / "epf_unseen"
# the prices' own scale: seed 0 in epf_unseen/val/, seed 1 in epf_unseen/scale_check/base1/ (33dbdad)
OWN = [*UNSEEN.glob("val/*/results.csv"), UNSEEN / "scale_check" / "base1" / "results.csv"]
ASINH = sorted(HERE.glob("val/s*/results.csv"))
PEERS = [HERE / "val" / "peers" / "results.csv"]
MARKETS = ["NP", "PJM", "BE", "FR", "DE"]
SETTINGS = ["future", "past+calendar"]


def rows(paths, model):
    out = defaultdict(list)
    for path in paths:
        for r in csv.DictReader(open(path)):
            if r["model"] == model and r["status"] == "ok" and r["split"] == "val":
                out[(r["market"], r["setting"])].append(r)
    return out


def mean(rs, key):
    return sum(float(r[key]) for r in rs) / len(rs)


def main() -> None:
    own, asinh = rows(OWN, "tsattn"), rows(ASINH, "tsattn")
    ridge, lear = rows(PEERS, "ridge"), rows(PEERS, "lear")
    print("| market, setting | own scale | LEAR's scale | change | network alone, own / LEAR's "
          "| anchor alone, own / LEAR's | blend_, own / LEAR's | ridge | lear (ridge on LEAR's scale) |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = []
    for m in MARKETS:
        for s in SETTINGS:
            a, b = own.get((m, s)), asinh.get((m, s))
            if not a or not b:
                continue
            ratio = mean(b, "mse") / mean(a, "mse")
            ratios.append(ratio)
            peer = [f"{mean(p[(m, s)], 'mse'):.4f}" if p.get((m, s)) else "" for p in (ridge, lear)]
            print(f"| {m} {s} | {mean(a, 'mse'):.4f} | {mean(b, 'mse'):.4f} | {100 * (ratio - 1):+.1f}% "
                  f"| {mean(a, 'net_mse'):.4f} / {mean(b, 'net_mse'):.4f} "
                  f"| {mean(a, 'anchor_mse'):.4f} / {mean(b, 'anchor_mse'):.4f} "
                  f"| {mean(a, 'blend'):.2f} / {mean(b, 'blend'):.2f} | {peer[0]} | {peer[1]} |")
    if ratios:
        geo = math.exp(sum(map(math.log, ratios)) / len(ratios)) - 1
        print(f"\nlower on {sum(r < 1 for r in ratios)} of {len(ratios)} pairs; geometric mean "
              f"change {100 * geo:+.1f}%; seeds per pair: {sorted({len(v) for v in asinh.values()})}")


if __name__ == "__main__":
    main()
