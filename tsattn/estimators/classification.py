"""``TSClassifier``: transformer time-series classification with a choice of attention."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.base import ClassifierMixin
from sklearn.preprocessing import LabelEncoder
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from tsattn.estimators.base import RATE
from tsattn.estimators.collection import CollectionEstimator
from tsattn.estimators.params import declare, default, param
from tsattn.io import to_series_batch

__all__ = ["TSClassifier"]


@declare
class TSClassifier(ClassifierMixin, CollectionEstimator):
    """Time-series classifier: a transformer encoder whose attention is a choice.

    Most fits set four parameters, documented first below: ``attention`` (the variant),
    ``max_steps`` (the budget), ``device`` and ``random_state``. The other defaults were chosen by
    cross-validation on TRAIN splits; :doc:`/guide/parameters` gives each parameter's reason.

    By default (``anchor='hydra-multirocket'``) a ridge classifier on Hydra's and MultiRocket's
    features (aeon's ``MultiRocketHydraClassifier``'s) is fitted first, and the network learns to
    correct its scores: its logits are added to the ridge's leave-one-out scores in training and
    to its scores at predict. ``anchor='none'`` trains the network alone (then
    ``label_smoothing=0.1`` scored better: :ref:`defaults-anchor`).

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
    anchor_ : the ridge on Hydra's and MultiRocket's features whose scores the network corrects
        (``anchor='hydra-multirocket'``), or None; ``anchor_temperature_`` turns its scores into
        logits.
    """

    # chosen by 3-fold CV on TRAIN across the UEA/UCR sets (docs/guide/defaults.md)
    augment_prob: float = default(0.5)
    tokenizer: str = default("conv_rocket")
    label_smoothing: float = param(
        0.0,
        [RATE],
        "Share of each training label's probability spread evenly over the classes "
        "in the cross-entropy (``torch.nn.functional.cross_entropy``); 0 trains on hard labels. "
        "Default 0, chosen with the anchor; with ``anchor='none'`` 0.1 scored better "
        "(:ref:`defaults-label-smoothing`).",
    )

    anchor: str = param(
        "hydra-multirocket",
        [StrOptions({"none", "hydra-multirocket"})],
        "A ridge classifier fitted first, "
        "whose scores the network corrects: ``'hydra-multirocket'`` fits a ridge (penalty by "
        "leave-one-out error) to one-hot targets on Hydra's and MultiRocket's features (aeon's "
        "transforms, as aeon's ``MultiRocketHydraClassifier``); its leave-one-out scores, times "
        "the temperature that makes them the best probabilities (``anchor_temperature_``), are "
        "added to the network's logits in training, and its scores of new series at predict "
        "(``anchor_``). ``'none'``: the network alone. Default ``'hydra-multirocket'`` "
        "(:ref:`defaults-anchor`).",
    )

    _anchor_features = {"hydra-multirocket": "hydra-multirocket"}
    _anchor_attributes = ("anchor_", "anchor_temperature_")

    def _fit_anchor(self, batch, y):
        """The ridge on one-hot targets in {-1, 1}; returns its leave-one-out scores times the
        temperature that makes them the best probabilities (``anchor_temperature_``), the
        logits the network's are added to."""
        # fit warns once about the input, at the caller's line, and _build once about y; aeon's
        # transforms warn of near-constant series, which the network's standardisation handles
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            codes, classes = _encode(y, batch.values.shape[0])
            onehot = np.where(codes[:, None] == np.arange(len(classes)), 1.0, -1.0)
            self.anchor_ = self._new_anchor()
            loo = self.anchor_.fit(batch, onehot)
        self.anchor_temperature_ = _temperature(loo, codes)
        return loo * self.anchor_temperature_

    def _encode_targets(self, y, n_series, prior=None):
        codes, self.classes_ = _encode(y, n_series)
        labels = torch.as_tensor(codes, dtype=torch.long)
        if prior is None:
            return labels, len(self.classes_)
        # with an anchor each target row is (label, the anchor's logits of that series)
        return torch.cat([labels[:, None].float(), torch.as_tensor(prior, dtype=torch.float32)],
                         dim=1), len(self.classes_)  # fmt: skip

    def _stratify(self, y_encoded):
        return _split_target(None, y_encoded)[1].cpu().numpy()

    def _loss(self, output, target):
        output, target = _split_target(output, target)
        return F.cross_entropy(output, target, label_smoothing=self.label_smoothing)

    @staticmethod
    def _score_fn(output, target):
        output, target = _split_target(output, target)
        return (output.argmax(dim=1) == target).float().mean()

    def _logits(self, X) -> torch.Tensor:
        """``(n, n_classes)``: the network's outputs plus the anchor's scaled scores."""
        out = self._forward(X)
        if getattr(self, "anchor_", None) is None:
            return out
        with warnings.catch_warnings():  # as in fit
            warnings.simplefilter("ignore", UserWarning)
            scores = self.anchor_.predict(to_series_batch(X, dtype=np.float64))
        return out.double() + torch.from_numpy(scores * self.anchor_temperature_)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities ``(n, n_classes)`` float64, columns in the order of ``classes_``.

        The softmax runs in float64, so each row sums to one to float64 precision (a float32 softmax
        is off by about 1e-7, which scikit-learn's ``log_loss`` warns about).
        """
        check_is_fitted(self, "module_")
        return torch.softmax(self._logits(X).double(), dim=1).numpy()

    def predict(self, X) -> np.ndarray:
        """Predicted labels ``(n,)``."""
        check_is_fitted(self, "module_")
        return self.classes_[self._logits(X).argmax(dim=1).numpy()]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags


#: temperatures tried for the anchor's scores (one-hot targets in {-1, 1})
TEMPERATURES = np.logspace(-1, 3, 41)


def _temperature(scores: np.ndarray, codes: np.ndarray) -> float:
    """The temperature ``t`` whose ``softmax(t * scores)`` gives the lowest log-loss of the true
    classes ``codes (n,)`` from leave-one-out ``scores (n, n_classes)``."""
    logits = TEMPERATURES[:, None, None] * scores[None]  # (n_t, n, K)
    logits = logits - logits.max(axis=2, keepdims=True)
    log_p = logits - np.log(np.exp(logits).sum(axis=2, keepdims=True))
    loss = -log_p[:, np.arange(len(codes)), codes].mean(axis=1)
    return float(TEMPERATURES[int(np.argmin(loss))])


def _split_target(output, target):
    """``(output + the anchor's logits, labels)`` from a target of labels ``(n,)`` or of rows
    ``(label, anchor logits...)`` ``(n, 1 + n_classes)``."""
    if target.ndim == 1:
        return output, target
    shifted = None if output is None else output + target[:, 1:].to(output.dtype)
    return shifted, target[:, 0].long()


def _encode(y: Any, n_series: int) -> tuple[np.ndarray, np.ndarray]:
    """``(codes (n,), classes)`` of the labels ``y``, or a ``ValueError`` that says what is wrong."""
    _check_labels(y)
    y = column_or_1d(y, warn=True)
    if len(y) != n_series:
        raise ValueError(f"X has {n_series} series but y has {len(y)} labels; they must match.")
    check_classification_targets(y)
    encoder = LabelEncoder().fit(y)
    if len(encoder.classes_) < 2:
        raise ValueError(
            f"y has only 1 class ({encoder.classes_[0]!r}); classification needs at least 2 classes."
        )
    return encoder.transform(y), encoder.classes_


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
