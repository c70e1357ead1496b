"""Per-epoch training time of ``TSClassifier`` against sktime's ``MVTSTransformerClassifier``.

Both train the same architecture size (``d_model``, heads, layers, feed-forward width, batch size) on
the same data in one process, one after the other. tsattn's epoch time is the median of its
``history_`` durations (no validation split, so an epoch is only training); sktime's is the
difference between a fit of ``1 + epochs`` epochs and a fit of 1 epoch, divided by ``epochs``, so its
one-off set-up cost is not counted against it.

With ``profile_sdpa`` a second fit of each tsattn model runs one more epoch under ``torch.profiler``
and sums the self time of the ``scaled_dot_product_attention`` kernels (forward and backward) in it:
``sdpa_seconds_per_epoch``. ``speedup_ceiling_vs_sktime`` is sktime's epoch time divided by that,
the speed-up the model would reach if everything in its epoch but PyTorch's attention kernels cost
nothing, so a bar above the ceiling cannot be met by any change outside the kernel.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd
import torch

from tsattn.training import Callback

__all__ = ["epoch_time_vs_sktime", "SDPAEpochProfiler"]


class SDPAEpochProfiler(Callback):
    """Training callback: profiles the epoch after the first and records the SDPA kernels' time.

    After ``fit``, ``sdpa_seconds`` holds the self CPU (and CUDA) time of every operator whose name
    contains ``scaled_dot_product`` during that epoch, forward and backward.
    """

    def __init__(self) -> None:
        super().__init__()
        self._prof = None
        self.sdpa_seconds: float | None = None

    def on_train_begin(self, estimator) -> None:
        self._prof, self.sdpa_seconds = None, None

    def on_epoch_end(self, estimator, record) -> bool:
        from torch.profiler import ProfilerActivity, profile

        if self._prof is None:
            activities = [ProfilerActivity.CPU]
            if torch.cuda.is_available():
                activities.append(ProfilerActivity.CUDA)
            self._prof = profile(activities=activities)
            self._prof.__enter__()
            return False
        self._prof.__exit__(None, None, None)
        micros = sum(
            e.self_cpu_time_total + getattr(e, "self_device_time_total", 0)
            for e in self._prof.key_averages()
            if "scaled_dot_product" in e.key
        )
        self.sdpa_seconds = micros / 1e6
        return True  # stop: the profiled epoch is all that is needed

    def on_train_end(self, estimator, history) -> None:
        if self._prof is not None and self.sdpa_seconds is None:  # training ended mid-profile
            self._prof.__exit__(None, None, None)


def _sktime_epoch_seconds(X, y, sizes: dict[str, int], epochs: int, seed: int) -> float:
    try:
        from sktime.classification.deep_learning import MVTSTransformerClassifier
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the comparison needs sktime: pip install 'tsattn[sktime]'"
        ) from err

    def fit_seconds(n_epochs: int) -> float:
        model = MVTSTransformerClassifier(
            d_model=sizes["d_model"], n_heads=sizes["n_heads"], num_layers=sizes["n_layers"],
            dim_feedforward=sizes["dim_feedforward"], batch_size=sizes["batch_size"],
            num_epochs=n_epochs, random_state=seed, verbose=False,
        )
        t0 = time.perf_counter()
        model.fit(X, y)
        return time.perf_counter() - t0

    one = fit_seconds(1)
    more = fit_seconds(1 + epochs)
    return (more - one) / epochs


def epoch_time_vs_sktime(
    X: np.ndarray,
    y: np.ndarray,
    *,
    attentions: tuple[str, ...] = ("softmax", "bn_sh"),
    d_model: int = 64,
    n_heads: int = 8,
    n_layers: int = 3,
    dim_feedforward: int = 256,
    batch_size: int = 32,
    epochs: int = 3,
    device: str = "cpu",
    seed: int = 0,
    include_sktime: bool = True,
    profile_sdpa: bool = True,
    precisions: tuple[str, ...] = ("float32",),
) -> pd.DataFrame:
    """Seconds per training epoch for each tsattn attention and for sktime's MVTS transformer.

    ``X`` is ``(n, channels, length)`` (sktime needs equal lengths). Returns one row per model with
    ``seconds_per_epoch`` and ``speedup_vs_sktime`` (sktime's time divided by the row's); with
    ``profile_sdpa`` also ``sdpa_seconds_per_epoch`` and ``speedup_ceiling_vs_sktime`` (module doc).
    ``precisions`` times each attention at each ``TSClassifier.precision``; sktime's model runs in
    float32, so only float32 rows compare like with like.
    """
    from tsattn import TSClassifier

    sizes = dict(d_model=d_model, n_heads=n_heads, n_layers=n_layers,
                 dim_feedforward=dim_feedforward, batch_size=batch_size)
    rows: list[dict[str, Any]] = []
    for attention in attentions:
        for precision in precisions:
            clf = TSClassifier(
                attention=attention, **sizes, max_epochs=1 + epochs, validation_fraction=0.0,
                patience=None, device=device, random_state=seed, precision=precision,
            ).fit(X, y)
            durations = [r["dur"] for r in clf.history_[1:]]  # the first epoch warms up
            label = attention if precision == "float32" else f"{attention}, {precision}"
            row = {"model": f"tsattn TSClassifier({label})", "precision": precision,
                   "seconds_per_epoch": float(np.median(durations))}
            if profile_sdpa:
                probe = SDPAEpochProfiler()
                clf.set_params(max_epochs=2, callbacks=[probe]).fit(X, y)
                row["sdpa_seconds_per_epoch"] = probe.sdpa_seconds
            rows.append(row)
    if include_sktime:
        rows.append({"model": "sktime MVTSTransformerClassifier", "precision": "float32",
                     "seconds_per_epoch": _sktime_epoch_seconds(X, y, sizes, epochs, seed)})
        ref = rows[-1]["seconds_per_epoch"]
        for row in rows:
            row["speedup_vs_sktime"] = ref / row["seconds_per_epoch"]
            if row.get("sdpa_seconds_per_epoch"):
                row["speedup_ceiling_vs_sktime"] = ref / row["sdpa_seconds_per_epoch"]
    frame = pd.DataFrame(rows)
    for key, value in {**sizes, "epochs": epochs, "device": device, "n_series": len(X),
                       "series_length": np.asarray(X).shape[-1]}.items():
        frame[key] = value
    return frame
