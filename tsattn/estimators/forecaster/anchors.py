"""The ridge anchors ``TSForecaster`` blends its network with (without covariates; with them,
:mod:`.covariate_anchor`).

The simple forecaster ``TSForecaster`` blends with its network, so that it is never worse than
the trivial forecasts on the validation windows.

``linear``: a direct linear regression of the ``horizon`` next values on the ``context_length``
last ones and a constant, in the globally standardised units, one map shared by every channel,
fitted in closed form (ridge) on the training windows. It contains the last value repeated
(naive) and the mean reversion an autoregressive model learns, which the instance-normalised
network cannot represent (it never sees a window's level). ``last``: the last value repeated.
``cycle``: the ridge on windows with a seasonal profile removed (the mean of the training rows at
each phase of ``period`` steps, CycleNet's residual cycle), the profile's continuation added back;
each window's phase is found from its own values (:func:`tsattn.nn.forecasting.anchor_forecast`).
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
On a long frame each series' windows carry a weight in the ridges and in the blend (:func:`choose`'s
``weights``; the forecaster's ``BLEND_WEIGHT_POWER``), so that a smooth series counts as the
M4 competition's MASE counts it; where some of its series are read on the log scale and others
not, each side has its own share (:func:`fit_blends`; the forecaster's ``log_blend_``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from tsattn.estimators.forecaster import ridge
from tsattn.training import cut

__all__ = ["ANCHORS", "AnchorFit", "candidates", "choose", "crossfit_errors", "cycle_profile",
           "fit_anchor", "fit_blend", "fit_blends", "fit_linear_anchor", "last_value_anchor"]

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
    rng: np.random.Generator, relative: bool = False, weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Ridge regression of targets on contexts over the windows ``starts`` of ``series (T, C)``.

    Every (window, channel) pair is a row, at most :data:`MAX_ROWS` of them (a random subset
    drawn from ``rng`` above that); the moments are summed in chunks (:mod:`.ridge`), so memory
    stays bounded whatever the horizon and channel count. ``relative``: regress ``target -
    x_last`` on ``context - x_last`` (level-free, NLinear); the map ``x_last + W (x - x_last) +
    b`` is returned as the plain linear map it is (``W`` with ``1 - sum(W)`` added to the last
    lag's weight), its penalty :data:`RIDGE_LEVEL_FREE` (:data:`RIDGE` otherwise). ``weights
    (len(starts),)``: each window's weight in the squared errors (default 1); the penalty grows
    with their sum. Returns ``(weight (horizon, L), bias (horizon,))``.
    """
    n_channels = series.shape[1]
    rows = np.arange(len(starts) * n_channels)
    if len(rows) > MAX_ROWS:
        rows = np.sort(rng.choice(len(rows), size=MAX_ROWS, replace=False))
    window = np.arange(context_length + horizon)
    total = float(len(rows))
    if weights is not None:
        total = float(np.sum(weights[rows // n_channels]))

    def features(r: np.ndarray) -> tuple:
        values = cut(series, starts[r // n_channels], window, r % n_channels)
        if relative:
            values = values - values[:, context_length - 1 : context_length]
        x = np.concatenate([values[:, :context_length], np.ones((len(r), 1))], axis=1)
        return x, values[:, context_length:], None if weights is None else weights[r // n_channels]

    chunks = (rows[i : i + _CHUNK] for i in range(0, len(rows), _CHUNK))
    coef = ridge.solve(*ridge.moments(chunks, features),
                       RIDGE_LEVEL_FREE if relative else RIDGE, total)  # (L + 1, horizon)
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


def fit_blend(network: np.ndarray, anchor: np.ndarray, target: np.ndarray,
              weights: np.ndarray | None = None) -> float:  # fmt: skip
    """The weight ``w`` in [0, 1] minimising ``mean((w * network + (1 - w) * anchor - target)**2)``
    over samples ``(n, ...)``, each sample's squared errors weighted by ``weights (n,)`` if given."""
    diff = network - anchor
    wdiff = diff if weights is None else diff * _expand(weights, diff)
    denom = float(wdiff.ravel() @ diff.ravel())
    if denom <= 0.0:
        return 1.0
    return float(np.clip(wdiff.ravel() @ (target - anchor).ravel() / denom, 0.0, 1.0))


def fit_blends(network: np.ndarray, anchor: np.ndarray, target: np.ndarray,
               weights: np.ndarray | None, group: np.ndarray) -> tuple[float, float]:  # fmt: skip
    """:func:`fit_blend` on each side of ``group (n,)`` (bool, both sides non-empty): the weights
    ``(w_false, w_true)``."""
    def side(rows: np.ndarray) -> float:
        return fit_blend(network[rows], anchor[rows], target[rows], None if weights is None else weights[rows])

    return side(~group), side(group)


def _expand(weights: np.ndarray, like: np.ndarray) -> np.ndarray:
    return np.asarray(weights, dtype=float).reshape((-1,) + (1,) * (like.ndim - 1))


@dataclass(frozen=True)
class AnchorFit:
    """A fitted anchor: ``name``, ``weight (horizon, L)``, ``bias (horizon,)`` and the seasonal
    profile ``cycle (period, C)`` of the seasonal ones (None otherwise), as
    :meth:`tsattn.nn.forecasting.ForecastingTransformer.set_anchor` takes them."""

    name: str
    weight: np.ndarray
    bias: np.ndarray
    cycle: np.ndarray | None = None

    def forecast(self, contexts: np.ndarray) -> np.ndarray:
        """``contexts (n, L, C)`` -> ``(n, horizon, C)`` float64, with the weights rounded to the
        network's float32 buffers, so the forecast is the one the network will make."""
        from tsattn.nn.forecasting import anchor_forecast

        def held(a):  # as the network's float32 buffer holds it, computed in float64
            return None if a is None else torch.as_tensor(a, dtype=torch.float32).double()

        with torch.inference_mode():
            out = anchor_forecast(torch.as_tensor(contexts, dtype=torch.float64),
                                  held(self.weight), held(self.bias), held(self.cycle))  # fmt: skip
        return out.numpy()


def fit_anchor(name: str, series: np.ndarray, starts: np.ndarray, context_length: int,
               horizon: int, period: int, rng: np.random.Generator,
               weights: np.ndarray | None = None) -> AnchorFit:  # fmt: skip
    """Fit anchor ``name`` (one of :data:`ANCHORS` but ``'auto'``) on the training windows
    ``starts`` of ``series (T, C)``, weighted by ``weights (len(starts),)`` if given; ``period``
    steps per season for the seasonal ones."""
    if name not in _RIDGES:
        return AnchorFit(name, *last_value_anchor(context_length, horizon))
    cycle = None
    if name.endswith("cycle"):
        cycle = cycle_profile(series, period)
        series = series - cycle[np.arange(len(series)) % period]
    weight, bias = fit_linear_anchor(series, starts, context_length, horizon, rng,
                                     relative=_RIDGES[name], weights=weights)  # fmt: skip
    return AnchorFit(name, weight, bias, cycle)


def candidates(anchor: str, period: int, validation: bool) -> list[str]:
    """The anchors ``anchor`` stands for: every one under ``'auto'`` with validation windows (the
    seasonal ones where ``period > 1``), ``'linear'`` under ``'auto'`` without them."""
    if anchor != "auto":
        return [anchor]
    if not validation:
        return ["linear"]
    return ["linear", "nlinear", "last"] + (["cycle", "ncycle"] if period > 1 else [])


def choose(anchor: str, series: np.ndarray, starts: np.ndarray, period: int,
           contexts: np.ndarray, targets: np.ndarray, forecast: np.ndarray,
           rng: np.random.Generator, validation: bool,
           weights: tuple[np.ndarray, np.ndarray | None] | None = None,
           ) -> tuple[AnchorFit, float, np.ndarray]:  # fmt: skip
    """Fit the anchor(s) ``anchor`` stands for (:func:`candidates`) on the training windows
    ``starts`` of ``series (T, C)`` and, on the samples ``contexts``/``targets`` with the network's
    ``forecast`` (validation windows, or with ``validation=False`` training ones), the blend of
    each; keep the one whose blend errs least. ``weights``: ``(per training window, per sample)``,
    the weights of their squared errors in the ridge and in the blend and choice (None: 1).
    Returns ``(anchor, blend, blended forecast)``; the blend is 1 without validation windows
    (the network alone)."""
    context_length, horizon = contexts.shape[1], targets.shape[1]
    train_w, sample_w = (None, None) if weights is None else weights
    best = None
    for name in candidates(anchor, period, validation):
        fit = fit_anchor(name, series, starts, context_length, horizon, period, rng, train_w)
        if not validation:
            return fit, 1.0, forecast
        simple = fit.forecast(contexts)
        blend = fit_blend(forecast, simple, targets, sample_w)
        blended = blend * forecast + (1 - blend) * simple
        sq = (blended - targets) ** 2
        error = float(np.mean(sq if sample_w is None else sq * _expand(sample_w, sq)))
        if best is None or error < best[0]:
            best = (error, fit, blend, blended)
    return best[1], best[2], best[3]


#: Blocks of time the training windows are cut into by :func:`crossfit_errors`.
CROSSFIT_FOLDS = 5


def crossfit_errors(series: np.ndarray, starts: np.ndarray, context_length: int, horizon: int,
                    rng: np.random.Generator, max_windows: int) -> tuple[np.ndarray, ...] | None:  # fmt: skip
    """Out-of-fold forecasts over the whole training period: the training windows ``starts`` of
    ``series (T, C)`` cut into :data:`CROSSFIT_FOLDS` blocks of time, the level-free ridge
    (``nlinear``) fitted on the windows wholly outside each block's rows forecasts at most
    ``max_windows`` of the block's windows (a random subset). Returns ``(contexts, forecasts,
    targets)``, each ``(n, steps, C)``, or None when no block has training windows outside it.
    These errors span every regime of the training rows, where the validation windows hold one."""
    starts = np.sort(np.asarray(starts))
    span = context_length + horizon
    block = np.minimum((np.arange(len(starts)) * CROSSFIT_FOLDS) // max(len(starts), 1),
                       CROSSFIT_FOLDS - 1)  # fmt: skip
    per_block = max(1, max_windows // CROSSFIT_FOLDS)
    parts = []
    for b in range(CROSSFIT_FOLDS):
        inside = starts[block == b]
        if not len(inside):
            continue
        lo, hi = inside.min(), inside.max() + span  # the rows the block's windows read
        outside = starts[(starts + span <= lo) | (starts >= hi)]
        if len(outside) < 2 * context_length:
            continue
        fit = fit_anchor("nlinear", series, outside, context_length, horizon, 1, rng)
        if len(inside) > per_block:
            inside = np.sort(rng.choice(inside, size=per_block, replace=False))
        windows = cut(series, inside, np.arange(span))  # (n, L + h, C)
        parts.append((windows[:, :context_length], fit.forecast(windows[:, :context_length]),
                      windows[:, context_length:]))  # fmt: skip
    if not parts:
        return None
    return tuple(np.concatenate(p) for p in zip(*parts, strict=True))
