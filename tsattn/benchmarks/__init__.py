"""Benchmarks behind ``tsattn compare`` and ``tsattn bench``: library code that writes results."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["BenchmarkInterrupted", "portable_paths", "raise_if_interrupted"]


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
