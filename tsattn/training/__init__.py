"""Training: the one loop, its callbacks, the one evaluation loop, devices and precision.

Every estimator trains through :func:`train` with :class:`EarlyStopping`, :class:`NaNGuard`,
:class:`LRScheduler` and :class:`ProgressBar` followed by the user's callbacks, and predicts
through :func:`predict`. Data lives on the device as padded tensors (:class:`TensorData`), or
as series cut into windows on the fly (:class:`WindowData`, every window cut by :func:`cut`).
"""

from tsattn.training.augment import SliceAndScale
from tsattn.training.callbacks import (
    LR_SCHEDULES,
    Callback,
    EarlyStopping,
    LRScheduler,
    NaNGuard,
    ProgressBar,
    TrainingDivergedError,
)
from tsattn.training.data import TensorData
from tsattn.training.device import PRECISIONS, autocast, resolve_device, seeded, torch_threads
from tsattn.training.fixed import cache_fixed_features, fit_levels
from tsattn.training.loop import Budget, TrainResult, predict, train
from tsattn.training.optim import adamw
from tsattn.training.threads import ThreadBudget
from tsattn.training.windows import WindowData, cut

__all__ = [
    "Callback",
    "EarlyStopping",
    "LRScheduler",
    "LR_SCHEDULES",
    "NaNGuard",
    "PRECISIONS",
    "ProgressBar",
    "SliceAndScale",
    "TensorData",
    "ThreadBudget",
    "Budget",
    "TrainResult",
    "TrainingDivergedError",
    "WindowData",
    "adamw",
    "autocast",
    "cache_fixed_features",
    "fit_levels",
    "predict",
    "resolve_device",
    "seeded",
    "torch_threads",
    "train",
    "cut",
]
