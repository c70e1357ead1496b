"""The target read on LEAR's scale (``target_transform='asinh'``): ``asinh((z - centre) / scale)``
of its standardised values ``z``, forecasts and quantiles ``sinh()`` back.

Day-ahead prices idle around a level with rare spikes many times their usual swing; the squared
error of a model fitted on them as they are is dominated by those spikes, and its weights (the
anchor's, the network's) bend to them. LEAR (Lago et al. 2021, after Uniejewski et al. 2018) fits
its ridge on the prices' inverse hyperbolic sine after centring them on their median and dividing
by their median absolute deviation: linear within about one deviation, logarithmic beyond, defined
for negative prices. Here the forecaster's every part (the network, the LEAR-style anchor, the
blend and the intervals) is fitted on that scale, the covariates too (as LEAR reads its load
forecasts), ``centre`` and ``scale`` the median and the normal-consistent MAD of each column's
training rows (every series pooled, in their per-series standardised units). A forecast is ``sinh()`` back,
within :data:`REACH` times the widest training value on that scale, so that a network
extrapolating far cannot overflow.

Chosen for fits with covariates (``'auto'``) on the validation rows of the five EPF markets,
both settings, 2 seeds: MSE 3.9-21.1% lower than on the prices' own scale, on every market and setting
(``docs/results/panels/README.md``, "Prices on LEAR's scale").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["AsinhScale", "REACH", "fit_scale"]

#: The normal-consistent median absolute deviation: ``1.4826 * median(|z - median(z)|)``.
MAD_NORMAL = 1.4826
#: Forecasts on the asinh scale are held within this many times the widest training value there.
REACH = 2.0


@dataclass(frozen=True)
class AsinhScale:
    """``centre``, ``scale`` and ``active`` per column (``(C + k,)``: the target channels, then the
    covariates), ``limit`` per target channel (``(C,)``). A column not ``active`` (a covariate
    whose MAD is zero: a 0/1 flag, one mostly constant) is read as given."""

    centre: np.ndarray
    scale: np.ndarray
    active: np.ndarray
    limit: np.ndarray

    def forward(self, values: np.ndarray, columns: list[int] | None = None) -> np.ndarray:
        """``values (..., C + k)``, standardised, on the asinh scale (a copy); ``columns``: the
        columns ``values`` holds (default all), e.g. the future covariates' ``C + j``."""
        cols = np.arange(len(self.centre)) if columns is None else np.asarray(columns, dtype=int)
        keep = self.active[cols]
        out = np.array(values, dtype=np.float64, copy=True)
        out[..., keep] = np.arcsinh((out[..., keep] - self.centre[cols][keep]) / self.scale[cols][keep])
        return out

    def inverse(self, out: np.ndarray) -> np.ndarray:
        """Forecasts ``(n, H, C)`` or quantiles ``(n, H, C, q)`` on the asinh scale back to the
        standardised units, each held within ``limit``."""
        c = len(self.limit)
        centre, scale, limit = self.centre[:c], self.scale[:c], self.limit
        if out.ndim == 4:
            centre, scale, limit = centre[:, None], scale[:, None], limit[:, None]
        return np.sinh(np.clip(out, -limit, limit)) * scale + centre


def fit_scale(rows: list[np.ndarray | None], n_targets: int) -> AsinhScale:
    """The scale of the standardised training ``rows`` (each ``(T_i, C + k)``; None skipped):
    the median and MAD of each column, every series pooled. A target channel whose MAD is zero
    (more than half its values alike) is divided by 1, its standard deviation in these units; a
    covariate whose MAD is zero is left as it is."""
    values = np.concatenate([r for r in rows if r is not None])
    centre = np.median(values, axis=0)
    scale = MAD_NORMAL * np.median(np.abs(values - centre), axis=0)
    active = scale > 0
    active[:n_targets] = True
    centre, scale = np.where(active, centre, 0.0), np.where(scale > 0, scale, 1.0)
    target = np.arcsinh((values[:, :n_targets] - centre[:n_targets]) / scale[:n_targets])
    return AsinhScale(centre, scale, active, REACH * np.abs(target).max(axis=0))
