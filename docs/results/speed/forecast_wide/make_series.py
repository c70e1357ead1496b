"""Write a series of a wide set's shape as a CSV in the long-horizon sets' layout (a ``date``
column, then the channels, ``OT`` last): a random walk plus a daily cycle of random amplitude.

    python3 docs/results/speed/forecast_wide/make_series.py OUT.csv [ROWS CHANNELS]   # Traffic: 17544 862
"""

import sys

import numpy as np
import pandas as pd

out = sys.argv[1]
rows, channels = (int(a) for a in sys.argv[2:4]) if len(sys.argv) > 3 else (17544, 862)
rng = np.random.default_rng(0)
t = np.arange(rows)
values = np.cumsum(rng.normal(scale=0.1, size=(rows, channels)), axis=0).astype(np.float32)
values += np.sin(2 * np.pi * t / 24)[:, None] * rng.uniform(0.5, 2, channels)
frame = pd.DataFrame(values, columns=[str(k) for k in range(channels - 1)] + ["OT"])
dates = pd.date_range("2016-07-01 02:00:00", periods=rows, freq="h")
frame.insert(0, "date", dates.strftime("%Y-%m-%d %H:%M:%S"))
frame.to_csv(out, index=False, float_format="%.4f")
