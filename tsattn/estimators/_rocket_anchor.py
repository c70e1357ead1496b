"""The ``anchor='rocket'`` (and ``'multirocket'``) of ``TSRegressor``: a ridge regression on
MiniRocket's (MultiRocket's) features, which the network corrects.

MiniRocket (Dempster et al. 2021; aeon's transform, 10,000 features: the proportions of positive
values of fixed random convolutions at many dilations) followed by ridge regression is what aeon's
``MiniRocketRegressor`` does: features scaled by their deviation, the penalty chosen among
``logspace(-3, 3, 10)`` by leave-one-out error (``RidgeCV``). Here the same ridge is fitted on the
training series, and its leave-one-out predictions (each series predicted by the ridge fitted on
the others, exact and free for ridge regression) are subtracted from the targets: the network
trains on what the ridge could not predict of series it had not seen, so it learns the ridge's
out-of-sample errors rather than its smaller in-sample residuals. A prediction is the ridge's plus
the network's. Like the forecaster's anchor (``_anchor``), it gives the network a strong linear
model to start from; the network's share is learnt, not fixed. ``'multirocket'`` does the same on
MultiRocket's features (Tan et al. 2022; aeon's transform: four pooling operators on the
convolutions of the series and of its first difference, about 50,000 features), as aeon's
``MultiRocketRegressor`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["RocketAnchor"]

#: The transforms' shortest series (MultiRocket also convolves the first difference, one step
#: shorter); shorter ones are zero-padded at the end.
MIN_LENGTH = {"minirocket": 9, "multirocket": 10}
ALPHAS = np.logspace(-3, 3, 10)


def _arrays(batch: Any, length: int) -> np.ndarray:
    """A :class:`~tsattn.io.SeriesBatch` ``(n, N, C)`` -> ``(n, C, length)`` float64, each
    series zero-padded at its end (trailing NaN of unequal lengths become 0) or cut to its first
    ``length`` steps."""
    values = np.nan_to_num(np.asarray(batch.values, dtype=np.float64))
    steps = np.arange(values.shape[1])[None, :, None] < batch.lengths[:, None, None]
    values = np.where(steps, values, 0.0)
    out = np.zeros((values.shape[0], values.shape[2], length))
    n = min(length, values.shape[1])
    out[:, :, :n] = values[:, :n].transpose(0, 2, 1)
    return out


class RocketAnchor:
    """MiniRocket (or MultiRocket) features -> scaled -> ridge (penalty by leave-one-out error),
    per target."""

    def __init__(self, seed: int, transform: str = "minirocket") -> None:
        if transform not in MIN_LENGTH:
            raise ValueError(f"transform must be one of {sorted(MIN_LENGTH)}, got {transform!r}.")
        self.seed = int(seed)
        self.transform = transform

    def fit(self, batch: Any, y: np.ndarray) -> np.ndarray:
        """Fit on the series ``batch`` and targets ``y (n, n_targets)``; return the leave-one-out
        predictions ``(n, n_targets)``."""
        from aeon.transformations.collection.convolution_based import MiniRocket, MultiRocket
        from sklearn.linear_model import RidgeCV

        if len(y) < 2:
            raise ValueError(
                f"The {self.transform} anchor predicts each training series from the others, so it needs at "
                f"least 2 training series; got {len(y)} sample. Pass more series or anchor='none'."
            )
        self.length_ = max(MIN_LENGTH[self.transform], int(batch.values.shape[1]))
        kind = MiniRocket if self.transform == "minirocket" else MultiRocket
        self.transform_ = kind(random_state=self.seed, n_jobs=1)
        # float64: the transform gives float32, in which the leave-one-out shortcut's differences
        # of near-equal numbers lose digits at small penalties
        features = np.asarray(self.transform_.fit_transform(_arrays(batch, self.length_)),
                              dtype=np.float64)  # fmt: skip
        scale = features.std(axis=0)
        self.scale_ = np.where(scale > 1e-12, scale, 1.0)
        features = features / self.scale_
        # the ridge fits the targets divided by their largest magnitude: squared errors of targets
        # near float64's limit (1e200) would overflow, and the penalty chosen and the predictions
        # (scaled back) do not depend on the targets' unit
        peak = np.abs(np.asarray(y, dtype=np.float64)).max(axis=0)
        self.y_scale_ = np.where(peak > 0, peak, 1.0)
        y = y / self.y_scale_
        # with a scoring, cv_results_ holds each series' leave-one-out prediction (without one,
        # its squared error); the penalty is chosen by the same mean squared error either way
        self.ridge_ = RidgeCV(alphas=ALPHAS, store_cv_results=True,
                              scoring="neg_mean_squared_error").fit(features, y)  # fmt: skip
        # at the chosen penalty: (n, [n_targets,] n_alphas) -> (n, n_targets)
        column = int(np.flatnonzero(ALPHAS == self.ridge_.alpha_)[0])
        loo = np.asarray(self.ridge_.cv_results_).reshape(len(y), -1, len(ALPHAS))[:, :, column]
        return loo * self.y_scale_

    def predict(self, batch: Any) -> np.ndarray:
        """``(n, n_targets)`` predictions of the ridge for the series ``batch``: padded (or cut)
        to the training length, the only length the fitted transform accepts; the network sees
        longer series whole."""
        features = np.asarray(self.transform_.transform(_arrays(batch, self.length_)),
                              dtype=np.float64)  # fmt: skip
        pred = np.asarray(self.ridge_.predict(features / self.scale_)).reshape(len(features), -1)
        return pred * self.y_scale_
