"""``TSClassifier``: transformer time-series classification with a choice of attention."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.base import ClassifierMixin
from sklearn.preprocessing import LabelEncoder
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from tsattn.estimators.base import _PARAMS_DOC, BaseTSEstimator

__all__ = ["TSClassifier"]


class TSClassifier(ClassifierMixin, BaseTSEstimator):
    """Time-series classifier: a transformer encoder whose attention is a choice.

    ``X`` is ``(n, channels, length)``, ``(n, length)``, a list of ``(channels, length_i)`` arrays,
    an array with trailing-NaN padding, or an aeon/sktime collection; ``y`` holds ``n`` labels.

    Examples
    --------
    >>> from tsattn import TSClassifier
    >>> clf = TSClassifier(attention="bn_sh", beta=0.6).fit(X_train, y_train)  # doctest: +SKIP
    >>> clf.predict(X_test)  # doctest: +SKIP

    Attributes
    ----------
    classes_ : labels, sorted. ``module_`` the trained network; ``history_`` one dict per epoch;
    ``best_epoch_``; ``interrupted_`` (True when Ctrl-C stopped fit); ``n_channels_``;
    ``series_length_``; ``channel_mean_``/``channel_scale_`` the training standardisation.
    """

    def fit(self, X, y) -> TSClassifier:
        """Train on series ``X`` and labels ``y``; returns ``self``."""
        return self._fit(X, y)

    def _encode_targets(self, y, n_series):
        if y is None:
            raise ValueError("TSClassifier requires y to be passed, but the target y is None.")
        y = column_or_1d(y, warn=True)
        if len(y) != n_series:
            raise ValueError(f"X has {n_series} series but y has {len(y)} labels; they must match.")
        check_classification_targets(y)
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("y contains NaN or infinite labels; remove those series.")
        encoder = LabelEncoder().fit(y)
        self.classes_ = encoder.classes_
        if len(self.classes_) < 2:
            raise ValueError(
                f"y has only 1 class ({self.classes_[0]!r}); classification needs at least 2 classes."
            )
        return torch.as_tensor(encoder.transform(y), dtype=torch.long), len(self.classes_)

    def _stratify(self, y_encoded):
        return y_encoded.cpu().numpy()

    def _loss(self, output, target):
        return F.cross_entropy(output, target)

    @staticmethod
    def _score_fn(output, target):
        return (output.argmax(dim=1) == target).float().mean()

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities ``(n, n_classes)`` float64, columns in the order of ``classes_``.

        The softmax runs in float64, so each row sums to one to float64 precision (a float32 softmax
        is off by about 1e-7, which scikit-learn's ``log_loss`` warns about).
        """
        check_is_fitted(self, "module_")
        return torch.softmax(self._forward(X).double(), dim=1).numpy()

    def predict(self, X) -> np.ndarray:
        """Predicted labels ``(n,)``."""
        check_is_fitted(self, "module_")
        return self.classes_[self._forward(X).argmax(dim=1).numpy()]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags


TSClassifier.__doc__ += _PARAMS_DOC
