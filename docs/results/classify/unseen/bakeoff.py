"""Write ``bakeoff_redux.csv``: the published per-set accuracies of the 2024 bake-off
(Middlehurst, Schäfer and Bagnall, "Bake off redux") for the peers, on this folder's sets.

Reads tsml-eval's files (``tsml_eval/publications/y2023/tsc_bakeoff/results/<category>/<model>
_accuracy.csv``: a row per set, a column per resample, resample 0 the archive's split) from a
checkout of https://github.com/time-series-machine-learning/tsml-eval (this file's rows: commit
b716654), the same columns as ``../bakeoff_redux.csv``::

    python3 docs/results/classify/unseen/bakeoff.py <tsml-eval checkout>
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
RESULTS = "tsml_eval/publications/y2023/tsc_bakeoff/results"
FILES = {  # our peer name: the bake-off's file
    "hydra-multirocket": "convolution/MR-Hydra_accuracy.csv",
    "minirocket": "convolution/MiniROCKET_accuracy.csv",
    "multirocket": "convolution/MR_accuracy.csv",
    "quant": "interval/QUANT_accuracy.csv",
    "hc2": "hybrid/HC2_accuracy.csv",
}


def main(checkout: str) -> None:
    sets = json.loads((HERE / "config.json").read_text())["datasets_resolved"]
    names = [s if isinstance(s, str) else s[-1] for s in sets]  # UEA sets are in no file
    rows = []
    for model, rel in FILES.items():
        with open(Path(checkout) / RESULTS / rel, newline="") as fh:
            table = {r[0]: [float(v) for v in r[1:] if v] for r in csv.reader(fh)
                     if r and r[0] != "Resamples:"}
        for name in names:
            if name in table:
                acc = table[name]
                rows.append([name, model, name, round(100 * sum(acc) / len(acc), 2),
                             round(100 * acc[0], 2), len(acc), f"{RESULTS}/{rel}"])
    with open(HERE / "bakeoff_redux.csv", "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["dataset", "model", "bakeoff_name", "mean_30", "resample_0", "n_resamples",
                      "source"])
        out.writerows(sorted(rows))
    print(f"wrote {HERE / 'bakeoff_redux.csv'}: {len(rows)} rows")


if __name__ == "__main__":
    main(sys.argv[1])
