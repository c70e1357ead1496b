"""The interval calibration of :class:`tsattn.TSForecaster` (split conformal, per horizon step),
as public functions for analyses that study it alone (the scripts under ``docs/results/``); the
forecaster calls the same ones (:mod:`.forecaster.intervals`, where each is documented)."""

from tsattn.estimators.forecaster.intervals import (
    LEVELS,
    calibrate,
    check_levels,
    quantiles,
    spread,
)

__all__ = ["LEVELS", "calibrate", "check_levels", "quantiles", "spread"]
