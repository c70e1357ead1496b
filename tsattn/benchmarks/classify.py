"""Classification and extrinsic-regression benchmark across archives (``tsattn bench classify``).

Every (dataset, model, seed) is one fit on the TRAIN split and one score on TEST (accuracy for
UEA/UCR, RMSE for TSER); nothing else ever sees TEST. Models are tsattn estimators, one per attention
(``tsattn:<attention>``, with their defaults), and peers run in the same process on the same arrays:

* ``minirocket``, ``multirocket``, ``hydra-multirocket``, ``rocket``, ``quant`` (QUANT, interval
  quantiles and extra trees), ``inceptiontime`` (aeon; classifiers or regressors by the archive's
  task, with aeon's default sizes; InceptionTime needs TensorFlow);
* ``mvts-transformer``: sktime's ``MVTSTransformerClassifier`` (classification only);
* ``hivecote2``: aeon's ``HIVECOTEV2`` (classification only), the bake-off's most accurate, with
  its default components and no contract: hours on large sets, so run it with ``time_limit``.

Peers that need equal lengths get the series zero-padded at the end to the longest length in the
dataset (and to 9 steps at least, MiniRocket's minimum); tsattn models take them unpadded.

With ``cv=k`` nothing reads TEST: each fit is one fold of a stratified ``k``-fold split of TRAIN
(fixed by the dataset, not the seed), scored on the held-out fold, with its log-loss for classifiers.
This is how defaults are chosen: across many training sets, never on TEST. ``label`` names the
tsattn configuration (``tsattn:<attention>[label]``), so several settings of one attention share a
results file and a report.

Rows are appended to ``results.csv`` as each fit finishes, so an interrupted run loses nothing and the
next run with the same output folder skips every (dataset, model, seed) already there. Fits run in
parallel through joblib (processes, or a Dask cluster with ``scheduler``); a fit that fails is recorded
with its error and the run goes on; ``time_limit`` caps each fit (tsattn models stop training and are
scored, marked ``time_limited``; peers are stopped and recorded as ``timeout``).
"""

from __future__ import annotations

import functools
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
    "SUITES",
    "ClassifyBenchmark",
    "resolve_datasets",
    "run_classify_benchmark",
    "TimeLimit",
]

SUITES = ("uea", "ucr", "tser")

#: Peer name -> (module, classifier class, regressor class or None, extra that provides it).
PEERS: dict[str, tuple[str, str, str | None, str]] = {
    "minirocket": ("aeon.{task}.convolution_based", "MiniRocketClassifier", "MiniRocketRegressor", "aeon"),
    "multirocket": ("aeon.{task}.convolution_based", "MultiRocketClassifier", "MultiRocketRegressor", "aeon"),
    "hydra-multirocket": ("aeon.{task}.convolution_based", "MultiRocketHydraClassifier", "MultiRocketHydraRegressor", "aeon"),
    "rocket": ("aeon.{task}.convolution_based", "RocketClassifier", "RocketRegressor", "aeon"),
    "quant": ("aeon.{task}.interval_based", "QUANTClassifier", "QUANTRegressor", "aeon"),
    "hivecote2": ("aeon.{task}.hybrid", "HIVECOTEV2", None, "aeon"),
    "inceptiontime": ("aeon.{task}.deep_learning", "InceptionTimeClassifier", "InceptionTimeRegressor", "aeon and tensorflow"),
    "mvts-transformer": ("sktime.classification.deep_learning", "MVTSTransformerClassifier", None, "sktime (tsattn[sktime])"),
}  # fmt: skip

RESULT_COLUMNS = [
    "dataset", "archive", "model", "seed", "fold", "metric", "score", "log_loss", "status", "error", "fit_s",
    "predict_s", "n_params", "n_steps", "n_epochs", "time_limited", "n_train", "n_test",
    "n_channels", "length", "threads", "run_id", "peak_mb",
]  # fmt: skip


@dataclass
class ClassifyBenchmark:
    """Settings of one run (written to ``config.json`` beside the results)."""

    datasets: Sequence[str] = ("uea",)
    attentions: Sequence[str] = ("bn_sh",)
    peers: Sequence[str] = ("minirocket",)
    seeds: Sequence[int] = (0,)
    time_limit: float | None = None
    n_jobs: int = 1
    scheduler: str | None = None
    cached_only: bool = False
    retry_failed: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    device: str = "cpu"
    cv: int | None = None
    label: str | None = None

    def folds(self) -> list[int]:
        """``[-1]`` (TRAIN -> TEST) or the fold indices ``0 .. cv-1``."""
        return list(range(self.cv)) if self.cv else [-1]


# ---------------------------------------------------------------------- names
def _archive_of() -> dict[str, tuple[str, str]]:
    """Lower-cased dataset name -> (archive, canonical name) for every catalogued dataset."""
    from tsattn.datasets.catalogue import archive_names

    known = {n.lower(): (a, n) for a in SUITES for n in archive_names(a)}
    return known | {n.lower(): ("tser", n) for n in _more_tser()}


def _more_tser() -> list[str]:
    """Regression tasks outside the TSER archive's names that ``load_tser`` loads: the
    regression suite's (Tecator, bundled with sktime) and the tasks derived from the forecasting
    sets; ``tser`` includes them."""
    from tsattn.datasets.catalogue import archive_names, catalogue

    listed = set(archive_names("tser"))
    names = [*catalogue()["regression_suite"]["names"], *catalogue()["derived"]["tasks"]]
    return [n for n in dict.fromkeys(names) if n not in listed]


def resolve_datasets(names: Iterable[str], cached_only: bool = False) -> list[tuple[str, str]]:
    """``(archive, name)`` pairs for suite names (``uea``, ``ucr``, ``tser``) and dataset names.

    ``cached_only`` keeps the datasets whose files are already local (cache or aeon's bundle), for
    a run that must not download. Unknown names raise a ``ValueError`` listing close matches.
    """
    from tsattn.datasets.catalogue import archive_names, list_datasets

    known = _archive_of()
    out: list[tuple[str, str]] = []
    for raw in names:
        key = str(raw).strip().lower()
        if key in SUITES:
            out += [(key, n) for n in archive_names(key)]
            out += [(key, n) for n in _more_tser()] if key == "tser" else []
        elif key in known:
            out.append(known[key])
        else:
            forecasting = {n.lower() for n in list_datasets("forecasting").get("forecasting", [])}
            if key in forecasting:
                raise ValueError(
                    f"{raw!r} is a forecasting dataset; `tsattn bench classify` takes UEA, UCR or "
                    f"TSER names. Use `tsattn bench forecast --dataset {raw}`."
                )
            hint = did_you_mean(raw, [*(n for _, n in known.values()), *SUITES])
            raise ValueError(
                f"unknown dataset {raw!r}.{hint} Give suite names ({', '.join(SUITES)}) or names "
                "from `tsattn datasets list`."
            )
    seen: set[tuple[str, str]] = set()
    unique = [d for d in out if not (d in seen or seen.add(d))]
    return [d for d in unique if _is_local(*d)] if cached_only else unique


def _is_local(archive: str, name: str) -> bool:
    from tsattn.datasets.archives import bundled_file
    from tsattn.datasets.cache import data_dir
    from tsattn.datasets.catalogue import catalogue
    from tsattn.datasets.derived import derived_entry

    derived = derived_entry(name) if archive == "tser" else None
    if derived is not None:  # made from a forecasting set's file
        return (data_dir() / catalogue()["forecasting"][derived[1]["source"]]["file"]).is_file()
    return all(
        (data_dir() / archive / f"{name}_{split}.ts").is_file() or bundled_file(name, split)
        for split in ("TRAIN", "TEST")
    )


def _missing_peer_package(peer: str) -> str | None:
    import importlib.util

    module, *_rest, extra = PEERS[peer]
    needed = [module.split(".")[0]] + (["tensorflow"] if "tensorflow" in extra else [])
    absent = [m for m in needed if importlib.util.find_spec(m) is None]
    return f"{', '.join(absent)} not installed (needs {extra})" if absent else None


# ---------------------------------------------------------------------- one fit
@functools.lru_cache(maxsize=4)
def _load(archive: str, name: str):
    from tsattn.datasets import load_tser, load_ucr, load_uea

    loader = {"uea": load_uea, "ucr": load_ucr, "tser": load_tser}[archive]
    X, y = loader(name, split="train")
    Xt, yt = loader(name, split="test")
    return X, np.asarray(y), Xt, np.asarray(yt)


def _build(model: str, task: str, seed: int, config: ClassifyBenchmark, limit: TimeLimit | None):
    import importlib

    if model.startswith("tsattn:"):
        from tsattn import TSClassifier, TSRegressor

        cls = TSClassifier if task == "classification" else TSRegressor
        return tsattn_model(cls, model, seed, config.device, config.params, limit)
    module, clf, reg, _extra = PEERS[model]
    name = clf if task == "classification" else reg
    if name is None:
        raise ValueError(f"peer {model!r} has no regressor; it runs on classification datasets only")
    cls = getattr(importlib.import_module(module.format(task=task)), name)
    kwargs = {"random_state": seed}
    if "n_jobs" in cls().get_params():
        kwargs["n_jobs"] = 1
    if model == "mvts-transformer":
        kwargs["verbose"] = False
    return cls(**kwargs)


def _warm_up(model: str, task: str, seed: int, config: ClassifyBenchmark) -> None:
    """:func:`~tsattn.benchmarks.collection_fit.warm_up` of a peer."""
    warm_up(model, task, lambda: _build(model, task, seed, config, None))


def run_one(archive: str, name: str, model: str, seed: int, config: ClassifyBenchmark,
            threads: int = 1, fold: int = -1) -> dict[str, Any]:
    """Fit ``model`` on the TRAIN split of ``name`` and score it on TEST (``fold=-1``), or on fold
    ``fold`` of ``config.cv``-fold cross-validation inside TRAIN; returns one result row.

    Never raises for a failed fit: the row's ``status`` is ``"error"`` (with ``error``) or
    ``"timeout"``. ``KeyboardInterrupt`` propagates.
    """
    task = "regression" if archive == "tser" else "classification"
    row = start_row(threads, dataset=name, archive=archive, model=model, seed=seed, fold=fold,
                    metric="rmse" if task == "regression" else "accuracy")  # fmt: skip

    def build(limit: TimeLimit | None):
        _warm_up(model, task, seed, config)
        return _build(model, task, seed, config, limit)

    with recorded_failure(row):
        fit = fit_split(row, _load(archive, name), fold, config, task == "classification", model, build)
        yt = fit.y_test
        if task == "regression":
            row["score"] = float(np.sqrt(np.mean((np.asarray(fit.pred, float) - yt.astype(float)) ** 2)))
        else:
            row["score"] = float(np.mean(np.asarray(fit.pred).astype(str) == yt.astype(str)))
            if fold >= 0 and hasattr(fit.model, "predict_proba"):
                row["log_loss"] = _log_loss(fit.model, fit.X_test, yt)
        row.update(network_record(fit.model, fit.limit))
    return row


def _log_loss(est: Any, X: Any, y: np.ndarray) -> float:
    """Mean negative log-probability of the true class (1e-6 for classes unseen in fit)."""
    proba = np.asarray(est.predict_proba(X), dtype=np.float64)
    classes = np.asarray(est.classes_).astype(str)
    col = {c: i for i, c in enumerate(classes)}
    p = np.array([proba[i, col[c]] if c in col else 1e-6 for i, c in enumerate(y.astype(str))])
    return float(-np.mean(np.log(np.clip(p, 1e-6, 1.0))))


def run_classify_benchmark(config: ClassifyBenchmark, out: str | Path, progress: bool = True,
                           log=print, command: str | None = None) -> pd.DataFrame:
    """Run every missing (dataset, model, seed) of ``config`` and write the results into ``out``:
    ``results.csv`` (one row per fit, appended as each finishes), ``config.json``, ``results.md``
    and the plots of :mod:`tsattn.benchmarks.classify_report`. Returns all rows of ``results.csv``.

    ``command`` (the command line, for the report) joins the commands of earlier invocations on
    this folder in ``config.json``, with the wall time of each invocation; one folder can so
    collect several runs (e.g. other datasets or seeds) into one report
    (:func:`~tsattn.benchmarks.collection_run.run_fits`).
    """
    from tsattn.benchmarks.classify_report import write_report

    datasets = resolve_datasets(config.datasets, config.cached_only)
    models = resolve_models(config.attentions, config.peers, PEERS, config.label, _missing_peer_package)
    if not datasets or not models:
        raise ValueError("nothing to run: no datasets or no models left after checking the names")
    fits = [(a, n, m, s, f) for a, n in datasets for m in models for s in config.seeds
            for f in config.folds()]  # fmt: skip
    record = {**asdict(config), "datasets_resolved": [n for _, n in datasets], "models": models}
    return run_fits(out, fits, run_one, config, RESULT_COLUMNS, record=record,
                    sizes=f"{len(datasets)} datasets x {len(models)} models",
                    desc="bench classify", score="score", report=write_report, command=command,
                    log=log, progress=progress, retry_failed=config.retry_failed,
                    scheduler=config.scheduler)  # fmt: skip
