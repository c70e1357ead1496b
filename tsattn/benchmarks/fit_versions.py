"""Default fits timed against an earlier version of the code in the same run (``tsattn bench
fit-time --baseline REF``), so that every speed claim is a ratio measured on one machine under one
load.

The earlier version is a ``git worktree`` of the named commit (or a folder holding an earlier
checkout). Each version runs in its own worker process, started once with that tree first on its
path and warmed up by a tiny fit; the parent loads every dataset once and hands the workers the
same pickled data and the same fit, one fit at a time, alternating which version goes first from
one fit to the next (ABBA), for ``repeats`` rounds. A worker uses only the public estimators, so
any earlier version that has them can be timed. ``beside=True`` also times each fit beside one
CPU-bound process (a numpy matrix-product loop on two BLAS threads, started before the fit and
stopped after it): how a fit shares a busy machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["baseline_tree", "compare_fit_times", "load_task", "summarise"]

# The worker: reads one JSON task per line, fits, answers one line starting with the marker.
_WORKER = r"""
import json, os, pickle, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np
import torch
import tsattn

def fit(task):
    with open(task["data"], "rb") as f:
        data = pickle.load(f)
    est = getattr(tsattn, task["estimator"])(*task["args"], random_state=task["seed"],
                                             **task["params"])
    t0, c0 = time.perf_counter(), time.process_time()
    if data.get("y_val") is not None:
        est.fit(data["X"], y_val=data["y_val"])
    elif data.get("y") is None:
        est.fit(data["X"])
    else:
        est.fit(data["X"], data["y"])
    import resource
    return {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "n_steps": int(getattr(est, "n_steps_", -1)),
            "n_threads": getattr(est, "n_threads_", None), "torch_threads": torch.get_num_threads(),
            "tsattn": os.path.dirname(os.path.dirname(tsattn.__file__))}

for line in sys.stdin:
    try:
        out = fit(json.loads(line))
    except Exception as err:
        out = {"error": repr(err)}
    print("@@" + json.dumps(out), flush=True)
"""

# The CPU-bound neighbour: matrix products on two BLAS threads, forever.
_HOG = (
    "import numpy as np\n"
    "a = np.random.default_rng(0).normal(size=(768, 768))\n"
    "while True:\n"
    "    a = a @ a\n"
    "    a /= np.abs(a).max()\n"
)


@contextlib.contextmanager
def baseline_tree(ref: str, repo: Path | None = None) -> Iterator[tuple[Path, str]]:
    """``(folder, label)`` of the earlier code: ``ref`` itself when it is a folder holding a
    ``tsattn`` package, else a temporary ``git worktree`` of commit ``ref`` of ``repo`` (default:
    the repository this package lives in), removed at the end."""
    path = Path(ref)
    if (path / "tsattn" / "__init__.py").is_file():
        yield path.resolve(), str(ref)
        return
    repo = Path(repo or Path(__file__).resolve().parents[2])
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", f"{ref}^{{commit}}"],
                            capture_output=True, text=True)  # fmt: skip
    if commit.returncode != 0:
        raise ValueError(f"--baseline {ref!r} is neither a folder holding tsattn/ nor a commit of "
                         f"{repo}: {commit.stderr.strip()}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="tsattn-baseline-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", str(tree), ref],
                       check=True, capture_output=True)  # fmt: skip
        try:
            yield tree, commit.stdout.strip()
        finally:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(tree)],
                           capture_output=True)  # fmt: skip


class _Worker:
    """A process fitting with the tsattn of ``tree``."""

    def __init__(self, tree: Path, log: Path, threads: int | None = None) -> None:
        env = dict(os.environ, PYTHONPATH=str(tree))
        if threads is not None:  # read by torch when it loads: every version on the same threads
            env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
        self.tree = tree
        self._log = open(log, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen([sys.executable, "-c", _WORKER], cwd=tree, env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log)  # fmt: skip

    def fit(self, task: dict[str, Any]) -> dict[str, Any]:
        self.proc.stdin.write(json.dumps(task) + "\n")
        self.proc.stdin.flush()
        for line in self.proc.stdout:
            if line.startswith("@@"):
                out = json.loads(line[2:])
                if "error" in out:
                    raise RuntimeError(f"the fit failed in the worker of {self.tree}: {out['error']}")
                if Path(out["tsattn"]).resolve() != self.tree.resolve():
                    raise RuntimeError(f"the worker of {self.tree} imported tsattn from {out['tsattn']}")
                return out
        raise RuntimeError(f"the worker of {self.tree} stopped; see {self._log.name}")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._log.close()


@contextlib.contextmanager
def _cpu_hog() -> Iterator[None]:
    """One CPU-bound process (two BLAS threads) running inside the block."""
    env = dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2", MKL_NUM_THREADS="2")
    proc = subprocess.Popen([sys.executable, "-c", _HOG], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    time.sleep(1.0)  # its threads are up and spinning before the fit starts
    try:
        yield
    finally:
        proc.kill()
        proc.wait()


#: The panel benchmarks' default fits, by name: ``m4:<frequency>`` (the training file, one long
#: frame, the frequency's horizon and season, as ``tsattn bench m4`` fits) and ``epf:<market>``
#: (the market's training rows, the price and its two day-ahead forecasts as future covariates,
#: as ``tsattn bench epf`` fits with its protocol's context of 168 hours).
PANEL_TASKS = ("m4", "epf")


def _panel_task(name: str, folder: Path) -> dict[str, Any]:
    kind, _, which = name.partition(":")
    if kind == "m4":
        from tsattn.datasets import load_m4, m4_info

        info = m4_info(which)
        data = {"X": load_m4(info.frequency), "y": None}
        task = {"args": [info.horizon], "params": {"period": info.seasonal_period}}
        shape = f"{data['X'].unique_id.nunique()} series, horizon {info.horizon}"
    else:
        from tsattn.datasets import epf_info, load_epf

        info = epf_info(which)
        frame = load_epf(info.market)
        n = int(len(frame) * 0.7)  # TimeXer's training rows
        names = list(info.covariates)
        data = {"X": frame.y.to_numpy()[:n], "y": frame[names].to_numpy()[:n]}
        task = {"args": [24, 168], "params": {"future_covariates": [0, 1]}}
        shape = f"{n} hours, {len(names)} future covariates, horizon 24"
    path = folder / f"{kind}-{which}.pkl"
    with open(path, "wb") as f:
        pickle.dump(data, f)
    return {**task, "estimator": "TSForecaster", "dataset": name, "shape": shape, "data": str(path)}


def load_task(name: str, folder: Path, horizon: int = 96) -> dict[str, Any]:
    """Load dataset ``name`` (a UEA, UCR or TSER set: its TRAIN split; a forecasting set: its
    standard training split, validated on its validation split, as ``tsattn bench forecast``
    fits; ``m4:<frequency>`` or ``epf:<market>``: :data:`PANEL_TASKS`) into ``folder`` as a
    pickle; returns the task a worker runs (without the seed)."""
    from tsattn.datasets.catalogue import ARCHIVES, FORECASTING, archive_names

    if name.partition(":")[0] in PANEL_TASKS:
        return _panel_task(name, folder)

    for archive in (*ARCHIVES, FORECASTING):
        spelling = next((n for n in archive_names(archive) if n.lower() == name.lower()), None)
        if spelling is not None:
            break
    else:
        raise ValueError(f"{name!r} is in no archive of the catalogue (UEA, UCR, TSER, forecasting).")
    if archive == FORECASTING:
        from tsattn.datasets import forecasting_entry, forecasting_splits, load_forecasting

        context = int(forecasting_entry(spelling)[1].get("context_length", 96))
        splits = forecasting_splits(load_forecasting(spelling), spelling, context)
        data = {"X": splits.scaled_frame("train"), "y": None, "y_val": splits.scaled_frame("val")}
        task = {"estimator": "TSForecaster", "args": [horizon, context]}
        shape = f"{len(splits.train)} x {splits.train.shape[1]}, horizon {horizon}"
    else:
        from tsattn import datasets

        X, y = getattr(datasets, f"load_{archive}")(spelling, split="train")
        data = {"X": X, "y": y}
        task = {"estimator": "TSRegressor" if archive == "tser" else "TSClassifier", "args": []}
        shape = "x".join(str(s) for s in np.shape(X)) if hasattr(X, "shape") else f"{len(X)} series"
    path = folder / f"{spelling}.pkl"
    with open(path, "wb") as f:
        pickle.dump(data, f)
    return {**task, "dataset": spelling, "shape": shape, "data": str(path)}


def _warm_up_task(folder: Path) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    path = folder / "_warm_up.pkl"
    with open(path, "wb") as f:
        pickle.dump({"X": rng.normal(size=(8, 2, 16)), "y": np.arange(8) % 2}, f)
    return {"estimator": "TSClassifier", "args": [], "data": str(path), "seed": 0,
            "params": {"max_steps": 2, "d_model": 8, "n_heads": 2, "n_layers": 1}}  # fmt: skip


def compare_fit_times(datasets: list[str], baseline: str | None, out: Path, repeats: int = 3,
                      params: dict[str, Any] | None = None, horizon: int = 96, beside: bool = False,
                      threads: int | None = None, seed: int = 0, log: Callable[[str], None] = print):
    """Time the default fit on each of ``datasets`` with this code and with ``baseline`` (a commit
    or a folder; ``None``: this code alone), interleaved (see the module's docstring); rows appended to ``out/fit_time.csv``
    as fits finish (``version`` current or baseline, ``beside`` none or cpu_hog, ``round``,
    ``seconds``, ``cpu_seconds``, the load average before the fit...). ``threads``: torch threads
    of both workers (``OMP_NUM_THREADS``; default torch's own choice). Returns the rows."""
    import pandas as pd

    params = dict(params or {})
    out.mkdir(parents=True, exist_ok=True)
    current = Path(__file__).resolve().parents[2]
    rows: list[dict[str, Any]] = []
    base = baseline_tree(baseline, current) if baseline else contextlib.nullcontext((None, None))
    with tempfile.TemporaryDirectory(prefix="tsattn-fit-time-") as tmp, base as (base_tree, base_label):
        tasks = [load_task(d, Path(tmp), horizon) for d in datasets]
        workers = {"current": _Worker(current, out / "workers.log", threads)}
        if base_tree is not None:
            workers["baseline"] = _Worker(base_tree, out / "workers.log", threads)
        try:
            for name, worker in workers.items():
                log(f"warming up the {name} worker ({worker.tree})")
                worker.fit(_warm_up_task(Path(tmp)))
            conditions = ["none", "cpu_hog"] if beside else ["none"]
            k = 0
            for r in range(repeats):
                for task in tasks:
                    for condition in conditions:
                        order = list(workers) if k % 2 == 0 else list(workers)[::-1]
                        k += 1
                        for version in order:
                            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
                            job = {**task, "seed": seed,
                                   "params": {**task.get("params", {}), **params}}
                            with _cpu_hog() if condition == "cpu_hog" else contextlib.nullcontext():
                                got = workers[version].fit(job)
                            row = {"dataset": task["dataset"], "shape": task["shape"],
                                   "estimator": task["estimator"], "version": version,
                                   "commit": "working tree" if version == "current" else base_label,
                                   "beside": condition, "round": r, "load_1m_before": load,
                                   **{key: got.get(key) for key in (
                                       "seconds", "cpu_seconds", "peak_rss_mb", "n_steps",
                                       "n_threads", "torch_threads")}}  # fmt: skip
                            rows.append(row)
                            pd.DataFrame([row]).to_csv(out / "fit_time.csv", mode="a", index=False,
                                                       header=not (out / "fit_time.csv").exists())  # fmt: skip
                            log(f"round {r} {task['dataset']} {version} beside={condition}: "
                                f"{got['seconds']:.1f} s (load {load:.1f})")
        finally:
            for worker in workers.values():
                worker.close()
    return pd.DataFrame(rows)


def summarise(rows) -> tuple[Any, dict[str, Any]]:
    """Per dataset and condition: each version's median seconds and their ratio (current /
    baseline), the median of the per-round ratios and the ratio of the median CPU seconds (every
    thread of the worker; with one thread, the work done whatever the load); beside a CPU hog, each version's slowdown
    (its median beside / its median alone). Without baseline rows, this code's columns alone. Returns ``(table, totals)`` with the medians over
    datasets."""
    import pandas as pd

    med = rows.groupby(["dataset", "beside", "version"])["seconds"].median().unstack("version")
    cpu = rows.groupby(["dataset", "beside", "version"])["cpu_seconds"].median().unstack("version")
    if "baseline" not in med:
        table = pd.DataFrame({"current_s": med["current"], "current_cpu_s": cpu["current"]}).reset_index()
        totals = {condition: {"median_s": float(part["current_s"].median()),
                              "max_s": float(part["current_s"].max()), "datasets": int(len(part))}
                  for condition, part in table.groupby("beside")}  # fmt: skip
        return table, totals
    paired = rows.pivot_table(index=["dataset", "beside", "round"], columns="version", values="seconds")
    per_round = (paired["current"] / paired["baseline"]).groupby(["dataset", "beside"]).median()
    table = pd.DataFrame({"current_s": med["current"], "baseline_s": med["baseline"],
                          "ratio": med["current"] / med["baseline"],
                          "ratio_per_round_median": per_round,
                          "cpu_ratio": cpu["current"] / cpu["baseline"]}).reset_index()  # fmt: skip
    totals: dict[str, Any] = {}
    for condition, part in table.groupby("beside"):
        totals[condition] = {"median_ratio": float(part["ratio"].median()),
                             "median_cpu_ratio": float(part["cpu_ratio"].median()),
                             "datasets": int(len(part))}  # fmt: skip
    if "cpu_hog" in set(table["beside"]):
        alone = table[table.beside == "none"].set_index("dataset")
        busy = table[table.beside == "cpu_hog"].set_index("dataset")
        for version in ("current", "baseline"):
            slow = busy[f"{version}_s"] / alone[f"{version}_s"]
            totals[f"slowdown_beside_cpu_hog_{version}"] = {d: float(v) for d, v in slow.items()}
    totals["load_1m"] = {"min": float(rows["load_1m_before"].min()),
                         "median": float(rows["load_1m_before"].median()),
                         "max": float(rows["load_1m_before"].max())}  # fmt: skip
    return table, totals
