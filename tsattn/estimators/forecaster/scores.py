"""The forecaster's errors over context windows (``mse``, ``mae``; ``TSForecaster.score`` is the
negative MSE), and the step budget a fit would take (``planned_steps``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from tsattn.estimators.forecaster.params import series_context

__all__ = ["WindowScores"]


class WindowScores:
    """``mse`` and ``mae`` of a forecaster over context windows and their targets, and the step
    budget a fit would take."""

    def planned_steps(self, n_rows: int, n_channels: int) -> int | None:
        """The optimiser steps a fit on a training series of ``n_rows`` rows (the part left after
        any validation tail) and ``n_channels`` channels takes at most, ``max_steps='auto'``
        resolved; None when only ``max_epochs`` bounds it. Needs no data and fits nothing."""
        from sklearn.base import clone

        est = clone(self)
        est.n_channels_ = int(n_channels)
        windows = int(n_rows) - series_context(est) - est.horizon + 1
        return est._budget(windows * (n_channels if est._independent() else 1)).steps

    def mse(self, y_context_windows: Any, y_true_windows: Any) -> float:
        """Mean squared error of the forecasts of ``y_context_windows (n, L, C)`` against
        ``y_true_windows (n, horizon, C)``, over every window, step and channel."""
        return float(np.mean(self._errors(y_context_windows, y_true_windows) ** 2))

    def mae(self, y_context_windows: Any, y_true_windows: Any) -> float:
        """Mean absolute error; arguments as :meth:`mse`."""
        return float(np.mean(np.abs(self._errors(y_context_windows, y_true_windows))))

    def _errors(self, contexts: Any, targets: Any) -> np.ndarray:
        check_is_fitted(self, "module_")
        contexts = np.asarray(contexts, dtype=np.float64)
        targets = np.asarray(targets, dtype=np.float64)
        if contexts.ndim == 2:
            contexts, targets = contexts[None], targets.reshape(1, len(targets), -1)
        expected = (contexts.shape[0], self.horizon, self.n_channels_)
        if targets.shape != expected:
            raise ValueError(f"y_true_windows must have shape (n_windows, horizon, n_channels) = "
                             f"{expected}; got {targets.shape}.")
        return self.predict(contexts) - targets
