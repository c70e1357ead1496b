"""Forecasters saved by earlier versions, read into today's state (``TSForecaster.__setstate__``).

Each step names what changed and keeps the behaviour the saved model was fitted with: options
removed by issue 50 (a model that left them at the kept values loads; another fails naming them),
the Fourier head's hyperparameters before they were nested, the covariate network before it
became the one network's adapter (issue 76), the fitted parts added since (the floor, the
per-series choice, the log and asinh scales: absent, as then), and the fit plan (issue 76),
rebuilt from the attributes that held its decisions.
"""

from __future__ import annotations

import numpy as np

from tsattn.estimators import persistence
from tsattn.estimators.forecaster.params import REMOVED, REMOVED_ATTRIBUTES, REMOVED_NETWORK
from tsattn.estimators.forecaster.plan import FitPlan
from tsattn.estimators.forecaster.roles import Covariates
from tsattn.estimators.forecaster.scales import LogScale, ScaleChain

__all__ = ["restore"]


def restore(state: dict, owner: str) -> dict:
    """``state`` (a pickled ``TSForecaster``'s) in today's form; ``owner`` names the class in
    errors."""
    persistence.drop_removed(state, REMOVED, owner)
    if isinstance(state.get("network_params_"), dict):
        params = state["network_params_"] = dict(state["network_params_"])
        persistence.drop_removed(params, REMOVED_NETWORK, owner)
        if "head_params" not in params and "head" in params:  # format 1: n_harm was flat
            n_harm = params.pop("n_harm", None)
            params["head_params"] = {"n_harm": n_harm} if params["head"] == "fourier" else {}
        if "n_covariates" in params:  # the covariate network before issue 76 made it one
            state["network_params_"] = _covariate_network_params(params)
    for attribute in REMOVED_ATTRIBUTES:
        state.pop(attribute, None)
    state.setdefault("future_covariates", None)
    state.setdefault("target_transform", None)  # saved before the log scale: as then
    if "_module_state" not in state:
        return state
    for attribute in ("series_low_", "series_choice_", "log_series_", "log_blend_",
                      "asinh_scale_", "anchor_penalty_"):  # fmt: skip
        state.setdefault(attribute, None)  # fitted before these parts: without them, as then
    if isinstance(state.get("network_params_"), dict) and "context_length_" not in state:
        state["context_length_"] = int(state["network_params_"]["context_length"])
    if "channel_mean_" in state and "series_mean_" not in state:  # one series, no covariates
        state.update(series_mean_=np.asarray(state["channel_mean_"])[None],
                     series_scale_=np.asarray(state["channel_scale_"])[None], covariates_=[],
                     future_=(), series_ids_=None, last_stamps_=None, step_=None)  # fmt: skip
    if "fit_plan_" not in state:
        state["fit_plan_"] = _plan(state)
    return state


def _covariate_network_params(old: dict) -> dict:
    """``network_params_`` of a covariate network saved before issue 76 (its own class, patch
    tokens and the linear head; before the temporal decoder, without it) as the one network's."""
    old = dict(old)
    covariates = dict(n_covariates=old.pop("n_covariates"), future=list(old.pop("future")),
                      decoder=old.pop("decoder", False))  # fmt: skip
    return dict(n_channels=1, head="linear", head_params={}, channel_independent=True,
                tokens="patch", anchor_period=1, patch_stride=None, covariates=covariates, **old)


def _plan(state: dict) -> FitPlan:
    """The fit plan of a model fitted before issue 76, from the attributes that held it."""
    names = list(state.get("covariates_", []))
    future = tuple(int(j) for j in state.get("future_", ()))
    covariates = Covariates(tuple(names), tuple("future" if j in future else "past"
                                                for j in range(len(names))), future)  # fmt: skip
    panel = (state.get("input_kind_") or {}).get("kind") == "long"
    has = bool(names)
    series = None
    if state.get("log_series_") is not None:
        series = LogScale(spiky=state.get("target_transform") == "auto")
    scales = ScaleChain(series, state.get("series_low_") is not None, state.get("asinh_scale_"))
    anchor = state.get("anchor")
    params = state.get("network_params_", {})
    return FitPlan(panel=panel, covariates=covariates, context_length=int(state["context_length_"]),
                   n_series=len(state["series_mean_"]), n_targets=int(state.get("n_channels_", 1)),
                   period=int(state.get("period_", 1)), scales=scales,
                   anchor="lear" if anchor is not None and has else anchor,
                   weighted=panel and not has, refit=not has, choice=panel and not has,
                   d_model=int(params.get("d_model", 0)), dropout=float(params.get("dropout", 0)),
                   patch_len=int(params.get("patch_len", 1)),
                   patch_stride=int(params.get("patch_stride") or params.get("patch_len", 1)))
