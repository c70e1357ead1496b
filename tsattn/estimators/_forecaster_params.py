"""The parameters of :class:`tsattn.TSForecaster`, declared once, each with what it was measured
to do (``docs/results/forecast_defaults/``); the estimator's behaviour is in :mod:`.forecasting`."""

from __future__ import annotations

from numbers import Integral, Real

import torch
from sklearn.utils._param_validation import Interval, StrOptions

from tsattn._validation import POSITIVE_INT
from tsattn.estimators import _anchor
from tsattn.estimators.base import ATTENTION, BaseTSEstimator
from tsattn.estimators.params import declare, default, param
from tsattn.nn.forecasting import (
    FORECAST_HEADS,
    FORECAST_TOKENS,
    INSTANCE_CENTERS,
    TOKEN_EMBEDDINGS,
)

__all__ = ["LOSSES", "ForecasterParams"]

#: Training losses by name (``loss``); every one is judged by the validation MSE.
LOSSES = {"mse": torch.nn.functional.mse_loss, "mae": torch.nn.functional.l1_loss,
          "huber": torch.nn.functional.huber_loss}


@declare
class ForecasterParams(BaseTSEstimator):
    """``TSForecaster``'s parameters: the shared ones with the forecaster's defaults, and its own."""

    horizon: int = param(96, [POSITIVE_INT], "Steps forecast after each context.", kw_only=False)
    context_length: int = param(
        96, [Interval(Integral, 2, None, closed="left")], "Steps of history the network reads "
        "(the last ``context_length`` rows of a context).", kw_only=False,
    )  # fmt: skip
    attention: str = param("softmax", **ATTENTION, kw_only=False)
    future_covariates: list | None = param(
        None, [list, tuple, None], "The covariates known for the forecast's horizon too (names "
        "of ``X``'s columns or of a long frame's covariate columns; positions for an array "
        "``X``), such as day-ahead load forecasts or calendar columns: ``predict`` then needs "
        "their ``horizon`` next rows. Every other covariate is known in the past only: read up "
        "to the forecast origin, never after."
    )
    head: str = param(
        "linear", [StrOptions(set(FORECAST_HEADS))], "``'linear'``: map the flattened encoded "
        "window linearly to the horizon. ``'fourier'``: extrapolate the tokens' ``1 + 2*n_harm`` "
        "lowest harmonics (Algorithm 4 of 002); its network lost to the linear one on ILI and "
        "ETTh1 validation and tied on Exchange (``docs/results/forecast_defaults/``); it suits "
        "series made of a few stable cycles."
    )
    n_harm: int = param(8, [Interval(Integral, 0, None, closed="left")], "Harmonics of the Fourier head.")
    anchor: str | None = param(
        "auto", [StrOptions(set(_anchor.ANCHORS)), None], "Simple forecaster blended with the "
        "network by a weight chosen on the validation windows (``blend_``): ``'linear'``, a ridge "
        "regression of the horizon on the context shared by the channels (persistence and mean "
        "reversion, as an autoregressive model); ``'last'``, the last value; ``'cycle'``, the ridge "
        "on windows less a seasonal profile of ``period`` steps (each window's phase read from its "
        "values); ``'nlinear'``, ``'ncycle'``, those ridges level-free (the context's last value "
        "subtracted and added back, as NLinear: no pull back to the training level; shrunk toward "
        "the last value); ``'auto'``, "
        "the one whose blend errs least on validation (``anchor_``; the cycles among them where "
        "``period_ > 1``); None: the network alone."
    )
    anchor_refit: bool = param(
        True, ["boolean"], "Once the anchor and ``blend_`` are chosen on the validation windows, "
        "refit the chosen anchor (its ridge and seasonal profile) on every row, the validation rows "
        "included, as a cross-validated model is refitted on all its data (``anchor_refit_``): the "
        "latest rows are the ones the anchor otherwise never learns from. Only where the "
        "validation rows continue the training rows (the series' own tail, or a ``y_val`` whose "
        "first ``context_length`` rows are the last of ``y``); the intervals keep the errors of "
        "the anchor fitted without them. On validation 0.988 of the MSE without it over 3 seeds "
        "(ETTh2 -4.4%; ``docs/results/forecast_defaults/anchor_refit/``); on TEST, run after "
        "the decision, 1.006 (ETTm1 -1.4%, ILI -1.2%, ETTh1 +2.3%, Exchange +3.5%)."
    )
    network_refit: bool = param(
        False, ["boolean"], "Once the best round, the anchor and ``blend_`` are chosen on the "
        "validation windows, train the network again from its initial weights on every row, the "
        "validation rows included, for the chosen number of rounds of the same schedule, and "
        "forecast with that network (``network_refit_``), as a cross-validated model is refitted "
        "on all its data; only where the validation rows continue the training rows (as "
        "``anchor_refit``). The blend and the intervals keep what the network fitted without them "
        "did on the validation windows; ``callbacks`` (e.g. Optuna pruning) see the selection fit "
        "only. On validation 1.012 of the MSE without it over 3 seeds "
        "(ILI +4%, Exchange +2%, the ETT sets within 0.2%) in 1.5 times the fit time "
        "(``docs/results/forecast_defaults/``)."
    )
    anchor_recency: float | None = param(
        None, [Interval(Real, 0, None, closed="neither"), None], "Weigh the anchor's ridge rows "
        "by recency: a window ending ``age`` rows before the end of the rows fitted weighs "
        "``exp(-age / (anchor_recency * rows))``, so ``0.125`` halves a window's weight every "
        "8.7% of the series (the seasonal profile weighs every row alike); None: every window "
        "alike. On the validation split, with the refit, ``0.125`` gave 0.979 of the MSE of "
        "equal weights over 3 seeds, but replayed from several forecast origins before TEST it "
        "erred up to 55% more than equal weights (ETTh2; ILI 22%, Exchange 11%), and on TEST "
        "it raised ETTh1's and Exchange's errors by a third or more: a bet on the latest rows "
        "resembling the next ones (``docs/results/forecast_defaults/anchor_refit/``)."
    )
    period: int | str | None = param(
        "auto", [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), None],
        "Steps per season of the ``'cycle'`` anchor. ``'auto'``: read from a pandas time index "
        "(a day of sub-daily rows, a week of daily rows, 52 weekly or 12 monthly rows), none for "
        "arrays or other indexes (``period_``); None or 1: no seasonal anchor."
    )
    deseasonalize: bool = param(
        False, ["boolean"], "Remove the seasonal profile of ``period_`` steps (the training rows' "
        "mean at each phase, as the ``'cycle'`` anchor's) from the network's input and add its "
        "continuation to the network's forecast (CycleNet's residual cycle around the transformer); "
        "the network then learns what the season does not explain; needs a season (``period``). "
        "It suits a stable season longer than the context; on validation it tied on the ETT sets "
        "and raised ILI's error by about 30%, whose flu seasons shift from year to year "
        "(``docs/results/forecast_defaults/``)."
    )
    instance_norm: bool = param(
        True, ["boolean"], "Normalise each window by its mean and ``sqrt(var + instance_norm_eps)`` "
        "over time and de-normalise the output."
    )
    instance_norm_eps: float = param(
        1e-5, [Interval(Real, 0, None, closed="neither")], "Added to each window's variance. "
        "``1e-5`` is RevIN's; ``1.0`` is Algorithm 3 of 002, a floor that leaves flat windows "
        "unscaled, which hurts where the scale drifts (``docs/results/forecast/``).",
        hint="1.0 is Algorithm 3 of 002, 1e-5 RevIN's.",
    )
    instance_center: str = param(
        "mean", [StrOptions(set(INSTANCE_CENTERS))], "What the instance norm centres each window "
        "on (the scale is the window's spread either way): ``'mean'``, its mean (RevIN); "
        "``'last'``, its last value (NLinear), so the network's corrections start from "
        "persistence rather than from the window's mean; ``'learned'``, its mean, the forecast's "
        "level at each step moved toward the last value by a learned weight (0 at the start). "
        "On validation over 3 seeds ``'last'`` lowered Exchange's MSE 3% and raised ILI's 10%; "
        "``'learned'`` changed no set by more than 0.5% (``docs/results/forecast_defaults/``)."
    )
    token_embedding: str = param(
        "linear", [StrOptions(set(TOKEN_EMBEDDINGS))], "How a patch becomes a token: "
        "``'linear'``, a linear map plus sinusoidal positions (PatchTST); ``'circular'``, a "
        "circular convolution (kernel 3) of the patch and its neighbours, no positions "
        "(FEDformer's embedding, in whose code 002's forecaster was built); patch tokens only. At "
        "002's settings on ILI it did not bring our reproduction nearer 002's Table 2 "
        "(``docs/results/forecast/``)."
    )
    linear_skip: bool = param(
        False, ["boolean"], "Add a linear map of each channel's normalised window to its horizon "
        "(shared by the channels, zero at the start; RLinear) to the network's forecast, trained "
        "with it: the transformer then learns what a linear forecaster leaves. On validation over "
        "3 seeds it raised the MSE 0.4-2% on ETTh1, ETTm1 and ILI "
        "(``docs/results/forecast_defaults/``): the anchor does that job better."
    )
    tokens: str = param(
        "patch", [StrOptions(set(FORECAST_TOKENS))], "How a window becomes tokens: ``'patch'``, "
        "patches of ``patch_len`` steps (PatchTST); ``'variate'``, a token per channel, its whole "
        "context embedded linearly, attention across channels (iTransformer), for which "
        "``channel_independent`` and ``patch_len`` are unused and a batch holds ``batch_size // "
        "n_channels`` whole windows (``batch_size`` univariate series either way)."
    )
    patch_levels: int = param(
        1, [Interval(Integral, 1, 6, closed="both")], "Resolutions of the patch tokens (TimeMixer's "
        "multi-scale view, Wang et al. 2024): ``1``, patches of the window's steps; ``k > 1`` "
        "adds the window average-pooled by 2, 4, ..., ``2**(k-1)`` steps, cut into patches of "
        "``patch_len`` pooled steps with an embedding per resolution, all attended together; "
        "patch tokens and ``head='linear'`` only. On validation ``3`` gave 0.995 of the default's "
        "MSE over 3 seeds and 1.005 over 5 (ILI the most changed), for 1.17 times the fit time "
        "(``docs/results/forecast_defaults/``)."
    )
    basis: str = param(
        "time", [StrOptions({"time", "ortho"})], "The domain the network reads and forecasts in: "
        "``'time'``, the steps; ``'ortho'``, OLinear's OrthoTrans (Yue et al. 2025): each "
        "normalised context as its coefficients in the eigenbasis of the training series' "
        "temporal correlation matrix (``basis_in``), the forecast as the coefficients of the "
        "horizon's eigenbasis (``basis_out``), computed once per fit (:mod:`._basis`); with "
        "``head='linear'`` only. The anchor reads the steps either way. With ``tokens='variate'`` "
        "(OLinear's own layout) 0.99 of the default's validation MSE over 3 seeds, all of it on "
        "Exchange (-10%; ILI +7%), in a third of the fit time (``docs/results/forecast_defaults/``)."
    )
    channel_independent: bool = param(
        True, ["boolean"], "Encode each channel as its own univariate series with shared weights "
        "(PatchTST/DLinear style); False puts all channels of a time step in one token."
    )
    patch_len: int | str = param(
        "auto", [POSITIVE_INT, StrOptions({"auto"})], "Time steps per token (a patch every "
        "``patch_stride`` steps, at most ``context_length``); ``'auto'``: ``min(16, "
        "context_length // 6)``."
    )
    patch_stride: int | str | None = param(
        None, [POSITIVE_INT, StrOptions({"half"}), None], "Steps between the starts of two "
        "patches: None, ``patch_len`` (non-overlapping patches); ``'half'``, ``patch_len // 2`` "
        "(PatchTST's patch 16 with stride 8: about twice the tokens, overlapping, the window's "
        "end repeated for the last); an int at most ``patch_len``. Patch tokens at one "
        "resolution with the linear embedding and head only (``patch_stride_``). On validation "
        "over 3 seeds ``'half'`` gave 1.005 of the default's MSE (the network alone 1.009) in "
        "1.9 times the fit time (``docs/results/forecast_defaults/``)."
    )
    loss: str = param(
        "mse", [StrOptions(set(LOSSES))], "Training loss on the standardised series: ``'mse'``, "
        "``'mae'`` or ``'huber'`` (quadratic within 1 standard deviation, linear beyond). Rounds "
        "are judged by the validation MSE whatever the loss. ``'mae'`` lowered the validation MSE "
        "1.5-2.7% at h96 on the ETT sets and Exchange and raised it 4-15% on ILI (at 300 steps "
        "and again at today's 3000) "
        "(``docs/results/forecast_defaults/``); it also ignores rare spikes."
    )
    weight_average: float | None = param(
        None, [Interval(Real, 0, 1, closed="neither"), None], "Validate, and keep as the best "
        "round's weights, an exponential moving average of the weights over the optimiser steps "
        "with this decay (about ``1 / (1 - weight_average)`` steps; Polyak averaging, as timm's "
        "model EMA) instead of the raw weights; training goes on from the raw ones. Needs "
        "validation windows; None: the raw weights. On validation over 3 seeds ``0.99`` gave "
        "1.002 of the default's MSE (ILI +1%, the others within 0.2%) in 1.15 times the fit time "
        "(``docs/results/forecast_defaults/``)."
    )
    max_train_windows: int | None = param(
        None, [POSITIVE_INT, None], "Train on a random subset (fixed by ``random_state``) of at "
        "most this many training windows; None uses all."
    )
    d_model: int = default(32)
    n_heads: int = default(4)
    n_layers: int = default(2)
    dim_feedforward: int = default(64)
    # 0.2 (was 0.1): the network alone 1.3% lower on validation on every seed, the blend unchanged
    # (docs/results/forecast_defaults/, label drop2, 3 seeds x 10 set-horizon pairs)
    dropout: float = default(0.2)
    attention_dropout: float = default(0.0)
    batch_size: int = default(256)
    max_epochs: int | None = default(None)
    max_steps: int | str | None = default("auto")
    lr_schedule: str | None = default("warmup_cosine")
    weight_decay: float = default(0.0)
    validation_fraction: float = default(0.1)
    # 8 rounds (was None, all 20 rounds): on the validation splits the best round came at most 7
    # rounds after the one before it in 29 of 30 default fits, and 14-17% of the rounds are skipped
    # (docs/results/forecast_defaults/patience/)
    patience: int | None = default(8)
