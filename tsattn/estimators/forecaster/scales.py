"""The scale the forecaster reads each series on: one chain of small stages, each with its
``fit``, ``forward`` and ``inverse``, applied in one order and undone in the reverse one.

The chain (:class:`ScaleChain`), from the series' own values to what the network reads:

1. a **series scale** (``target_transform``, position ``"series"``), on the targets of the
   series it takes (:meth:`TargetScale.select`): ``"log"`` (:class:`LogScale`);
2. the **floor** (:class:`Floor`): nothing forward; back, forecasts and quantiles held at or above
   each series' lowest value, in the series scale's units;
3. **standardisation** (:class:`Standardise`), each series by its own training rows' mean and
   deviation, per column (the unit of the loss);
4. a **standardised scale** (position ``"standardised"``), every series alike: ``"asinh"``
   (:class:`AsinhScale`, LEAR's).

``target_transform='auto'`` is resolved once, by the fit plan (:mod:`.plan`). A new scaling is one
:class:`TargetScale` subclass registered with :func:`register_scale` (the recipe in
``docs/guide/contributing.md``; ``tests/estimators/test_forecast_scales.py`` registers a toy one
and trains it through the estimator).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

from tsattn._registry import register
from tsattn._validation import did_you_mean
from tsattn.io.checks import standardisation

__all__ = ["LEVEL_SHIFT", "MAD_NORMAL", "REACH", "SPAN", "AsinhScale", "Floor", "LogScale",
           "ScaleChain", "Standardise", "TargetScale", "get_scale", "list_scales",
           "register_scale"]  # fmt: skip

#: ``'auto'`` reads a series on the log scale where its last context's highest value is at least
#: this many times its lowest (an order of magnitude) ...
SPAN = 10.0
#: ... around a level: the means of the context's two halves differ by at most this fraction of
#: that span, on the log scale (a series that grew over the context is left on its own scale,
#: where a trend is not extrapolated exponentially).
LEVEL_SHIFT = 0.2
#: The normal-consistent median absolute deviation: ``1.4826 * median(|z - median(z)|)``.
MAD_NORMAL = 1.4826
#: Forecasts on the asinh scale are held within this many times the widest training value there.
REACH = 2.0


class TargetScale:
    """A registered scale of the target, a stage of :class:`ScaleChain`.

    ``position``: ``"series"`` (on each taken series' own values, before standardisation; the
    taken ones are :meth:`select`'s) or ``"standardised"`` (after it, on every series alike).
    :meth:`fit` learns from the training rows in the stage's input units; :meth:`forward` maps
    values (the target columns, and the covariates where the stage reads them) and
    :meth:`inverse` maps forecasts back."""

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    position: ClassVar[str] = "series"

    def select(self, rows: list[np.ndarray], n_targets: int, context_length: int) -> np.ndarray:
        """``(n,)``: the series of ``rows`` (each ``(T_i, C + k)``) this stage takes (all)."""
        return np.ones(len(rows), dtype=bool)

    def fit(self, rows: list[np.ndarray], n_targets: int) -> TargetScale:
        """Learn from the training ``rows`` (each ``(T_i, C + k)``); returns ``self``."""
        return self

    def forward(self, values: np.ndarray, n_targets: int, columns: list[int] | None = None
                ) -> np.ndarray:  # fmt: skip
        """``values (..., C + k)`` (or only ``columns`` of them) on this scale, a copy."""
        raise NotImplementedError

    def inverse(self, out: np.ndarray, contexts: np.ndarray | None = None) -> np.ndarray:
        """Forecasts ``(n, H, C)`` or quantiles ``(n, H, C, q)`` on this scale back, a copy;
        ``contexts (n, L, C)``: the targets each was forecast from, on this scale."""
        raise NotImplementedError


_SCALES: dict[str, type[TargetScale]] = {}
T = TypeVar("T", bound=type)


def register_scale(name: str) -> Callable[[T], T]:
    """Class decorator adding a :class:`TargetScale` subclass to the scales under ``name`` (a
    value of ``target_transform``)."""
    return register(_SCALES, "scale", name)


def list_scales() -> list[str]:
    """The registered scales (``target_transform``'s values besides ``'auto'`` and None)."""
    return sorted(_SCALES)


def get_scale(name: str) -> type[TargetScale]:
    """The scale registered as ``name``; a ``ValueError`` naming the values allowed otherwise."""
    if name not in _SCALES:
        raise ValueError(f"target_transform must be 'auto', None or one of {list_scales()}; got "
                         f"{name!r}.{did_you_mean(name, list_scales(), n=1)}")  # fmt: skip
    return _SCALES[name]


@register_scale("log")
class LogScale(TargetScale):
    """``log(y)`` of a series' targets (positive values), forecasts and quantiles ``exp()`` back,
    each held at or below its context's highest value times its span (the log of both), so that a
    network extrapolating far on the log scale cannot return an overflowing forecast.

    A series that idles at a floor between spikes, or swings over an order of magnitude within a
    context, is poorly served by the standardised squared error: a spike drags the forecast far
    from the level the series spends its time at, and sMAPE (half of M4's OWA) is a function of
    the log ratio of forecast and truth alone. ``spiky`` (the fit plan's ``'auto'``, for a long
    frame of two series or more without covariates) takes only each positive series whose last
    ``context_length`` rows span at least :data:`SPAN` around a level (:data:`LEVEL_SHIFT`):
    chosen on M4 Hourly and Weekly validation, two origins, 3 seeds, where the log scale for every
    series lowered Hourly's OWA by 5.0% and 2.8% and raised Weekly's by 0.5% and 2.7%, the gain
    coming from Hourly's spiky quarter, and on M1 Yearly's validation origins, where series that
    grew tenfold within their context were forecast far worse on it (``docs/results/panels/``,
    "Spiky series on the log scale"). Without ``spiky``, every series (its values must be
    positive)."""

    summary = "log(y) of every series (positive values), exp() back"

    def __init__(self, spiky: bool = False) -> None:
        self.spiky = bool(spiky)

    def select(self, rows: list[np.ndarray], n_targets: int, context_length: int) -> np.ndarray:
        if not self.spiky:
            return np.ones(len(rows), dtype=bool)
        out = np.zeros(len(rows), dtype=bool)
        for i, r in enumerate(rows):
            target = r[:, :n_targets]
            if len(target) < 2 or not np.all(target > 0):
                continue
            recent = np.log(target[-context_length:])
            span = recent.max(axis=0) - recent.min(axis=0)
            half = len(recent) // 2
            shift = np.abs(np.log(np.exp(recent[half:]).mean(axis=0)
                                  / np.exp(recent[:half]).mean(axis=0)))  # fmt: skip
            out[i] = bool(np.all(span >= np.log(SPAN)) and np.all(shift <= LEVEL_SHIFT * span))
        return out

    def forward(self, values: np.ndarray, n_targets: int, columns: list[int] | None = None
                ) -> np.ndarray:  # fmt: skip
        out = np.array(values, dtype=np.float64, copy=True)
        out[..., :n_targets] = np.log(values[..., :n_targets])
        return out

    def inverse(self, out: np.ndarray, contexts: np.ndarray | None = None) -> np.ndarray:
        top, bottom = contexts.max(axis=1), contexts.min(axis=1)  # (m, C)
        cap = (2 * top - bottom)[:, None, :]
        return np.exp(np.minimum(out, cap[..., None] if out.ndim == 4 else cap))


@register_scale("asinh")
class AsinhScale(TargetScale):
    """The target on LEAR's scale: ``asinh((z - centre) / scale)`` of its standardised values
    ``z``, forecasts and quantiles ``sinh()`` back within :data:`REACH` times the widest training
    value on that scale (a network extrapolating far cannot overflow).

    Day-ahead prices idle around a level with rare spikes many times their usual swing; the squared
    error of a model fitted on them as they are is dominated by those spikes, and its weights bend
    to them. LEAR (Lago et al. 2021, after Uniejewski et al. 2018) fits its ridge on the prices'
    inverse hyperbolic sine after centring them on their median and dividing by their median
    absolute deviation: linear within about one deviation, logarithmic beyond, defined for negative
    prices. Here every part of the forecaster is fitted on that scale, the covariates too (as LEAR
    reads its load forecasts): ``centre`` and ``scale`` the median and the normal-consistent MAD of
    each column's training rows (every series pooled), ``active`` the columns it maps (a covariate
    whose MAD is zero, a 0/1 flag, is read as given), ``limit`` per target channel. Chosen for fits
    with covariates (the plan's ``'auto'``) on the validation rows of the five EPF markets, both
    settings, 2 seeds: MSE 3.9-21.1% lower than on the prices' own scale, on every market and
    setting (``docs/results/panels/``, "Prices on LEAR's scale")."""

    summary = "LEAR's: asinh of the standardised values centred on their median over their MAD"
    position = "standardised"

    def __init__(self, centre: Any = None, scale: Any = None, active: Any = None,
                 limit: Any = None) -> None:  # fmt: skip
        self.centre, self.scale, self.active, self.limit = centre, scale, active, limit

    def fit(self, rows: list[np.ndarray], n_targets: int) -> AsinhScale:
        """The median and MAD of each column of the standardised training ``rows`` (None
        skipped), every series pooled. A target channel whose MAD is zero (more than half its
        values alike) is divided by 1, its standard deviation in these units."""
        values = np.concatenate([r for r in rows if r is not None])
        centre = np.median(values, axis=0)
        scale = MAD_NORMAL * np.median(np.abs(values - centre), axis=0)
        active = scale > 0
        active[:n_targets] = True
        self.centre, self.scale = np.where(active, centre, 0.0), np.where(scale > 0, scale, 1.0)
        self.active = active
        target = np.arcsinh((values[:, :n_targets] - self.centre[:n_targets]) / self.scale[:n_targets])
        self.limit = REACH * np.abs(target).max(axis=0)
        return self

    def forward(self, values: np.ndarray, n_targets: int, columns: list[int] | None = None
                ) -> np.ndarray:  # fmt: skip
        cols = np.arange(len(self.centre)) if columns is None else np.asarray(columns, dtype=int)
        keep = self.active[cols]
        out = np.array(values, dtype=np.float64, copy=True)
        out[..., keep] = np.arcsinh((out[..., keep] - self.centre[cols][keep]) / self.scale[cols][keep])
        return out

    def inverse(self, out: np.ndarray, contexts: np.ndarray | None = None) -> np.ndarray:
        c = len(self.limit)
        centre, scale, limit = self.centre[:c], self.scale[:c], self.limit
        if out.ndim == 4:
            centre, scale, limit = centre[:, None], scale[:, None], limit[:, None]
        return np.sinh(np.clip(out, -limit, limit)) * scale + centre


# Models pickled before issue 76 name the asinh scale's class by its former module.
sys.modules.setdefault("tsattn.estimators._asinh_scale", sys.modules[__name__])


class Standardise:
    """Each series by its own rows' per-column mean and deviation (:func:`stats`): the units of
    the loss, the anchors and the intervals."""

    @staticmethod
    def stats(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Each series' per-column mean and scale, ``(n_series, columns)`` each."""
        stats = [standardisation(r) for r in rows]
        return np.stack([m for m, _ in stats]), np.stack([s for _, s in stats])

    @staticmethod
    def inverse(out: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
        """Forecasts ``(n, H, C[, q])`` in standardised units back, ``mean``/``scale`` ``(n, C+k)``."""
        c = out.shape[2]
        mean, scale = mean[:, None, :c], scale[:, None, :c]
        if out.ndim == 4:
            mean, scale = mean[..., None], scale[..., None]
        return out * scale + mean


class Floor:
    """Forecasts held at or above each series' lowest value (in the series scale's units).

    A long frame without covariates has it: chosen on M4 Hourly and Weekly validation, two
    origins, 3 seeds, against no floor and the context's lowest value: OWA lower on all four
    (``docs/results/panels/``, "Forecasts held above the series' lowest value")."""

    @staticmethod
    def lows(targets: list[np.ndarray]) -> np.ndarray:
        """``(n, C)``: the lowest value of each series' target rows ``(T_i, C)``."""
        return np.stack([t.min(axis=0) for t in targets])

    @staticmethod
    def inverse(out: np.ndarray, low: np.ndarray | None) -> np.ndarray:
        if low is None:
            return out
        low = low[:, None, :]
        return np.maximum(out, low[..., None] if out.ndim == 4 else low)


@dataclass
class ScaleChain:
    """The stages a fit reads its series through (see the module doc): ``series`` (a
    ``"series"``-position scale, or None), ``floor``, ``standardised`` (or None)."""

    series: TargetScale | None = None
    floor: bool = False
    standardised: TargetScale | None = None

    def select(self, rows: list[np.ndarray], n_targets: int, context_length: int
               ) -> np.ndarray | None:  # fmt: skip
        """``(n,)``: the series the series scale takes, or None where it takes none."""
        if self.series is None:
            return None
        mask = self.series.select(rows, n_targets, context_length)
        return mask if mask.any() else None

    def to_series_scale(self, rows: Any, n_targets: int, mask: np.ndarray | None, what: str,
                        labels: list[str]) -> Any:  # fmt: skip
        """``rows`` (one series ``(T, C + k)``, windows ``(n, T, C + k)`` or a list) with the
        target columns of the series ``mask`` marks on the series scale (None: as given); a value
        the scale cannot take (log of a value at or below zero) is an error naming ``what`` and
        the row's label (:func:`.data.labels`)."""
        if mask is None:
            return rows
        if isinstance(rows, np.ndarray) and rows.ndim == 2:
            return self.to_series_scale([rows], n_targets, mask, what, labels)[0]
        out = []
        for i, r in enumerate(rows):
            if mask[i] and isinstance(self.series, LogScale) and not np.all(r[..., :n_targets] > 0):
                raise ValueError(
                    f"{what} has a value at or below zero ({float(r[..., :n_targets].min()):g} in "
                    f"{labels[i]}), which has no logarithm: this forecaster reads it on the log "
                    "scale (target_transform='log'). Pass positive values, or fit with "
                    "target_transform='auto' (the log scale for spiky positive series only) or "
                    "None.")  # fmt: skip
            out.append(self.series.forward(r, n_targets) if mask[i] else r)
        return np.stack(out) if isinstance(rows, np.ndarray) else out

    def from_series_scale(self, out: np.ndarray, mask: np.ndarray | None, contexts: np.ndarray
                          ) -> np.ndarray:  # fmt: skip
        """Forecasts ``(n, H, C[, q])`` of the rows ``mask`` marks back from the series scale;
        ``contexts (n, L, C)`` their targets on it."""
        if mask is None or not mask.any():
            return out
        out = out.copy()
        out[mask] = self.series.inverse(out[mask], contexts[mask])
        return out

    def fit_standardised(self, rows: list[np.ndarray | None], n_targets: int) -> None:
        """Fit the standardised scale on the standardised training ``rows``."""
        if self.standardised is not None:
            self.standardised.fit(rows, n_targets)

    def to_standardised(self, values: Any, n_targets: int, columns: list[int] | None = None) -> Any:
        """Standardised ``values`` on the standardised scale (as given without one)."""
        if self.standardised is None or values is None:
            return values
        return self.standardised.forward(values, n_targets, columns)

    def inverse(self, out: np.ndarray, mean: np.ndarray, scale: np.ndarray,
                low: np.ndarray | None, mask: np.ndarray | None, contexts: np.ndarray,
                held: bool = True) -> np.ndarray:  # fmt: skip
        """The network's forecasts ``(n, H, C[, q])`` back to the series' units: the standardised
        scale undone, the standardisation (``mean``, ``scale`` ``(n, C + k)``), the floor ``low
        (n, C)`` (with ``held``), the series scale of the rows ``mask`` marks (``contexts (n, L,
        C)``: their targets on the series scale)."""
        if self.standardised is not None:
            out = self.standardised.inverse(out, contexts)
        out = Standardise.inverse(out, mean, scale)
        if held:
            out = Floor.inverse(out, low)
        return self.from_series_scale(out, mask, contexts)
