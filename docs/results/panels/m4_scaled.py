"""An experiment on an M4 frequency's validation split (issue 51): each series scaled by the
competition's MASE divisor instead of its standard deviation.

``TSForecaster`` standardises each series of a panel on its own training rows (mean, standard
deviation) and trains on the standardised windows, so a series' weight in the loss goes with
``1 / std**2``. M4's MASE divides each series' errors by its mean absolute seasonal difference
(``m`` steps apart), which is small for a smooth, strongly seasonal series whose standard
deviation (the season's swing) is large: the loss then counts little of what MASE counts most.
Here the scale of the target is that divisor (the mean absolute difference ``m`` steps apart,
of 1 step for a series shorter than ``m + 1``; the standard deviation where it is 0); the mean,
the covariates and everything else are ``TSForecaster``'s. Built outside the library by
replacing the estimator's ``standardise`` for one run of ``m4_val.py`` (same arguments):

    TSATTN_DATA_DIR=$DATA PYTHONPATH=. python3 docs/results/panels/m4_scaled.py Hourly '{"context_length": 336}'
"""

import runpy
import sys
from pathlib import Path

import numpy as np

import tsattn.estimators._forecast_fit as fit
from tsattn.datasets import m4_info

args = sys.argv[1:]
frequency = args[0] if args and not args[0].lstrip().startswith("{") else "Hourly"
M = m4_info(frequency.partition(":")[0]).seasonal_period
standardise = fit.standardise


def by_seasonal_difference(rows):
    """``standardise``'s mean; the target's scale the mean absolute ``M``-step difference."""
    mean, scale = standardise(rows)
    for i, r in enumerate(rows):
        lag = M if len(r) > M else 1
        if len(r) > lag:
            divisor = float(np.mean(np.abs(r[lag:, 0] - r[:-lag, 0])))
            if np.isfinite(divisor) and divisor > 0:
                scale[i, 0] = divisor
    return mean, scale


fit.standardise = by_seasonal_difference  # the name the estimator's fit calls
script = Path(__file__).with_name("m4_val.py")
sys.argv = [str(script), *args]
runpy.run_path(str(script), run_name="__main__")
