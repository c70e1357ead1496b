"""The simple forecaster ``TSForecaster`` blends with its network, so that it is never worse than
the trivial forecasts on the validation windows.

``linear``: a direct linear regression of the ``horizon`` next values on the ``context_length``
last ones and a constant, in the globally standardised units, one map shared by every channel,
fitted in closed form (ridge) on the training windows. It contains the last value repeated
(naive) and the mean reversion an autoregressive model learns, which the instance-normalised
network cannot represent (it never sees a window's level). ``last``: the last value repeated.
``cycle``: the ridge on windows with a seasonal profile removed (the mean of the training rows at
each phase of ``period`` steps, CycleNet's residual cycle), the profile's continuation added back;
each window's phase is found from its own values (:class:`tsattn.nn.forecasting.LinearAnchor`).
``nlinear`` and ``ncycle``: the same two ridges on level-free windows, the context's last value
subtracted from context and target and added back (NLinear, Zeng et al. 2023), their weights
shrunk toward the last value repeated (:data:`RIDGE_LEVEL_FREE`): they cannot revert to the
training level, so a series whose level drifts past the training range (ILI's growing flu
seasons) keeps its forecast at the current level, while ``linear`` pulls it back.
``auto``: each of them (the two cycles where the series has a period), blended, and the one with
the lowest validation error is kept (``linear`` without validation windows): on a random walk such
as Exchange the last value beats the level-dependent ridge.
The share of the network, ``blend``, is the least-squares weight of the two forecasts on the
validation windows, clipped to [0, 1]: 0 when the network adds nothing there.
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["ANCHORS", "attach", "cycle_profile", "fit_blend", "fit_linear_anchor",
           "last_value_anchor"]

ANCHORS = ("auto", "linear", "nlinear", "last", "cycle", "ncycle")
#: The anchors fitted by ridge regression on the training windows, and their ``relative`` flag.
_RIDGES = {"linear": False, "nlinear": True, "cycle": False, "ncycle": True}
#: Rows (window, channel) of the ridge regression at most; a random subset above it.
MAX_ROWS = 200_000
#: Ridge penalty per row on the lag weights (not the constant), in standardised units.
RIDGE = 1e-3
#: The same for the level-free ridges (``nlinear``, ``ncycle``), whose weights on the context less
#: its last value shrink toward the last value repeated: stronger, since a drift learned from
#: the training years is what such a ridge gets wrong most (``docs/results/forecast_defaults/``).
RIDGE_LEVEL_FREE = 1.0
_CHUNK = 16_384


def last_value_anchor(context_length: int, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """``(weight (horizon, L), bias (horizon,))`` repeating the last value."""
    weight = np.zeros((horizon, context_length))
    weight[:, -1] = 1.0
    return weight, np.zeros(horizon)


def fit_linear_anchor(
    series: np.ndarray, starts: np.ndarray, context_length: int, horizon: int,
    rng: np.random.Generator, relative: bool = False,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Ridge regression of targets on contexts over the windows ``starts`` of ``series (T, C)``.

    Every (window, channel) pair is a row, at most :data:`MAX_ROWS` of them (a random subset
    drawn from ``rng`` above that); sums are accumulated in chunks, so memory stays bounded
    whatever the horizon and channel count. ``relative``: regress ``target - x_last`` on
    ``context - x_last`` (level-free, NLinear); the map ``x_last + W (x - x_last) + b`` is returned
    as the plain linear map it is (``W`` with ``1 - sum(W)`` added to the last lag's weight), its
    penalty :data:`RIDGE_LEVEL_FREE` (:data:`RIDGE` otherwise).
    Returns ``(weight (horizon, L), bias (horizon,))``.
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
        if relative:
            values = values - values[:, context_length - 1 : context_length]
        x = np.concatenate([values[:, :context_length], np.ones((len(r), 1))], axis=1)
        xtx += x.T @ x
        xty += x.T @ values[:, context_length:]
    penalty = np.full(context_length + 1, (RIDGE_LEVEL_FREE if relative else RIDGE) * len(rows))
    penalty[-1] = 0.0  # the constant is not shrunk
    coef = np.linalg.solve(xtx + np.diag(penalty), xty)  # (L + 1, horizon)
    weight = coef[:-1].T.copy()
    if relative:  # x_last + W (x - x_last): the last lag's weight gains 1 - sum(W)
        weight[:, -1] += 1.0 - weight.sum(axis=1)
    return weight, coef[-1].copy()


def cycle_profile(series: np.ndarray, period: int) -> np.ndarray:
    """``(period, C)``: the mean of the rows of ``series (T, C)`` at each phase ``t % period``
    (``T >= period``)."""
    phase = np.arange(len(series)) % period
    sums = np.zeros((period, series.shape[1]))
    np.add.at(sums, phase, series)
    return sums / np.bincount(phase, minlength=period)[:, None]


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
    seasonal = network.anchor.period > 1
    names = (["linear", "nlinear", "last"] + (["cycle", "ncycle"] if seasonal else [])) \
        if anchor == "auto" and validation else ["linear" if anchor == "auto" else anchor]
    ridge = set(_RIDGES) & set(names)  # the training rows, once for every ridge candidate
    series0 = train_data.x.double().cpu().numpy() if ridge else None
    starts = train_data.starts.cpu().numpy()
    best = None
    for name in names:
        cycle = None
        if name in _RIDGES:
            series = series0
            if name.endswith("cycle"):
                cycle = cycle_profile(series0, network.anchor.period)
                series = series0 - cycle[np.arange(len(series0)) % network.anchor.period]
            weight, bias = fit_linear_anchor(series, starts, context_length, horizon, rng,
                                             relative=_RIDGES[name])
        else:
            weight, bias = last_value_anchor(context_length, horizon)
        _set(network.anchor, weight, bias, cycle)
        if not validation:
            return 1.0, forecast, name
        with torch.inference_mode():
            on = network.anchor.weight.device  # the network's device, a GPU too
            simple = network.anchor(torch.as_tensor(contexts, device=on)).cpu().numpy()
        if simple.shape != targets.shape:  # e.g. one channel of a window against every profile
            raise RuntimeError(f"anchor {name!r} forecast {simple.shape} for targets "
                               f"{targets.shape}: calibrate on whole windows.")  # fmt: skip
        blend = fit_blend(forecast, simple, targets)
        blended = blend * forecast + (1 - blend) * simple
        error = float(np.mean((blended - targets) ** 2))
        if best is None or error < best[0]:
            best = (error, name, weight, bias, cycle, blend, blended)
    _, name, weight, bias, cycle, blend, blended = best
    _set(network.anchor, weight, bias, cycle)
    network.blend.fill_(blend)
    return blend, blended, name


def _set(anchor: torch.nn.Module, weight: np.ndarray, bias: np.ndarray,
         cycle: np.ndarray | None) -> None:  # fmt: skip
    """Copy a fitted anchor into the network's :class:`~tsattn.nn.forecasting.LinearAnchor`."""
    anchor.weight.copy_(torch.as_tensor(weight))
    anchor.bias.copy_(torch.as_tensor(bias))
    if anchor.period > 1:
        anchor.use_cycle.fill_(cycle is not None)
        if cycle is not None:
            anchor.cycle.copy_(torch.as_tensor(cycle))
