"""A fitted forecaster's forecasts of the data read at predict (:func:`.frames.read_predict`):
the network's input and outputs, the parts it blends, each series' chosen forecast, and the way
back through the scale chain to the series' units."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from tsattn.estimators.forecaster import choice as series_choice
from tsattn.estimators.forecaster.data import ForecastData, Form, last_contexts
from tsattn.estimators.forecaster.scales import Floor, Standardise
from tsattn.training import TensorData, autocast, torch_threads

__all__ = ["backtest_choice", "components", "forecast", "parts", "to_series_units"]


def _network_input(est: Any, data: ForecastData) -> tuple[TensorData, np.ndarray]:
    """``(the network's input, the target contexts (n, L, C) in the network's units)``."""
    chain, c = est.fit_plan_.scales, est.n_channels_
    scaled = chain.to_standardised(data.scaled_contexts(), c)
    future = chain.to_standardised(data.future, c, [c + j for j in data.covariates.future])
    x = data.network_input(scaled, future, est.horizon, est.device_)
    lengths = torch.full((len(x),), x.shape[1], dtype=torch.long, device=x.device)
    return TensorData(x, lengths), scaled[:, :, :c]


def forecast(est: Any, data: ForecastData) -> tuple[np.ndarray, np.ndarray]:
    """``(forecasts (n, H, C), target contexts (n, L, C))``, in the network's units: the blend of
    network and anchor, as :meth:`~tsattn.TSForecaster.predict` makes it (each series' chosen
    forecast and its share on the log scale where the fit has them)."""
    choice = _choice(est, data)
    if choice is None and _log_share(est, data) is None:
        x, contexts = _network_input(est, data)
        out = est._predict_tensor(x).double().numpy()
        return data.unpack(out, len(contexts)), contexts
    (out, _, anchor), contexts = parts(est, data)
    if choice is not None:
        out = series_choice.apply(choice, out, anchor, contexts, est.period_)
    return out, contexts


def parts(est: Any, data: ForecastData) -> tuple[list[np.ndarray | None], np.ndarray]:
    """``([forecast, network, anchor], contexts)``: the blended forecast, the network's and the
    anchor's (None without an anchor), each ``(n, H, C)`` in the network's units, for the data
    read (the same batches as :func:`forecast`, on the fit's threads), and the target contexts
    ``(n, L, C)``."""
    x, contexts = _network_input(est, data)
    size, module = est._predict_batch(), est.module_
    module.eval()
    chunks = []
    with torch.inference_mode(), torch_threads(getattr(est, "n_threads_", None)):
        for start in range(0, len(x), size):
            with autocast(est.device_, est.precision):
                chunks.append(module(x.x[start : start + size], parts=True))
    out = []
    for k in range(3):
        if chunks[0][k] is None:
            out.append(None)
            continue
        part = torch.cat([c[k].float() for c in chunks]).cpu().double().numpy()
        out.append(data.unpack(part, len(contexts)))
    share = _log_share(est, data)
    if share is not None:  # the rows on the log scale take their own share (log_blend_)
        log = data.selected
        out[0] = out[0].copy()
        out[0][log] = share * out[1][log] + (1 - share) * out[2][log]
    return out, contexts


def components(est: Any, data: ForecastData) -> list[np.ndarray | None]:
    """``[forecast, network, anchor]`` in the series' units (the anchor None without one): the
    forecast as :func:`forecast` makes it, held at the floor; the parts unheld."""
    (out, network, anchor), contexts = parts(est, data)
    choice = _choice(est, data)
    if choice is not None:
        out = series_choice.apply(choice, out, anchor, contexts, est.period_)
    return [None if part is None else to_series_units(est, data, part, held=k == 0)
            for k, part in enumerate((out, network, anchor))]  # fmt: skip


def to_series_units(est: Any, data: ForecastData, out: np.ndarray, held: bool = True,
                    natural: bool = True) -> np.ndarray:  # fmt: skip
    """Forecasts ``(n, H, C[, q])`` in the network's units back through the scale chain: the
    standardised scale, the standardisation, the floor (with ``held``) and, with ``natural``,
    the series scale."""
    c = est.n_channels_
    mask = data.selected if natural else None
    return est.fit_plan_.scales.inverse(out, data.mean, data.scale, data.low, mask,
                                        data.contexts[:, :, :c], held)  # fmt: skip


def _choice(est: Any, data: ForecastData) -> np.ndarray | None:
    """Each series' chosen forecast (``series_choice_``'s codes) for the data read: the fitted
    series' own, a long ``y``'s from each series' given rows, None for a batch (or a model
    without the choice, or where every series keeps the blend)."""
    if getattr(est, "series_choice_", None) is None or data.form.info is None:
        return None
    choice = est.series_choice_ if not data.rows else backtest_choice(est, data.targets,
                                                                       data.selected)  # fmt: skip
    return choice if choice.any() else None


def _log_share(est: Any, data: ForecastData) -> float | None:
    """``log_blend_`` where the data has rows on the log scale to blend by it, else None."""
    share = getattr(est, "log_blend_", None)
    if share is None or data.selected is None or not data.selected.any():
        return None
    return share


def backtest_choice(est: Any, rows: list[np.ndarray], log: np.ndarray | None) -> np.ndarray:
    """``(n,)`` codes of :mod:`.choice` for the series ``rows`` (each ``(T_i, C)``, unscaled;
    those ``log`` marks already on the log scale): the model, as it forecasts a long frame,
    forecasting each series' last ``horizon`` rows from the rows before them, beside the seasonal
    naive forecast of ``period_`` steps, the last value repeated and the anchor alone (held at the
    same floor)."""
    h, n = est.horizon, est.context_length_
    usable = np.array([len(r) > h for r in rows])
    before = [r[:-h] if ok else r for r, ok in zip(rows, usable, strict=True)]
    truth = np.stack([r[-h:] if ok else np.zeros((h, r.shape[1]))
                      for r, ok in zip(rows, usable, strict=True)])  # fmt: skip
    mean, scale = Standardise.stats(before)  # as predict reads a long y
    data = ForecastData(before, est.n_channels_, est.fit_plan_.covariates, Form({"kind": "long"}),
                        mean=mean, scale=scale, low=Floor.lows(before), selected=log,
                        contexts=last_contexts(before, n))  # fmt: skip
    (out, _, anchor), contexts = parts(est, data)

    def unscaled(part):
        return to_series_units(est, data, part, natural=False)

    period = max(1, int(est.period_))
    last = series_choice.seasonal_naive(contexts, 1, h)
    candidates = [(series_choice.LAST, unscaled(last), usable)]
    if 1 < period <= n:
        has_season = usable & np.array([len(b) >= period for b in before])
        naive = series_choice.seasonal_naive(contexts, period, h)
        candidates.append((series_choice.NAIVE, unscaled(naive), has_season))
    if anchor is not None:
        candidates.append((series_choice.ANCHOR, unscaled(anchor), usable))
    return series_choice.choose(truth, unscaled(out), candidates)
