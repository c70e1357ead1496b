"""The anchor of a forecaster with covariates: a LEAR-style linear model, solved in closed form.

LEAR (Lago et al. 2021), the strong linear baseline of day-ahead price forecasting, regresses
each hour of the next day on the recent prices and the day-ahead forecasts of the covariates. Here
each horizon step is a ridge regression on the target channel's and the covariates' context rows
and the future-known covariates' rows of the whole horizon (:func:`tsattn.nn.covariates.anchor_features`), every
(window, target channel) of the training windows a row, in the per-series standardised units.
The penalty is chosen among :data:`PENALTIES` on the validation windows (the middle one without
them). :func:`tsattn.estimators._anchor.fit_blend` then weighs it against the network.
"""

from __future__ import annotations

import numpy as np
import torch

from tsattn.nn.covariates import anchor_features
from tsattn.training import CovariateWindowData

__all__ = ["PENALTIES", "fit_covariate_anchor"]

#: Rows (window, target channel) of the regression at most; a random subset above it.
MAX_ROWS = 100_000
#: Ridge penalties per row (on the weights, not the constant) tried on the validation windows.
PENALTIES = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0)
_CHUNK = 8_192


def _moments(data: CovariateWindowData, rows: np.ndarray, context_length: int,
             future: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """``(X'X, X'Y)`` over samples ``rows`` of ``data``, a constant column last."""
    xtx = xty = None
    for a in range(0, len(rows), _CHUNK):
        idx = torch.as_tensor(rows[a : a + _CHUNK], device=data.x.device)
        feats = anchor_features(data.gather(idx), context_length, future).double().cpu().numpy()
        feats = np.hstack([feats, np.ones((len(feats), 1))])
        target = data.gather(idx, target=True)[..., 0].double().cpu().numpy()
        xtx = feats.T @ feats if xtx is None else xtx + feats.T @ feats
        xty = feats.T @ target if xty is None else xty + feats.T @ target
    return xtx, xty


def _solve(xtx: np.ndarray, xty: np.ndarray, n_rows: int, penalty: float) -> np.ndarray:
    reg = np.eye(len(xtx)) * penalty * n_rows
    reg[-1, -1] = 0.0  # the constant is not shrunk
    return np.linalg.solve(xtx + reg, xty)


def _predict(coef: np.ndarray, data, rows: np.ndarray, context_length: int,
             future: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    idx = torch.as_tensor(rows, device=data.x.device)
    feats = anchor_features(data.gather(idx), context_length, future).double().cpu().numpy()
    return feats @ coef[:-1] + coef[-1], data.gather(idx, target=True)[..., 0].double().cpu().numpy()


def fit_covariate_anchor(train: CovariateWindowData, valid: CovariateWindowData | None,
                         rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:  # fmt: skip
    """Fit the anchor on ``train``'s samples (at most :data:`MAX_ROWS`, a random subset from
    ``rng``), its penalty chosen on ``valid``'s samples (at most :data:`MAX_ROWS` of them).

    Returns ``(weight (horizon, features), bias (horizon,), penalty)``.
    """
    n, future = train.context_length, train.future
    rows = np.arange(len(train))
    if len(rows) > MAX_ROWS:
        rows = np.sort(rng.choice(len(rows), size=MAX_ROWS, replace=False))
    xtx, xty = _moments(train, rows, n, future)
    penalty = PENALTIES[len(PENALTIES) // 2]
    if valid is not None and len(valid):
        vrows = np.arange(len(valid))
        if len(vrows) > MAX_ROWS:
            vrows = np.sort(rng.choice(len(vrows), size=MAX_ROWS, replace=False))
        errors = []
        for lam in PENALTIES:
            pred, target = _predict(_solve(xtx, xty, len(rows), lam), valid, vrows, n, future)
            errors.append(float(np.mean((pred - target) ** 2)))
        penalty = PENALTIES[int(np.argmin(errors))]
    coef = _solve(xtx, xty, len(rows), penalty)
    return coef[:-1].T, coef[-1], penalty
