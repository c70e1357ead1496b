"""OWA of two codes' rows in ``m4_val.jsonl`` (issue 51), paired by frequency, origin and seed:
each row's sMAPE and MASE (the forecast's and the network alone's) against Naive2 of the same
validation origin (computed here from the training file, as ``m4_val.py`` holds it out), and the
ratio of the candidate's OWA to the baseline's. Prints one line per pair and the mean ratio per
set and origin. A third argument keeps the candidate's rows whose ``note`` contains it (several
candidates run at one commit).

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python3 docs/results/panels/m4_val_compare.py 85d1e8a ea20731
    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python3 docs/results/panels/m4_val_compare.py da08281 ea20731 "dropout 0"
"""

import json
import sys
from pathlib import Path

import numpy as np

from tsattn.benchmarks.m4_scores import mase_scale, naive2, owa, smape
from tsattn.datasets import load_m4, m4_info

candidate, baseline = sys.argv[1:3]
note = sys.argv[3] if len(sys.argv) > 3 else ""
ROWS = Path(__file__).with_name("m4_val.jsonl")
_naive2 = {}


def naive2_scores(frequency: str, origin: int) -> tuple[float, float]:
    """Naive2's mean sMAPE and MASE on the held-out horizon of ``m4_val.py``'s ``origin``."""
    if (frequency, origin) not in _naive2:
        info = m4_info(frequency)
        h, m = info.horizon, info.seasonal_period
        train = load_m4(info.frequency)
        if origin > 1:
            train = train.drop(train.groupby("unique_id").tail((origin - 1) * h).index)
        s, q = [], []
        for _, g in train.groupby("unique_id"):
            v = g.y.to_numpy()
            fit, truth = v[:-h], v[-h:]
            f = naive2(fit, h, m)
            s.append(np.mean(smape(truth, f)))
            q.append(np.mean(np.abs(truth - f)) / mase_scale(fit, m))
        _naive2[frequency, origin] = (float(np.mean(s)), float(np.mean(q)))
    return _naive2[frequency, origin]


rows = {}
for line in ROWS.read_text().splitlines():
    r = json.loads(line)
    if r.get("code") == baseline or (r.get("code") == candidate and note in r.get("note", "")):
        rows[r["code"], r["frequency"], r["kw"].get("origin", 1), r["kw"]["random_state"]] = r
groups = {}
for (code, frequency, origin, seed), new in sorted(rows.items()):
    old = rows.get((baseline, frequency, origin, seed))
    if code != candidate or old is None:
        continue
    ns, nm = naive2_scores(frequency, origin)
    ratio = owa(new["smape"], new["mase"], ns, nm) / owa(old["smape"], old["mase"], ns, nm)
    net = owa(new["net_smape"], new["net_mase"], ns, nm) / owa(old["net_smape"], old["net_mase"], ns, nm)
    groups.setdefault((frequency, origin), []).append(ratio)
    print(json.dumps({"frequency": frequency, "origin": origin, "seed": seed,
                      "naive2": [round(ns, 3), round(nm, 3)], "owa_ratio": round(ratio, 4),
                      "network_owa_ratio": round(net, 4), "fit_s": [new["fit_s"], old["fit_s"]],
                      "blend": [new.get("blend"), old.get("blend")]}))
for (frequency, origin), ratios in groups.items():
    print(json.dumps({"frequency": frequency, "origin": origin, "mean_owa_ratio": round(float(np.mean(ratios)), 4)}))
