"""Benchmarks behind ``tsattn compare`` and ``tsattn bench``: library code that writes results."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tsattn._validation import did_you_mean

__all__ = [
    "BenchmarkInterrupted", "append_row", "portable_paths", "raise_if_interrupted", "resolve_models",
]


class BenchmarkInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a benchmark; ``partial`` holds the rows of the runs that finished.

    A fit stopped by Ctrl-C returns a usable model (``interrupted_``), but its score is not a
    result of the protocol, so a benchmark stops instead of recording it and moving on.
    """

    def __init__(self, partial: Any, message: str = "benchmark interrupted") -> None:
        super().__init__(message)
        self.partial = partial


def resolve_models(attentions: Iterable[str], peers: Iterable[str], valid_peers: Iterable[str],
                   label: str | None = None,
                   missing: Callable[[str], str | None] | None = None) -> list[str]:  # fmt: skip
    """The model names of a benchmark: ``tsattn:<attention>`` (``tsattn:<attention>[label]``) for
    each attention variant, then the peers' names, each checked against the registry or
    ``valid_peers`` (a ``ValueError`` with close matches otherwise). A peer for which
    ``missing(peer)`` says what is not installed is dropped with a one-line warning."""
    import warnings

    from tsattn import list_attention

    valid_peers = list(valid_peers)
    models = []
    for a in attentions:
        if a not in list_attention():
            raise ValueError(f"unknown attention {a!r}.{did_you_mean(a, list_attention())} "
                             f"Valid: {', '.join(list_attention())}.")  # fmt: skip
        models.append(f"tsattn:{a}" + (f"[{label}]" if label else ""))
    for p in peers:
        if p not in valid_peers:
            raise ValueError(f"unknown peer {p!r}.{did_you_mean(p, valid_peers)} "
                             f"Valid: {', '.join(valid_peers)}.")  # fmt: skip
        why = missing(p) if missing is not None else None
        if why:
            warnings.warn(f"peer {p!r} skipped: {why}", UserWarning, stacklevel=3)
            continue
        models.append(p)
    return models


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
