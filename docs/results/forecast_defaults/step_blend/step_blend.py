"""Would a blend weight per horizon step beat the scalar ``blend_``? A probe on one pair.

Fits the default ``TSForecaster`` on a set's train split (seed 0; its own last 10% validates,
as ``bench forecast --split val``), takes the network's and the anchor's forecasts of every
validation window (``predict_components``) and prints the MSE of the fitted forecast, of each
part alone, of the best scalar and per-step blends on all windows (oracles), and, honestly, of
the scalar and per-step blends fitted on the first half of the windows and scored on the second.

    TSATTN_DATA_DIR=... python3 docs/results/forecast_defaults/step_blend/step_blend.py ETTm1 336
"""

import sys

import numpy as np
import torch

from tsattn import TSForecaster
from tsattn.datasets import forecasting_entry, forecasting_splits, load_forecasting


def weights(d, r, axis):
    """Least-squares weight(s) of ``anchor + w * (network - anchor)``, clipped to [0, 1]."""
    return np.clip((d * r).sum(axis=axis) / (d * d).sum(axis=axis), 0, 1)


def main(name: str, horizon: int) -> None:
    torch.set_num_threads(1)
    context = int(forecasting_entry(name)[1].get("context_length", 96))
    splits = forecasting_splits(load_forecasting(name), name, context)
    model = TSForecaster(horizon, context, random_state=0).fit(splits.scaled_frame("train"))
    x, y = (np.asarray(a) for a in splits.windows("val", horizon))
    parts = model.predict_components(x)
    net, anchor, forecast = parts["network"], parts["anchor"], parts["forecast"]
    d, r = net - anchor, y - anchor
    half = len(x) // 2

    def mse(p, target=y):
        return float(((p - target) ** 2).mean())

    step = weights(d, r, (0, 2))
    step1 = weights(d[:half], r[:half], (0, 2))
    scalar1 = weights(d[:half], r[:half], None)
    print(f"{name} h{horizon}: blend_ {model.blend_:.3f} ({model.anchor_}); MSE forecast "
          f"{mse(forecast):.4f}, network {mse(net):.4f}, anchor {mse(anchor):.4f}; oracle scalar "
          f"{mse(anchor + weights(d, r, None) * d):.4f}, oracle per-step "
          f"{mse(anchor + step[None, :, None] * d):.4f}; second half: scalar fitted on the first "
          f"{mse(anchor[half:] + scalar1 * d[half:], y[half:]):.4f}, per-step fitted on the first "
          f"{mse(anchor[half:] + step1[None, :, None] * d[half:], y[half:]):.4f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
