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
``MultiRocketRegressor`` does. ``'hydra-multirocket'`` adds Hydra's features (Dempster et al. 2023;
aeon's transform: counts of the random kernels that win, or lose, within competing groups), square
rooted and scaled sparsely (each feature centred and divided by its deviation plus the share of its
zeros to the fourth power, zeros left at zero, as the Hydra paper scales them), beside
MultiRocket's standardised ones, the features of aeon's ``MultiRocketHydraClassifier``;
``TSClassifier``'s anchor fits the ridge to one-hot targets in {-1, 1}, as that classifier does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LARGE_N", "RocketAnchor", "warn_if_large"]

#: The transforms' shortest series (MultiRocket also convolves the first difference, one step
#: shorter); shorter ones are zero-padded at the end.
MIN_LENGTH = {"minirocket": 9, "multirocket": 10, "hydra-multirocket": 10}
ALPHAS = np.logspace(-3, 3, 10)
#: Training series above which a fit with an anchor warns of its cost: the leave-one-out ridge
#: holds every series' features (10,000 to about 52,000 floats each) and their Gram matrix (series squared),
#: so time and memory grow with the square of the count. PenDigits' 7,494 series took 110 s on
#: two threads against the network's 9 s, and 8 GB of memory at the peak
#: (``docs/results/classify/results.csv``, PenDigits' ``peak_mb``; ``docs/results/speed/fit_time/anchor/``).
LARGE_N = 10_000


def warn_if_large(y: Any, estimator: str) -> None:
    """Warn, at the caller's caller (the user's ``fit``), when the targets ``y`` (any array-like)
    are of more than :data:`LARGE_N` series; silent on a ``y`` the estimator will refuse."""
    import warnings

    from sklearn.utils.validation import _num_samples

    try:
        n_series = _num_samples(y)
    except TypeError:  # not array-like: the fit raises the input's own error after
        return
    if n_series > LARGE_N:
        warnings.warn(
            f"{estimator}'s anchor fits a leave-one-out ridge on tens of thousands of features of "
            f"each of the {n_series} training series: its time and memory grow with their number "
            "squared (TSClassifier's on 7,494 series: 8 GB and about 100 s). Pass anchor='none' "
            "to train the network alone, whose cost grows with the number itself.",
            UserWarning,
            stacklevel=3,
        )


def _numba_workqueue() -> None:
    """Have numba run aeon's parallel loops on its ``workqueue`` threads, unless the process
    already started numba's threads or the user chose a layer (``NUMBA_THREADING_LAYER``).

    numba's default OpenMP layer keeps its threads spinning after the transforms, beside torch's
    own OpenMP threads: on a 2-core machine the network's training that follows ran 2 to 7 times
    slower with torch's two threads (``docs/results/speed/fit_time/anchor/``)."""
    import os

    import numba
    from numba.np.ufunc import parallel

    if not parallel._is_initialized and "NUMBA_THREADING_LAYER" not in os.environ:
        numba.config.THREADING_LAYER = "workqueue"


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

        _numba_workqueue()

        if len(y) < 2:
            raise ValueError(
                f"The {self.transform} anchor predicts each training series from the others, so it needs at "
                f"least 2 training series; got {len(y)} sample. Pass more series or anchor='none'."
            )
        self.length_ = max(MIN_LENGTH[self.transform], int(batch.values.shape[1]))
        kind = MiniRocket if self.transform == "minirocket" else MultiRocket
        self.transform_ = kind(random_state=self.seed, n_jobs=1)
        arrays = _arrays(batch, self.length_)
        # float64: the transform gives float32, in which the leave-one-out shortcut's differences
        # of near-equal numbers lose digits at small penalties
        features = np.asarray(self.transform_.fit_transform(arrays), dtype=np.float64)
        scale = features.std(axis=0)
        self.scale_ = np.where(scale > 1e-12, scale, 1.0)
        features = features / self.scale_
        self.hydra_ = None
        if self.transform == "hydra-multirocket":
            self.hydra_ = _Hydra(self.seed)
            features = np.concatenate([self.hydra_.fit_transform(arrays), features], axis=1)
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
        arrays = _arrays(batch, self.length_)
        features = np.asarray(self.transform_.transform(arrays), dtype=np.float64) / self.scale_
        if getattr(self, "hydra_", None) is not None:
            features = np.concatenate([self.hydra_.transform(arrays), features], axis=1)
        pred = np.asarray(self.ridge_.predict(features)).reshape(len(features), -1)
        return pred * self.y_scale_


class _Hydra:
    """aeon's Hydra transform ``(n, C, length)`` -> ``(n, n_features)`` float64, square rooted
    and scaled sparsely with the training series' statistics."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def _counts(self, arrays: np.ndarray) -> np.ndarray:
        import torch

        with torch.no_grad():
            counts = self.transform_.transform(arrays)
        counts = counts.numpy() if isinstance(counts, torch.Tensor) else np.asarray(counts)
        return np.sqrt(np.clip(counts.astype(np.float64), 0.0, None))

    def fit_transform(self, arrays: np.ndarray) -> np.ndarray:
        """Fit on the training series ``arrays`` and return their scaled features."""
        import torch
        from aeon.transformations.collection.convolution_based import HydraTransformer

        from tsattn.training import torch_threads

        self.transform_ = HydraTransformer(random_state=self.seed, n_jobs=1, output_type="numpy")
        # aeon's fit seeds torch's global generator and sets its threads to n_jobs: both are
        # restored, so that the caller's random stream and thread count are not changed
        with torch_threads(1), torch.random.fork_rng(devices=[]):
            self.transform_.fit(arrays)
        root = self._counts(arrays)
        self.mean_ = root.mean(axis=0)
        # a feature that is mostly zero gets a larger divisor: its few non-zero values are not
        # blown up by a tiny deviation
        self.scale_ = (
            root.std(axis=0, ddof=1 if len(root) > 1 else 0) + (root == 0).mean(axis=0) ** 4 + 1e-8
        )
        return self._scaled(root)

    def transform(self, arrays: np.ndarray) -> np.ndarray:
        return self._scaled(self._counts(arrays))

    def _scaled(self, root: np.ndarray) -> np.ndarray:
        return np.where(root != 0, root - self.mean_, 0.0) / self.scale_
