"""Figures of fitted estimators: a forecast with its intervals, and a fit's training curve.

>>> from tsattn import TSForecaster
>>> from tsattn.plotting import plot_forecast, plot_history
>>> est = TSForecaster(horizon=24, context_length=96).fit(train)  # doctest: +SKIP
>>> plot_forecast(est, train, y_true=test)  # doctest: +SKIP
>>> panel = TSForecaster(horizon=48).fit(df)  # a long frame: unique_id, ds, y  # doctest: +SKIP
>>> plot_forecast(panel, df, ids=["H1", "H2"])  # doctest: +SKIP
>>> plot_history(est)  # doctest: +SKIP

matplotlib comes with the ``bench`` extra (``pip install 'tsattn[bench]'``); these functions
draw on the backend the session already uses (inline in a notebook) and never call ``show()``.
``plot_forecast`` returns the Figure (its ``axes``, one per channel or series, to style;
``fig.savefig(...)``), ``plot_history`` the Axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from tsattn.io.panel import ID, TARGET, TIME
from tsattn.plotting.panels import MAX_IDS, plot_panel
from tsattn.plotting.series import column_axes, plot_series

__all__ = ["plot_forecast", "plot_history"]


def plot_forecast(forecaster, y_context: Any = None, y_true: Any = None, *, X: Any = None,
                  ids: Any = None, max_ids: int = MAX_IDS,
                  coverages: float | Sequence[float] = (0.8, 0.95),
                  channels: Sequence[int | str] | None = None, history: int | None = None,
                  components: bool = False, id_col: str | None = None,
                  time_col: str | None = None, target_col: str | None = None, ax: Any = None) -> Any:  # fmt: skip
    """Draw a fitted ``TSForecaster``'s forecast after each series' history, with its central
    intervals: one panel per channel of one series, or per series of a long frame.

    Parameters
    ----------
    forecaster : TSForecaster
        Fitted.
    y_context : what :meth:`TSForecaster.predict` forecasts from. One series: ``(T,)``,
        ``(T, C)``, a pandas Series or DataFrame (its time index on the x axis), at least
        ``context_length`` rows. Many: a long frame (columns ``id_col``, ``time_col``,
        ``target_col`` and the fit's covariate columns), each series drawn forecast from its own
        rows (``predict(y_context, X=X)``) after its last ``history`` rows, on ``time_col``.
        None: the fitted series' forecasts (``predict(X=X)``), after the end of the training
        series for one series, without history for a long frame.
    y_true : what followed, drawn for comparison: one series' next rows (a Series, DataFrame or
        array, the first ``horizon`` used), or a long frame of each series' next rows.
    X : the covariates, as :meth:`TSForecaster.predict` takes them: for a long frame, a long
        frame (``id_col``, ``time_col`` and the future covariates) of the ``horizon`` rows after
        each series (``forecaster.make_future_dataframe()`` gives them for the fitted series).
    ids : the series of a long frame drawn (``id_col`` values, or one value), one panel each, in
        two columns; None: the first ``max_ids`` in sorted order, with a warning when there are
        more.
    max_ids : series drawn when ``ids`` is None.
    coverages : the central intervals drawn (:meth:`TSForecaster.predict_interval`; 0.8 covers
        the 10% to 90% quantiles), widest palest; one number for one; ``()`` for none.
    channels : one series' channels drawn (names or positions), one panel each; None: all (the
        first ``series.MAX_PANELS``, 6, with a warning, when there are more).
    history : rows drawn before the forecast (default ``context_length_``).
    components : also draw the network alone and the anchor alone (``predict_components``), with
        the network's share ``blend_`` in the legend.
    id_col, time_col, target_col : the long frames' series, time and target columns, on the axes'
        labels; None: the names the forecaster was fitted with (``columns_``), else ``unique_id``,
        ``ds``, ``y``.
    ax : one Axes per channel or series drawn, or None for a new figure.

    Returns
    -------
    matplotlib Figure, its ``axes`` one per channel or series drawn (``show()`` is not called).
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(forecaster, "module_")
    coverages = [float(c) for c in np.atleast_1d(np.asarray(coverages, dtype=np.float64))]
    if any(not 0 < c < 1 for c in coverages):
        raise ValueError(f"coverages must lie strictly between 0 and 1; got {coverages}.")
    shown = history or forecaster.context_length_
    fitted = getattr(forecaster, "columns_", None)
    defaults = (ID, TIME, TARGET) if fitted is None else (fitted.id, fitted.time, fitted.target)
    names = tuple(str(d if n is None else n)
                  for n, d in zip((id_col, time_col, target_col), defaults, strict=True))
    long_input = isinstance(y_context, pd.DataFrame) and set(names) <= set(map(str, y_context.columns))
    if forecaster.fit_plan_.panel or long_input:
        if channels is not None:
            raise ValueError("channels chooses one series' channels; choose the series of a long "
                             "frame with ids=[...].")  # fmt: skip
        if not (isinstance(max_ids, (int, np.integer)) and max_ids >= 1):
            raise ValueError(f"max_ids must be a positive int; got {max_ids!r}.")
        return plot_panel(forecaster, y_context, y_true, X, ids, int(max_ids), coverages, shown,
                           components, ax, names)  # fmt: skip
    if ids is not None:
        raise ValueError("ids chooses series of a long frame; this forecaster was fitted on one "
                         "series: choose its channels with channels=[...].")  # fmt: skip
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
