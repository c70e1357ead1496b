"""The TEST ledger: one row per scoring of a TEST split, ``docs/results/test_ledger.csv``.

The project's rule: every choice is made on validation data (or by cross-validation on TRAIN), and
TEST is scored once per decision, after it. The ledger is how a reader checks that: each run of a
benchmark that scores TEST (``tsattn bench classify`` and ``bench regress`` without ``--cv``,
``bench forecast``, ``bench m4`` and ``bench epf`` with ``--split test``, and any script that calls
their ``run_*`` functions) appends a row when it starts::

    date,commit,dirty,command,benchmark,purpose
    2026-12-07 21:04:11 UTC,4b1c...,false,tsattn bench classify ...,classify,the default's rows ...

``benchmark`` is the run's output folder, relative to ``docs/results/`` (a folder elsewhere in the
checkout as ``../../results/...``, one outside it as ``<elsewhere>/<its last two parts>``);
``purpose`` is what the run is for (``--purpose``; "not stated" without it). The hook is in the
run records (:func:`tsattn.benchmarks.runinfo.recorded_run` and the panels'
:func:`tsattn.benchmarks.panel_run.recorded_run`), so no TEST-scoring bench can skip it.

A TEST run from a dirty tree (the package's ``.py`` files differ from the commit: see
:func:`tsattn.benchmarks.runinfo.code_state`) is refused with :class:`DirtyTestRun` before any
work, unless it is declared unpublishable (``--unpublishable`` on the command line, or
``TSATTN_UNPUBLISHABLE=1``): then its ledger row says so, its run record gets
``"unpublishable": true`` and :func:`tsattn.benchmarks.runinfo.publishable` refuses it for any
README table. Which ledger: ``TSATTN_TEST_LEDGER`` when set (the test suite points it at a
temporary file), else ``docs/results/test_ledger.csv`` of the checkout the package is imported
from; a package without that folder beside it (an installed wheel) keeps no ledger.
"""

from __future__ import annotations

import argparse
import csv
import os
import shlex
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

__all__ = ["COLUMNS", "DirtyTestRun", "add_arguments", "declared", "ledger_path", "record_test_run",
           "scores_test"]

COLUMNS = ("date", "commit", "dirty", "command", "benchmark", "purpose")
#: The ``tsattn bench`` sub-commands that can score TEST (``--purpose``, ``--unpublishable``).
TEST_BENCHES = ("classify", "regress", "forecast", "m4", "epf")
_ROOT = Path(__file__).resolve().parents[2]
_RESULTS = _ROOT / "docs" / "results"
_DECLARED: ContextVar[dict[str, Any] | None] = ContextVar("tsattn_test_run", default=None)


class DirtyTestRun(RuntimeError):
    """A TEST run from a dirty tree, refused before any work."""


def ledger_path() -> Path | None:
    """The ledger this process appends to: ``TSATTN_TEST_LEDGER``, else ``docs/results/
    test_ledger.csv`` of the checkout (None outside one)."""
    env = os.environ.get("TSATTN_TEST_LEDGER")
    if env:
        return Path(env)
    return _RESULTS / "test_ledger.csv" if _RESULTS.is_dir() else None


def scores_test(settings: dict[str, Any]) -> bool:
    """Whether a run of these settings scores TEST: ``split='test'`` (forecast, m4, epf), or no
    ``cv`` folds where the settings have that key (classify, regress)."""
    if "split" in settings:
        return settings["split"] == "test"
    return "cv" in settings and settings["cv"] is None


@contextmanager
def declared(purpose: str | None = None, unpublishable: bool = False) -> Iterator[None]:
    """Inside the block, TEST runs are recorded with ``purpose``; ``unpublishable`` lets one run
    from a dirty tree (and marks it so). What ``--purpose`` and ``--unpublishable`` set."""
    token = _DECLARED.set({"purpose": purpose, "unpublishable": unpublishable})
    try:
        yield
    finally:
        _DECLARED.reset(token)


def _unpublishable() -> bool:
    return bool((_DECLARED.get() or {}).get("unpublishable")) or os.environ.get(
        "TSATTN_UNPUBLISHABLE", "").strip().lower() in ("1", "true", "yes")


def _benchmark(folder: str | Path) -> str:
    """``folder`` relative to ``docs/results/``; else to the checkout (``../results/...``), else
    its last two parts (``<elsewhere>/...``: no machine's path goes into the ledger)."""
    folder = Path(folder).resolve()
    for base, prefix in ((_RESULTS, ""), (_ROOT, "../../")):
        try:
            return prefix + folder.relative_to(base.resolve()).as_posix()
        except ValueError:
            continue
    return "<elsewhere>/" + "/".join(folder.parts[-2:])


def record_test_run(folder: str | Path, command: str | None, settings: dict[str, Any],
                    state: dict[str, Any]) -> bool | None:  # fmt: skip
    """Before a run of ``settings`` into ``folder`` starts: when it scores TEST, refuse it from a
    dirty tree (:class:`DirtyTestRun`) unless declared unpublishable, and append its row to the
    ledger. ``state`` is the run's :func:`~tsattn.benchmarks.runinfo.code_state`. Returns None when
    the run does not score TEST, else whether it is unpublishable (for its run record)."""
    if not scores_test(settings):
        return None
    unpublishable = _unpublishable()
    if state.get("dirty") and not unpublishable:
        files = ", ".join(state.get("dirty_files") or [])
        raise DirtyTestRun(
            f"refused: this run scores TEST from a dirty tree ({files}). Commit first (the TEST "
            "ledger, docs/results/test_ledger.csv, records the commit), or pass --unpublishable "
            "(TSATTN_UNPUBLISHABLE=1) to run it recorded as never publishable.")  # fmt: skip
    path = ledger_path()
    if path is None:
        return unpublishable
    purpose = (_DECLARED.get() or {}).get("purpose") or "not stated"
    if unpublishable:
        purpose = f"UNPUBLISHABLE: {purpose}"
    dirty = {True: "true", False: "false"}.get(state.get("dirty"), "unknown")
    row = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
           "commit": state.get("commit") or state.get("source_commit") or "",
           "dirty": dirty, "command": command or "python " + " ".join(map(shlex.quote, sys.argv)),
           "benchmark": _benchmark(folder), "purpose": purpose}  # fmt: skip
    append(path, row)
    return unpublishable


def append(path: Path, row: dict[str, str]) -> None:
    """Append ``row`` to the ledger ``path`` (its header first when new), under the file's lock."""
    from tsattn._filelock import file_lock

    path.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(path):
        new = not path.is_file() or not path.stat().st_size
        with open(path, "a", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
            if new:
                writer.writeheader()
            writer.writerow({k: row.get(k, "") for k in COLUMNS})


def add_arguments(sub: argparse._SubParsersAction) -> None:
    """Give each TEST-scoring ``tsattn bench`` sub-command ``--purpose`` and ``--unpublishable``,
    and run its function inside :func:`declared`."""
    for name in TEST_BENCHES:
        p = sub.choices.get(name)
        if p is None:
            continue
        p.add_argument("--purpose", help="why this run scores TEST, for the TEST ledger "
                       "(docs/results/test_ledger.csv); ignored when it does not")  # fmt: skip
        p.add_argument("--unpublishable", action="store_true",
                       help="let a TEST run start from a dirty tree: the ledger and the run's "
                       "record mark it, and no README table may use it")  # fmt: skip
        p.set_defaults(func=_declaring(p.get_default("func")))


def _declaring(func):
    def run(args: argparse.Namespace) -> int:
        with declared(getattr(args, "purpose", None), getattr(args, "unpublishable", False)):
            return func(args)

    run.__wrapped__ = func
    return run
