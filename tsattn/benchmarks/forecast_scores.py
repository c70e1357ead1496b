"""Scores of a model's forecasts over every window of a split, a chunk of windows at a time.

No ``(n_windows, horizon, C)`` array of the scored split is ever held whole: Traffic's TEST targets
at h720 alone are 2789 x 720 x 862 float64 values, 13.8 GB, and a model's forecasts and interval
bounds as many again. The windows are read-only views into the split (:func:`sliding_windows`);
each chunk is copied, forecast, scored into running sums, and dropped, keeping only the windows
picked for the plots.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["CHUNK_BYTES", "Scores", "chunks", "score_windows"]

#: Bytes of one ``(windows, horizon, C)`` float64 array of a chunk (64 MiB).
CHUNK_BYTES = 1 << 26


def chunks(n_windows: int, horizon: int, n_channels: int,
           chunk_bytes: int | None = None) -> list[slice]:  # fmt: skip
    """Consecutive slices covering ``range(n_windows)``, each of at most ``chunk_bytes`` (default
    :data:`CHUNK_BYTES`) of ``(windows, horizon, n_channels)`` float64, at least one window each."""
    per_window = max(1, horizon * n_channels * 8)
    size = max(1, (CHUNK_BYTES if chunk_bytes is None else chunk_bytes) // per_window)
    return [slice(i, min(i + size, n_windows)) for i in range(0, n_windows, size)]


class Scores:
    """Running sums of one model's errors over chunks of windows; :meth:`row` gives the means.

    ``picks``: the window indices whose last channel is kept (``samples``) for the plots.
    """

    def __init__(self, picks: np.ndarray) -> None:
        self.picks = np.asarray(picks, dtype=int)
        self.sums: dict[str, float] = {}
        self.count = 0
        self.samples: dict[str, list[np.ndarray]] = {}

    def _add(self, key: str, value: float) -> None:
        self.sums[key] = self.sums.get(key, 0.0) + float(value)

    def add(self, where: slice, targets: np.ndarray, pred: np.ndarray,
            bands: dict[float, tuple[np.ndarray, np.ndarray]] | None = None,
            parts: dict[str, np.ndarray] | None = None) -> None:  # fmt: skip
        """Score the windows ``where`` (``targets``, ``pred``: ``(m, horizon, C)``). ``bands``:
        ``{coverage: (lower, upper)}`` of the same shape; ``parts``: ``{name: forecast}`` scored by
        MSE alone (e.g. the network and the anchor of a blend)."""
        if pred.shape != targets.shape:
            raise ValueError(f"forecasts {pred.shape} for targets {targets.shape}")
        diff = pred - targets
        self._add("mse", np.sum(diff**2))
        self._add("mae", np.sum(np.abs(diff)))
        self.count += diff.size
        local = self.picks[(self.picks >= where.start) & (self.picks < where.stop)] - where.start
        self.samples.setdefault("pred", []).append(pred[local, :, -1])
        for coverage, (lo, hi) in (bands or {}).items():
            key = f"cov{round(coverage * 100)}"
            self._add(key, np.sum((targets >= lo) & (targets <= hi)))
            # pinball loss of the two bounds, quantiles (1 -/+ coverage) / 2, averaged
            q = (1 - coverage) / 2
            pinball = np.maximum(q * (targets - lo), (q - 1) * (targets - lo)) + np.maximum(
                (1 - q) * (targets - hi), -q * (targets - hi))  # fmt: skip
            self._add(f"pinball{round(coverage * 100)}", np.sum(pinball) / 2)
            if coverage == 0.8:
                self._add("width80", np.sum(hi - lo))
                self.samples.setdefault("lo", []).append(lo[local, :, -1])
                self.samples.setdefault("hi", []).append(hi[local, :, -1])
        for name, forecast in (parts or {}).items():
            self._add(name, np.sum((forecast - targets) ** 2))

    def row(self) -> dict[str, float]:
        """Every summed score divided by the number of values scored."""
        return {key: value / self.count for key, value in self.sums.items()}

    def sample(self, key: str = "pred") -> np.ndarray | None:
        """``(len(picks), horizon)`` of the last channel, or None when ``key`` was not scored."""
        parts = self.samples.get(key)
        return None if parts is None else np.concatenate(parts).astype(np.float32)


def score_windows(forecast: Callable[[slice, np.ndarray], dict], contexts: np.ndarray,
                  targets: np.ndarray, picks: np.ndarray,
                  chunk_bytes: int | None = None) -> Scores:  # fmt: skip
    """Score ``forecast(where, contexts[where])`` (a dict of :meth:`Scores.add`'s ``pred``,
    ``bands``, ``parts``) over every window of ``contexts (n, L, C)`` / ``targets (n, H, C)``
    (views are fine: each chunk is copied), a chunk at a time."""
    n, horizon, n_channels = targets.shape
    scores = Scores(picks)
    for where in chunks(n, horizon, n_channels, chunk_bytes):
        scores.add(where, np.array(targets[where]), **forecast(where, np.array(contexts[where])))
    return scores
