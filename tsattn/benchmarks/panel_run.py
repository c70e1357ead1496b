"""What the panel benchmarks (:mod:`tsattn.benchmarks.m4`, :mod:`tsattn.benchmarks.epf`) share:
the run record, resumable result rows, a model run that records its error instead of stopping the
benchmark, what the ``tsattn`` entry's model did (:class:`Parts`), and Markdown tables.
"""

from __future__ import annotations

import json
import os
import platform
import secrets
import signal
import subprocess
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from tsattn._filelock import file_lock
from tsattn.benchmarks import append_row

#: The ``id`` of the run :func:`recorded_run` is recording, which :func:`write_row` puts in each row.
_RUN_ID: ContextVar[str | None] = ContextVar("tsattn_panel_run_id", default=None)

__all__ = ["BOUNDS", "PARTS_NOTE", "Parts", "RunRecord", "anchor_names", "coverage", "done_keys", "failures",
           "markdown_table", "part_columns", "parts_section", "recorded_run", "scored_row", "try_model", "write_row"]  # fmt: skip

#: The quantiles a model with intervals forecasts beside its point forecast, by name: the bounds of
#: its 95% and 80% central intervals (``cov80``, ``cov95`` in the benches' rows).
BOUNDS = {"lo95": 0.025, "lo80": 0.1, "hi80": 0.9, "hi95": 0.975}


#: What the reports say of the columns :class:`Parts` adds to the ``tsattn`` rows.
PARTS_NOTE = ("`blend`: the fitted `blend_`, the network's share in the forecast (`forecast = blend * network "
              "+ (1 - blend) * anchor`); `log_blend`: the fitted `log_blend_`, that share for the series on the log "
              "scale (empty where they share `blend`); `anchor`: the fitted `anchor_`; `switched`: the series whose forecast "
              "`series_choice_` took from another (the seasonal naive, the last value or the anchor alone; "
              "empty where the model makes no such choice); `logged`: the series read on the log scale "
              "(`log_series_`; empty where none is); `net_*` and `anchor_*`: the scores of "
              "the network alone and of the anchor alone (`predict_components`) on the same targets; "
              "means over seeds. Errors per horizon step: `horizon/`.\n\n")  # fmt: skip


def part_columns(metrics: list[str]) -> list[str]:
    """The result columns :meth:`Parts.scores` fills for the score columns ``metrics``: ``blend``,
    ``log_blend``, ``anchor``, ``switched``, ``logged``, then ``net_<metric>`` and ``anchor_<metric>`` (empty in
    other models' rows)."""
    return ["blend", "log_blend", "anchor", "switched", "logged"] + [f"{p}_{m}" for p in ("net", "anchor") for m in metrics]


@dataclass
class Parts:
    """What a fitted ``TSForecaster`` did (:meth:`~tsattn.TSForecaster.predict_components`): its
    ``forecast`` (:meth:`~tsattn.TSForecaster.predict`'s, bit for bit), the ``network``'s forecast
    alone and the ``anchor``'s alone (None without an anchor), each of ``predict``'s kind; the
    fitted ``blend`` (``blend_``) and ``anchor_name`` (``anchor_``, ``"none"`` without one); and
    ``switched``, the fitted series given another forecast than the blend (``series_choice_``;
    NaN where the model makes no such choice or ``y`` is given); ``logged``, the fitted series
    read on the log scale (``log_series_``; NaN where none is or ``y`` is given); ``log_blend``,
    their share (``log_blend_``; NaN where every series shares ``blend``)."""

    forecast: Any
    network: Any
    anchor: Any | None
    blend: float
    anchor_name: str
    switched: float = np.nan
    logged: float = np.nan
    log_blend: float = np.nan

    @classmethod
    def of(cls, model: Any, y: Any = None, X: Any = None) -> Parts:
        """The parts of ``model``'s forecast of ``y``, ``X`` (as ``predict`` takes them): one
        forward pass."""
        c = model.predict_components(y, X)
        name = "none" if model.anchor_ is None else str(model.anchor_)
        choice = getattr(model, "series_choice_", None)
        switched = np.nan if choice is None or y is not None else float(np.count_nonzero(choice))
        log = getattr(model, "log_series_", None)
        logged = np.nan if log is None or y is not None else float(np.count_nonzero(log))
        share = getattr(model, "log_blend_", None)
        return cls(c["forecast"], c["network"], c["anchor"], float(model.blend_), name, switched, logged,
                   np.nan if share is None else float(share))  # fmt: skip

    def map(self, fn: Callable[[Any], Any]) -> Parts:
        """These parts with ``fn`` applied to each forecast (e.g. to pick a channel)."""
        anchor = None if self.anchor is None else fn(self.anchor)
        return replace(self, forecast=fn(self.forecast), network=fn(self.network), anchor=anchor)

    def scores(self, score: Callable[[Any], dict[str, float]], metrics: list[str]) -> dict[str, Any]:
        """The :func:`part_columns` of a result row: ``blend``, ``log_blend``, ``anchor``, ``switched``, ``logged``, and ``score``'s
        ``metrics`` of the network alone (``net_``) and the anchor alone (``anchor_``; NaN
        without an anchor)."""
        row: dict[str, Any] = {"blend": self.blend, "log_blend": self.log_blend, "anchor": self.anchor_name,
                               "switched": self.switched, "logged": self.logged}
        for prefix, pred in (("net", self.network), ("anchor", self.anchor)):
            got = score(pred) if pred is not None else {}
            row.update({f"{prefix}_{m}": got.get(m, np.nan) for m in metrics})
        return row

    def write_horizon(self, path: Path, per_step: Callable[[Any], pd.DataFrame], key: dict[str, Any]) -> None:
        """Write ``path``, a CSV of the errors per horizon step: ``key``'s columns (the result
        row's keys), ``step``, then ``per_step(forecast)``'s columns (a frame indexed by step 1
        .. horizon, a column per error) and the same of the network alone (``net_``) and the
        anchor alone (``anchor_``; empty without an anchor). Six significant digits."""
        own = per_step(self.forecast)
        frames = [own]
        for prefix, pred in (("net_", self.network), ("anchor_", self.anchor)):
            frames.append((per_step(pred) if pred is not None else own * np.nan).add_prefix(prefix))
        table = pd.concat(frames, axis=1).rename_axis("step").reset_index()
        for i, (name, value) in enumerate(key.items()):
            table.insert(i, name, value)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, index=False, float_format="%.6g")


def anchor_names(values: pd.Series) -> str | None:
    """The anchors a model's seeds chose, sorted and joined (``"linear"``, ``"last, linear"``);
    None for a model without :class:`Parts`."""
    return ", ".join(sorted(set(values.dropna().astype(str)))) or None


def parts_section(summary: pd.DataFrame, keys: list[str], columns: list[str]) -> list[str]:
    """A report's section of what the ``tsattn`` models did: the rows of ``summary`` (means over
    seeds) that have a ``blend``, with ``keys``, ``seeds``, ``blend``, ``anchor`` and ``columns``;
    none when no row has one (results from before these columns)."""
    if "blend" not in summary or not summary["blend"].notna().any():
        return []
    rows = summary[summary["blend"].notna()]
    table = rows[keys + ["seeds", "blend", "anchor"] + [c for c in columns if c in rows]]
    return ["\n## what the tsattn model did\n\n", PARTS_NOTE, markdown_table(table)]


def coverage(y: Any, lower: Any, upper: Any) -> float:
    """The share of ``y`` inside ``[lower, upper]`` (arrays or Series of one shape)."""
    return float(((y >= lower) & (y <= upper)).mean())


def failures(results: pd.DataFrame, keys: list[str]) -> list[str]:
    """A report's section of the ``keys`` whose latest attempt did not end ``ok`` (a failure a
    rerun mended is not listed), as markdown lines; none when every latest attempt is ok."""
    latest = results.drop_duplicates(keys, keep="last")
    errors = latest[latest["status"] != "ok"][keys + ["status"]]
    if not len(errors):
        return []
    return ["\n## models that failed (latest attempt each)\n\n", markdown_table(errors)]


def _git(*args: str) -> str:
    repo = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                             timeout=30, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _threads() -> int:
    import torch

    return torch.get_num_threads()


class RunRecord:
    """One entry of ``out/run.json`` per run of the folder: the command, the commit and whether the
    working tree was dirty, the machine (CPU model, cores, torch threads, ``OMP_NUM_THREADS``), the
    start and end times (UTC) and how it ended (``running``, ``finished``, ``interrupted``,
    ``failed: <error>``). Runs that resume a folder add their own entries."""

    def __init__(self, out: Path, command: str, config: dict[str, Any]) -> None:
        self.path = Path(out) / "run.json"
        self.pid = os.getpid()
        status = _git("status", "--porcelain", "--", "tsattn", "pyproject.toml")  # untracked code too
        self.entry = {
            "id": f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{self.pid}-{secrets.token_hex(2)}",
            "command": command, "config": config, "commit": _git("rev-parse", "--short", "HEAD"),
            "dirty": bool(status), "cpu": _cpu(), "cores": os.cpu_count(), "torch_threads": _threads(),
            "omp_num_threads": os.environ.get("OMP_NUM_THREADS"), "python": platform.python_version(),
            "started": _now(), "status": "running", "pid": self.pid,
        }  # fmt: skip
        self._update(append=True)
        self._previous = None
        if threading.current_thread() is threading.main_thread():  # `kill PID` ends as Ctrl-C does
            self._previous = signal.signal(signal.SIGTERM, _terminated)

    def finish(self, status: str) -> None:
        """Record the end of this run: ``finished``, ``interrupted`` or ``failed: ...``."""
        self.entry.update(status=status, ended=_now())
        self._update(append=False)
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)

    def _update(self, append: bool) -> None:
        with file_lock(self.path):
            data = json.loads(self.path.read_text(encoding="utf-8")) if self.path.is_file() else {}
            runs = data.get("runs", [])
            if append:
                runs.append(self.entry)
            else:
                mine = [i for i, r in enumerate(runs) if r.get("pid") == self.pid and r["status"] == "running"]
                if mine:
                    runs[mine[-1]] = self.entry
                else:  # the file was replaced meanwhile: keep this run's entry all the same
                    runs.append(self.entry)
            data = {"status": "current", **data, "runs": runs}  # other keys (status) kept
            self.path.write_text(json.dumps(data, indent=2, default=repr) + "\n", encoding="utf-8")


def _terminated(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"terminated by signal {signum}")


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


def done_keys(path: Path, keys: list[str], columns: list[str]) -> set[tuple[str, ...]]:
    """The ``keys`` tuples (as strings) of the rows already in the CSV ``path``: what a resumed run
    skips. Rows that ended in an error are not done (a rerun tries them again). The file gets the
    header ``columns`` first (:func:`~tsattn.benchmarks.runinfo.ensure_columns`: rows written
    before a column was added get it empty)."""
    from tsattn.benchmarks.runinfo import ensure_columns

    ensure_columns(Path(path), columns)
    if not Path(path).is_file() or Path(path).stat().st_size == 0:
        return set()
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame = frame[frame["status"] == "ok"]
    return {tuple(row) for row in frame[keys].itertuples(index=False)}


def try_model(fn: Callable[[], Any]) -> tuple[Any, str, float]:
    """Run ``fn()``; return ``(result, status, seconds)`` with status ``ok``, or ``(None, 'error:
    <type>: <message>', seconds)`` when it raised (the traceback goes to stderr), so one failing
    model is recorded in its row and the others still run. Ctrl-C is not caught."""
    t0 = time.perf_counter()
    try:
        result = fn()
    except Exception as err:  # noqa: BLE001 - any model failure becomes a recorded row
        traceback.print_exc()
        message = " ".join(str(err).split())[:300]
        return None, f"error: {type(err).__name__}: {message}", time.perf_counter() - t0
    return result, "ok", time.perf_counter() - t0


def scored_row(key: dict[str, Any], fit: Callable[[], tuple[Any, Parts | None]],
               score: Callable[[Any, Parts | None], dict[str, Any]]
               ) -> tuple[dict[str, Any], tuple[Any, Parts | None] | None]:  # fmt: skip
    """One model's result row: ``key`` (its identity in ``results.csv``), the ``seconds`` and
    ``status`` of ``fit()`` (its ``(forecast, parts)``), then the columns that
    ``score(forecast, parts)`` gives, each run through :func:`try_model` (a model that raises in
    either gets its error as its ``status``). Returns ``(row, (forecast, parts) or None)``."""
    result, state, secs = try_model(fit)
    row = {**key, "seconds": round(secs, 1), "status": state}
    if result is not None:
        scored, state, _ = try_model(partial(score, *result))
        row.update(scored or {}, status=state)
    return row, result


def write_row(path: Path, row: dict[str, Any], columns: list[str], progress: bool = False) -> None:
    """Append ``row`` to the results CSV (see :func:`tsattn.benchmarks.append_row`) with the
    ``run_id`` of the run recording it (a last column, added to an older file's header first); with
    ``progress``, print its ``columns``."""
    from tsattn.benchmarks.runinfo import ensure_columns

    run_id = _RUN_ID.get()
    if run_id is not None:
        columns = [*columns, "run_id"] if "run_id" not in columns else columns
        ensure_columns(Path(path), columns)
        row = {**row, "run_id": run_id}
    append_row(Path(path), row, columns)
    if progress:
        print({k: row.get(k) for k in columns}, flush=True)


@contextmanager
def recorded_run(out: Path, command: str, config: dict[str, Any]) -> Iterator[RunRecord]:
    """A :class:`RunRecord` for the ``with`` block: ``finished`` when it ends, ``interrupted`` on
    Ctrl-C or SIGTERM, ``failed: <error>`` when it raises (the error propagates)."""
    from tsattn.benchmarks.ledger import record_test_run
    from tsattn.benchmarks.runinfo import code_state

    # a TEST run: refused from a dirty tree unless declared unpublishable, and its ledger row
    unpublishable = record_test_run(out, command, config, code_state())
    record = RunRecord(out, command, config)
    if unpublishable:
        record.entry["unpublishable"] = True
        record._update(append=False)
    status = "interrupted"
    token = _RUN_ID.set(record.entry["id"])
    try:
        yield record
        status = "finished"
    except Exception as err:
        status = f"failed: {type(err).__name__}: {err}"
        raise
    finally:
        _RUN_ID.reset(token)
        record.finish(status)


def markdown_table(frame: pd.DataFrame, floatfmt: str = ".3f") -> str:
    """``frame`` as a GitHub Markdown table (floats with ``floatfmt``, NaN as ``-``)."""
    cols = list(frame.columns)

    def cell(v: Any) -> str:
        if v is pd.NA:
            return "-"
        if isinstance(v, float):
            return "-" if v != v else format(v, floatfmt)
        return str(v)

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"
