"""Extrinsic-regression benchmark (``tsattn bench regress``): ``TSRegressor`` beside aeon's Rocket
regressors and a mean predictor, RMSE and MAE per task, the RMSE ratio to MiniRocket.

Every (task, model, seed) is one fit on the TRAIN split and one score on TEST, or, with ``cv=k``,
``k`` fits on folds of TRAIN (``KFold(k, shuffle=True, random_state=0)``, the same folds for every
model and seed) each scored on its held-out fold, which reads no TEST: how ``TSRegressor``'s
defaults are chosen (``docs/results/regress/cv/``). Tasks are loaded with
:func:`tsattn.datasets.load_tser`: the TSER sets and the tasks derived from the forecasting sets;
``regression`` names the suite of the catalogue (``catalogue()["regression_suite"]``).

Models: ``tsattn:<attention>`` (``TSRegressor`` with its defaults and ``params``; ``[label]``
names a setting), and the peers ``minirocket``, ``multirocket``, ``rocket``, ``quant``, ``drcif``,
``freshprince`` (aeon, with aeon's default sizes; FreshPRINCE needs tsfresh, ``tsattn[tsfresh]``)
and ``mean`` (the TRAIN mean). Peers get the series zero-padded to one length of at least 9 steps (MiniRocket's
minimum), as in ``bench classify``. A ``TSRegressor`` fitted with a validation split also gives its
split-conformal interval at ``coverage``: the share of held-out targets inside it and its mean
width are in the row. Rows are appended to ``results.csv`` as fits finish (a rerun resumes, as
``bench classify``); :mod:`tsattn.benchmarks.regress_report` writes ``results.md``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tsattn._validation import did_you_mean
from tsattn.benchmarks import resolve_models
from tsattn.benchmarks.collection_fit import (
    TimeLimit,
    fit_split,
    network_record,
    recorded_failure,
    start_row,
    tsattn_model,
    warm_up,
)
from tsattn.benchmarks.collection_run import run_fits

__all__ = [
    "PEERS",
    "RESULT_COLUMNS",
    "RegressBenchmark",
    "regression_suite",
    "resolve_tasks",
    "run_one",
    "run_regress_benchmark",
]

#: Peer name -> (aeon module, regressor class, package it needs beyond aeon or None); ``None``:
#: the TRAIN mean, sklearn's ``DummyRegressor``.
PEERS: dict[str, tuple[str, str, str | None] | None] = {
    "minirocket": ("aeon.regression.convolution_based", "MiniRocketRegressor", None),
    "multirocket": ("aeon.regression.convolution_based", "MultiRocketRegressor", None),
    "rocket": ("aeon.regression.convolution_based", "RocketRegressor", None),
    "quant": ("aeon.regression.interval_based", "QUANTRegressor", None),
    "drcif": ("aeon.regression.interval_based", "DrCIFRegressor", None),
    "freshprince": ("aeon.regression.feature_based", "FreshPRINCERegressor", "tsfresh"),
    "mean": None,
}
SUITE = "regression"

RESULT_COLUMNS = [
    "dataset", "model", "seed", "fold", "rmse", "mae", "coverage", "width", "status", "error",
    "fit_s", "predict_s", "n_params", "n_steps", "time_limited", "n_train", "n_test",
    "n_channels", "length", "threads", "run_id",
]  # fmt: skip


@dataclass
class RegressBenchmark:
    """Settings of one run (written to ``config.json`` beside the results)."""

    datasets: Sequence[str] = (SUITE,)
    attentions: Sequence[str] = ("softmax",)
    peers: Sequence[str] = ("minirocket", "multirocket", "rocket", "mean")
    seeds: Sequence[int] = (0,)
    params: dict[str, Any] = field(default_factory=dict)
    label: str | None = None
    cv: int | None = None
    cv_folds: Sequence[int] | None = None
    coverage: float = 0.9
    time_limit: float | None = None
    n_jobs: int = 1
    device: str = "cpu"

    def folds(self) -> list[int]:
        """``[-1]`` (TRAIN -> TEST) or the fold indices ``0 .. cv-1`` (those of ``cv_folds`` only,
        where given: a shorter run on some of the same folds)."""
        if not self.cv:
            return [-1]
        return sorted(set(self.cv_folds)) if self.cv_folds is not None else list(range(self.cv))


def regression_suite() -> list[str]:
    """The catalogue's regression tasks (TSER sets at hand and the derived tasks)."""
    from tsattn.datasets.catalogue import catalogue

    return list(catalogue()["regression_suite"]["names"])


def resolve_tasks(names: Iterable[str]) -> list[str]:
    """Task names for ``regression`` (the suite) and single names: derived tasks and TSER sets in
    the catalogue's spelling, and names outside the catalogue whose files are local (cache or a
    bundle). Other names raise ``ValueError`` with close matches."""
    from tsattn.benchmarks.classify import _is_local
    from tsattn.datasets.catalogue import resolve_name
    from tsattn.datasets.derived import derived_entry, derived_names

    out: list[str] = []
    for raw in names:
        key = str(raw).strip()
        if key.lower() == SUITE:
            out += regression_suite()
            continue
        found = derived_entry(key)
        if found is not None:
            out.append(found[0])
            continue
        suite = {n.lower(): n for n in regression_suite()}
        if key.lower() in suite:
            out.append(suite[key.lower()])
            continue
        try:
            out.append(resolve_name(key, "tser"))
            continue
        except ValueError:
            pass
        if _is_local("tser", key):
            out.append(key)
            continue
        hint = did_you_mean(key, [*derived_names(), *regression_suite()])
        raise ValueError(
            f"unknown regression task {raw!r}.{hint} Give '{SUITE}' (the suite), a derived task, "
            "a TSER set of the catalogue or one whose files are in the cache."
        )
    return list(dict.fromkeys(out))


@functools.lru_cache(maxsize=4)
def _load(name: str):
    from tsattn.datasets import load_tser

    X, y = load_tser(name, split="train")
    Xt, yt = load_tser(name, split="test")
    return X, np.asarray(y, dtype=np.float64), Xt, np.asarray(yt, dtype=np.float64)


def _build(model: str, seed: int, config: RegressBenchmark, limit: TimeLimit | None):
    if model.startswith("tsattn:"):
        from tsattn import TSRegressor

        return tsattn_model(TSRegressor, model, seed, config.device, config.params, limit)
    if PEERS[model] is None:
        from sklearn.dummy import DummyRegressor

        return DummyRegressor(strategy="mean")
    import importlib
    import inspect

    module, name, _needs = PEERS[model]
    cls = getattr(importlib.import_module(module), name)
    one_core = {"n_jobs": 1} if "n_jobs" in inspect.signature(cls).parameters else {}
    return cls(random_state=seed, **one_core)


def _missing_peer_package(peer: str) -> str | None:
    """What ``peer`` needs that is not installed (``None``: nothing), for :func:`resolve_models`."""
    import importlib.util

    needs = PEERS[peer][2] if PEERS[peer] is not None else None
    if needs is None or importlib.util.find_spec(needs) is not None:
        return None
    return f"{needs} not installed (pip install 'tsattn[{needs}]')"


def _warm_up(model: str, seed: int, config: RegressBenchmark) -> None:
    """:func:`~tsattn.benchmarks.collection_fit.warm_up` of a peer."""
    warm_up(model, "regression", lambda: _build(model, seed, config, None))


def run_one(name: str, model: str, seed: int, config: RegressBenchmark, threads: int = 1,
            fold: int = -1) -> dict[str, Any]:  # fmt: skip
    """Fit ``model`` on TRAIN of task ``name`` and score it on TEST (``fold=-1``), or on fold
    ``fold`` of ``config.cv``-fold cross-validation inside TRAIN; returns one result row. A failed
    fit is a row with ``status`` ``"error"`` or ``"timeout"``; ``KeyboardInterrupt`` propagates."""
    row = start_row(threads, dataset=name, model=model, seed=seed, fold=fold)

    def build(limit: TimeLimit | None):
        _warm_up(model, seed, config)
        return _build(model, seed, config, limit)

    with recorded_failure(row):
        fit = fit_split(row, _load(name), fold, config, False, model, build)
        pred, yt = np.asarray(fit.pred, dtype=np.float64), fit.y_test
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if model.startswith("tsattn:") and getattr(fit.model, "interval_errors_", None) is not None:
                lower, upper = fit.model.predict_interval(fit.X_test, coverage=config.coverage)
                row["coverage"] = float(np.mean((lower <= yt) & (yt <= upper)))
                row["width"] = float(np.mean(upper - lower))
        row["rmse"] = float(np.sqrt(np.mean((pred - yt) ** 2)))
        row["mae"] = float(np.mean(np.abs(pred - yt)))
        row.update(network_record(fit.model, fit.limit))
    return row


def run_regress_benchmark(config: RegressBenchmark, out: str | Path, progress: bool = True,
                          command: str | None = None, log=print) -> pd.DataFrame:  # fmt: skip
    """Run every missing (task, model, seed, fold) of ``config`` into ``out``: ``results.csv`` (a
    row per fit, appended as each finishes), ``config.json`` (settings, every invocation's command
    and wall time) and ``results.md``. Returns all rows of ``results.csv``."""
    from tsattn.benchmarks.regress_report import write_report

    if config.cv is not None and config.cv < 2:
        raise ValueError(f"cv must be at least 2 folds; got {config.cv}.")
    if config.cv_folds is not None:
        bad = [f for f in config.cv_folds if not (config.cv and 0 <= f < config.cv)]
        if bad or not config.cv_folds:
            raise ValueError(f"cv_folds must name folds 0 .. cv-1 of cv={config.cv}; got "
                             f"{list(config.cv_folds)}. Give --cv K with --folds.")  # fmt: skip
    if not 0 < config.coverage < 1:
        raise ValueError(f"coverage must be strictly between 0 and 1; got {config.coverage}.")
    tasks = resolve_tasks(config.datasets)
    models = resolve_models(config.attentions, config.peers, PEERS, config.label,
                            _missing_peer_package)
    if not tasks or not models:
        raise ValueError("nothing to run: no tasks or no models")
    fits = [(n, m, s, f) for n in tasks for m in models for s in config.seeds for f in config.folds()]
    record = {**asdict(config), "tasks": tasks, "models": models}
    return run_fits(out, fits, run_one, config, RESULT_COLUMNS, record=record,
                    sizes=f"{len(tasks)} tasks x {len(models)} models",
                    desc="bench regress", score="rmse", report=write_report, command=command,
                    log=log, progress=progress)  # fmt: skip
