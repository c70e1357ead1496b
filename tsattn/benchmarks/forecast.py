"""Long-horizon forecasting benchmark (``tsattn bench forecast``), following ``protocols.md``.

For each dataset and horizon: the standard splits of :func:`tsattn.datasets.forecasting_splits`
(scaler fitted on train only), every stride-1 window of the scored split (none dropped), MSE and
MAE on the scaled data. Every model is scored on the same arrays in the same process:

* ``tsattn:<attention>[label]`` (``tsattn:<attention>/<head>[label]`` when the run names
  ``heads``): :class:`tsattn.TSForecaster` with its defaults plus ``params``, trained on the train
  split (validated on the validation split); its 80% and 95% intervals' empirical coverage and
  pinball loss, the fitted ``blend_`` and ``anchor_`` and what the network and the anchor score
  alone are recorded;
* peers from neuralforecast (``patchtst``, ``itransformer``, ``dlinear``, ``nhits``; see
  :mod:`tsattn.benchmarks.forecast_peers`), skipped with a one-line warning when it is absent;
* baselines that need no training on the scored split: ``naive_last`` (the last value),
  ``seasonal_naive`` (the last season, its period read from the time index: a day of sub-daily
  data, a week of daily data, a year of weekly or monthly data; the last value when the season is
  longer than the context) and ``ar`` (statsmodels ``AutoReg`` per channel, ``ar_lags`` lags and a
  constant, fitted once on the train split, each window forecast recursively from its context).

``split="val"`` scores the validation split instead and nothing reads TEST: ``TSForecaster`` fits
the train split alone (validating on its own tail), the peers train on it: this is how defaults are
chosen. Rows are appended to ``results.csv`` as each fit finishes; a rerun with the same output
folder skips every (dataset, split, horizon, model, seed) already there, so a run can be cut and
resumed, or extended by more seeds or horizons. ``results.md`` and the plots are rewritten from
everything recorded after each dataset.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tsattn._filelock import file_lock
from tsattn.benchmarks import BenchmarkInterrupted, append_row, portable_paths, raise_if_interrupted
from tsattn.benchmarks.forecast_baselines import BASELINES, ar_forecast, fit_ar, seasonal_naive
from tsattn.benchmarks.forecast_config import ForecastBenchmark, check_settings, model_setting
from tsattn.benchmarks.forecast_peers import PEERS, memory_problem, missing_peers, peer_forecasts
from tsattn.benchmarks.forecast_scores import score_windows
from tsattn.benchmarks.runinfo import ensure_columns, recorded_run
from tsattn.io import seasonal_period

__all__ = [
    "BASELINES",
    "BenchmarkData",
    "ForecastBenchmark",
    "RESULT_COLUMNS",
    "ar_forecast",
    "check_config",
    "fit_ar",
    "model_setting",
    "run_forecast_benchmark",
    "seasonal_naive",
]

#: Interval coverages measured for ``TSForecaster``.
COVERAGES = (0.8, 0.95)
#: Columns of ``results.csv``, one row per (dataset, split, horizon, model, seed).
RESULT_COLUMNS = ("dataset", "split", "horizon", "context_length", "n_windows", "model", "seed",
                  "mse", "mae", "cov80", "cov95", "width80", "pinball80", "pinball95", "blend",
                  "anchor", "mse_network", "mse_anchor", "n_steps", "fit_s",
                  "predict_s", "status", "error", "threads", "run_id")  # fmt: skip
_KEY = ["dataset", "split", "horizon", "model", "seed"]


# ---------------------------------------------------------------------- the run
class BenchmarkData:
    """One dataset's splits and the arrays every model of a horizon is scored on."""

    def __init__(self, config: ForecastBenchmark, dataset: str, frame: pd.DataFrame) -> None:
        from tsattn.datasets import forecasting_entry, forecasting_splits

        self.name, self.columns = forecasting_entry(dataset)[0], list(frame.columns)
        self.context, self.horizons = config.setting(dataset)
        self.splits = forecasting_splits(frame, dataset, self.context)
        self.train = self.splits.scaled("train")
        self.val = self.splits.scaled("val")
        self.period = seasonal_period(frame.index)
        scored = 2 if config.split == "test" else 1
        start, end = self.splits.borders[scored]
        self.series = self.splits.scaler.transform(frame.iloc[:end].to_numpy(dtype=np.float64))
        self.n_scored = end - start - self.context
        self.n_val = self.splits.borders[1][1] - self.splits.borders[1][0] - self.context
        self.n_val = self.n_val if config.split == "test" else 0
        self._ar: np.ndarray | None = None
        self.part = "test" if config.split == "test" else "val"

    def ar(self, lags: int) -> np.ndarray:
        if self._ar is None:
            self._ar = fit_ar(self.train, min(lags, self.context))
        return self._ar


def _fit_tsattn(config, data: BenchmarkData, horizon, model, seed, contexts, targets, picks):
    from tsattn.estimators.forecasting import TSForecaster

    est = TSForecaster(horizon, data.context, **{**config.params, **model_setting(model)},
                       device=config.device, random_state=seed)  # fmt: skip
    # frames on the splits' time index, as a user's: period='auto' reads the season from it
    train, val = data.splits.scaled_frame("train"), data.splits.scaled_frame("val")
    t0 = time.perf_counter()
    if config.split == "test":
        est.fit(train, y_val=val)
    else:
        est.fit(train)
    raise_if_interrupted(est)
    fit_s = time.perf_counter() - t0

    levels = [a for c in COVERAGES for a in ((1 - c) / 2, (1 + c) / 2)]

    def forecast(where, chunk):
        bounds = est.predict_quantiles(chunk, levels)  # one pass for every interval
        parts = est.predict_components(chunk)
        out = {"pred": parts["forecast"], "bands": {c: (bounds[..., 2 * k], bounds[..., 2 * k + 1])
                                                    for k, c in enumerate(COVERAGES)}}  # fmt: skip
        if parts["anchor"] is not None:  # what each part alone scores
            out["parts"] = {"mse_network": parts["network"], "mse_anchor": parts["anchor"]}
        return out

    t0 = time.perf_counter()
    scores = score_windows(forecast, contexts, targets, picks)
    row = {**scores.row(), "fit_s": fit_s, "predict_s": time.perf_counter() - t0,
           "n_steps": est.n_steps_, "blend": est.blend_, "anchor": est.anchor_ or ""}  # fmt: skip
    return scores, row, est


def _run_one(config, data: BenchmarkData, horizon: int, model: str, seed: int, contexts, targets,
             picks) -> tuple[Any, dict]:  # fmt: skip
    """One model's :class:`~tsattn.benchmarks.forecast_scores.Scores` over every window (its kept
    samples with them) and its row of results."""
    if model in BASELINES:
        if model == "ar":
            coef = data.ar(config.ar_lags)
            predict = lambda chunk: ar_forecast(coef, chunk, horizon)  # noqa: E731
        else:
            period = data.period if model == "seasonal_naive" else 1
            predict = lambda chunk: seasonal_naive(chunk, horizon, period)  # noqa: E731
        t0 = time.perf_counter()
        scores = score_windows(lambda _, chunk: {"pred": predict(chunk)}, contexts, targets, picks)
        return scores, {**scores.row(), "fit_s": 0.0, "predict_s": time.perf_counter() - t0}
    if model in PEERS:  # neuralforecast returns every window at once: scored in chunks all the same
        steps = config.peer_steps
        if steps == "auto":  # the steps TSForecaster takes on the same data
            steps = _auto_steps(config, data, horizon)
        batch = int(config.params.get("batch_size", _default("batch_size")))
        pred, info = peer_forecasts(model, data.series, targets, data.context, horizon, data.n_val,
                                    data.n_scored, seed, int(steps), batch, config.device)  # fmt: skip
        scores = score_windows(lambda where, _: {"pred": pred[where]}, contexts, targets, picks)
        return scores, {**scores.row(), "fit_s": info["fit_s"], "predict_s": 0.0,
                        "n_steps": info["n_steps"]}  # fmt: skip
    scores, row, _ = _fit_tsattn(config, data, horizon, model, seed, contexts, targets, picks)
    return scores, row


def _default(name: str):
    from tsattn.estimators.forecasting import TSForecaster

    return TSForecaster().get_params()[name]


def _auto_steps(config: ForecastBenchmark, data: BenchmarkData, horizon: int) -> int:
    """The steps ``TSForecaster``'s budget rule gives on this data (no tsattn model has run)."""
    from tsattn.estimators.forecasting import TSForecaster

    est = TSForecaster(horizon, data.context, **config.params)
    n_rows = len(data.train) - (0 if config.split == "test" else
                                int(np.ceil(est.validation_fraction * len(data.train))))  # fmt: skip
    return est.planned_steps(n_rows, data.train.shape[1])


def _key(*values) -> tuple[str, ...]:
    """A row's identity in ``results.csv`` (the ``_KEY`` columns, read back as strings): what a
    rerun skips."""
    return tuple(str(v) for v in values)


class _Cache:
    """Each dataset's :class:`BenchmarkData` of this process, loaded once (the run's and each worker's)."""

    def __init__(self, config: ForecastBenchmark, frames: dict[str, pd.DataFrame] | None) -> None:
        self.config, self.frames, self.data = config, frames, {}

    def __call__(self, source: str) -> BenchmarkData:
        from tsattn.datasets import load_forecasting

        if source not in self.data:
            frame = self.frames[source] if self.frames is not None else load_forecasting(source)
            self.data[source] = BenchmarkData(self.config, source, frame)
        return self.data[source]


def _fit_job(config: ForecastBenchmark, cache: _Cache, source: str, horizon: int, model: str,
             seed: int) -> tuple[dict | None, Any]:  # fmt: skip
    """One fit of the run, in this process or a worker: ``(row, scores or None)``. A failure is
    recorded in the row; a peer that cannot fit in memory gives ``(None, reason)``."""
    data = cache(source)
    contexts, targets = data.splits.windows(data.part, horizon)  # views: no copy
    if model in PEERS and (why := memory_problem(*targets.shape)):
        return None, f"{model} seed={seed}: skipped, {why}"  # no row: a larger machine runs it
    picks = np.linspace(0, len(contexts) - 1, max(config.n_plot, 0)).astype(int)
    base = dict(dataset=data.name, split=config.split, horizon=horizon,
                context_length=data.context, n_windows=len(contexts), model=model, seed=seed,
                status="ok", error="", threads=_threads())  # fmt: skip
    try:
        scores, row = _run_one(config, data, horizon, model, seed, contexts, targets, picks)
    except KeyboardInterrupt:
        raise
    except Exception as err:  # recorded; the run goes on
        scores, row = None, {"status": "failed", "error": repr(err)[:300]}
    return {**base, **row}, scores


def run_forecast_benchmark(
    config: ForecastBenchmark, out: str | Path, frames: dict[str, pd.DataFrame] | None = None,
    log: Callable[[str], None] = print, command: str | None = None, progress: bool = False,
    n_jobs: int = 1,
) -> pd.DataFrame:  # fmt: skip
    """Run every missing (dataset, horizon, model, seed) of ``config``, appending to
    ``out/results.csv``; write ``results.md``, ``config.json`` and ``plots/``. ``frames`` replaces
    :func:`tsattn.datasets.load_forecasting` (tests). ``progress``: a bar over the fits to run,
    naming the one running (a peer's fit on a CPU can take half an hour). ``n_jobs > 1``: the
    fits run in that many worker processes (joblib), each with its share of the cores' torch
    threads, rows appended as they finish. The run is recorded in ``config.json`` (its commit,
    command, machine, start, end and final status: :mod:`tsattn.benchmarks.runinfo`) and every
    row carries its ``run_id``. Returns every row recorded in ``out``."""
    peers = check_config(config)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    csv = out / "results.csv"
    done = set()
    ensure_columns(csv, RESULT_COLUMNS)  # written before a column was added
    with file_lock(csv):  # runs started on one folder at once: one header, no row overwritten
        if csv.is_file() and csv.stat().st_size:
            old = pd.read_csv(csv)
            done = {_key(*r) for r in old[_KEY].astype(str).itertuples(index=False)}
        else:  # the columns first, so that the file reads back whenever the run stops
            pd.DataFrame(columns=RESULT_COLUMNS).to_csv(csv, index=False)
    with recorded_run(out, command, _portable(asdict(config)), config.device) as record:
        return _run(config, out, frames, log, progress, n_jobs, peers, csv, done, record["id"])


def _run(config, out, frames, log, progress, n_jobs, peers, csv, done, run_id) -> pd.DataFrame:
    """The body of :func:`run_forecast_benchmark` inside its run record."""
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    from tsattn._parallel import worker_threads
    from tsattn.benchmarks.forecast_report import plot_samples, save_samples, write_report
    from tsattn.datasets import forecasting_entry

    seeds, peer_seeds = list(config.seeds), list(config.peer_seeds or config.seeds)
    models = [(m, 0) for m in config.baselines] + [(m, s) for s in seeds for m in config.model_names()]
    models += [(m, s) for s in peer_seeds for m in peers]
    todo = [(source, h, m, s) for source in config.datasets for h in config.setting(source)[1]
            for m, s in models
            if _key(forecasting_entry(source)[0], config.split, h, m, s) not in done]  # fmt: skip
    left = {}  # fits left per (dataset, horizon): its plots are drawn when none is
    for source, h, _, _ in todo:
        left[source, h] = left.get((source, h), 0) + 1
    cache = _Cache(config, frames)
    bar = tqdm(total=len(todo), desc="bench forecast", unit="fit", disable=not progress or not todo)

    running = "in the worker processes"

    def run() -> Any:
        nonlocal running
        if n_jobs == 1:
            for source, h, m, s in todo:
                running = f"during {m} seed {s}, {forecasting_entry(source)[0]} h={h}"
                bar.set_postfix_str(f"{forecasting_entry(source)[0]} h={h} {m} seed={s}")
                yield (source, h), _fit_job(config, cache, source, h, m, s)
            return
        threads = worker_threads(n_jobs, None)
        jobs = (delayed(_fit_one_of)(config, frames, job, threads) for job in todo)
        yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs)

    finished = 0  # the bar counts nothing when it is disabled (-q)
    try:
        for (source, horizon), (row, scores) in run():
            bar.update()
            finished += 1
            data = cache(source)
            if row is None:
                log(f"{data.name} {config.split} h={horizon} {scores}")
            else:
                append_row(csv, {**row, "run_id": run_id}, RESULT_COLUMNS)
                msg = (f"mse={row['mse']:.4f} mae={row['mae']:.4f}" if "mse" in row
                       else f"FAILED {row['error']}")  # fmt: skip
                log(f"{data.name} {config.split} h={horizon} {row['model']} seed={row['seed']}: {msg}")
                if scores is not None:
                    contexts, targets = data.splits.windows(data.part, horizon)
                    save_samples(out, data, horizon, row["model"], contexts, targets, scores,
                                 row["seed"])  # fmt: skip
            left[source, horizon] -= 1
            if not left[source, horizon]:
                plot_samples(out, data, horizon)
                if not any(n for (src, _), n in left.items() if src == source):
                    write_report(out, pd.read_csv(csv))
    except KeyboardInterrupt:
        bar.close()
        raise BenchmarkInterrupted(
            pd.read_csv(csv),
            f"interrupted {running} after {finished} of {len(todo)} fits; finished fits are in "
            f"{csv}; rerun the same command to resume.",
        ) from None
    bar.close()
    write_report(out, pd.read_csv(csv))
    return pd.read_csv(csv)


def _fit_one_of(config, frames, job, threads):
    """A worker process's fit, with its share of the cores: ``((source, horizon), (row, scores))``."""
    import torch

    torch.set_num_threads(threads)
    source, horizon, model, seed = job
    return (source, horizon), _fit_job(config, _Cache(config, frames), source, horizon, model, seed)


def _threads() -> int:
    import torch

    return torch.get_num_threads()


def _portable(record: dict) -> dict:
    """``record`` with its dataset files named without the machine's folders."""
    return {**record, "datasets": portable_paths(list(record["datasets"]))}


def check_config(config: ForecastBenchmark, n_rows: dict[str, int] | None = None) -> list[str]:
    """Check every setting before any work (:func:`~tsattn.benchmarks.forecast_config.check_settings`:
    a ``ValueError`` says what to change); return the peers that will run (missing
    neuralforecast: none, with a one-line warning)."""
    check_settings(config, n_rows)
    peers = list(dict.fromkeys(config.peers))
    if peers and (reason := missing_peers()):
        warnings.warn(reason, UserWarning, stacklevel=2)
        return []
    return peers
