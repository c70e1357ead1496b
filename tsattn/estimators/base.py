"""The estimator core: the parameters every estimator shares, declared once, and ``fit``'s skeleton.

``fit`` is three steps in every estimator: :meth:`BaseTSEstimator._validate` (parameters against their
constraints, then the attention spec, resolved once), ``_build`` (the task's part: targets,
scaling, the validation split, ``network_params_``), and :meth:`BaseTSEstimator._train` (the network built
from ``network_params_`` and trained through :func:`tsattn.training.train` with the standard
callbacks); :mod:`~tsattn.estimators.collection` and :mod:`~tsattn.estimators.forecasting` add ``_build``.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, ClassVar

import numpy as np
import torch
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_random_state

from tsattn._parallel import free_cores, usable_cores
from tsattn._validation import NONNEGATIVE_INT, POSITIVE_INT
from tsattn.attention import AttentionSpec, check_model_size, get_attention_class, resolve_attention
from tsattn.attention.hyperparameters import FloatRange
from tsattn.estimators import persistence
from tsattn.estimators.params import check_params, declare, param
from tsattn.nn.encoder import NORMS
from tsattn.training import (
    PRECISIONS,
    Budget,
    Callback,
    EarlyStopping,
    LRScheduler,
    NaNGuard,
    ProgressBar,
    TensorData,
    ThreadBudget,
    TrainingDivergedError,
    adamw,
    fit_levels,
    predict,
    resolve_device,
    seeded,
    torch_threads,
    train,
    watched,
)
from tsattn.training.distributed import DataParallel, data_parallel

__all__ = ["BaseTSEstimator", "ATTENTION", "RATE"]

#: ``verbose='auto'``: the seconds a fit runs before its progress bar shows.
AUTO_PROGRESS_DELAY = 10.0
#: A probability-like rate in [0, 1).
RATE = Interval(Real, 0, 1, closed="left")
#: The ``attention`` parameter of every estimator (each chooses its position and default).
ATTENTION = dict(
    constraint=[str],
    doc="The attention variant, a name of :func:`tsattn.list_attention`; its hyperparameters "
    "(``beta``, ``scales``...) are parameters below.",
)


@declare
class BaseTSEstimator(persistence.Persistent, BaseEstimator):
    """Parameters and machinery shared by every estimator (see :class:`tsattn.TSClassifier`)."""

    d_model: int | str = param(
        64, [POSITIVE_INT, StrOptions({"auto"})], "Model width; ``d_model % n_heads == 0``. "
        "``'auto'``: the estimator's rule (``TSForecaster``'s from the number of series it is "
        "fitted on; ``d_model_``: the width used)."
    )
    n_heads: int = param(8, [POSITIVE_INT], "Attention heads.")
    n_layers: int = param(3, [POSITIVE_INT], "Encoder layers.")
    dim_feedforward: int = param(
        256, [NONNEGATIVE_INT], "Width of the feed-forward layers (0: "
        "none; with ``norm='none'`` a layer is ``x + attention(x)``, as in 002's forecaster)."
    )
    dropout: float | str = param(
        0.2, [RATE, StrOptions({"auto"})], "Dropout on positions, residual branches, the "
        "feed-forward layer and the head. ``'auto'``: the estimator's rule (``TSForecaster``'s "
        "from the number of series it is fitted on; ``dropout_``: the rate used).",
        space=FloatRange(0.0, 0.3, step=0.05),
    )
    attention_dropout: float = param(
        0.0, [RATE], "Dropout on the attention weights. Any value > 0 makes CPU SDPA leave its "
        "fused kernel for the explicit N x N path, which is much slower."
    )
    norm: str = param(
        "batch", [StrOptions(set(NORMS))], "Normalisation in the encoder layers: "
        "BatchNorm over the real steps (as Zerveas et al. 2021), LayerNorm, or none."
    )
    max_epochs: int | None = param(
        100, [POSITIVE_INT, None], "Upper bound on training epochs (None: the step budget alone); "
        "the first of the two bounds reached ends training."
    )
    max_steps: int | str | None = param(
        None, [POSITIVE_INT, StrOptions({"auto"}), None], "The training budget in optimiser steps "
        "(None: ``max_epochs`` alone; ``'auto'``: the estimator's rule, ``TSForecaster``'s a fixed "
        "3000 steps, the classifier's and regressor's from the number of training series; "
        "``max_steps_``: the one used)."
    )
    warmup: float = param(
        0.1, [RATE], "Share of the budget spent raising the rate linearly to ``lr`` "
        "(``lr_schedule='warmup_cosine'``)."
    )
    batch_size: int | str = param(
        32, [POSITIVE_INT, StrOptions({"auto"})], "Series (forecaster: windows) per training batch "
        "(``'auto'``: the estimator's rule from the number of training series); ``batch_size_`` "
        "is the size used."
    )
    lr: float = param(
        1e-3, [Interval(Real, 0, None, closed="neither")], "AdamW learning rate.",
        hint="Typical rates: 1e-4 to 3e-3.", space=FloatRange(1e-4, 3e-3, log=True),
    )
    lr_schedule: str | None = param(
        "plateau", [StrOptions({"cosine", "plateau", "warmup_cosine"}), None], "Constant rate "
        "(None), cosine annealing over ``max_epochs``, halving when the monitored loss stops "
        "improving, or ``'warmup_cosine'``: linear warm-up over ``warmup`` of the step budget, then "
        "cosine annealing to 0 at its end, stepped every optimiser step; without a validation split "
        "it keeps the final weights (the rate has decayed to 0) instead of the lowest training loss."
    )
    weight_decay: float = param(
        0.05, [Interval(Real, 0, None, closed="left")], "AdamW weight decay.",
        space=FloatRange(1e-4, 1e-1, log=True),
    )
    validation_fraction: float = param(
        0.0, [RATE], "Fraction of the training data held out (stratified for classification) to "
        "select the best epoch and stop early; 0 trains on all of it and keeps the epoch with the "
        "lowest training loss, as aeon's deep learners do. Use 0.1-0.2 on large training sets."
    )
    patience: int | None = param(
        30, [POSITIVE_INT, None], "Epochs (``TSForecaster``: validation rounds) without validation "
        "improvement before stopping (None: never early); the best weights are restored either way."
    )
    device: str = param(
        "auto", [str, torch.device], "``'auto'`` (CUDA when present), ``'cpu'``, ``'cuda'`` or "
        "``'cuda:N'``."
    )
    n_threads: int | str | None = param(
        "auto", [POSITIVE_INT, StrOptions({"auto"}), None], "Torch threads while fitting and "
        "predicting (``n_threads_``: the count a fit starts with). ``'auto'``: the cores other "
        "processes leave idle, at most torch's own setting, adjusted on the CPU as training runs "
        "(:class:`~tsattn.training.ThreadBudget`); None: torch's setting; a number gives fits that "
        "repeat bit for bit whatever the machine's load."
    )
    precision: str = param(
        "float32", [StrOptions(set(PRECISIONS))], "``'bf16-mixed'`` runs the forward pass under "
        "``torch.autocast`` to bfloat16 (weights, optimiser and loss stay float32): faster on GPUs "
        "and CPUs with bfloat16 instructions, with about three significant digits inside the "
        "network, so results differ from float32 ones."
    )
    random_state: int | np.random.RandomState | None = param(
        None, ["random_state"], "The seed: weights, dropout, the validation split and the batches."
    )
    verbose: int | str = param(
        0, ["verbose", StrOptions({"auto"})], "1 shows a progress bar over epochs (the "
        "forecaster's rounds) and the forecaster's closing line; ``'auto'``: both where someone "
        "is watching (a terminal or a notebook), the bar once a fit has run "
        f"{AUTO_PROGRESS_DELAY:g} seconds; 0: none."
    )
    callbacks: list[Callback] | None = param(
        None, [list, tuple, None], "Training callbacks (:class:`tsattn.training.Callback`), called "
        "at each epoch end after the built-in ones (e.g. Optuna pruning)."
    )

    #: The attention variants' hyperparameters (``beta``, ``scales``...) are fields too, one per
    #: name, made by :func:`~tsattn.estimators.params.declare` from the registry.
    _attention_fields = True
    #: The parameters users set most, documented first after the positional ones.
    _lead = ("max_steps", "max_epochs", "device", "random_state")
    #: The network class built by :meth:`_build_network` from ``network_params_``.
    _network: ClassVar[type[torch.nn.Module]]
    #: Validation score (higher is better) that selects the best epoch; None selects on the loss.
    _score_fn = None

    # ------------------------------------------------------------------ validate
    def _validate(self) -> AttentionSpec:
        """Check every parameter; return the attention spec, resolved once for this fit."""
        check_params(self)
        get_attention_class(self.attention)
        for width in self._widths():
            check_model_size(width, self.n_heads)
        self._dropouts()  # 'auto' only where the estimator has a rule
        for cb in self.callbacks or ():
            if not isinstance(cb, Callback):
                raise ValueError(
                    f"callbacks must be tsattn.training.Callback instances, got {type(cb).__name__}."
                )
        resolve_device(self.device)
        hyper = {name: getattr(self, name) for name in self._attention_params}
        spec = resolve_attention(self.attention, hyper, stacklevel=3)
        # Build one layer now so that invalid hyperparameters fail before any data work.
        with torch.random.fork_rng(devices=[]):
            for width in self._widths():
                spec.build(width, self.n_heads, self.attention_dropout)
        return spec

    def validate(self) -> None:
        """Check the parameters as ``fit`` does, without data: a ValueError names a bad one."""
        self._validate()

    def _widths(self) -> tuple[int, ...]:
        """The widths this estimator may build: ``d_model``, or every one its rule can give."""
        if self.d_model == "auto":
            raise ValueError(f"{type(self).__name__} has no rule for d_model='auto'; give a "
                             "number (a multiple of n_heads).")
        return (int(self.d_model),)

    def _dropouts(self) -> tuple[float, ...]:
        """The dropout rates this estimator may use: ``dropout``, or every one its rule can give."""
        if self.dropout == "auto":
            raise ValueError(f"{type(self).__name__} has no rule for dropout='auto'; give a "
                             "rate in [0, 1).")  # fmt: skip
        return (float(self.dropout),)

    def _dropout(self) -> float:
        """The dropout rate of this fit's network (``dropout``; an estimator with a rule
        resolves ``'auto'`` from its data)."""
        return self._dropouts()[0]

    def _width(self) -> int:
        """The width of this fit's network (``d_model``; an estimator with a rule resolves
        ``'auto'`` from its data)."""
        return self._widths()[0]

    def _auto_steps(self, n_train: int) -> int:
        """The step budget of ``max_steps='auto'`` for ``n_train`` training series or windows."""
        raise ValueError(f"{type(self).__name__} has no rule for max_steps='auto'; give a number.")

    def _auto_batch(self, n_train: int) -> int:
        """The batch size of ``batch_size='auto'`` for ``n_train`` training series or windows."""
        raise ValueError(f"{type(self).__name__} has no rule for batch_size='auto'; give a number.")

    def _batch(self, n_train: int) -> int:  # ``batch_size_``: the number, or the rule of 'auto'
        return self._auto_batch(n_train) if self.batch_size == "auto" else int(self.batch_size)

    def _budget(self, n_train: int) -> Budget:
        """This fit's bounds for ``n_train`` training samples, from ``max_epochs`` and
        ``max_steps``: rounds of one epoch each; sets ``batch_size_``. Computed once per fit."""
        if self.max_epochs is None and self.max_steps is None:
            raise ValueError("max_epochs and max_steps are both None: give at least one budget.")
        self.batch_size_ = self._batch(n_train)
        per_epoch = -(-n_train // self.batch_size_)
        steps = self._auto_steps(n_train) if self.max_steps == "auto" else self.max_steps
        if self.max_epochs is not None:
            steps = None if steps is None else min(steps, self.max_epochs * per_epoch)
            epochs = self.max_epochs
        else:
            epochs = -(-steps // per_epoch)
        if steps is None and self.lr_schedule == "warmup_cosine":
            steps = epochs * per_epoch  # the schedule needs its length in steps
        return Budget(epochs, steps)

    def _augmentation(self):
        """The training-batch transform of this estimator (None: no augmentation)."""
        return None

    def _random(self) -> tuple[int, np.random.Generator]:
        """Torch's seed for this fit and the numpy generator of splits and batches (rank 0's on
        every rank of a fit across processes: the same splits and batch order)."""
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        parallel = data_parallel(resolve_device(self.device))
        if parallel is not None:
            seed = int(parallel.broadcast([seed])[0])
        return seed, np.random.default_rng(seed)

    def _trunk_params(self, spec: AttentionSpec) -> dict[str, Any]:
        """The trunk's part of ``network_params_``, in plain Python types."""
        return dict(
            attention=spec.name, attention_params=dict(spec.params), d_model=self._width(),
            n_heads=int(self.n_heads), n_layers=int(self.n_layers),
            dim_feedforward=int(self.dim_feedforward), dropout=self._dropout(),
            attention_dropout=float(self.attention_dropout), norm=self.norm,
        )  # fmt: skip

    # ------------------------------------------------------------------ build and train
    def _build_network(self) -> torch.nn.Module:
        """The untrained network described by ``network_params_`` (used by ``fit`` and unpickling);
        the attention spec stored there is used as it is, not resolved again."""
        params = dict(self.network_params_)
        params["attention"] = AttentionSpec(params["attention"], params.pop("attention_params"))
        return self._network(**params)

    def _train(self, train_data: TensorData, valid_data: TensorData | None, seed: int,
               rng: np.random.Generator) -> BaseTSEstimator:  # fmt: skip
        """Build the network from ``network_params_`` and train it; set the fitted attributes."""
        patience = self.patience if valid_data is not None else None
        budget = self._budget(len(train_data))
        self.max_steps_ = budget.steps
        keep_last = valid_data is None and self.lr_schedule == "warmup_cosine"
        self.module_, result = self._run(train_data, valid_data, budget, seed, rng, patience,
                                         keep_last, "fit")  # fmt: skip
        self.history_ = result.history
        self.n_steps_ = result.n_steps
        self.interrupted_ = result.interrupted
        if budget.round_steps is None:  # rounds are epochs
            self.best_epoch_, self.n_epochs_ = result.best_round, len(result.history)
        else:
            self.best_round_, self.n_rounds_ = result.best_round, len(result.history)
            self.round_steps_ = budget.round_steps
        return self

    def _run(self, train_data: TensorData, valid_data: TensorData | None, budget: Budget,
             seed: int, rng: np.random.Generator, patience: int | None, keep_last: bool,
             label: str):  # fmt: skip
        """``(module, TrainResult)``: a network built from ``network_params_`` and trained within
        ``budget`` with the standard callbacks and ``callbacks``; ``keep_last`` keeps the final
        weights. Sets ``n_threads_``. Under ``torchrun`` (or :func:`~tsattn.training.fit_distributed`)
        every rank trains on its share of each batch (:mod:`tsattn.training.distributed`)."""
        cap = torch.get_num_threads()  # the caller's own setting: "auto" never goes above it
        parallel = data_parallel(self.device_)
        self.n_threads_ = self._fit_threads(parallel)
        with seeded(seed, self.device_), torch_threads(self.n_threads_):
            module = self._build_network().to(self.device_)
            self.module_ = module  # the finite-output check reads it
            fit_levels(module, train_data)  # e.g. the random-kernel levels, before any training
            optimizer = adamw(module.parameters(), lr=self.lr, weight_decay=self.weight_decay)
            if parallel is not None and parallel.rank:  # each rank its own dropout draws
                torch.manual_seed(seed + parallel.rank)

            def finite_outputs() -> bool:
                return bool(torch.isfinite(self._predict_tensor(train_data)).all())

            unit = "epoch" if budget.round_steps is None else "round"  # what a round is
            callbacks: list[Callback] = [
                EarlyStopping(module, patience, keep_last=keep_last),
                NaNGuard(module, hint=f"lr={self.lr}", verify=finite_outputs, unit=unit),
                LRScheduler(optimizer, self.lr_schedule, budget.rounds, patience, budget.steps,
                            self.warmup),  # fmt: skip
            ]
            if self.n_threads == "auto" and self.device_.type == "cpu" and parallel is None:
                # as many threads as pay, within the cores free now and as neighbours come and go
                # (not across processes: a rank's step times include its wait for the others)
                callbacks.append(ThreadBudget(cap))
            if self._watched():  # rank 0 alone across processes
                callbacks.append(ProgressBar(budget.rounds, f"{label} {type(self).__name__}", unit,
                                             AUTO_PROGRESS_DELAY if self.verbose == "auto" else 0.0))
            try:
                result = train(
                    module, self._loss, train_data, valid_data, optimizer=optimizer,
                    max_rounds=budget.rounds, max_steps=budget.steps,
                    round_steps=budget.round_steps, batch_size=self.batch_size_, rng=rng,
                    transform=self._augmentation(),
                    callbacks=[*callbacks, *(self.callbacks or ())],
                    estimator=self,
                    precision=self.precision, score_fn=self._score_fn, parallel=parallel,
                )  # fmt: skip
            except TrainingDivergedError:
                del self.module_  # never a fitted model that outputs NaN
                raise
        return module, result

    def _watched(self) -> bool:
        """Whether this fit shows its progress: ``verbose`` set, or ``'auto'`` where someone is
        watching (:func:`tsattn.training.watched`); across processes, rank 0 alone."""
        group = torch.distributed.is_available() and torch.distributed.is_initialized()
        if group and torch.distributed.get_rank() != 0:
            return False
        return watched() if self.verbose == "auto" else bool(self.verbose)

    def _fit_threads(self, parallel: DataParallel | None = None) -> int | None:
        """Torch threads for this fit, from ``n_threads``; ``'auto'`` across processes: this
        machine's cores shared among its ranks (torchrun sets one thread per process unless
        ``OMP_NUM_THREADS`` says otherwise)."""
        if self.n_threads == "auto" and parallel is not None:
            return min(torch.get_num_threads(), max(1, usable_cores() // parallel.local_world_size))
        if self.n_threads == "auto":
            return min(torch.get_num_threads(), free_cores())
        return None if self.n_threads is None else int(self.n_threads)

    def _predict_tensor(self, data: TensorData) -> torch.Tensor:
        """The network's outputs for ``data``, float32 on the CPU, on the fit's threads."""
        with torch_threads(getattr(self, "n_threads_", None)):
            out = predict(self.module_, data, batch_size=self._predict_batch(),
                          precision=self.precision)  # fmt: skip
        return out.cpu()

    def _predict_batch(self) -> int:
        """Series or windows per forward pass at prediction (memory only; results do not
        depend on it)."""
        return max(256, getattr(self, "batch_size_", 32))

    def _loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags

