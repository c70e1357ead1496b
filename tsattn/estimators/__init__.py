"""The scikit-learn estimators."""

from tsattn.estimators.classification import TSClassifier
from tsattn.estimators.forecasting import TSForecaster
from tsattn.estimators.regression import TSRegressor

__all__ = ["TSClassifier", "TSRegressor", "TSForecaster"]
