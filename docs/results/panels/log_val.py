"""The log scale for some series of a panel, scored on M4 VALIDATION from forecasts saved by
``m4_val.py``: no new fit. For each ``<Frequency>_s<seed>_o<origin>.npz`` name, the fit of today's
default before the log scale (``BASE``, code 8a108b4, its per-series choice applied afterwards as
the library applies it: :meth:`floor_val.SavedFit.chosen`) and the same seed's fit with
``target_transform='log'`` (``LOG``, every series on the log scale; code 2cb5826) are mixed per
series: the log fit's forecast for the series whose last context (336 Hourly, 208 Weekly rows,
``context_length='auto'`` there) spans at least a factor ``span`` (highest over lowest value),
the base fit's for the others. Prints one JSON line per name: OWA against Naive2 of each fit and
of each mix, with the number of series mixed in.

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python docs/results/panels/m4_val.py Hourly '{"n_threads": 1, "target_transform": "log", "save": "npz_log/Hourly_s0_o1.npz"}'
    BASE=npz LOG=npz_log TSATTN_DATA_DIR=$DATA PYTHONPATH=. python docs/results/panels/log_val.py Hourly_s0_o1.npz Weekly_s0_o1.npz
"""

import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from floor_val import CONTEXT, SavedFit  # noqa: E402  (m4_val.py's split and files)

SPANS = (1.5, 2, 3, 5, 10, 20)

for name in sys.argv[1:]:
    base = SavedFit.read(str(Path(os.environ.get("BASE", "npz")) / name))
    log = SavedFit.read(str(Path(os.environ.get("LOG", "npz_log")) / name))
    before, logged = base.chosen(), log.saved["forecast"]  # the log fit's is chosen already
    c = CONTEXT[base.frequency]
    span = np.array([r[-c:].max() / r[-c:].min() for r in base.rows])
    out = {"file": name, "base": base.owa(before), "log": log.owa(logged)}
    for x in SPANS:
        mask = span >= x
        out[str(x)] = {**base.owa(np.where(mask[:, None], logged, before)), "n_log": int(mask.sum())}
    print(json.dumps(out))
