"""The simple forecaster ``TSForecaster`` blends with its network, so that it is never worse than
the trivial forecasts on the validation windows.

``linear``: a direct linear regression of the ``horizon`` next values on the ``context_length``
last ones and a constant, in the globally standardised units, one map shared by every channel,
fitted in closed form (ridge) on the training windows. It contains the last value repeated
(naive) and the mean reversion an autoregressive model learns, which the instance-normalised
network cannot represent (it never sees a window's level). ``last``: the last value repeated.
``auto``: both, each blended, and the one with the lower validation error is kept (``linear``
without validation windows): on a random walk such as Exchange the last value beats the ridge.
The share of the network, ``blend``, is the least-squares weight of the two forecasts on the
validation windows, clipped to [0, 1]: 0 when the network adds nothing there.
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["ANCHORS", "attach", "fit_blend", "fit_linear_anchor", "last_value_anchor"]

ANCHORS = ("auto", "linear", "last")
#: Rows (window, channel) of the ridge regression at most; a random subset above it.
MAX_ROWS = 200_000
#: Ridge penalty per row on the lag weights (not the constant), in standardised units.
RIDGE = 1e-3
_CHUNK = 16_384


def last_value_anchor(context_length: int, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """``(weight (horizon, L), bias (horizon,))`` repeating the last value."""
    weight = np.zeros((horizon, context_length))
    weight[:, -1] = 1.0
    return weight, np.zeros(horizon)


def fit_linear_anchor(
    series: np.ndarray, starts: np.ndarray, context_length: int, horizon: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Ridge regression of targets on contexts over the windows ``starts`` of ``series (T, C)``.

    Every (window, channel) pair is a row, at most :data:`MAX_ROWS` of them (a random subset
    drawn from ``rng`` above that); sums are accumulated in chunks, so memory stays bounded
    whatever the horizon and channel count. Returns ``(weight (horizon, L), bias (horizon,))``.
    """
    n_channels = series.shape[1]
    rows = np.arange(len(starts) * n_channels)
    if len(rows) > MAX_ROWS:
        rows = np.sort(rng.choice(len(rows), size=MAX_ROWS, replace=False))
    window = np.arange(context_length + horizon)
    xtx = np.zeros((context_length + 1, context_length + 1))
    xty = np.zeros((context_length + 1, horizon))
    for i in range(0, len(rows), _CHUNK):
        r = rows[i : i + _CHUNK]
        values = series[starts[r // n_channels][:, None] + window, (r % n_channels)[:, None]]
        x = np.concatenate([values[:, :context_length], np.ones((len(r), 1))], axis=1)
        xtx += x.T @ x
        xty += x.T @ values[:, context_length:]
    penalty = np.full(context_length + 1, RIDGE * len(rows))
    penalty[-1] = 0.0  # the constant is not shrunk
    coef = np.linalg.solve(xtx + np.diag(penalty), xty)  # (L + 1, horizon)
    return coef[:-1].T.copy(), coef[-1].copy()


def fit_blend(network: np.ndarray, anchor: np.ndarray, target: np.ndarray) -> float:
    """The weight ``w`` in [0, 1] minimising ``mean((w * network + (1 - w) * anchor - target)**2)``."""
    diff = (network - anchor).ravel()
    denom = float(diff @ diff)
    if denom <= 0.0:
        return 1.0
    return float(np.clip(diff @ (target - anchor).ravel() / denom, 0.0, 1.0))


def attach(network: torch.nn.Module, anchor: str | None, train_data, contexts: np.ndarray,
           targets: np.ndarray, forecast: np.ndarray, rng: np.random.Generator,
           validation: bool) -> tuple[float, np.ndarray, str | None]:  # fmt: skip
    """Set ``network``'s anchor from the training windows of ``train_data`` (a
    :class:`~tsattn.training.WindowData`) and, on validation samples (``contexts``, ``targets``,
    the network's ``forecast``), its blend. Returns ``(blend, blended forecast, anchor used)``;
    the blend is 1 without anchor or without validation samples."""
    if anchor is None:
        return 1.0, forecast, None
    context_length, horizon = contexts.shape[1], targets.shape[1]
    names = ["linear", "last"] if anchor == "auto" and validation else [
        "linear" if anchor == "auto" else anchor]  # fmt: skip
    best = None
    for name in names:
        if name == "linear":
            series = train_data.x.double().cpu().numpy()
            starts = train_data.starts.cpu().numpy()
            weight, bias = fit_linear_anchor(series, starts, context_length, horizon, rng)
        else:
            weight, bias = last_value_anchor(context_length, horizon)
        network.anchor.weight.copy_(torch.as_tensor(weight))
        network.anchor.bias.copy_(torch.as_tensor(bias))
        if not validation:
            return 1.0, forecast, name
        with torch.inference_mode():
            on = network.anchor.weight.device  # the network's device, a GPU too
            simple = network.anchor(torch.as_tensor(contexts, device=on)).cpu().numpy()
        blend = fit_blend(forecast, simple, targets)
        blended = blend * forecast + (1 - blend) * simple
        error = float(np.mean((blended - targets) ** 2))
        if best is None or error < best[0]:
            best = (error, name, weight, bias, blend, blended)
    _, name, weight, bias, blend, blended = best
    network.anchor.weight.copy_(torch.as_tensor(weight))
    network.anchor.bias.copy_(torch.as_tensor(bias))
    network.blend.fill_(blend)
    return blend, blended, name
