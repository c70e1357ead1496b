"""What a fit did, in a few lines (``TSForecaster.summary()``; printed at the end of a fit that
someone watches, ``verbose``): the data and the time it took, what the forecast is made of (the
network's share, the anchor, the per-series choice), the scale and the season. A fit whose network
takes no weight says so: the attention variant then changes no forecast."""

from __future__ import annotations

from typing import Any

__all__ = ["summary"]


def summary(est: Any) -> str:
    """The closing lines of ``est``'s fit."""
    plan = est.fit_plan_
    n = plan.n_series
    what = (f"{n} series of a long frame" if plan.panel else "one series") + \
        plan.covariates.describe()  # fmt: skip
    seconds = getattr(est, "fit_seconds_", None)
    took = "" if seconds is None else f" in {seconds:.0f} s"
    rounds = getattr(est, "n_rounds_", None)
    best = "" if rounds is None else f", best round {est.best_round_ + 1} of {rounds}"
    lines = [f"{type(est).__name__}: {what}; {est.n_steps_} steps{took}{best}."]
    lines.append("Forecast: " + _made_of(est) + ".")
    scale = []
    if est.log_series_ is not None:
        scale.append(f"log scale for {int(est.log_series_.sum())} of {n} series")
    if plan.scales.standardised is not None:
        scale.append(f"{plan.scales.standardised.name} scale")
    if plan.scales.floor:
        scale.append("held at each series' lowest value")
    period = "none" if est.period_ <= 1 else f"{est.period_} steps"
    lines.append(f"Scale: {', '.join(scale) or 'each series standardised'}; season {period}; "
                 f"context {est.context_length_} steps.")  # fmt: skip
    return "\n".join(lines)


def _made_of(est: Any) -> str:
    """What the forecast is made of, in words."""
    if est.anchor_ is None:
        return "the network alone" + ("" if est.interval_source_ == "validation" else
                                      " (no validation rows: intervals from the training windows)")
    blend, anchor = float(est.blend_), f"the anchor {est.anchor_!r}"
    if blend == 0.0 and getattr(est, "log_blend_", None) in (None, 0.0):
        text = (f"{anchor} alone: it was better than any share of the network on the validation "
                "windows, so the network (its attention included) changes no forecast")
    elif blend == 1.0:
        text = "the network alone (the anchor took no weight on validation)"
    else:
        text = f"{blend:.2f} x network + {1 - blend:.2f} x {anchor}"
    if getattr(est, "log_blend_", None) is not None:
        text += f"; the series on the log scale {est.log_blend_:.2f} x network"
    choice = getattr(est, "series_choice_", None)
    if choice is not None and choice.any():
        text += (f"; {int((choice > 0).sum())} series take a simpler forecast that erred less on "
                 "their last horizon (series_choice_)")
    return text
