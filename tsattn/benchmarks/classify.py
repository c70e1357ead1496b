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

import contextlib
import functools
import json
import signal
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tsattn._filelock import file_lock
from tsattn._parallel import parallel_backend as _backend
from tsattn._parallel import worker_threads
from tsattn._validation import did_you_mean
from tsattn.benchmarks import BenchmarkInterrupted, append_row, resolve_models
from tsattn.training import Callback

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


def _build(model: str, task: str, seed: int, config: ClassifyBenchmark, limit: TimeLimit | None):
    import importlib

    if model.startswith("tsattn:"):
        from tsattn import TSClassifier, TSRegressor

        cls = TSClassifier if task == "classification" else TSRegressor
        params = {"device": config.device, **config.params}
        if limit is not None:
            params["callbacks"] = [*(params.get("callbacks") or ()), limit]
        return cls(attention=model.split(":", 1)[1].split("[")[0], random_state=seed, **params)
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


_WARM: set[tuple[str, str]] = set()


def _warm_up(model: str, task: str, seed: int, config: ClassifyBenchmark) -> None:
    """Fit a peer once on a tiny random problem, so that its one-off set-up in this process (numba
    compiling the Rocket kernels) is not timed as part of the first real fit."""
    if model.startswith("tsattn:") or (model, task) in _WARM:
        return
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 1, 16))
    y = np.arange(8) % 2 if task == "classification" else rng.normal(size=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(Exception):
            _build(model, task, seed, config, None).fit(X, y if task == "regression" else y.astype(str))
    _WARM.add((model, task))



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
    """What a fitted network of ours did, for a result row: trainable parameters, optimiser steps,
    whether ``limit`` (a :class:`TimeLimit` or None) stopped it; empty for the peers."""
    module = getattr(est, "module_", None)
    if module is None:
        return {}
    return {"n_params": sum(p.numel() for p in module.parameters() if p.requires_grad),
            "n_steps": getattr(est, "n_steps_", np.nan),
            "time_limited": bool(limit.hit) if limit is not None else False}  # fmt: skip


def _cv_split(X: Any, y: np.ndarray, k: int, fold: int, classification: bool):
    """Fold ``fold`` of a ``k``-fold split of TRAIN (stratified for classification; shuffled with a
    fixed seed so every model and seed sees the same folds): ``(X_fit, y_fit, X_held, y_held)``."""
    from tsattn.io import kfold

    fit, held = kfold(y, k, classification)[fold]

    def take(idx):
        return X[idx] if isinstance(X, np.ndarray) else [X[i] for i in idx]

    return take(fit), y[fit], take(held), y[held]


def run_one(archive: str, name: str, model: str, seed: int, config: ClassifyBenchmark,
            threads: int = 1, fold: int = -1) -> dict[str, Any]:
    """Fit ``model`` on the TRAIN split of ``name`` and score it on TEST (``fold=-1``), or on fold
    ``fold`` of ``config.cv``-fold cross-validation inside TRAIN; returns one result row.

    Never raises for a failed fit: the row's ``status`` is ``"error"`` (with ``error``) or
    ``"timeout"``. ``KeyboardInterrupt`` propagates.
    """
    import torch

    torch.set_num_threads(max(1, threads))
    task = "regression" if archive == "tser" else "classification"
    row: dict[str, Any] = dict(dataset=name, archive=archive, model=model, seed=seed, fold=fold,
                               metric="rmse" if task == "regression" else "accuracy",
                               status="ok", error="", threads=torch.get_num_threads())  # fmt: skip
    try:
        X, y, Xt, yt = _load(archive, name)
        if fold >= 0:
            X, y, Xt, yt = _cv_split(X, y, config.cv, fold, task == "classification")
        from tsattn.io import to_series_batch

        train, test = to_series_batch(X), to_series_batch(Xt)
        row.update(n_train=len(y), n_test=len(yt), n_channels=train.n_channels,
                   length=int(train.lengths.max()))  # fmt: skip
        limit = TimeLimit(config.time_limit) if config.time_limit and model.startswith("tsattn:") else None
        _warm_up(model, task, seed, config)
        est = _build(model, task, seed, config, limit)
        X, Xt, pred = fit_predict(est, model, X, y, Xt, (train, test), limit, config.time_limit, row)
        if task == "regression":
            row["score"] = float(np.sqrt(np.mean((np.asarray(pred, float) - yt.astype(float)) ** 2)))
        else:
            row["score"] = float(np.mean(np.asarray(pred).astype(str) == yt.astype(str)))
            if fold >= 0 and hasattr(est, "predict_proba"):
                row["log_loss"] = _log_loss(est, Xt, yt)
        row.update(network_record(est, limit))
        if hasattr(est, "module_"):
            row["n_epochs"] = getattr(est, "n_epochs_", np.nan)
    except TimeoutError as err:
        row.update(status="timeout", error=str(err))
    except KeyboardInterrupt:
        raise
    except Exception as err:  # a failed fit is a result: record it and go on
        row.update(status="error", error=f"{type(err).__name__}: {err}"[:500])
    return row


def _log_loss(est: Any, X: Any, y: np.ndarray) -> float:
    """Mean negative log-probability of the true class (1e-6 for classes unseen in fit)."""
    proba = np.asarray(est.predict_proba(X), dtype=np.float64)
    classes = np.asarray(est.classes_).astype(str)
    col = {c: i for i, c in enumerate(classes)}
    p = np.array([proba[i, col[c]] if c in col else 1e-6 for i, c in enumerate(y.astype(str))])
    return float(-np.mean(np.log(np.clip(p, 1e-6, 1.0))))


# ---------------------------------------------------------------------- the run
def _done(path: Path, retry_failed: bool, columns: Sequence[str] = RESULT_COLUMNS
          ) -> tuple[pd.DataFrame, set[tuple[str, str, int]]]:  # fmt: skip
    if not path.is_file() or path.stat().st_size == 0:
        return pd.DataFrame(columns=columns), set()
    with file_lock(path):
        try:
            rows = pd.read_csv(path, keep_default_na=False, na_values=[""])
        except pd.errors.EmptyDataError:
            return pd.DataFrame(columns=columns), set()
        repeated_header = rows.dataset == "dataset"  # left by runs before the lock in append_row
        if repeated_header.any():
            rows[~repeated_header].to_csv(path, index=False)
            rows = pd.read_csv(path, keep_default_na=False, na_values=[""])
        if retry_failed:
            rows = rows[rows.status == "ok"]
            rows.to_csv(path, index=False)
    return rows, {(r.dataset, r.model, int(r.seed), int(r.fold)) for r in rows.itertuples()}


def run_classify_benchmark(config: ClassifyBenchmark, out: str | Path, progress: bool = True,
                           log=print, command: str | None = None) -> pd.DataFrame:
    """Run every missing (dataset, model, seed) of ``config`` and write the results into ``out``:
    ``results.csv`` (one row per fit, appended as each finishes), ``config.json``, ``results.md``
    and the plots of :mod:`tsattn.benchmarks.classify_report`. Returns all rows of ``results.csv``.

    ``command`` (the command line, for the report) joins the commands of earlier invocations on
    this folder in ``config.json``, with the wall time of each invocation; one folder can so
    collect several runs (e.g. other datasets or seeds) into one report.
    """
    from joblib import Parallel, delayed

    from tsattn.benchmarks.classify_report import write_report
    from tsattn.benchmarks.runinfo import ensure_columns, recorded_run

    datasets = resolve_datasets(config.datasets, config.cached_only)
    models = resolve_models(config.attentions, config.peers, PEERS, config.label, _missing_peer_package)
    if not datasets or not models:
        raise ValueError("nothing to run: no datasets or no models left after checking the names")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    probe = out / ".write_test"
    probe.write_text("")
    probe.unlink()
    path = out / "results.csv"
    _, done = _done(path, config.retry_failed)
    todo = [(a, n, m, s, f) for a, n in datasets for m in models for s in config.seeds
            for f in config.folds() if (n, m, int(s), f) not in done]  # fmt: skip
    config_path = out / "config.json"
    record = {**asdict(config), "datasets_resolved": [n for _, n in datasets], "models": models}

    def save_config(seconds: float | None = None) -> None:
        """Merge this invocation into ``config.json`` (under a lock: runs on one folder may overlap),
        keeping every earlier invocation's command and wall time."""
        with file_lock(config_path):
            previous = json.loads(config_path.read_text()) if config_path.is_file() else {}
            commands = previous.get("commands", [previous["command"]] if previous.get("command") else [])
            record["commands"] = list(dict.fromkeys([*commands, *([command] if command else [])]))
            record["invocations"] = previous.get("invocations", [])
            record["runs"] = previous.get("runs", [])  # tsattn.benchmarks.runinfo's records
            if seconds is not None:
                record["invocations"].append({"fits": len(todo), "wall_seconds": round(seconds, 1)})
            status = {"status": previous.get("status", "current")}  # the folder's (issue 78)
            config_path.write_text(json.dumps({**record, **status}, indent=2, default=repr), encoding="utf-8")

    save_config()
    log(f"{len(datasets)} datasets x {len(models)} models x {len(config.seeds)} seeds"
        + (f" x {config.cv} folds of TRAIN" if config.cv else "") + ": "
        f"{len(todo)} fits to run, {len(done)} already in {path}")  # fmt: skip
    ensure_columns(path, RESULT_COLUMNS)  # written before a column was added
    settings = {k: v for k, v in record.items() if k not in ("commands", "invocations", "runs")}
    with recorded_run(out, command, settings, config.device) as run:
        t0 = time.perf_counter()
        with _backend(config.n_jobs, config.scheduler) as n_workers:
            threads = worker_threads(n_workers, config.scheduler)
            jobs = (delayed(run_one)(a, n, m, s, config, threads, f) for a, n, m, s, f in todo)
            results = Parallel(n_jobs=n_workers, return_as="generator_unordered")(jobs) if todo else ()
            collect_rows(results, path, RESULT_COLUMNS, run["id"], len(todo) if progress else 0,
                         "bench classify", "score", lambda: _done(path, False)[0],
                         lambda: save_config(time.perf_counter() - t0))  # fmt: skip
        save_config(time.perf_counter() - t0)
        rows = _done(path, False)[0]
        write_report(rows, out)
        return rows


def collect_rows(results, path: Path, columns, run_id: str, bar_total: int, desc: str, score: str,
                 reread, on_interrupt) -> None:  # fmt: skip
    """Append each row of ``results`` (row dicts, as fits finish) to the CSV ``path`` with the
    run's ``run_id``, under a progress bar of ``bar_total`` fits (0: none) showing ``score``. On
    Ctrl-C: ``on_interrupt()``, then :class:`BenchmarkInterrupted` with ``reread()``'s rows."""
    bar = None
    if bar_total:
        from tqdm.auto import tqdm

        bar = tqdm(total=bar_total, desc=desc, unit="fit")
    try:
        for row in results:
            append_row(path, {**row, "run_id": run_id}, columns)
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(f"{row['dataset']} {row['model']} {row.get(score, row['status'])}")
    except KeyboardInterrupt:
        on_interrupt()
        rows = reread()
        raise BenchmarkInterrupted(rows, f"interrupted; {len(rows)} finished fits are in {path}") from None
    finally:
        if bar is not None:
            bar.close()
