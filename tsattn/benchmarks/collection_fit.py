"""One fit of the collection benchmarks (``bench classify``, ``bench regress``) and the row it leaves.

A fit reads one dataset's TRAIN and TEST (or fold ``fold`` of a ``k``-fold split of TRAIN:
:func:`cv_split`), fits a model on the series as it takes them (peers zero-padded to one length:
:func:`fit_predict`) under the run's time limit (:class:`TimeLimit` for our models, an alarm for
the peers), with the memory it added (:func:`peak_rss`), and predicts. :func:`fit_split` does all
of it into a result row that :func:`start_row` began; inside :func:`recorded_failure` a fit that
fails is a row with its error, not the end of the run.
"""

from __future__ import annotations

import contextlib
import signal
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from tsattn.training import Callback

__all__ = [
    "Fitted",
    "TimeLimit",
    "cv_split",
    "fit_predict",
    "fit_split",
    "network_record",
    "peak_rss",
    "recorded_failure",
    "start_row",
    "tsattn_model",
    "warm_up",
]


class TimeLimit(Callback):
    """Stop training once ``seconds`` have passed since ``fit`` began (checked after each epoch).

    ``hit`` tells afterwards whether it stopped the fit.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = float(seconds)
        self.hit = False
        self._t0 = 0.0

    def on_train_begin(self, estimator: Any) -> None:
        self._t0, self.hit = time.perf_counter(), False

    def on_epoch_end(self, estimator: Any, record: dict) -> bool:
        self.hit = time.perf_counter() - self._t0 > self.seconds
        return self.hit


class Fitted(NamedTuple):
    """What :func:`fit_split` leaves to score: the fitted ``model``, the scored series as it saw
    them (``X_test``) and their targets ``y_test (n_test,)``, its predictions ``pred (n_test,)``
    and the :class:`TimeLimit` it ran under (None: none, or a peer)."""

    model: Any
    X_test: Any
    y_test: np.ndarray
    pred: Any
    limit: TimeLimit | None


def start_row(threads: int, **keys: Any) -> dict[str, Any]:
    """A fit's result row before the fit: ``keys`` (dataset, model, seed, fold ...), status
    ``ok`` and the torch threads it runs on (``threads``, at least 1, set here)."""
    import torch

    torch.set_num_threads(max(1, threads))
    return {**keys, "status": "ok", "error": "", "threads": torch.get_num_threads()}


@contextlib.contextmanager
def recorded_failure(row: dict[str, Any]) -> Iterator[None]:
    """A failed fit is a result: an exception inside the block sets ``row``'s ``status`` to
    ``"timeout"`` (``TimeoutError``) or ``"error"`` (with ``error``, its first 500 characters)
    and is not raised further. ``KeyboardInterrupt`` propagates."""
    try:
        yield
    except TimeoutError as err:
        row.update(status="timeout", error=str(err))
    except Exception as err:  # a failed fit is a result: record it and go on
        row.update(status="error", error=f"{type(err).__name__}: {err}"[:500])


def tsattn_model(cls: type, model: str, seed: int, device: str, params: dict[str, Any],
                 limit: TimeLimit | None) -> Any:  # fmt: skip
    """Our estimator ``cls`` for the model name ``tsattn:<attention>[label]``: that attention,
    ``random_state=seed``, ``device`` and ``params``, with ``limit`` among its callbacks."""
    params = {"device": device, **params}
    if limit is not None:
        params["callbacks"] = [*(params.get("callbacks") or ()), limit]
    return cls(attention=model.split(":", 1)[1].split("[")[0], random_state=seed, **params)


_WARM: set[tuple[str, str]] = set()


def warm_up(model: str, task: str, build: Callable[[], Any]) -> None:
    """Fit the peer ``model`` (``build()``: unfitted, for ``task``) once per process on a tiny
    random problem, so that its one-off set-up (numba compiling the Rocket kernels) is not timed
    as part of the first real fit. A failure here is left to the real fit to record."""
    if model.startswith("tsattn:") or (model, task) in _WARM:
        return
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 1, 16))
    y = np.arange(8) % 2 if task == "classification" else rng.normal(size=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(Exception):
            build().fit(X, y if task == "regression" else y.astype(str))
    _WARM.add((model, task))


def cv_split(X: Any, y: np.ndarray, k: int, fold: int, classification: bool):
    """Fold ``fold`` of a ``k``-fold split of TRAIN (stratified for classification; shuffled with a
    fixed seed so every model and seed sees the same folds): ``(X_fit, y_fit, X_held, y_held)``."""
    from tsattn.io import kfold

    fit, held = kfold(y, k, classification)[fold]

    def take(idx):
        return X[idx] if isinstance(X, np.ndarray) else [X[i] for i in idx]

    return take(fit), y[fit], take(held), y[held]


def fit_split(row: dict[str, Any], data: tuple, fold: int, config: Any, classification: bool,
              model: str, build: Callable[[TimeLimit | None], Any]) -> Fitted:  # fmt: skip
    """Fit ``model`` (``build(limit)``: the unfitted estimator) on ``data`` ``(X, y, X_test,
    y_test)``, or on fold ``fold`` of ``config.cv``-fold cross-validation inside ``X`` when
    ``fold >= 0``, under ``config.time_limit``, and predict the scored series. ``row`` gets the
    data's sizes (``n_train``, ``n_test``, ``n_channels``, ``length``) and :func:`fit_predict`'s
    times and memory."""
    from tsattn.io import to_series_batch

    X, y, Xt, yt = data
    if fold >= 0:
        X, y, Xt, yt = cv_split(X, y, config.cv, fold, classification)
    train, test = to_series_batch(X), to_series_batch(Xt)
    row.update(n_train=len(y), n_test=len(yt), n_channels=train.n_channels,
               length=int(train.lengths.max()))  # fmt: skip
    limit = TimeLimit(config.time_limit) if config.time_limit and model.startswith("tsattn:") else None
    est = build(limit)
    X, Xt, pred = fit_predict(est, model, X, y, Xt, (train, test), limit, config.time_limit, row)
    return Fitted(est, Xt, yt, pred, limit)


def _padded(X: Any, length: int) -> np.ndarray:
    """``(n, C, length)`` float64: each series zero-padded at the end (trailing NaN become 0)."""
    from tsattn.io import to_series_batch

    batch = to_series_batch(X)
    values = np.nan_to_num(np.asarray(batch.values, dtype=np.float64))  # (n, N, C), 0 at padding
    out = np.zeros((values.shape[0], values.shape[2], length))
    n = min(length, values.shape[1])
    out[:, :, :n] = values[:, :n].transpose(0, 2, 1)
    return out


@contextlib.contextmanager
def peak_rss(row: dict):
    """Set ``row["peak_mb"]``: the process's peak resident memory during the block, less its
    resident memory before it, in MiB (what a fit added at its highest). Linux only: the kernel's
    high-water mark ``VmHWM``, reset on entry by writing 5 to ``/proc/self/clear_refs``; left
    unset where that is refused or absent. Unlike :func:`tsattn.analysis.memory.peak_memory`
    (torch's tensors only) it sees numpy's and numba's memory too, the anchor's features."""

    def status(field: str) -> float:
        with open("/proc/self/status", encoding="ascii") as fh:
            line = next(line for line in fh if line.startswith(field + ":"))
        return int(line.split()[1]) / 1024  # kB

    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        before = status("VmRSS")
    except (OSError, StopIteration):
        yield
        return
    yield
    # the kernel updates its mark lazily (when memory is unmapped), so it can trail the RSS read
    # on entry by a fraction of a MiB (-0.2 seen once under CI): the peak is at least that RSS
    row["peak_mb"] = round(max(status("VmHWM"), before) - before, 1)


@contextlib.contextmanager
def _alarm(seconds: float | None):
    """Raise ``TimeoutError`` in this (main) thread after ``seconds``; no limit elsewhere."""
    import threading

    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    message, fired = f"fit exceeded the time limit of {seconds:g} s", []

    def _raise(signum, frame):
        fired.append(signum)
        raise TimeoutError(message)

    old = signal.signal(signal.SIGALRM, _raise)
    # the alarm repeats each second: a library that catches the first TimeoutError and goes on (a
    # component of HIVE-COTE 2 does) gets another until the fit gives up
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
        if fired:  # the fit swallowed every alarm and finished late: still a timeout
            raise TimeoutError(f"{message} (the fit caught the alarm and finished late)")
    except Exception as err:
        # where the alarm lands in compiled or library code (HIVE-COTE 2's numba TDE, joblib), the
        # error that comes back may be another one, its cause chained or dropped: once the alarm
        # has fired, it is the timeout whatever came back
        if fired and not isinstance(err, TimeoutError):
            raise TimeoutError(f"{message} ({type(err).__name__} where the alarm arrived)") from err
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def fit_predict(est, model: str, X, y, Xt, batches, limit, time_limit, row: dict):
    """Fit ``est`` on ``(X, y)`` and predict ``Xt`` with warnings silenced, under the time limit
    (``limit`` for our models, an alarm of ``time_limit`` seconds for the peers, whose series are
    zero-padded to one length of at least 9 steps); ``row`` gets ``fit_s``, ``predict_s`` and
    ``peak_mb`` (:func:`peak_rss` of both). Returns ``(X, Xt, pred)``, the series as the model
    saw them. A fit stopped by Ctrl-C raises."""
    if not model.startswith("tsattn:"):
        train, test = batches
        length = max(9, train.values.shape[1], test.values.shape[1])
        X, Xt = _padded(X, length), _padded(Xt, length)
    with warnings.catch_warnings(), peak_rss(row):
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        with _alarm(None if limit is not None else time_limit):
            est.fit(X, y)
        row["fit_s"] = time.perf_counter() - t0
        if getattr(est, "interrupted_", False):
            raise KeyboardInterrupt
        t0 = time.perf_counter()
        pred = est.predict(Xt)
        row["predict_s"] = time.perf_counter() - t0
    return X, Xt, pred


def network_record(est, limit) -> dict:
    """What a fitted network of ours did, for a result row: trainable parameters, optimiser steps
    and epochs, whether ``limit`` (a :class:`TimeLimit` or None) stopped it; empty for the peers."""
    module = getattr(est, "module_", None)
    if module is None:
        return {}
    return {"n_params": sum(p.numel() for p in module.parameters() if p.requires_grad),
            "n_steps": getattr(est, "n_steps_", np.nan), "n_epochs": getattr(est, "n_epochs_", np.nan),
            "time_limited": bool(limit.hit) if limit is not None else False}  # fmt: skip
