"""Shared machinery of the supervised estimators (``TSClassifier``, ``TSRegressor``).

The estimator holds only flat, named parameters (so ``set_params``, ``GridSearchCV`` and Optuna reach
every one); the network is built in ``fit`` from data-dependent sizes; training goes through
:func:`tsattn.training.train_network`.
"""

from __future__ import annotations

import io
import numbers
import warnings
from typing import Any

import numpy as np
import torch
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, check_random_state

from tsattn._input import SeriesBatch, to_series_batch
from tsattn.attention.registry import (
    attention_hyperparameters,
    check_model_size,
    get_attention_class,
    resolve_attention,
)
from tsattn.nn.network import HEADS, TSTransformer
from tsattn.training import (
    LR_SCHEDULES,
    PRECISIONS,
    Callback,
    TensorData,
    predict_network,
    resolve_device,
    seeded,
    train_network,
)

__all__ = ["BaseTSEstimator", "ATTENTION_PARAMS"]

#: Estimator parameters forwarded to the attention variant (each documented with its variants).
ATTENTION_PARAMS = (
    "beta",
    "bn_standardize",
    "learn_beta",
    "scales",
    "key_scales",
    "kernel_size",
    "window",
    "rank",
    "r",
    "s1",
    "s2",
    "block",
    "max_len",
)

_PARAMS_DOC = """
    Parameters
    ----------
    attention : str, default="softmax"
        Attention variant, one of :func:`tsattn.list_attention` (e.g. ``"softmax"``, ``"bn"``,
        ``"sh"``, ``"bn_sh"``).
    d_model, n_heads, n_layers, dim_feedforward : int
        Model width, attention heads (``d_model % n_heads == 0``), encoder layers, feed-forward width.
    dropout : float, default=0.2
        Dropout on positions, residual branches, the feed-forward layer and the head.
    attention_dropout : float, default=0.0
        Dropout on the attention weights. Any value > 0 makes CPU SDPA fall back from its fused
        kernel to the explicit N x N path (measured 4.3x slower per step at N=315).
    norm : {"batch", "layer"}, default="batch"
        Normalisation in the encoder layers (BatchNorm ignoring padded steps, as Zerveas et al. 2021).
    head : {"meanmax", "pool", "flatten"}, default="meanmax"
        ``"meanmax"`` concatenates the mean and the maximum of the encoded real steps and ``"pool"``
        takes their mean (both: any length at predict); ``"flatten"`` is Zerveas et al.'s flattened
        head (predict refuses series longer than the longest training series). ``"meanmax"`` is the
        default: JapaneseVowels test accuracy, mean of 5 seeds, ``"pool"`` -> ``"meanmax"``:
        softmax 98.81 -> 98.92, bn 98.65 -> 98.76, sh 98.54 -> 98.92, bn_sh 98.49 -> 98.38
        (``docs/results/compare_pool_head/`` and ``compare_*``).
    beta : float, optional
        Attention-BN recentring weight (variants ``bn``, ``bn_sh`` and their linear/sparse forms).
        Default 0.6.
    bn_standardize : bool, optional
        Also divide queries and keys by the keys' standard deviation (Eq. 22); BN variants.
    learn_beta : bool, optional
        Train beta as a parameter (Table 11 of 000); BN variants.
    scales : tuple of int, optional
        One pooling factor per head for scaled-head variants (``sh``, ``bn_sh``, ...) and the query
        scales of ``mrs``. Default ``(1, 1, 2, 2, 4, 4, 8, 8)`` for 8 heads, ``(1, 2)`` for 2.
    max_len : int, optional
        Longest series ``s3`` is built for (its Fourier filter has ``max_len // 2 + 1`` rows).
        Default: the training length for equal-length data; otherwise the longer of 512 and the
        longest training series.
    key_scales, kernel_size, window, rank, r, s1, s2, block : optional
        Hyperparameters of the other variants (``mrs``, ``conv1d``, ``long_short``, ``s3``,
        ``sparse``); see each variant's documentation. ``None`` keeps the variant's default; a value
        the chosen variant ignores warns.
    max_epochs : int, default=100
        Upper bound on training epochs.
    batch_size : int, default=32
    lr : float, default=1e-3
        AdamW learning rate.
    lr_schedule : {None, "cosine", "plateau"}, default="plateau"
        Constant rate, cosine annealing over ``max_epochs``, or halving when the monitored loss
        stops improving.
    weight_decay : float, default=0.05
        AdamW weight decay.
    validation_fraction : float, default=0.0
        Fraction of the training data held out (stratified for classification) to select the best
        epoch (classification: validation accuracy, ties by loss) and stop early. The default 0
        trains on all of it and keeps the epoch with the lowest training loss, as aeon's deep
        learners do: on small archives (JapaneseVowels: 270 series) a 10% split is noisy and costs
        training data. Measured there, 5 seeds, % test accuracy with 0 / 0.1: softmax 99.08 / 98.70,
        bn 98.76 / 98.49, sh 98.65 / 98.81, bn_sh 98.65 / 98.70 (``docs/results/compare_*``). Use
        0.1-0.2 when the training set is large.
    patience : int or None, default=30
        Epochs without validation improvement before stopping; the best weights are restored.
    device : str, default="auto"
        ``"auto"`` (CUDA when present), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
    precision : {"float32", "bf16-mixed"}, default="float32"
        ``"bf16-mixed"`` runs the forward pass under ``torch.autocast`` to bfloat16 (weights,
        optimiser and loss stay float32): faster on GPUs and on CPUs with bfloat16 instructions
        (AVX512-BF16, AMX), at about three significant digits inside the network, so results differ
        from float32 ones.
    random_state : int, RandomState or None
        Seeds weight initialisation, dropout, the validation split and shuffling.
    verbose : int, default=0
        1 shows a progress bar over epochs.
    callbacks : list of :class:`tsattn.training.Callback`, optional
        Called at each epoch end (e.g. Optuna pruning).
"""


def _check_int(name: str, value: Any, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")


def _check_float(name: str, value: Any, low: float, high: float, closed_high: bool = True) -> None:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    ok = ok and low <= value and (value <= high if closed_high else value < high)
    if not ok:
        bracket = "]" if closed_high else ")"
        raise ValueError(f"{name} must be a number in [{low}, {high}{bracket}, got {value!r}.")


class BaseTSEstimator(BaseEstimator):
    """Base of the supervised estimators; see :class:`tsattn.TSClassifier` for the parameters."""

    #: Valid values of the ``head`` parameter (a subclass with other heads overrides it).
    _heads: tuple[str, ...] = HEADS

    def __init__(
        self,
        attention: str = "softmax",
        *,
        d_model: int = 64,
        n_heads: int = 8,
        n_layers: int = 3,
        dim_feedforward: int = 256,
        dropout: float = 0.2,
        attention_dropout: float = 0.0,
        norm: str = "batch",
        head: str = "meanmax",
        beta: float | None = None,
        bn_standardize: bool | None = None,
        learn_beta: bool | None = None,
        scales: tuple[int, ...] | None = None,
        key_scales: tuple[int, ...] | None = None,
        kernel_size: int | None = None,
        window: int | None = None,
        rank: int | None = None,
        r: int | None = None,
        s1: int | None = None,
        s2: int | None = None,
        block: int | None = None,
        max_len: int | None = None,
        max_epochs: int = 100,
        batch_size: int = 32,
        lr: float = 1e-3,
        lr_schedule: str | None = "plateau",
        weight_decay: float = 0.05,
        validation_fraction: float = 0.0,
        patience: int | None = 30,
        device: str = "auto",
        precision: str = "float32",
        random_state: int | np.random.RandomState | None = None,
        verbose: int = 0,
        callbacks: list[Callback] | None = None,
    ) -> None:
        self.attention = attention
        self.d_model = d_model
        self.n_heads = n_heads
        self.n_layers = n_layers
        self.dim_feedforward = dim_feedforward
        self.dropout = dropout
        self.attention_dropout = attention_dropout
        self.norm = norm
        self.head = head
        self.beta = beta
        self.bn_standardize = bn_standardize
        self.learn_beta = learn_beta
        self.scales = scales
        self.key_scales = key_scales
        self.kernel_size = kernel_size
        self.window = window
        self.rank = rank
        self.r = r
        self.s1 = s1
        self.s2 = s2
        self.block = block
        self.max_len = max_len
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.lr_schedule = lr_schedule
        self.weight_decay = weight_decay
        self.validation_fraction = validation_fraction
        self.patience = patience
        self.device = device
        self.precision = precision
        self.random_state = random_state
        self.verbose = verbose
        self.callbacks = callbacks

    # ------------------------------------------------------------------ hooks for subclasses
    def _encode_targets(self, y: Any, n_series: int) -> tuple[torch.Tensor, int]:
        """Validate ``y``, set target attributes, return ``(targets, n_outputs)``."""
        raise NotImplementedError

    def _loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def _stratify(self, y_encoded: torch.Tensor) -> np.ndarray | None:
        return None

    #: Validation score (higher is better) that selects the best epoch; None selects on the loss.
    _score_fn = None

    # ------------------------------------------------------------------ validation
    def _validate_params(self) -> dict[str, Any]:
        get_attention_class(self.attention)
        check_model_size(self.d_model, self.n_heads)
        _check_int("n_layers", self.n_layers)
        _check_int("dim_feedforward", self.dim_feedforward)
        _check_float("dropout", self.dropout, 0.0, 1.0, closed_high=False)
        _check_float("attention_dropout", self.attention_dropout, 0.0, 1.0, closed_high=False)
        if self.norm not in ("batch", "layer"):
            raise ValueError(f"norm must be 'batch' or 'layer', got {self.norm!r}.")
        if self.head not in self._heads:
            raise ValueError(f"head must be one of {self._heads}, got {self.head!r}.")
        _check_int("max_epochs", self.max_epochs)
        _check_int("batch_size", self.batch_size)
        _check_float("lr", self.lr, 0.0, float("inf"))
        if self.lr <= 0:
            raise ValueError(f"lr must be > 0, got {self.lr!r}.")
        if self.lr_schedule not in LR_SCHEDULES:
            raise ValueError(f"lr_schedule must be one of {LR_SCHEDULES}, got {self.lr_schedule!r}.")
        if self.precision not in PRECISIONS:
            raise ValueError(
                f"precision must be one of {PRECISIONS}, got {self.precision!r}."
            )
        _check_float("weight_decay", self.weight_decay, 0.0, float("inf"))
        _check_float("validation_fraction", self.validation_fraction, 0.0, 1.0, closed_high=False)
        if self.patience is not None:
            _check_int("patience", self.patience)
        for cb in self.callbacks or ():
            if not isinstance(cb, Callback):
                raise ValueError(
                    f"callbacks must be tsattn.training.Callback instances, got {type(cb).__name__}."
                )
        hyper = {name: getattr(self, name) for name in ATTENTION_PARAMS}
        spec = resolve_attention(self.attention, hyper, stacklevel=4)
        attention_params = {k: spec.params[k] for k, v in hyper.items() if v is not None and k in spec.params}
        # Build one layer now so that invalid hyperparameters fail before any data work.
        with torch.random.fork_rng(devices=[]):
            get_attention_class(self.attention)(
                self.d_model, self.n_heads, dropout=self.attention_dropout, **attention_params
            )
        return attention_params

    def _check_X_predict(self, X: Any) -> SeriesBatch:
        check_is_fitted(self, "module_")
        batch = to_series_batch(X)
        if batch.n_channels != self.n_channels_:
            raise ValueError(
                f"X has {batch.n_channels} channel(s) but {type(self).__name__} was fitted on "
                f"{self.n_channels_}; pass series with the same channels as in fit."
            )
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

    # ------------------------------------------------------------------ fit / predict core
    def _to_tensors(self, batch: SeriesBatch, y: torch.Tensor | None = None) -> TensorData:
        values = (batch.values - self.channel_mean_) / self.channel_scale_
        steps = np.arange(values.shape[1])[None, :, None] < batch.lengths[:, None, None]
        values = np.where(steps, values, 0.0).astype(np.float32)
        dev = self.device_
        return TensorData(
            x=torch.from_numpy(values).to(dev),
            lengths=torch.from_numpy(batch.lengths).to(dev),
            y=None if y is None else y.to(dev),
        )

    def _fit(self, X: Any, y: Any) -> BaseTSEstimator:
        attention_params = self._validate_params()
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        batch = to_series_batch(X)
        n = batch.values.shape[0]
        targets, n_outputs = self._encode_targets(y, n)
        self.device_ = resolve_device(self.device)
        self.n_channels_ = batch.n_channels
        self.series_length_ = int(batch.values.shape[1])
        self.equal_length_ = batch.equal_length
        nf = _n_features(X)
        self.n_features_in_ = nf if nf is not None else batch.n_channels

        real = np.arange(self.series_length_)[None, :] < batch.lengths[:, None]
        steps = batch.values[real].astype(np.float64)  # (total real steps, C)
        self.channel_mean_ = steps.mean(axis=0).astype(np.float32)
        std = steps.std(axis=0)
        self.channel_scale_ = np.where(std > 1e-12, std, 1.0).astype(np.float32)

        rs = check_random_state(self.random_state)
        seed = int(rs.randint(np.iinfo(np.int32).max))
        rng = np.random.default_rng(seed)
        train_idx, valid_idx = self._split(n, targets, rng)

        data = self._to_tensors(batch, targets)
        train = _subset(data, train_idx)
        valid = _subset(data, valid_idx) if valid_idx is not None else None

        if self.max_len is None and "max_len" in attention_hyperparameters(self.attention):
            # Equal-length training data: predict needs that length, so size s3's filter exactly
            # (Algorithm 2's rfft(n=seq_len)). Unequal lengths: leave room for longer series.
            default = attention_hyperparameters(self.attention)["max_len"]
            attention_params["max_len"] = (
                self.series_length_ if self.equal_length_ else max(default, self.series_length_)
            )
        self.network_params_ = dict(
            n_channels=self.n_channels_,
            n_outputs=n_outputs,
            max_len=self.series_length_,
            attention=self.attention,
            attention_params=attention_params,
            d_model=self.d_model,
            n_heads=self.n_heads,
            n_layers=self.n_layers,
            dim_feedforward=self.dim_feedforward,
            dropout=self.dropout,
            attention_dropout=self.attention_dropout,
            norm=self.norm,
            head=self.head,
        )
        with seeded(seed, self.device_):
            self.module_ = self._build_network().to(self.device_)
            result = train_network(
                self.module_,
                self._loss,
                train,
                valid,
                estimator=self,
                max_epochs=self.max_epochs,
                batch_size=self.batch_size,
                lr=self.lr,
                weight_decay=self.weight_decay,
                patience=self.patience if valid is not None else None,
                rng=rng,
                fixed_len=self.head == "flatten",
                callbacks=list(self.callbacks or ()),
                verbose=self.verbose,
                lr_schedule=self.lr_schedule,
                score_fn=self._score_fn,
                precision=self.precision,
            )
        self.history_ = result.history
        self.best_epoch_ = result.best_epoch
        self.n_epochs_ = len(result.history)
        self.interrupted_ = result.interrupted
        return self

    def _split(self, n: int, targets: torch.Tensor, rng: np.random.Generator):
        n_valid = int(np.ceil(self.validation_fraction * n)) if self.validation_fraction > 0 else 0
        if n_valid < 1 or n - n_valid < 2:
            return np.arange(n), None
        strat = self._stratify(targets)
        if strat is not None:
            from sklearn.model_selection import train_test_split

            counts = np.bincount(strat)
            if counts.min() < 2 or n_valid < len(counts) or n - n_valid < len(counts):
                warnings.warn(
                    f"cannot carve a stratified validation split ({n} series, {len(counts)} "
                    f"classes, smallest class {counts.min()} series, validation_fraction="
                    f"{self.validation_fraction}): training on all series and monitoring the "
                    "training loss instead. Give every class at least 2 series, or a larger "
                    "validation_fraction, to get early stopping.",
                    UserWarning,
                    stacklevel=4,
                )
                return np.arange(n), None
            seed = int(rng.integers(np.iinfo(np.int32).max))
            train_idx, valid_idx = train_test_split(
                np.arange(n), test_size=n_valid, stratify=strat, random_state=seed
            )
            return np.sort(train_idx), np.sort(valid_idx)
        perm = rng.permutation(n)
        return np.sort(perm[n_valid:]), np.sort(perm[:n_valid])

    def _forward(self, X: Any) -> torch.Tensor:
        batch = self._check_X_predict(X)
        data = self._to_tensors(batch)
        return predict_network(
            self.module_, data, batch_size=max(256, self.batch_size),
            fixed_len=self.head == "flatten", precision=self.precision,
        )

    # ------------------------------------------------------------------ persistence
    def _build_network(self) -> torch.nn.Module:
        """The untrained network described by ``network_params_`` (used by ``fit`` and unpickling)."""
        return TSTransformer(**self.network_params_)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        module = state.pop("module_", None)
        if module is not None:
            buffer = io.BytesIO()
            torch.save({k: v.detach().cpu() for k, v in module.state_dict().items()}, buffer)
            state["_module_state"] = buffer.getvalue()
        state.pop("device_", None)
        return state

    def __setstate__(self, state: dict) -> None:
        blob = state.pop("_module_state", None)
        self.__dict__.update(state)
        if blob is None:
            return
        try:
            self.device_ = resolve_device(self.device)
        except ValueError:
            warnings.warn(
                f"this model was saved with device={self.device!r}, which is not available here; "
                "loading it on the CPU.",
                UserWarning,
                stacklevel=2,
            )
            self.device_ = torch.device("cpu")
        module = self._build_network()
        module.load_state_dict(torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True))
        self.module_ = module.to(self.device_).eval()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


def _is_2d(X: Any) -> bool:
    return isinstance(X, np.ndarray) and X.ndim == 2


def _n_features(X: Any) -> int | None:
    """``X.shape[1]`` for array input (channels for 3-D, length for 2-D), else None."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) in (2, 3) and not hasattr(X, "columns"):
        return int(shape[1])
    return None


def _subset(data: TensorData, idx: np.ndarray) -> TensorData:
    t = torch.as_tensor(idx, device=data.x.device)
    return TensorData(data.x[t], data.lengths[t], None if data.y is None else data.y[t])


BaseTSEstimator.__doc__ = (BaseTSEstimator.__doc__ or "") + _PARAMS_DOC
