"""Extrinsic regression tasks cut from the long-horizon forecasting sets (``derived`` in the
catalogue), loaded like a TSER set: ``load_tser("ETTh1NextDayOT")``.

Each task reads one forecasting set (:func:`~tsattn.datasets.load_forecasting`, unscaled) and cuts
it into windows: a window's series is ``window`` rows of the ``inputs`` channels, its target the
mean of the ``target`` channel over the ``horizon`` rows that follow (a channel not among the
inputs, so the task is regression from other channels, not a forecast of the series itself).
Windows start every ``stride`` rows from the first row of their split. TRAIN is the forecasting
protocol's train and validation rows, TEST its test rows (``forecasting_borders`` with no context),
so the split is by time and no window reads rows of both; the rows after the protocol's test split
(ETT's last 4 months) are unused, as in forecasting. Nothing is scaled: the estimators standardise
with TRAIN statistics themselves.
"""

from __future__ import annotations

import numpy as np

from tsattn.datasets.catalogue import catalogue

__all__ = ["derived_entry", "derived_names", "load_derived"]


def derived_names() -> list[str]:
    """Names of the derived regression tasks, in catalogue order."""
    return list(catalogue()["derived"]["tasks"])


def derived_entry(name: str) -> tuple[str, dict] | None:
    """``(spelling, entry)`` of a derived task (name in any case), or None for other names."""
    tasks = catalogue()["derived"]["tasks"]
    folded = {n.lower(): n for n in tasks}
    key = folded.get(str(name).lower())
    return None if key is None else (key, tasks[key])


def _windows(frame, start: int, end: int, entry: dict) -> tuple[np.ndarray, np.ndarray]:
    """``(X (n, len(inputs), window), y (n,))`` of the windows inside rows ``[start, end)``."""
    window, horizon, stride = entry["window"], entry["horizon"], entry["stride"]
    inputs = frame[entry["inputs"]].to_numpy(dtype=np.float64)[start:end]  # (rows, C)
    target = frame[entry["target"]].to_numpy(dtype=np.float64)[start:end]
    firsts = np.arange(0, end - start - window - horizon + 1, stride)
    X = np.stack([inputs[s:s + window].T for s in firsts])
    y = np.array([target[s + window:s + window + horizon].mean() for s in firsts])
    return X, y


def load_derived(name: str, split: str | None = "train") -> tuple[np.ndarray, np.ndarray]:
    """The derived task ``name``: ``X (n, channels, window)`` float64 and ``y (n,)`` float64.

    ``split`` is ``"train"``, ``"test"`` or None (TRAIN followed by TEST), as for
    :func:`~tsattn.datasets.load_tser`.
    """
    from tsattn.datasets.forecasting import forecasting_borders, load_forecasting

    found = derived_entry(name)
    if found is None:
        raise ValueError(f"{name!r} is not a derived task; known: {', '.join(derived_names())}.")
    label, entry = found
    if split is not None and (not isinstance(split, str) or split.lower() not in ("train", "test")):
        raise ValueError(f"split must be 'train', 'test' or None (both, train first); got {split!r}")
    frame = load_forecasting(entry["source"])
    (_, n_train), (_, val_end), (test_start, test_end) = forecasting_borders(
        entry["source"], len(frame), 0
    )
    parts = {"train": (0, val_end), "test": (test_start, test_end)}
    wanted = ["train", "test"] if split is None else [split.lower()]
    loaded = [_windows(frame, *parts[p], entry) for p in wanted]
    return np.concatenate([x for x, _ in loaded]), np.concatenate([y for _, y in loaded])
