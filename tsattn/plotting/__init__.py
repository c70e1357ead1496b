"""Figures of fitted estimators: a forecast with its intervals, and a fit's training curve.

>>> from tsattn import TSForecaster
>>> from tsattn.plotting import plot_forecast, plot_history
>>> est = TSForecaster(horizon=24, context_length=96).fit(train)  # doctest: +SKIP
>>> plot_forecast(est, train, y_true=test)  # doctest: +SKIP
>>> plot_history(est)  # doctest: +SKIP

matplotlib comes with the ``bench`` extra (``pip install 'tsattn[bench]'``); these functions
draw on the backend the session already uses (inline in a notebook) and never call ``show()``.
``plot_forecast`` returns the Figure (its ``axes``, one per channel, to style;
``fig.savefig(...)``), ``plot_history`` the Axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from tsattn.plotting.series import column_axes, plot_series

__all__ = ["plot_forecast", "plot_history"]


def plot_forecast(forecaster, y_context: Any = None, y_true: Any = None, *, X: Any = None,
                  coverages: float | Sequence[float] = (0.8, 0.95),
                  channels: Sequence[int | str] | None = None, history: int | None = None,
                  components: bool = False, ax: Any = None) -> Any:  # fmt: skip
    """Draw a fitted ``TSForecaster``'s forecast after a series' history, with its central
    intervals, one panel per channel.

    Parameters
    ----------
    forecaster : TSForecaster
        Fitted.
    y_context : what :meth:`TSForecaster.predict` forecasts from: ``(T,)``, ``(T, C)``, a pandas
        Series or DataFrame (its time index on the x axis), at least ``context_length`` rows;
        None: the fitted series' forecast (``predict(X=X)``) after the end of its training rows.
    y_true : what followed, drawn for comparison (a Series, DataFrame or array, the first
        ``horizon`` rows used).
    X : the covariates, as :meth:`TSForecaster.predict` takes them.
    coverages : the central intervals drawn (:meth:`TSForecaster.predict_quantiles`; 0.8 covers
        the 10% to 90% quantiles), widest palest; one number for one; ``()`` for none.
    channels : the channels drawn (names or positions), one panel each; None: all (the first
        ``series.MAX_PANELS``, 6, with a warning, when there are more).
    history : rows drawn before the forecast (default ``context_length_``).
    components : also draw the network alone and the anchor alone (``predict_components``), with
        the network's share ``blend_`` in the legend.
    ax : one Axes per channel drawn, or None for a new figure.

    Returns
    -------
    matplotlib Figure, its ``axes`` one per channel drawn (``show()`` is not called).
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(forecaster, "module_")
    coverages = [float(c) for c in np.atleast_1d(np.asarray(coverages, dtype=np.float64))]
    if any(not 0 < c < 1 for c in coverages):
        raise ValueError(f"coverages must lie strictly between 0 and 1; got {coverages}.")
    shown = history or forecaster.context_length_
    return plot_series(forecaster, y_context, y_true, X, coverages, channels, shown, components, ax)


def plot_history(estimator, ax: Any = None) -> Any:
    """Draw a fitted estimator's training curve from ``history_``: the training loss and, when
    there was validation data, the validation loss per round (forecaster) or epoch, with the
    record whose weights were kept marked. Returns the Axes."""
    history = getattr(estimator, "history_", None)
    if not history:
        raise ValueError(f"{type(estimator).__name__} has no training history: fit it first.")
    frame = pd.DataFrame(history)
    x_name = "round" if "round" in frame else "epoch"
    x = frame[x_name] if x_name in frame else pd.RangeIndex(1, len(frame) + 1)
    a = column_axes(ax, 1, height=3.2)[0]
    a.plot(x, frame["train_loss"], color="C0", marker=".", label="training loss")
    if "valid_loss" in frame and frame["valid_loss"].notna().any():
        a.plot(x, frame["valid_loss"], color="C1", marker=".", label="validation loss")
    kept = "valid_loss" if "valid_loss" in frame and frame["valid_loss"].notna().any() else "train_loss"
    if "best" in frame and frame["best"].any():  # the last record that improved: its weights are kept
        best = int(np.flatnonzero(frame["best"].to_numpy(dtype=bool))[-1])
        a.plot(x[best], frame[kept][best], "o", mfc="none", mec="k", ms=9,
               label=f"weights kept ({x_name} {x[best]:g})")  # fmt: skip
    a.set_xlabel(x_name)
    a.set_ylabel("loss")
    a.legend(fontsize=8)
    return a
