"""The fits of ``test_distributed_processes.py``, and the script that ``torchrun`` runs there: every
rank fits a forecaster and a classifier on the same data and pickles them, with the message of a
fit given the ranks their data in different orders, to ``OUT/rank{RANK}.pkl``.

    python -m torch.distributed.run --standalone --nproc_per_node=2 tests/training/ddp_fits.py OUT
"""

from __future__ import annotations

import os
import pickle
import sys

import numpy as np

from tsattn import TSClassifier, TSForecaster

#: Small networks, one torch thread: fits of a few seconds whose rounding does not depend on the
#: machine's load.
TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, random_state=0, n_threads=1)
#: No dropout and no augmentation: the only random draws that differ between ranks are gone, and a
#: fit across processes repeats the one-process fit up to rounding.
EXACT = dict(dropout=0.0, augment_prob=0.0)
HORIZON, CONTEXT = 12, 48


def series(n: int = 720) -> np.ndarray:
    """A daily and a weekly cycle of hourly steps with noise."""
    t = np.arange(n)
    noise = np.random.default_rng(0).normal(size=n)
    return np.sin(2 * np.pi * t / 24) + 0.5 * np.sin(2 * np.pi * t / 56) + 0.3 * noise


def forecast_split() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(training rows, test contexts (n, L, 1), test targets (n, H, 1))``: every window of the
    last 160 rows, which the fit never sees."""
    y = series()
    test = y[560 - CONTEXT :]
    starts = np.arange(len(test) - CONTEXT - HORIZON + 1)
    contexts = np.stack([test[s : s + CONTEXT] for s in starts])[:, :, None]
    targets = np.stack([test[s + CONTEXT : s + CONTEXT + HORIZON] for s in starts])[:, :, None]
    return y[:560], contexts, targets


def forecaster(**params) -> TSForecaster:
    return TSForecaster(**{**TINY, "horizon": HORIZON, "context_length": CONTEXT,
                           "max_steps": 300, "device": "cpu", **params})  # fmt: skip


def classifier(**params) -> TSClassifier:
    """BasicMotions' network alone (anchor='none'), 150 steps of 16 series."""
    return TSClassifier(**{**TINY, "anchor": "none", "batch_size": 16, "max_steps": 150,
                           "max_epochs": None, **params})  # fmt: skip


def basic_motions(split: str) -> tuple[np.ndarray, np.ndarray]:
    from aeon.datasets import load_basic_motions

    return load_basic_motions(split=split)


def main(out: str) -> None:
    rank = int(os.environ["RANK"])
    train, _, _ = forecast_split()
    fitted = {"forecaster": forecaster().fit(train),
              "classifier": classifier().fit(*basic_motions("train"))}  # fmt: skip
    X, y = basic_motions("train")
    try:  # rank 1 the same series in the reverse order: refused on every rank alike
        classifier(max_steps=2).fit(X[::-1] if rank else X, y[::-1] if rank else y)
        fitted["other data"] = None
    except ValueError as err:
        fitted["other data"] = str(err)
    with open(os.path.join(out, f"rank{rank}.pkl"), "wb") as f:
        pickle.dump(fitted, f)


if __name__ == "__main__":
    main(sys.argv[1])
