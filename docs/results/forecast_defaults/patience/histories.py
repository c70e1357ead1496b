"""The validation loss of every training round of a default ``TSForecaster`` fit (no early
stopping), one JSON line per fit appended to ``histories.jsonl``.

``mode`` ``val``: fitted on the train split, validated on its own last 10% (the protocol of
``bench forecast --split val``, where defaults are chosen); ``test``: fitted on the train split
with the validation split as ``y_val`` (the TEST protocol; only the validation split is read).

    TSATTN_DATA_DIR=... OMP_NUM_THREADS=1 python3 histories.py ETTh1 96 val 0 >> histories.jsonl
"""

import json
import sys
import time

from tsattn.benchmarks.forecast import BenchmarkData, ForecastBenchmark
from tsattn.datasets import load_forecasting
from tsattn.estimators.forecasting import TSForecaster

dataset, horizon, mode, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
data = BenchmarkData(ForecastBenchmark(datasets=[dataset], split="test" if mode == "test" else "val"),
             dataset, load_forecasting(dataset))
est = TSForecaster(horizon, data.context, patience=None, random_state=seed, n_threads=1)
train, val = data.splits.scaled_frame("train"), data.splits.scaled_frame("val")
t0 = time.perf_counter()
est.fit(train, y_val=val) if mode == "test" else est.fit(train)
print(json.dumps({"ds": dataset, "h": horizon, "mode": mode, "seed": seed, "best": est.best_round_,
                  "n_rounds": est.n_rounds_, "fit_s": time.perf_counter() - t0,
                  "val": [None if r["valid_loss"] is None else round(r["valid_loss"], 4)
                          for r in est.history_], "blend": est.blend_}))
