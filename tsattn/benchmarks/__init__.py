"""Benchmarks behind ``tsattn compare`` and ``tsattn bench``: library code that writes results."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["BenchmarkInterrupted", "append_row", "portable_paths", "raise_if_interrupted"]


class BenchmarkInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a benchmark; ``partial`` holds the rows of the runs that finished.

    A fit stopped by Ctrl-C returns a usable model (``interrupted_``), but its score is not a
    result of the protocol, so a benchmark stops instead of recording it and moving on.
    """

    def __init__(self, partial: Any, message: str = "benchmark interrupted") -> None:
        super().__init__(message)
        self.partial = partial


def raise_if_interrupted(model: Any) -> None:
    """Raise ``KeyboardInterrupt`` when Ctrl-C cut ``model``'s ``fit`` short."""
    if getattr(model, "interrupted_", False):
        raise KeyboardInterrupt


def portable_paths(values: list[str]) -> list[str]:
    """``values`` with absolute paths made relative to the working directory when they lie under it,
    else shown as ``<elsewhere>/name``: a recorded command names no folder of the machine it ran on.

    >>> import os
    >>> portable_paths(["--out", os.path.join(os.getcwd(), "docs", "x"), "--datasets", "/srv/d.csv"])
    ['--out', 'docs/x', '--datasets', '<elsewhere>/d.csv']
    """
    out = []
    for arg in values:
        if isinstance(arg, str) and os.path.isabs(arg):
            rel = os.path.relpath(arg)
            arg = rel if not rel.startswith("..") else f"<elsewhere>/{os.path.basename(arg)}"
        out.append(arg)
    return out


def append_row(path: Path, row: dict[str, Any], columns: list[str]) -> None:
    """Append ``row`` (its ``columns``, missing ones empty) to the CSV ``path``, the header with the
    first row, flushed to disk. Under the file's lock: runs on one folder may write at once."""
    import numpy as np
    import pandas as pd

    from tsattn._filelock import file_lock

    frame = pd.DataFrame([{c: row.get(c, np.nan) for c in columns}])
    with file_lock(path):
        header = not path.is_file() or path.stat().st_size == 0
        with open(path, "a", encoding="utf-8") as fh:
            frame.to_csv(fh, header=header, index=False)
            fh.flush()
            os.fsync(fh.fileno())
