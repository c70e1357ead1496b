"""``TSRegressor``: transformer time-series extrinsic regression with a choice of attention."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.base import RegressorMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from tsattn.estimators.collection import CollectionEstimator
from tsattn.estimators.params import declare, default, param
from tsattn.io import to_series_batch

__all__ = ["TSRegressor"]


@declare
class TSRegressor(RegressorMixin, CollectionEstimator):
    """Time-series regressor (one or several targets per series); inputs as :class:`TSClassifier`.

    Most fits set four parameters, documented first below: ``attention`` (the variant),
    ``max_steps`` (the budget), ``device`` and ``random_state``. The other defaults were chosen by
    cross-validation on TRAIN splits; :doc:`/guide/parameters` gives each parameter's reason.

    By default (``anchor='multirocket'``) a ridge regression on MultiRocket's features is fitted
    first and the network learns what it misses. Targets are standardised for training and
    mapped back at predict; the statistics are computed so that any finite float64 targets work,
    however large. With a validation split (``validation_fraction``, 0.2 by default) the best
    epoch on the held-out series is kept and their absolute errors calibrate
    :meth:`predict_interval` (split conformal).

    Attributes
    ----------
    target_mean_, target_scale_ : the target scaling (centre and scale per target).
    interval_errors_ : ndarray ``(n_valid, n_targets)`` or None
        The sorted absolute errors on the validation series, in the targets' units (None without a
        validation split).
    anchor_ : the ridge on MultiRocket's (``anchor='multirocket'``) or MiniRocket's
        (``anchor='rocket'``) features that the network corrects, or None. Others as :class:`TSClassifier`.
    """

    # chosen by 3-fold CV on TRAIN of the 8 regression tasks (docs/results/regress/cv/,
    # rocket_v02): with the rocket anchor, the best epoch on a 20% split scored a geometric mean
    # RMSE ratio to MiniRocket of 0.971 against 0.975 without a split; the split also calibrates
    # predict_interval
    validation_fraction: float = default(0.2)
    _removed_params = {**CollectionEstimator._removed_params, "target_scaling": "standard"}

    loss: str = param(
        "huber", [StrOptions({"mse", "huber"})], "Training loss on the scaled targets: ``'mse'`` "
        "(squared error) or ``'huber'`` (squared within one scaled unit of the target, absolute "
        "beyond: ``torch.nn.functional.huber_loss`` with ``delta=1``), which lets a few far targets "
        "pull less. Default ``'huber'`` (:ref:`parameters-regressor`)."
    )
    anchor: str = param(
        "multirocket", [StrOptions({"none", "rocket", "multirocket"})], "A ridge regression fitted "
        "first, which the network corrects: it learns what the ridge's leave-one-out predictions "
        "miss, and a prediction is the sum of the two (``anchor_``). ``'multirocket'``: the ridge "
        "on MultiRocket's features (aeon's transform, about 50,000 features; the penalty chosen "
        "by leave-one-out error, as aeon's ``MultiRocketRegressor``); ``'rocket'``: on MiniRocket's "
        "10,000 features (as ``MiniRocketRegressor``; faster); ``'none'``: the network alone. "
        "Default ``'multirocket'`` (:ref:`parameters-regressor`)."
    )

    _anchor_features = {"rocket": "minirocket", "multirocket": "multirocket"}

    def _fit_anchor(self, batch, y):
        """The ridge on the targets; returns its leave-one-out predictions ``(n, n_targets)``."""
        targets = _check_targets(y, batch.values.shape[0])
        self.anchor_ = self._new_anchor()
        return self.anchor_.fit(batch, targets)

    def _encode_targets(self, y, n_series, prior=None):
        y = _check_targets(y, n_series)
        if prior is not None:  # the network learns what the anchor's predictions miss
            residual = y.reshape(len(y), -1) - prior
            y = _check_targets(residual[:, 0] if y.ndim == 1 else residual, n_series)
        self._y_1d = y.ndim == 1
        y2 = y.reshape(len(y), -1)
        with np.errstate(over="ignore", invalid="ignore"):
            self.target_mean_, std = y2.mean(axis=0), y2.std(axis=0)
        if not (np.isfinite(self.target_mean_).all() and np.isfinite(std).all()):
            # Targets near float64's limit (1e200 squared overflows): the same statistics of y
            # divided by its largest magnitude, scaled back.
            peak = np.abs(y2).max(axis=0)
            self.target_mean_ = (y2 / peak).mean(axis=0) * peak
            std = (y2 / peak).std(axis=0) * peak
        self.target_scale_ = np.where(std > 1e-12, std, 1.0)
        scaled = (y2 - self.target_mean_) / self.target_scale_
        return torch.as_tensor(scaled, dtype=torch.float32), y2.shape[1]

    def _loss(self, output, target):
        if self.loss == "huber":
            return F.huber_loss(output, target, delta=1.0)
        return F.mse_loss(output, target)

    def _train(self, train_data, valid_data, seed, rng):
        super()._train(train_data, valid_data, seed, rng)
        self.interval_errors_ = None
        if valid_data is not None:
            pred = self._unscale(self._predict_tensor(valid_data))
            truth = self._unscale(valid_data.y.cpu())
            self.interval_errors_ = np.sort(np.abs(truth - pred), axis=0)
        return self

    def _unscale(self, out: torch.Tensor) -> np.ndarray:
        """Network outputs (or scaled targets) ``(n, n_targets)`` -> targets' units, float64."""
        return out.numpy().astype(np.float64) * self.target_scale_ + self.target_mean_

    def predict(self, X) -> np.ndarray:
        """Predicted targets ``(n,)`` (or ``(n, n_targets)`` when fitted on 2-D ``y``)."""
        check_is_fitted(self, "module_")
        out = self._unscale(self._forward(X))
        if getattr(self, "anchor_", None) is not None:
            out = out + self.anchor_.predict(to_series_batch(X, dtype=np.float64))
        if not np.isfinite(out).all():
            warnings.warn(
                "some predictions overflow float64 (the training targets reach "
                f"{np.abs(self.target_mean_).max() + self.target_scale_.max():.3g}); rescale y.",
                RuntimeWarning,
                stacklevel=2,
            )
        return out[:, 0] if self._y_1d else out

    def predict_interval(self, X, coverage: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)``: a prediction interval around :meth:`predict` that holds a new
        series' target with probability ``coverage`` (split conformal, Vovk et al. 2005).

        The half-width is the ``ceil((n + 1) * coverage)``-th smallest absolute error of the ``n``
        validation series (per target): exchangeable series get at least ``coverage`` on average.
        Needs a fit with ``validation_fraction > 0``; with too few validation series for the level
        (``ceil((n + 1) * coverage) > n``) the largest error is used, with a warning.

        Parameters
        ----------
        X : series as for :meth:`predict`.
        coverage : float in (0, 1), default 0.9

        Returns
        -------
        lower, upper : ndarray, each of :meth:`predict`'s shape.
        """
        check_is_fitted(self, "module_")
        if not isinstance(coverage, numbers.Real) or not 0 < coverage < 1:
            raise ValueError(f"coverage must be strictly between 0 and 1; got {coverage!r}.")
        errors = getattr(self, "interval_errors_", None)
        if errors is None:
            raise ValueError(
                "predict_interval needs errors on held-out series: this TSRegressor was fitted "
                f"with validation_fraction={self.validation_fraction}. Fit with "
                "validation_fraction > 0 (e.g. 0.2) to calibrate intervals."
            )
        n = len(errors)
        rank = math.ceil((n + 1) * coverage)
        if rank > n:
            warnings.warn(
                f"{n} validation series are too few for a {coverage:g} interval (it needs "
                f"{math.ceil(coverage / (1 - coverage))}); using the largest validation error, "
                "which may cover less. Fit with a larger validation_fraction.",
                UserWarning,
                stacklevel=2,
            )
        half = errors[min(rank, n) - 1]  # (n_targets,): broadcasts over (n,) and (n, n_targets)
        centre = self.predict(X)
        return centre - half, centre + half

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


def _check_targets(y, n_series: int) -> np.ndarray:
    """``y`` as a finite float64 ``(n,)`` or ``(n, n_targets)`` array of ``n_series`` rows, else a
    ``ValueError`` that says what is wrong."""
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"y must be numeric for regression: {err}") from err
    if y.ndim not in (1, 2):
        raise ValueError(f"y must be (n,) or (n, n_targets), got shape {y.shape}.")
    if y.ndim == 2 and y.shape[1] == 0:
        raise ValueError(f"y has shape {y.shape}: no target per series; pass at least one column.")
    if len(y) != n_series:
        raise ValueError(f"X has {n_series} series but y has {len(y)} targets; they must match.")
    if not np.isfinite(y).all():
        raise ValueError("y contains NaN or infinite values; remove or impute those targets.")
    return y
