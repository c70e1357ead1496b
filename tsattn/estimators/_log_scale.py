"""A forecaster's target on the log scale (``target_transform``): fitted on ``log(y)``, its
forecasts and their quantiles ``exp()`` back.

On a panel of positive series whose levels and swings differ by orders of magnitude (M4 Hourly:
series from tens to tens of thousands, some idling at a floor between spikes), the standardised
squared error the network trains on favours the mean of the next rows, and a spike drags it far
from the level the series spends its time at; sMAPE, half of M4's OWA, is a function of the log
ratio of forecast and truth alone. On the log scale the network, the anchor, the blend, the floor
and the per-series choice all see relative changes, and ``exp()`` of a forecast is a median-like
level, of a quantile the same quantile. ``'auto'`` takes it for a long frame of two series or more
without covariates whose every target value is positive: chosen on M4 Hourly and Weekly
validation, two origins, 3 seeds, and checked on M1 Yearly (``docs/results/panels/README.md``,
"Positive panels on the log scale"); one series and covariate panels stay on their own scale, on
which their defaults were chosen.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["TRANSFORMS", "resolve", "to_log"]

#: ``target_transform``'s values.
TRANSFORMS = ("auto", "log")


def resolve(option: str | None, rows: list[np.ndarray], n_targets: int, ids: list | None,
            covariates: bool) -> str | None:  # fmt: skip
    """``target_transform_``: ``'log'`` or None, for ``option`` and the fitted series ``rows``
    (each ``(T_i, n_targets + k)``; ``ids``: a long frame's series, None for one series).
    ``'log'`` asked of series with a value at or below zero is an error that names the series
    and the value."""
    if option is None:
        return None
    positive = all(bool(np.all(r[:, :n_targets] > 0)) for r in rows)
    if option == "auto":
        return "log" if positive and ids is not None and len(rows) > 1 and not covariates else None
    if not positive:
        to_log(rows, n_targets, "y", ids)  # raises, naming the first bad series
    return "log"


def to_log(rows: Any, n_targets: int, what: str, ids: list | None = None) -> Any:
    """``rows`` (an array ``(..., T, C + k)`` or a list of ``(T_i, C + k)`` arrays) with their
    first ``n_targets`` columns on the log scale; a target value at or below zero is an error."""
    if isinstance(rows, np.ndarray):
        return to_log([rows], n_targets, what, ids)[0]
    out = []
    for i, r in enumerate(rows):
        target = r[..., :n_targets]
        if not np.all(target > 0):
            where = f"series {ids[i]!r}" if ids is not None else f"series {i}" if len(rows) > 1 else what
            raise ValueError(
                f"{what} has a value at or below zero ({float(target.min()):g} in {where}), which "
                "has no logarithm: this forecaster works on the log scale "
                "(target_transform='log', or 'auto' on a panel of positive series). Pass "
                "positive values, or fit with target_transform=None.")
        r = np.array(r, dtype=np.float64, copy=True)
        r[..., :n_targets] = np.log(target)
        out.append(r)
    return out
