"""One record per benchmark run, written where its rows are: what ran, from which code, where, when,
and how it ended.

Every ``tsattn bench classify|regress|forecast`` invocation appends an entry to the ``runs`` list of
its output folder's ``config.json`` when it starts and completes that same entry when it ends::

    {"id": "20261128T145501-12345-9f3a", "command": "tsattn bench forecast ...",
     "commit": "5852bfc...", "dirty": false, "dirty_files": [],
     "machine": {"cpu": "AMD EPYC ...", "cpu_count": 2, "torch_threads": 1, "gpu": null,
                 "python": "3.11.7", "torch": "2.13.0+cpu", "platform": "Linux-..."},
     "started": "2026-11-28 14:55:01", "ended": "2026-11-28 15:20:13", "status": "finished"}

``status`` is ``running`` while it runs, then ``finished``, ``interrupted`` (Ctrl-C, SIGINT or
SIGTERM: the rows of the fits that finished stay) or ``failed`` (an exception, its text in
``note``). Every result row carries the ``run_id`` of the run that wrote it. ``dirty`` is true when
the package's files (``tsattn/``) differ from ``commit`` (modified or untracked ``.py``): such a run
is marked and :func:`publishable` refuses it for a README table. ``digest`` (sha256 of the package's
``.py`` files) is always recorded; outside a git checkout (a copy on a lent machine, a wheel)
``commit`` is None and ``source_commit`` is what ``TSATTN_SOURCE_COMMIT`` claims, which
:func:`publishable` accepts only when that commit's package has the same digest.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["code_state", "digest_at", "ensure_columns", "machine", "package_digest", "publishable",
           "recorded_run", "stale_runs"]

#: Statuses a run ends with; ``running`` only while its process lives.
FINAL_STATUSES = ("finished", "interrupted", "failed")
_PACKAGE = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(_PACKAGE.parent), *args], capture_output=True,
                              text=True, timeout=20, check=True)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout


def _digest(files: dict[str, bytes]) -> str:
    """sha256 over ``{path: content}`` in path order: the package's code, wherever it lies."""
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.encode() + b"\0" + files[path] + b"\0")
    return h.hexdigest()


def package_digest() -> str:
    """The digest of the imported package's ``.py`` files (paths relative to its parent)."""
    return _digest({p.relative_to(_PACKAGE.parent).as_posix(): p.read_bytes()
                    for p in _PACKAGE.rglob("*.py") if "__pycache__" not in p.parts})  # fmt: skip


def digest_at(commit: str) -> str | None:
    """The same digest of the package's ``.py`` files at ``commit`` of this checkout (None outside
    a checkout or for an unknown commit): a run from a copy without ``.git`` is checked by it."""
    names = _git("ls-tree", "-r", "--name-only", commit, "--", _PACKAGE.name)
    if names is None:
        return None
    paths = [n for n in names.splitlines() if n.endswith(".py")]
    try:
        done = subprocess.run(["git", "-C", str(_PACKAGE.parent), "cat-file", "--batch"],
                              input="".join(f"{commit}:{n}\n" for n in paths).encode(),
                              capture_output=True, timeout=60, check=True)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    out, files, pos = done.stdout, {}, 0
    for name in paths:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        files[name] = out[header_end + 1 : header_end + 1 + size]
        pos = header_end + 1 + size + 1
    return _digest(files)


def code_state() -> dict[str, Any]:
    """``{"commit", "dirty", "dirty_files", "tsattn_version"}`` of the imported package: the
    checkout's HEAD and the package files (``tsattn/``, tracked or untracked ``.py``) that differ
    from it. Outside a git checkout ``commit`` and ``dirty`` are None."""
    import tsattn

    state: dict[str, Any] = {"commit": None, "dirty": None, "dirty_files": [],
                             "tsattn_version": tsattn.__version__, "digest": package_digest()}  # fmt: skip
    head = _git("rev-parse", "HEAD")
    top = _git("rev-parse", "--show-toplevel")
    if not head or not top or Path(top.strip()).resolve() != _PACKAGE.parent:
        # not a checkout (a copy on a lent machine, a wheel): the commit it says it is a copy of,
        # which publishable() accepts only when the digest matches that commit's package
        state["source_commit"] = os.environ.get("TSATTN_SOURCE_COMMIT")
        return state
    status = _git("status", "--porcelain", "--untracked-files=all", "--", _PACKAGE.name) or ""
    files = [line[3:] for line in status.splitlines()
             if line[:2] != "??" or line.endswith(".py")]  # fmt: skip
    state.update(commit=head.strip(), dirty=bool(files), dirty_files=files[:20])
    return state


def machine() -> dict[str, Any]:
    """The machine a run used: CPU model, logical cores, torch's threads, the GPU (None without
    CUDA), Python, torch and the platform."""
    import torch

    cpu = platform.processor() or None
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), cpu)
    except OSError:
        pass
    gpu = None
    if torch.cuda.is_available():
        gpu = f"{torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}"
    return {"cpu": cpu, "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "gpu": gpu, "python": platform.python_version(), "torch": torch.__version__,
            "platform": platform.platform()}  # fmt: skip


def _update(path: Path, change) -> None:
    """Apply ``change(runs)`` to ``path``'s ``runs`` list under the file's lock, keeping every other
    key of the file (classify and regress keep their settings there too)."""
    from tsattn._filelock import file_lock

    with file_lock(path):
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        data["runs"] = data.get("runs", [])
        data.setdefault("status", "current")  # the folder's: current, or superseded (by ...)
        change(data["runs"])
        path.write_text(json.dumps(data, indent=2, default=repr) + "\n", encoding="utf-8")


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


@contextmanager
def recorded_run(folder: str | Path, command: str | None, settings: dict[str, Any],
                 device: str | None = None) -> Iterator[dict[str, Any]]:  # fmt: skip
    """Record one run in ``folder/config.json`` around the ``with`` block; yields the entry (its
    ``id`` goes into every row). SIGINT and SIGTERM raise ``KeyboardInterrupt`` inside the block,
    so a run stopped by Ctrl-C, ``timeout`` or ``kill`` ends ``interrupted``, not ``running`` or
    ``failed``, also when a library turns the interrupt into another exit (Lightning exits with
    ``SystemExit(1)``); only SIGKILL or a power cut leave ``running`` behind (:func:`stale_runs`)."""
    from tsattn.benchmarks.ledger import record_test_run

    path = Path(folder) / "config.json"
    state = code_state()
    # a TEST run: refused from a dirty tree unless declared unpublishable, and its ledger row
    unpublishable = record_test_run(folder, command, settings, state)
    entry = {"id": f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{secrets.token_hex(2)}", "command": command,
             **state, "machine": machine(), "device": device, "settings": settings,
             **({"unpublishable": True} if unpublishable else {}),
             "started": _now(), "ended": None, "status": "running", "pid": os.getpid()}  # fmt: skip
    _update(path, lambda runs: runs.append(entry))

    def end(status: str, note: str | None = None) -> None:
        def change(runs: list[dict]) -> None:
            mine = [r for r in runs if r.get("id") == entry["id"]]
            for r in mine:
                r.update(status=status, ended=_now(), **({"note": note} if note else {}))

        _update(path, change)

    stopped: list[int] = []

    def on_stop(signum, frame):  # noqa: ARG001
        stopped.append(signum)
        raise KeyboardInterrupt(f"signal {signum}")

    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[sig] = signal.signal(sig, on_stop)
        except ValueError:  # not the main thread: the handlers stay
            pass
    try:
        yield entry
    except BaseException as err:
        # a library may turn the interrupt into another exit (Lightning: SystemExit(1))
        if isinstance(err, KeyboardInterrupt) or stopped:
            end("interrupted", "stopped before every fit finished"
                + (f" (signal {stopped[0]}, ended as {type(err).__name__})" if stopped else "")
                + "; rerun the same command to resume")  # fmt: skip
        else:
            end("failed", f"{type(err).__name__}: {err}"[:300])
        raise
    else:
        end("finished")
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def stale_runs(path: str | Path) -> list[dict[str, Any]]:
    """Entries of ``path`` (a ``config.json``) still ``running`` whose process is gone: runs killed
    without a chance to record their end. Committed records must have none."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for run in data.get("runs", []) if isinstance(data, dict) else []:
        if run.get("status") == "running":
            pid = run.get("pid")
            try:
                alive = bool(pid) and (os.kill(int(pid), 0) is None)
            except (OSError, ValueError):
                alive = False
            if not alive:
                out.append(run)
    return out


def publishable(run: dict[str, Any]) -> str | None:
    """Why ``run`` (a ``config.json`` entry) cannot feed a README table, or None when it can: it
    must have finished (or been interrupted, its rows then partial and so marked) from a named,
    clean commit."""
    if run.get("status") not in FINAL_STATUSES:
        return f"run {run.get('id')} has status {run.get('status')!r}"
    if run.get("unpublishable"):
        return f"run {run.get('id')} was declared unpublishable (a TEST run from a dirty tree or by choice)"
    if run.get("dirty"):
        return f"run {run.get('id')} ran from a dirty tree ({', '.join(run.get('dirty_files', []))})"
    if not run.get("commit"):
        claimed = run.get("source_commit")
        if not claimed:
            return f"run {run.get('id')} records no commit"
        if digest_at(claimed) != run.get("digest"):
            return (f"run {run.get('id')} ran code that is not commit {claimed} (its package digest "
                    "differs, or this checkout lacks that commit)")
    return None


def ensure_columns(path: Path, columns: list[str] | tuple[str, ...]) -> None:
    """Give the CSV ``path`` the header ``columns`` (a column added since it was written: its old
    rows get it empty), so that appended rows line up; a ``run_id`` column it has stays, last.
    Under the file's lock."""
    import pandas as pd

    from tsattn._filelock import file_lock

    with file_lock(path):
        if not path.is_file() or not path.stat().st_size:
            return
        with open(path, encoding="utf-8") as fh:
            header = fh.readline().strip().split(",")
        if "run_id" in header and "run_id" not in columns:
            columns = [*columns, "run_id"]
        if header != list(columns):
            pd.read_csv(path, keep_default_na=False, na_values=[""]).reindex(
                columns=list(columns)).to_csv(path, index=False)
