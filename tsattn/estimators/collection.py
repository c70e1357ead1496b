"""The collection part of the core: estimators fitted on many series, one target each
(``TSClassifier``, ``TSRegressor``).

``X`` is ``(n, channels, length)``, ``(n, length)``, a list of ``(channels, length_i)`` arrays, an
array with trailing-NaN padding, or an aeon/sktime collection (:func:`tsattn.io.to_series_batch`).
Series are standardised per channel with training statistics, padded and masked, never truncated.
"""

from __future__ import annotations

import math
import warnings
from numbers import Real
from typing import Any, ClassVar

import numpy as np
import torch
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from tsattn._validation import POSITIVE_INT
from tsattn.attention import AttentionSpec
from tsattn.estimators import persistence
from tsattn.estimators._rocket_anchor import RocketAnchor, warn_if_large
from tsattn.estimators.base import ATTENTION, BaseTSEstimator
from tsattn.estimators.params import declare, default, param
from tsattn.io import SeriesBatch, check_channels, standardisation, to_series_batch
from tsattn.nn.network import HEADS, TSTransformer
from tsattn.nn.tokenizers import TOKENIZERS, token_steps, tokenizer_sizes
from tsattn.training import SliceAndScale, TensorData, predict, resolve_device

__all__ = ["CollectionEstimator"]

# max_steps='auto': 1000 steps up to AUTO_STEPS_SERIES training series, growing with the square
# root of their number beyond, at most AUTO_MAX_STEPS
AUTO_STEPS, AUTO_STEPS_SERIES, AUTO_MAX_STEPS = 1000, 50, 4000
# steps a length-dependent attention (s3) is sized for at least when training lengths differ
UNEQUAL_ROOM = 512


@declare
class CollectionEstimator(BaseTSEstimator):
    """Base of :class:`tsattn.TSClassifier` and :class:`tsattn.TSRegressor`."""

    attention: str = param("softmax", **ATTENTION, kw_only=False)
    head: str = param(
        "meanmax", [StrOptions(set(HEADS))], "``'meanmax'`` concatenates the mean and the maximum "
        "of the encoded real steps and ``'pool'`` takes their mean (both: any length at predict); "
        "``'flatten'`` is Zerveas et al.'s flattened head (predict refuses series longer than the "
        "longest training series)."
    )
    tokenizer: str = param(
        "conv", [StrOptions(set(TOKENIZERS))], "How series become tokens: ``'step'`` one token per "
        "step (a linear map of its channels, Zerveas et al.); ``'patch'`` non-overlapping patches "
        "of ``ceil(length / max_tokens)`` steps, each mapped linearly; ``'conv'`` a strided "
        "convolutional stem (:class:`~tsattn.nn.tokenizers.ConvTokenizer`) that halves the steps "
        "until the longest training series gives at most ``max_tokens`` tokens; ``'rocket'`` "
        "MiniRocket's fixed random kernels at dilations up to the longest series' span, their "
        "proportions of positive values over each token's steps mapped to the token "
        "(:class:`~tsattn.nn.tokenizers.RocketTokenizer`); ``'conv_rocket'`` the sum of the two. "
        "All but ``'step'`` bound the attention's cost and the number of tokens for long series. "
        "``TSClassifier`` defaults to ``'conv_rocket'``, ``TSRegressor`` to ``'conv'`` "
        "(:ref:`defaults-tokenizer`)."
    )
    max_tokens: int = param(
        32, [POSITIVE_INT], "Token budget of the ``'patch'``, ``'conv'`` and rocket tokenisers for the "
        "longest training series (``'step'`` ignores it). Default 32 (:ref:`defaults-max-tokens`)."
    )
    crop: float = param(
        0.8, [Interval(Real, 0, 1, closed="right")], "Training augmentation, window slicing: each "
        "training series is cut to a random window of at least this share of its steps, stretched "
        "back to its length (:class:`~tsattn.training.SliceAndScale`). 1 switches it off."
    )
    scale_jitter: float = param(
        0.1, [Interval(Real, 0, None, closed="left")], "Training augmentation: each training series' "
        "channels are multiplied by ``exp(N(0, scale_jitter**2))``. 0 switches it off."
    )
    augment_prob: float = param(
        1.0, [Interval(Real, 0, 1, closed="both")], "Share of the training series that ``crop`` "
        "and ``scale_jitter`` transform in each batch; the rest are fed unchanged. 0 switches "
        "augmentation off. ``TSClassifier`` defaults to 0.5 (:ref:`defaults-augment-prob`)."
    )
    normalize: str = param(
        "channel", [StrOptions({"channel", "instance", "both"})], "Input scaling: ``'channel'`` "
        "standardises each channel with the training set's mean and deviation (amplitudes compare "
        "across series); ``'instance'`` standardises each series' channels by their own mean and "
        "deviation (shapes only); ``'both'`` gives the network the two side by side (2 x channels). "
        "Default ``'channel'`` (:ref:`defaults-normalize`)."
    )
    n_layers: int = default(2)
    dim_feedforward: int = default(128)
    dropout: float = default(0.1)
    max_epochs: int | None = default(None)
    max_steps: int | str | None = default(1000)
    lr_schedule: str | None = default("warmup_cosine")

    _network = TSTransformer
    #: Options removed after 0.1.0 (issue 50: measured and left off, ``docs/guide/defaults.md``),
    #: each with the value whose behaviour was kept: a model saved with another value does not load.
    _removed_params = {"stem_width": 16, "stem_input_blocks": 0, "stem_diff": False,
                       "stem_pool": False, "mixup": 0.0, "pretrain_steps": 0,
                       "rocket_augmented": True}  # fmt: skip

    def __setstate__(self, state: dict) -> None:
        """A model saved before the options of ``_removed_params`` were removed loads when it left
        them at their defaults, and fails naming them otherwise."""
        persistence.drop_removed(state, self._removed_params, type(self).__name__)
        state.pop("pretrain_loss_", None)  # the fitted record of pretrain_steps
        super().__setstate__(state)

    # ------------------------------------------------------------------ hooks of the two tasks
    #: The ``anchor`` option -> the features of its :class:`RocketAnchor` (``'none'``: no anchor).
    _anchor_features: ClassVar[dict[str, str]] = {}
    #: The fitted attributes of the anchor, None without one.
    _anchor_attributes: ClassVar[tuple[str, ...]] = ("anchor_",)

    def _encode_targets(self, y: Any, n_series: int, prior: np.ndarray | None = None
                        ) -> tuple[torch.Tensor, int]:  # fmt: skip
        """Validate ``y``, set target attributes, return ``(targets, n_outputs)``; ``prior`` is the
        anchor's leave-one-out output of the series ``(n_series, k)`` (:meth:`_fit_anchor`; None
        without an anchor), which the targets carry."""
        raise NotImplementedError

    def _fit_anchor(self, batch: SeriesBatch, y: Any) -> np.ndarray:
        """Validate ``y``, fit ``anchor_`` (:meth:`_new_anchor`) to the series ``batch`` and ``y``
        and set what prediction needs of it; return its leave-one-out output ``(n_series, k)``,
        the ``prior`` of :meth:`_encode_targets`."""
        raise NotImplementedError

    def _new_anchor(self) -> RocketAnchor:
        """This fit's unfitted anchor: the features of ``anchor``, seeded by the fit's first draw."""
        return RocketAnchor(self._random()[0], self._anchor_features[self.anchor])

    def _stratify(self, y_encoded: torch.Tensor) -> np.ndarray | None:
        return None

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any) -> CollectionEstimator:
        """Train on series ``X`` and their labels ``y`` ``(n,)`` (``TSClassifier``) or targets
        ``(n,)`` or ``(n, n_targets)`` (``TSRegressor``); returns ``self``.

        ``X`` is read once; with an ``anchor`` the anchor is fitted to it first, and the network
        learns what the anchor's leave-one-out output misses."""
        spec = self._validate()
        for name in self._anchor_attributes:
            setattr(self, name, None)
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        anchored = self.anchor != "none"
        if anchored:
            warn_if_large(y, type(self).__name__)
        batch = to_series_batch(X, dtype=np.float64, check_float32=True)
        prior = self._fit_anchor(batch, y) if anchored else None
        return self._train(*self._build(batch, _n_features(X), y, prior, spec))

    def _build(self, batch: SeriesBatch, n_features: int | None, y: Any, prior: np.ndarray | None,
               spec: AttentionSpec):  # fmt: skip
        """Targets, standardisation, validation split and ``network_params_`` of the series
        ``batch`` (``n_features``: ``X.shape[1]`` of array input, else None) and ``y`` (with the
        anchor's ``prior``); returns the training and validation data and the seeds of this fit."""
        n = batch.values.shape[0]
        targets, n_outputs = self._encode_targets(y, n, prior)
        self.device_ = resolve_device(self.device)
        self.n_channels_ = batch.n_channels
        self.series_length_ = int(batch.values.shape[1])
        self.equal_length_ = batch.equal_length
        self.n_features_in_ = n_features if n_features is not None else batch.n_channels

        real = np.arange(self.series_length_)[None, :] < batch.lengths[:, None]
        # float64 statistics and standardisation: values near float32's limits lose nothing
        self.channel_mean_, self.channel_scale_ = standardisation(batch.values[real])

        seed, rng = self._random()
        train_idx, valid_idx = self._split(n, targets, rng)
        data = self._to_tensors(batch, targets)
        train_data = data.subset(train_idx)
        valid_data = data.subset(valid_idx) if valid_idx is not None else None

        tokenizer_params = tokenizer_sizes(self.tokenizer, self.series_length_, self.max_tokens)
        self.network_params_ = dict(
            n_channels=self.n_channels_ * (2 if self.normalize == "both" else 1), n_outputs=n_outputs, max_len=self.series_length_,
            # unequal lengths: predict may meet longer series; a length-dependent attention
            # (s3's Fourier filter) is sized for UNEQUAL_ROOM steps at least
            max_input_len=None if self.equal_length_ else max(UNEQUAL_ROOM, self.series_length_),
            head=self.head, tokenizer=self.tokenizer, tokenizer_params=tokenizer_params,
            **self._trunk_params(spec),
        )  # fmt: skip
        self.token_steps_ = token_steps(tokenizer_params)
        self.n_tokens_ = -(-self.series_length_ // self.token_steps_)
        return train_data, valid_data, seed, rng

    def _auto_batch(self, n_train: int) -> int:
        """``batch_size='auto'``: the largest power of two at or below a quarter of the training
        series, between 8 and 32, so that a set of a few dozen series still gets several batches
        per epoch (gradient noise) instead of one full batch. Not the default (why:
        ``docs/guide/defaults.md``)."""
        return int(np.clip(2 ** math.floor(math.log2(max(n_train, 1) / 4)), 8, 32))

    def _auto_steps(self, n_train: int) -> int:
        """``max_steps='auto'``: ``1000 * sqrt(n_train / 50)`` optimiser steps, at least 1000 and at
        most 4000 (50 series: 1000; 200: 2000; 800 or more: 4000). Small sets keep the fixed budget;
        larger ones, which get fewer passes over their series from it, get more steps. Not the
        default (why: ``docs/guide/defaults.md``)."""
        steps = round(AUTO_STEPS * math.sqrt(n_train / AUTO_STEPS_SERIES))
        return int(np.clip(steps, AUTO_STEPS, AUTO_MAX_STEPS))

    def _augmentation(self) -> SliceAndScale | None:
        transform = SliceAndScale(self.crop, self.scale_jitter, self.augment_prob)
        return transform if transform.active else None

    def _split(self, n: int, targets: torch.Tensor, rng: np.random.Generator):
        if self.validation_fraction == 0:
            return np.arange(n), None
        n_valid = int(np.ceil(self.validation_fraction * n))
        if n - n_valid < 2:
            return self._no_split(
                n, f"validation_fraction={self.validation_fraction} of {n} series leaves "
                f"{n - n_valid} for training (at least 2 needed)", "a smaller validation_fraction"
            )
        strat = self._stratify(targets)
        if strat is None:
            perm = rng.permutation(n)
            return np.sort(perm[n_valid:]), np.sort(perm[:n_valid])
        from sklearn.model_selection import train_test_split

        counts = np.bincount(strat)
        if counts.min() < 2 or n_valid < len(counts) or n - n_valid < len(counts):
            return self._no_split(
                n, f"cannot carve a stratified validation split ({n} series, {len(counts)} "
                f"classes, smallest class {counts.min()} series, validation_fraction="
                f"{self.validation_fraction})", "every class at least 2 series, or a larger "
                "validation_fraction",
            )  # fmt: skip
        seed = int(rng.integers(np.iinfo(np.int32).max))
        train_idx, valid_idx = train_test_split(
            np.arange(n), test_size=n_valid, stratify=strat, random_state=seed
        )
        return np.sort(train_idx), np.sort(valid_idx)

    def _no_split(self, n: int, why: str, fix: str) -> tuple[np.ndarray, None]:
        warnings.warn(
            f"{why}: training on all series and monitoring the training loss instead, without "
            f"early stopping. Give {fix}, or validation_fraction=0 to silence this.",
            UserWarning,
            stacklevel=4,
        )
        return np.arange(n), None

    # ------------------------------------------------------------------ predict
    def _check_X_predict(self, X: Any) -> SeriesBatch:
        check_is_fitted(self, "module_")
        batch = to_series_batch(X, dtype=np.float64, check_float32=True)
        check_channels(batch.n_channels, self.n_channels_, "X", type(self).__name__)
        n_features = _n_features(X)
        if self.equal_length_ and (not batch.equal_length or batch.values.shape[1] != self.series_length_):
            if n_features is not None and self.n_channels_ == 1 and _is_2d(X):
                raise ValueError(
                    f"X has {n_features} features, but {type(self).__name__} is expecting "
                    f"{self.n_features_in_} features as input (the series length seen in fit)."
                )
            raise ValueError(
                f"series length {int(batch.lengths.max())} differs from the length "
                f"{self.series_length_} of every training series. Fit on series of unequal length "
                "(padded with trailing NaN or as a list) to predict on any length."
            )
        if self.head == "flatten" and batch.values.shape[1] > self.series_length_:
            raise ValueError(
                f"a series has {batch.values.shape[1]} steps but head='flatten' was fitted on at "
                f"most {self.series_length_}; use head='meanmax' or 'pool' to predict on longer series."
            )
        return batch

    def _to_tensors(self, batch: SeriesBatch, y: torch.Tensor | None = None) -> TensorData:
        steps = np.arange(batch.values.shape[1])[None, :, None] < batch.lengths[:, None, None]
        parts = []
        if self.normalize in ("channel", "both"):
            parts.append((batch.values - self.channel_mean_) / self.channel_scale_)
        if self.normalize in ("instance", "both"):
            parts.append(_instance_standardised(batch.values, steps))
        values = np.where(steps, np.concatenate(parts, axis=2), 0.0).astype(np.float32)
        dev = self.device_
        return TensorData(
            x=torch.from_numpy(values).to(dev),
            lengths=torch.from_numpy(batch.lengths).to(dev),
            y=None if y is None else y.to(dev),
            fixed_len=self.head == "flatten",  # the flatten head needs the training length
        )

    def _forward(self, X: Any) -> torch.Tensor:
        data = self._to_tensors(self._check_X_predict(X))
        out = self._predict_tensor(data)
        bad = ~torch.isfinite(out).all(dim=1)
        if bool(bad.any()):
            far = float(data.x[bad.to(data.x.device)].abs().max())
            raise ValueError(
                f"the network's output is not finite for {int(bad.sum())} of {len(out)} series: "
                f"their values lie up to {far:.3g} training standard deviations from the training "
                "mean, far outside anything seen in fit. Check that X is in the units and scale of "
                "the training data."
            )
        return out

    def attention_maps(self, X: Any) -> np.ndarray:
        """The attention weights of every layer and head for the series ``X``, as the network
        computes them in ``predict``.

        Parameters
        ----------
        X : series in any format ``fit`` takes, with the fitted channels (and length).

        Returns
        -------
        maps : ndarray ``(n_series, n_layers, n_heads, N, N)`` float32, ``N`` the longest series in
            ``X``. ``maps[i, l, h, t]`` is how much head ``h`` of layer ``l`` lets step ``t`` of series
            ``i`` draw on each step (a distribution over its real steps); rows and columns of a
            series' padded steps are zero. Scaled and multiresolution heads spread each pooled
            key's weight equally over the steps it averages, the weight their values receive.

        Raises
        ------
        ValueError
            For variants whose output is not a weighted sum of the values by an ``N x N`` map
            (``long_short``, ``s3``); the message names the variants that have one.

        Notes
        -----
        Memory is ``n_series * n_layers * n_heads * N^2`` floats: pass a few series at a time.
        """
        check_is_fitted(self, "module_")
        data = self._to_tensors(self._check_X_predict(X))
        layer = self.module_.encoder.layers[0].attention
        if not getattr(layer, "supports_weights", False):
            raise layer.weights_unavailable()
        _, weights = predict(
            self.module_, data, batch_size=self._predict_batch(), precision=self.precision,
            need_weights=True,
        )  # fmt: skip
        return torch.stack(weights, dim=1).numpy()


def _is_2d(X: Any) -> bool:
    return isinstance(X, np.ndarray) and X.ndim == 2


def _n_features(X: Any) -> int | None:
    """``X.shape[1]`` for array input (channels for 3-D, length for 2-D), else None."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) in (2, 3) and not hasattr(X, "columns"):
        return int(shape[1])
    return None


def _instance_standardised(values: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """``values (n, length, C)`` standardised per series and channel over its real ``steps
    (n, length, 1)``; a constant channel is only centred."""
    count = steps.sum(axis=1, keepdims=True)
    real = np.where(steps, values, 0.0)
    mean = real.sum(axis=1, keepdims=True) / count
    std = np.sqrt((np.where(steps, values - mean, 0.0) ** 2).sum(axis=1, keepdims=True) / count)
    return (values - mean) / np.where(std > 1e-12, std, 1.0)
