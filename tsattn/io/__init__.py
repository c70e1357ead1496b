"""The input of every estimator: collections of series and single series, checked and converted.

Collections (:class:`~tsattn.TSClassifier`, :class:`~tsattn.TSRegressor`): :func:`to_series_batch`
reads every format users pass (numpy arrays, lists of unequal-length series, aeon/sktime pandas
formats) into a padded :class:`SeriesBatch`. Single series (:class:`~tsattn.TSForecaster`):
:func:`as_series` reads an array or a pandas Series/DataFrame (the forecaster's data object,
:mod:`tsattn.estimators.forecaster.data`, is built on it), :func:`format_output` and
:func:`format_quantiles` give forecasts back in the input's kind, :func:`seasonal_period` is the
season read from a time index.
Panels of many series (long frames ``unique_id, ds, y`` and covariates): :func:`read_long_frame` checks
them into a :class:`Panel`, :func:`read_future_frame` the horizon's rows of the future-known
covariates, :func:`long_output` writes forecasts back as a long frame, :func:`add_calendar`
appends calendar covariates derived from ``ds``.
Tuning, the benchmarks and the result scripts read their data through the same functions.
"""

from __future__ import annotations

from tsattn.io.calendar import add_calendar, calendar_names
from tsattn.io.checks import check_channels, standardisation
from tsattn.io.collections import SeriesBatch, to_series_batch
from tsattn.io.folds import kfold
from tsattn.io.panel import Panel, long_output, read_future_frame, read_long_frame
from tsattn.io.series import (
    as_series,
    format_output,
    format_quantiles,
    seasonal_period,
)

__all__ = [
    "Panel",
    "SeriesBatch",
    "add_calendar",
    "as_series",
    "calendar_names",
    "check_channels",
    "format_output",
    "format_quantiles",
    "kfold",
    "long_output",
    "read_future_frame",
    "read_long_frame",
    "seasonal_period",
    "standardisation",
    "to_series_batch",
]
