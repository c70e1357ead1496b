"""The fit time of the log scale (``target_transform``) on M4 Hourly: ``TSForecaster(horizon=48,
period=24, random_state=0, n_threads=1, target_transform=<argument>)`` fitted on the whole training
file (the TEST run's fit) and forecasting; prints one JSON line with the seconds of each. Run the
two settings side by side, one thread each, so that they share the machine alike:

    TSATTN_DATA_DIR=$DATA OMP_NUM_THREADS=1 PYTHONPATH=. python docs/results/panels/log_time.py none &
    TSATTN_DATA_DIR=$DATA OMP_NUM_THREADS=1 PYTHONPATH=. python docs/results/panels/log_time.py auto
"""

import json
import sys
import time

from tsattn import TSForecaster
from tsattn.datasets import load_m4

setting = sys.argv[1]
train = load_m4("Hourly")
t0 = time.time()
model = TSForecaster(horizon=48, period=24, random_state=0, n_threads=1,
                     target_transform=None if setting == "none" else setting).fit(train)
t1 = time.time()
model.predict()
t2 = time.time()
logged = model.log_series_
print(json.dumps({"target_transform": setting, "fit_s": round(t1 - t0, 1), "predict_s": round(t2 - t1, 1),
                  "steps": int(model.n_steps_), "log_series": 0 if logged is None else int(logged.sum())}))
