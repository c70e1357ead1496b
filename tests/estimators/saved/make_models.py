"""The models of ``tests/estimators/saved/``, written by tsattn 0.1.0 at 5852bfc (before issue 50
removed ``TSForecaster``'s measured-and-left-off options): a default one and a Fourier one with
their forecasts, one with ``instance_center='last'`` and one with ``network_refit=True``. Run with
that commit's ``tsattn`` first on the path: ``PYTHONPATH=<its tsattn> python make_models.py OUT``."""
import sys
from pathlib import Path

import numpy as np

from tsattn import TSForecaster

out = Path(sys.argv[1])
t = np.arange(120)
y = np.stack([np.sin(2 * np.pi * t / 12), np.cos(2 * np.pi * t / 8)], axis=1)
kw = dict(horizon=4, context_length=16, d_model=8, n_heads=2, n_layers=1, dim_feedforward=16,
          max_steps=10, random_state=0, device="cpu")
for name, extra in {"default": {}, "fourier": {"head": "fourier", "n_harm": 3},
                    "instance_center_last": {"instance_center": "last"},
                    "network_refit": {"network_refit": True}}.items():
    m = TSForecaster(**kw, **extra).fit(y)
    m.save(out / f"forecaster_0.1.0_{name}.tsattn")
    if name in ("default", "fourier"):
        np.save(out / f"forecaster_0.1.0_{name}_predict.npy", m.predict())
