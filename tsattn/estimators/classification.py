"""``TSClassifier``: transformer time-series classification with a choice of attention."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.base import ClassifierMixin
from sklearn.preprocessing import LabelEncoder
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from tsattn.estimators.base import RATE
from tsattn.estimators.collection import CollectionEstimator
from tsattn.estimators.params import declare, default, param

__all__ = ["TSClassifier"]


@declare
class TSClassifier(ClassifierMixin, CollectionEstimator):
    """Time-series classifier: a transformer encoder whose attention is a choice.

    Most fits set four parameters, documented first below: ``attention`` (the variant),
    ``max_steps`` (the budget), ``device`` and ``random_state``. The other defaults were chosen by
    cross-validation on TRAIN splits; :doc:`/guide/parameters` gives each parameter's reason.

    ``X`` is ``(n, channels, length)``, ``(n, length)``, a list of ``(channels, length_i)`` arrays,
    an array with trailing-NaN padding, or an aeon/sktime collection; ``y`` holds ``n`` labels.

    Examples
    --------
    >>> from tsattn import TSClassifier
    >>> clf = TSClassifier(attention="bn_sh", beta=0.6).fit(X_train, y_train)  # doctest: +SKIP
    >>> clf.predict(X_test)  # doctest: +SKIP

    Attributes
    ----------
    classes_ : ndarray (n_classes,)
        The labels, sorted.
    module_ : tsattn.nn.TSTransformer
        The trained network; ``network_params_`` is what rebuilds it.
    history_ : list of dict
        One record per epoch; ``best_epoch_`` is the epoch whose weights were kept.
    interrupted_ : bool
        True when Ctrl-C stopped ``fit``.
    n_channels_, series_length_ : int
        Channels and length (the longest, for unequal lengths) of the training series.
    channel_mean_, channel_scale_ : ndarray
        The training standardisation.
    """

    # chosen by 3-fold CV on TRAIN across the UEA/UCR sets (docs/guide/defaults.md)
    augment_prob: float = default(0.5)
    tokenizer: str = default("conv_rocket")
    label_smoothing: float = param(
        0.1, [RATE], "Share of each training label's probability spread evenly over the classes "
        "in the cross-entropy (``torch.nn.functional.cross_entropy``); 0 trains on hard labels. "
        "Default 0.1 (:ref:`defaults-label-smoothing`)."
    )

    def _encode_targets(self, y, n_series):
        _check_labels(y)
        y = column_or_1d(y, warn=True)
        if len(y) != n_series:
            raise ValueError(f"X has {n_series} series but y has {len(y)} labels; they must match.")
        check_classification_targets(y)
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
        return F.cross_entropy(output, target, label_smoothing=self.label_smoothing)

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


def _kind(label: Any) -> str:
    if isinstance(label, str | np.str_):
        return "str"
    if isinstance(label, bool | np.bool_):
        return "bool"
    if isinstance(label, numbers.Number):
        return "number"
    return type(label).__name__


def _check_labels(y: Any) -> None:
    """Refuse missing labels (None, NaN) and labels of mixed types, saying where they are."""
    if y is None or isinstance(y, str):
        return
    labels = np.asarray(y, dtype=object).ravel()
    missing = [
        i for i, v in enumerate(labels)
        if v is None or (isinstance(v, numbers.Real) and not np.isfinite(float(v)))
    ]  # fmt: skip
    if missing:
        raise ValueError(
            f"y has {len(missing)} missing or non-finite label(s) (None, NaN or inf), e.g. at "
            f"position(s) {missing[:5]}; remove those series or give them a label."
        )
    kinds: dict[str, Any] = {}
    for v in labels:
        kinds.setdefault(_kind(v), v)
    if len(kinds) > 1:
        shown = ", ".join(f"{k} (e.g. {v!r})" for k, v in kinds.items())
        raise ValueError(
            f"y mixes label types: {shown}; give every label the same type, e.g. "
            "np.asarray(y, dtype=str)."
        )
