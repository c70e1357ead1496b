"""The run bookkeeping of the collection benchmarks (``bench classify``, ``bench regress``).

A run's output folder holds ``results.csv``, one row per fit appended as each finishes (so an
interrupted run loses nothing), and ``config.json``: the run's settings, the command and wall time
of every invocation on the folder, and :mod:`tsattn.benchmarks.runinfo`'s record of each run.
:func:`run_fits` runs the fits that ``results.csv`` lacks (:func:`recorded_rows`), in parallel
through joblib (processes, or a Dask cluster), appends their rows (:func:`collect_rows`), and
writes the report from every row of the folder.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from tsattn._filelock import file_lock
from tsattn.benchmarks import BenchmarkInterrupted, append_row

__all__ = ["collect_rows", "recorded_rows", "run_fits"]


def recorded_rows(path: Path, columns: Sequence[str], retry_failed: bool = False
                  ) -> tuple[pd.DataFrame, set[tuple[str, str, int, int]]]:  # fmt: skip
    """The rows of the results CSV ``path`` (an empty frame of ``columns`` without one) and the
    ``(dataset, model, seed, fold)`` of each: the fits a resumed run skips. A header repeated
    mid-file (left by runs from before :func:`~tsattn.benchmarks.append_row` took the file's lock)
    is removed from the file; ``retry_failed`` removes the rows that did not end ``ok``, so that
    their fits run again."""
    if not path.is_file() or path.stat().st_size == 0:
        return pd.DataFrame(columns=columns), set()
    with file_lock(path):
        try:
            rows = pd.read_csv(path, keep_default_na=False, na_values=[""])
        except pd.errors.EmptyDataError:
            return pd.DataFrame(columns=columns), set()
        repeated_header = rows.dataset == "dataset"
        if repeated_header.any():
            rows[~repeated_header].to_csv(path, index=False)
            rows = pd.read_csv(path, keep_default_na=False, na_values=[""])
        if retry_failed:
            rows = rows[rows.status == "ok"]
            rows.to_csv(path, index=False)
    return rows, {(r.dataset, r.model, int(r.seed), int(r.fold)) for r in rows.itertuples()}


def collect_rows(results: Iterable[dict], path: Path, columns: Sequence[str], run_id: str,
                 bar_total: int, desc: str, score: str, reread: Callable[[], pd.DataFrame],
                 on_interrupt: Callable[[], None]) -> None:  # fmt: skip
    """Append each row of ``results`` (row dicts, as fits finish) to the CSV ``path`` with the
    run's ``run_id``, under a progress bar of ``bar_total`` fits (0: none) showing ``score``. On
    Ctrl-C: ``on_interrupt()``, then :class:`BenchmarkInterrupted` with ``reread()``'s rows."""
    bar = None
    if bar_total:
        from tqdm.auto import tqdm

        bar = tqdm(total=bar_total, desc=desc, unit="fit")
    try:
        for row in results:
            append_row(path, {**row, "run_id": run_id}, list(columns))
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


def _save_config(path: Path, record: dict[str, Any], command: str | None,
                 invocation: dict[str, Any] | None = None) -> None:  # fmt: skip
    """Write ``record`` (the run's settings) to ``config.json`` at ``path`` under its lock (runs
    on one folder may overlap), keeping every earlier invocation's command (``command`` joins
    them), wall time (``invocation`` joins them) and run records."""
    with file_lock(path):
        previous = json.loads(path.read_text()) if path.is_file() else {}
        commands = previous.get("commands", [previous["command"]] if previous.get("command") else [])
        invocations = [*previous.get("invocations", []), *([invocation] if invocation else [])]
        data = {"status": previous.get("status", "current"),  # the folder's (issue 78)
                **record, "commands": list(dict.fromkeys([*commands, *([command] if command else [])])),
                "invocations": invocations, "runs": previous.get("runs", [])}  # fmt: skip
        path.write_text(json.dumps(data, indent=2, default=repr), encoding="utf-8")


def run_fits(out: str | Path, fits: Sequence[tuple], run_one: Callable[..., dict], config: Any,
             columns: Sequence[str], *, record: dict[str, Any], sizes: str, desc: str, score: str,
             report: Callable[[pd.DataFrame, Path], Any], command: str | None, log: Callable,
             progress: bool, retry_failed: bool = False, scheduler: str | None = None
             ) -> pd.DataFrame:  # fmt: skip
    """Run every fit of ``fits`` that ``out/results.csv`` lacks and write the report; return every
    row of ``results.csv``.

    Each fit is ``(..., dataset, model, seed, fold)``, run as ``run_one(*fit[:-1], config,
    threads, fit[-1])`` in ``config.n_jobs`` workers (``scheduler``: on Dask), each with its share
    of the cores' ``threads``; its row (``columns``) is appended as it finishes, under a bar named
    ``desc`` showing ``score`` (``progress``). ``record`` (the settings) goes to
    ``config.json`` with ``command`` and this invocation's wall time, and :func:`recorded_run
    <tsattn.benchmarks.runinfo.recorded_run>` records the run there (on ``config.device``).
    ``sizes`` (``"2 datasets x 3 models"``) opens the line ``log`` gets, which goes on with the
    seeds and folds of ``config``.
    ``retry_failed`` runs again the fits recorded as failed. ``report(rows, out)`` writes the
    report."""
    from joblib import Parallel, delayed

    from tsattn._parallel import parallel_backend, worker_threads
    from tsattn.benchmarks.runinfo import ensure_columns, recorded_run

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    probe = out / ".write_test"
    probe.write_text("")
    probe.unlink()
    path, config_path = out / "results.csv", out / "config.json"
    _, done = recorded_rows(path, columns, retry_failed)
    todo = [f for f in fits if (f[-4], f[-3], int(f[-2]), f[-1]) not in done]
    _save_config(config_path, record, command)
    folds = f" x {config.cv} folds of TRAIN" if config.cv else ""
    log(f"{sizes} x {len(config.seeds)} seeds{folds}: {len(todo)} fits to run, {len(done)} already "
        f"in {path}")  # fmt: skip
    ensure_columns(path, list(columns))  # written before a column was added
    with recorded_run(out, command, record, config.device) as run:
        t0 = time.perf_counter()

        def save_wall_time() -> None:
            invocation = {"fits": len(todo), "wall_seconds": round(time.perf_counter() - t0, 1)}
            _save_config(config_path, record, command, invocation)

        with parallel_backend(config.n_jobs, scheduler) as n_workers:
            threads = worker_threads(n_workers, scheduler)
            jobs = (delayed(run_one)(*f[:-1], config, threads, f[-1]) for f in todo)
            results = Parallel(n_jobs=n_workers, return_as="generator_unordered")(jobs) if todo else ()
            collect_rows(results, path, columns, run["id"], len(todo) if progress else 0, desc,
                         score, lambda: recorded_rows(path, columns)[0], save_wall_time)  # fmt: skip
        save_wall_time()
        rows = recorded_rows(path, columns)[0]
        report(rows, out)
        return rows
