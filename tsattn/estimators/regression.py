"""``TSRegressor``: transformer time-series extrinsic regression with a choice of attention."""

from __future__ import annotations

import warnings

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.base import RegressorMixin
from sklearn.utils.validation import check_is_fitted

from tsattn.estimators.collection import CollectionEstimator
from tsattn.estimators.params import declare

__all__ = ["TSRegressor"]


@declare
class TSRegressor(RegressorMixin, CollectionEstimator):
    """Time-series regressor (one or several targets per series); inputs as :class:`TSClassifier`.

    Targets are standardised with their training mean and scale for training (MSE loss) and mapped
    back at predict. Both are computed so that any finite float64 targets work, however large.

    Attributes
    ----------
    target_mean_, target_scale_ : the target standardisation. Others as :class:`TSClassifier`.
    """

    def _encode_targets(self, y, n_series):
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
        return F.mse_loss(output, target)

    def predict(self, X) -> np.ndarray:
        """Predicted targets ``(n,)`` (or ``(n, n_targets)`` when fitted on 2-D ``y``)."""
        check_is_fitted(self, "module_")
        out = self._forward(X).numpy().astype(np.float64) * self.target_scale_ + self.target_mean_
        if not np.isfinite(out).all():
            warnings.warn(
                "some predictions overflow float64 (the training targets reach "
                f"{np.abs(self.target_mean_).max() + self.target_scale_.max():.3g}); rescale y.",
                RuntimeWarning,
                stacklevel=2,
            )
        return out[:, 0] if self._y_1d else out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
