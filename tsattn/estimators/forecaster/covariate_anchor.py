"""The anchor of a forecaster with covariates: a LEAR-style linear model, solved in closed form.

LEAR (Lago et al. 2021), the strong linear baseline of day-ahead price forecasting, regresses
each hour of the next day on the recent prices and the day-ahead forecasts of the covariates. Here
each horizon step is a ridge regression on the target channel's and the covariates' context rows
and the future-known covariates' rows of the whole horizon (:func:`tsattn.nn.forecasting.covariates.anchor_features`), every
(window, target channel) of the training windows a row, in the per-series standardised units.
The penalty is chosen among :data:`PENALTIES` by blocked cross-validation over the training and
validation windows, and the map is then fitted on all of them (:mod:`.ridge`). :func:`.anchors.fit_blend` then weighs it against the network.
"""

from __future__ import annotations

import numpy as np
import torch

from tsattn.estimators.forecaster import ridge
from tsattn.nn.forecasting.covariates import anchor_features
from tsattn.training import WindowData

__all__ = ["PENALTIES", "fit_covariate_anchor"]

#: Rows (window, target channel) of the regression at most; a random subset above it.
MAX_ROWS = 100_000
#: Ridge penalties per row (on the weights, not the constant) tried on the validation windows.
PENALTIES = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0)
_CHUNK = 8_192
#: Stretches of time the training samples are cut into to choose the penalty.
BLOCKS = 5
#: Held-out samples forecast per block at most when choosing the penalty.
_HELD = 4_096


def _moments(data: WindowData, rows: np.ndarray, context_length: int,
             future: tuple[int, ...]) -> ridge.Moments:  # fmt: skip
    """``(X'X, X'Y)`` over samples ``rows`` of ``data``, a constant column last."""
    def features(r: np.ndarray) -> tuple:
        feats, target = _features(data, r, context_length, future)
        return np.hstack([feats, np.ones((len(feats), 1))]), target, None

    return ridge.moments((rows[a : a + _CHUNK] for a in range(0, len(rows), _CHUNK)), features)


def _features(data: WindowData, rows: np.ndarray, context_length: int,
              future: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The anchor's features ``(n, features)`` and targets ``(n, horizon)`` of samples ``rows``."""
    idx = torch.as_tensor(rows, device=data.x.device)
    feats = anchor_features(data.gather(idx), context_length, future).double().cpu().numpy()
    return feats, data.gather(idx, target=True)[..., 0].double().cpu().numpy()


def _predict(coef: np.ndarray, data: WindowData, rows: np.ndarray, context_length: int,
             future: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    feats, target = _features(data, rows, context_length, future)
    return feats @ coef[:-1] + coef[-1], target


def fit_covariate_anchor(train: WindowData, valid: WindowData | None, future: tuple[int, ...],
                         rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:  # fmt: skip
    """Fit the anchor on ``train``'s and ``valid``'s samples (at most :data:`MAX_ROWS` of each, a
    random subset from ``rng``; ``future`` the covariates read on the horizon), its penalty chosen
    by blocked cross-validation: the training
    samples cut into :data:`BLOCKS` stretches of time and the validation samples as one more, each
    forecast by the ridge fitted on the others (the moments of each block are summed once, so
    every fold costs one solve). The validation rows' latest regime alone chose penalties that
    erred 50% more on the next rows than this (NP, ``docs/results/panels/``).

    Returns ``(weight (horizon, features), bias (horizon,), penalty)``.
    """
    n = train.context_length
    parts = [(train, _rows(len(train), rng))]
    if valid is not None and len(valid):
        parts.append((valid, _rows(len(valid), rng)))
    blocks = []  # (data, rows, X'X, X'Y) per block
    for data, rows in parts:
        cuts = np.array_split(rows, BLOCKS) if data is train else [rows]
        blocks += [(data, r, *_moments(data, r, n, future)) for r in cuts if len(r)]
    xtx = sum(b[2] for b in blocks)
    xty = sum(b[3] for b in blocks)
    total = sum(len(b[1]) for b in blocks)
    errors = np.zeros(len(PENALTIES))
    for data, rows, bxx, bxy in blocks:
        held = rows if len(rows) <= _HELD else np.sort(rng.choice(rows, size=_HELD, replace=False))
        for k, lam in enumerate(PENALTIES):
            coef = ridge.solve(xtx - bxx, xty - bxy, lam, total - len(rows))
            pred, target = _predict(coef, data, held, n, future)
            errors[k] += float(np.mean((pred - target) ** 2)) / len(blocks)
    penalty = PENALTIES[int(np.argmin(errors))]
    coef = ridge.solve(xtx, xty, penalty, total)
    return coef[:-1].T, coef[-1], penalty


def _rows(n: int, rng: np.random.Generator) -> np.ndarray:
    rows = np.arange(n)
    return rows if n <= MAX_ROWS else np.sort(rng.choice(n, size=MAX_ROWS, replace=False))
