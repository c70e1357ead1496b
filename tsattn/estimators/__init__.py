"""The scikit-learn estimators: one core (:mod:`~tsattn.estimators.base`), a collection part for
classification and regression, and the single-series forecaster; fitted ones save and load with
the versions that wrote them (:mod:`~tsattn.estimators.persistence`)."""

from tsattn.estimators.classification import TSClassifier
from tsattn.estimators.forecasting import TSForecaster
from tsattn.estimators.persistence import InconsistentVersionWarning
from tsattn.estimators.regression import TSRegressor

__all__ = ["TSClassifier", "TSRegressor", "TSForecaster", "InconsistentVersionWarning"]
