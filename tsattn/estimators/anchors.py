"""The anchors :class:`tsattn.TSForecaster` blends its network with, as public functions for
analyses that study them alone (the scripts under ``docs/results/``); the forecaster calls the
same ones (:mod:`.forecaster.anchors`, where each is documented)."""

from tsattn.estimators.forecaster.anchors import (
    ANCHORS,
    RIDGE,
    RIDGE_LEVEL_FREE,
    AnchorFit,
    candidates,
    choose,
    crossfit_errors,
    cycle_profile,
    fit_anchor,
    fit_blend,
    fit_linear_anchor,
    last_value_anchor,
)

__all__ = [
    "ANCHORS",
    "RIDGE",
    "RIDGE_LEVEL_FREE",
    "AnchorFit",
    "candidates",
    "choose",
    "crossfit_errors",
    "cycle_profile",
    "fit_anchor",
    "fit_blend",
    "fit_linear_anchor",
    "last_value_anchor",
]
