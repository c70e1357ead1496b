"""Benchmarks behind ``tsattn compare`` and ``tsattn bench``: library code that writes results."""

from __future__ import annotations

from typing import Any

__all__ = ["BenchmarkInterrupted", "raise_if_interrupted"]


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
