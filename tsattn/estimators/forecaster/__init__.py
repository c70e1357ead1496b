"""The parts of :class:`tsattn.TSForecaster` (:mod:`tsattn.estimators.forecasting`), each in its
own module, imports pointing down this list:

- :mod:`.roles`: the covariates' roles (past, future), registered by name (:func:`register_role`).
- :mod:`.scales`: the scale chain a fit reads its series on (log, the floor, standardisation,
  LEAR's asinh), each scale a registered stage (:func:`register_scale`).
- :mod:`.data`: the data object of a fit or a predict (:class:`ForecastData`), the validation split
  and the one place windows are laid; :mod:`.frames` reads every input form into it.
- :mod:`.ridge`, :mod:`.anchors`, :mod:`.covariate_anchor`: the closed-form anchors the network is
  blended with; :mod:`.intervals`: the calibrated intervals; :mod:`.choice`: each series' forecast
  chosen on its last horizon.
- :mod:`.params`: the estimator's parameters and their rules; :mod:`.plan`: what a fit does,
  decided once (:class:`FitPlan`); :mod:`.calibration`: after training; :mod:`.forecasts`: a fitted
  model's forecasts; :mod:`.saved`: models saved by earlier versions; :mod:`.scores`: errors over
  windows.

The names below are the parts a new role or scale is built from (``docs/guide/contributing.md``)
and what a fitted forecaster's ``fit_plan_`` holds.
"""

from tsattn.estimators.forecaster.data import ForecastData, Form
from tsattn.estimators.forecaster.plan import FitPlan
from tsattn.estimators.forecaster.roles import (
    CovariateRole,
    Covariates,
    get_role,
    list_roles,
    register_role,
)
from tsattn.estimators.forecaster.scales import (
    AsinhScale,
    LogScale,
    ScaleChain,
    TargetScale,
    get_scale,
    list_scales,
    register_scale,
)

__all__ = [
    "AsinhScale",
    "CovariateRole",
    "Covariates",
    "FitPlan",
    "ForecastData",
    "Form",
    "LogScale",
    "ScaleChain",
    "TargetScale",
    "get_role",
    "get_scale",
    "list_roles",
    "list_scales",
    "register_role",
    "register_scale",
]
