"""matplotlib, imported on the first plot: it comes with the ``bench`` extra, not with the core.

Fitting and predicting never need it; the benchmarks' and the profiler's figures, ``tsattn
tune``'s history plot and :mod:`tsattn.plotting` do (habit 14: lean core, plots are an extra).
"""

from __future__ import annotations

__all__ = ["BENCH_EXTRA", "pyplot"]

#: How to install what the plots need.
BENCH_EXTRA = "pip install 'tsattn[bench]'"


def pyplot(purpose: str, files: bool = True):
    """``matplotlib.pyplot``, on the Agg backend (files, no display) unless ``files=False``.

    Parameters
    ----------
    purpose : str
        What is being drawn, for the error message (e.g. ``"tsattn profile's plot"``).
    files : bool
        True for figures written to files (the benchmarks'); False for figures a user draws
        (:mod:`tsattn.plotting`), on whatever backend the session uses (inline in a notebook).

    Raises
    ------
    ImportError
        When matplotlib is not installed; the message names the extra that brings it.
    """
    try:
        import matplotlib
    except ImportError as err:
        raise ImportError(
            f"{purpose} needs matplotlib, which is not installed: {BENCH_EXTRA}"
        ) from err
    if files:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
