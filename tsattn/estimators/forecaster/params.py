"""The parameters of :class:`tsattn.TSForecaster`, declared once, each with what it was measured
to do (``docs/results/forecast_defaults/``); the estimator's behaviour is in :mod:`.forecasting`."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import torch
from sklearn.utils._param_validation import Interval, StrOptions

from tsattn._validation import POSITIVE_INT
from tsattn.attention import AttentionSpec
from tsattn.estimators.base import ATTENTION, BaseTSEstimator
from tsattn.estimators.forecaster import anchors
from tsattn.estimators.forecaster.scales import get_scale
from tsattn.estimators.params import declare, default, param
from tsattn.nn.forecasting import check_combination, get_view
from tsattn.nn.forecasting.fourier import N_HARM
from tsattn.training import Budget

__all__ = ["AUTO_DROPOUT", "AUTO_STEPS", "AUTO_WIDTHS", "LOSSES", "MAX_PANEL_CONTEXT", "REMOVED",
           "REMOVED_ATTRIBUTES", "REMOVED_NETWORK", "ROUNDS", "SERIES_CONTEXT", "ForecasterParams",
           "auto_context", "series_context"]

#: ``max_steps='auto'``: optimiser steps whatever the data's size (the best round is kept, so a
#: small series is not overfitted by them; 300 steps left ILI 16-26% worse on validation).
AUTO_STEPS = 3000
#: Validation rounds per fit (each ``round_steps_`` optimiser steps).
ROUNDS = 20
#: ``d_model='auto'``: ``(width, fewest series)`` from the widest down, the first whose fewest
#: series the fit has. A panel of 100 series or more gets 64: on M4 Hourly (414 series) and Weekly
#: (359) validation, 3 seeds, 64 lowered sMAPE 0.7% and 4.1% and MASE 3.8% and 3.3% against 32;
#: 128 lowered them more on Hourly but took about 1.8 times 64's fit (about 5 minutes on 2 cores, past
#: the 3 minutes issue 51 allows M4 Hourly). Fewer series keep 32: on 40 series 128 won on Weekly
#: and lost on Hourly, and on one series (the long-horizon sets) wider nets were within 2% either
#: way and slower (docs/results/panels/README.md, "A wider network for many series").
AUTO_WIDTHS = ((64, 100), (32, 1))
#: ``dropout='auto'``: ``(rate, fewest series)``, the first whose fewest series the fit has, by
#: the same count as :data:`AUTO_WIDTHS`. A panel of 100 series or more trains without dropout:
#: on M4 Hourly and Weekly validation, two origins, 3 seeds, OWA 0.977 and 0.988 of 0.2's (the
#: network alone 0.969 and 0.986), the fit about a quarter faster (docs/results/panels/README.md,
#: "No dropout for many series"). Fewer series keep 0.2, chosen on the long-horizon sets
#: (docs/results/forecast_defaults/, ``drop2``).
AUTO_DROPOUT = ((0.0, 100), (0.2, 1))
#: Training losses by name (``loss``); every one is judged by the validation MSE.
LOSSES = {"mse": torch.nn.functional.mse_loss, "mae": torch.nn.functional.l1_loss,
          "huber": torch.nn.functional.huber_loss}

#: ``context_length='auto'`` for one series (an array, or a long frame of one): the context of the
#: long-horizon benchmarks, on which the forecaster's defaults were chosen
#: (``docs/results/forecast_defaults/``). The panel rule's 336 on one EPF market was 3% worse than
#: its protocol's 168 on validation (``docs/results/panels/README.md``).
SERIES_CONTEXT = 96
#: ``context_length='auto'`` for a long frame: at most this many steps, the longest context that
#: won on M4's validation split (Hourly; 672 was worse there).
MAX_PANEL_CONTEXT = 336


def auto_context(lengths: Sequence[int], horizon: int, season: int) -> int:
    """``context_length='auto'`` for a long frame of series of ``lengths`` rows: half their
    lower quartile, rounded up to whole seasons of ``season`` steps, at least ``2 * horizon`` and
    at most :data:`MAX_PANEL_CONTEXT`. Long enough to hold the cycles a panel repeats, short
    enough that three quarters of its series fill it twice. On M4's validation split (the last
    horizon of each training series held out; ``docs/results/panels/README.md``, "A context for
    many series": 3 seeds for 96 and the best, one for the others) it gives the best context
    measured on both frequencies there:
    Hourly 336 (of 96, 168, 336, 672; series of 652-912 rows) and Weekly 208 (of 52, 96, 208,
    416; a quarter of the series under 367 rows)."""
    half = float(np.quantile(np.asarray(lengths, dtype=float), 0.25)) / 2
    season = max(1, int(season))
    context = int(np.ceil(half / season)) * season
    return int(min(max(context, 2 * int(horizon)), MAX_PANEL_CONTEXT))


def series_context(estimator: Any) -> int:
    """The context ``estimator`` reads from one series (an unfitted one too): ``context_length``,
    or :data:`SERIES_CONTEXT` for ``'auto'``."""
    value = estimator.context_length
    return SERIES_CONTEXT if value == "auto" else int(value)


#: Options removed after 0.1.0 (issue 50: measured and left off, their decision rows in
#: ``docs/results/forecast_defaults/``), each with the value whose behaviour was kept: a model
#: saved with another value does not load (:func:`tsattn.estimators.persistence.set_state`).
REMOVED = {"network_refit": False, "anchor_recency": None, "instance_center": "mean",
           "linear_skip": False, "weight_average": None, "deseasonalize": False, "patch_levels": 1,
           "token_embedding": "linear", "instance_norm_eps": 1e-5, "instance_norm": True,
           "anchor_refit": True, "basis": "time", "max_train_windows": None}
#: What those options left in a saved model: the network's parameters (in ``network_params_``)
#: with the values the kept behaviour gives them, and fitted attributes.
REMOVED_NETWORK = {"instance_norm": True, "instance_norm_eps": 1e-5, "instance_center": "mean",
                   "linear_skip": False, "token_embedding": "linear", "season_period": 1,
                   "basis": False, "patch_levels": 1}
REMOVED_ATTRIBUTES = ("network_refit_", "refit_steps_")


@declare
class ForecasterParams(BaseTSEstimator):
    """``TSForecaster``'s parameters: the shared ones with the forecaster's defaults, and its own."""

    horizon: int = param(96, [POSITIVE_INT], "Steps forecast after each context.", kw_only=False)
    context_length: int | str = param(
        "auto", [Interval(Integral, 2, None, closed="left"), StrOptions({"auto"})], "Steps of "
        "history the network reads (the last ``context_length`` rows of a context; "
        "``context_length_``). ``'auto'``: 96 for one series (the long-horizon benchmarks' "
        "context); for a long frame of two series or more half the lower quartile of their "
        "lengths, rounded up "
        "to whole seasons (``period``), at least twice the horizon and at most 336 "
        "(``auto_context`` in :mod:`tsattn.estimators.forecaster.params`).", kw_only=False,
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
        "linear", [str], "A registered head (:func:`tsattn.nn.forecasting.list_heads`). "
        "``'linear'``: map the encoded tokens linearly to the horizon. ``'fourier'``: decode "
        "them to the window's steps and extrapolate their ``1 + 2*n_harm`` lowest harmonics "
        "(Algorithm 4 of 002), for series made of a few stable cycles."
    )
    n_harm: int = param(N_HARM.default, N_HARM.constraint, N_HARM.doc)
    anchor: str | None = param(
        "auto", [StrOptions(set(anchors.ANCHORS)), None], "Simple forecaster blended with the "
        "network by a weight chosen on the validation windows (``blend_``): ``'linear'``, a ridge "
        "regression of the horizon on the context shared by the channels (persistence and mean "
        "reversion, as an autoregressive model); ``'last'``, the last value; ``'cycle'``, the ridge "
        "on windows less a seasonal profile of ``period`` steps (each window's phase read from its "
        "values); ``'nlinear'``, ``'ncycle'``, those ridges level-free (the context's last value "
        "subtracted and added back, as NLinear: no pull back to the training level; shrunk toward "
        "the last value); ``'auto'``, "
        "the one whose blend errs least on validation (``anchor_``; the cycles among them where "
        "``period_ > 1``); None: the network alone. Once chosen, the anchor is fitted again on "
        "every row, the validation rows included, where they continue the training rows "
        "(``anchor_refit_``). With covariates every anchor but None is the LEAR-style ridge on the "
        "context and the future covariates' horizon rows (``anchor_='lear'``)."
    )
    period: int | str | None = param(
        "auto", [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), None],
        "Steps per season of the ``'cycle'`` and ``'ncycle'`` anchors. ``'auto'``: read from a pandas time index "
        "(a day of sub-daily rows, a week of daily rows, 52 weekly or 12 monthly rows), none for "
        "arrays or other indexes (``period_``); None or 1: no seasonal anchor."
    )
    tokens: str = param(
        "patch", [str], "How a window becomes tokens, a registered view "
        "(:func:`tsattn.nn.forecasting.list_views`): ``'patch'``, "
        "patches of ``patch_len`` steps (PatchTST); ``'variate'``, a token per channel, its whole "
        "context embedded linearly, attention across channels (iTransformer), for which "
        "``channel_independent`` and ``patch_len`` are unused and a batch holds ``batch_size // "
        "n_channels`` whole windows (``batch_size`` univariate series either way)."
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
        "end repeated for the last); an int at most ``patch_len``. Patch tokens and the "
        "linear head only (``patch_stride_``); about twice the fit time."
    )
    target_transform: str | None = param(
        "auto", [str, None], "The scale each series is "
        "forecast on (``log_series_``, ``asinh_scale_``): ``'log'``, every series fitted on "
        "``log(y)`` (positive values) and its forecasts and quantiles ``exp()`` back, so that every "
        "part of the model sees relative changes; ``'asinh'``, the target on LEAR's scale, the "
        "inverse hyperbolic sine of its values centred on their median over their MAD (linear "
        "near the level, logarithmic in spikes, any sign); "
        "None, the series' own. ``'auto'``: with covariates, ``'asinh'``; for a long frame of two "
        "series or more without covariates, the log scale for each positive series whose last "
        "``context_length_`` rows span an order of magnitude or more around a level (spikes or "
        "swings, not growth: the halves' means within a fifth of the span on the log scale), the own "
        "scale for the others and for one series "
        "(:mod:`tsattn.estimators.forecaster.scales`, where a new scale is registered); a series or window given at predict is judged "
        "on its own rows the same way."
    )
    loss: str = param(
        "mse", [StrOptions(set(LOSSES))], "Training loss on the standardised series: ``'mse'``, "
        "``'mae'`` or ``'huber'`` (quadratic within 1 standard deviation, linear beyond). Rounds "
        "are judged by the validation MSE whatever the loss; ``'mae'`` ignores rare spikes."
    )
    # 'auto' (was 32): 64 for 100 series or more, else 32 (forecasting.AUTO_WIDTHS, its evidence)
    d_model: int | str = default("auto")
    n_heads: int = default(4)
    n_layers: int = default(2)
    dim_feedforward: int = default(64)
    # 'auto' (was 0.2): 0 for 100 series or more, else 0.2 (forecasting.AUTO_DROPOUT, its
    # evidence); 0.2 (was 0.1) on one series: the network alone 1.3% lower on validation on every
    # seed, the blend unchanged (docs/results/forecast_defaults/, label drop2, 3 seeds x 10 pairs)
    dropout: float | str = default("auto")
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

    def _validate(self) -> AttentionSpec:
        spec = super()._validate()
        if self.target_transform not in (None, "auto"):
            get_scale(self.target_transform)  # a registered scale, or an error naming them
        if self.context_length != "auto":  # 'auto' is checked once the data gives it
            self._check_combination(int(self.context_length))
        return spec

    def _check_combination(self, context_length: int) -> None:
        check_combination(self.head, self.tokens, context_length=context_length,
                          patch_len=self.patch_len, patch_stride=self.patch_stride,
                          channel_independent=self.channel_independent)  # fmt: skip

    def _loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return LOSSES[self.loss](output, target)

    @staticmethod
    def _score_fn(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return -torch.nn.functional.mse_loss(output, target)

    def _auto_steps(self, n_train: int) -> int:
        return AUTO_STEPS

    def _rule(self, name: str) -> tuple | None:
        """The ``(value, fewest series)`` table of parameter ``name`` set to ``'auto'``
        (:data:`AUTO_WIDTHS`, :data:`AUTO_DROPOUT`), or None where it is given."""
        return {"d_model": AUTO_WIDTHS, "dropout": AUTO_DROPOUT}[name] if getattr(
            self, name) == "auto" else None  # fmt: skip

    def _by_series(self, name: str, n_series: int) -> Any:
        """Parameter ``name`` for a fit on ``n_series`` series: its value, or its rule's."""
        rule = self._rule(name)
        if rule is None:
            return getattr(self, name)
        return next(value for value, fewest in rule if n_series >= fewest)

    def _widths(self) -> tuple[int, ...]:
        rule = self._rule("d_model")
        return super()._widths() if rule is None else tuple(width for width, _ in rule)

    def _width(self) -> int:
        return self.d_model_

    def _dropouts(self) -> tuple[float, ...]:
        rule = self._rule("dropout")
        return super()._dropouts() if rule is None else tuple(rate for rate, _ in rule)

    def _dropout(self) -> float:
        return self.dropout_

    def _independent(self) -> bool:
        """Whether a training sample is one channel of a window (patch tokens per channel)."""
        return bool(self.channel_independent) and not get_view(self.tokens).by_channel

    def _batch(self, n_train: int) -> int:
        """``batch_size`` univariate series: whole windows of every channel for variate tokens."""
        size = super()._batch(n_train)
        return max(1, size // self.n_channels_) if get_view(self.tokens).by_channel else size

    def _budget(self, n_train: int) -> Budget:
        """The step budget cut into ``ROUNDS`` validation rounds of ``round_steps`` steps."""
        budget = super()._budget(n_train)
        steps = budget.steps
        if steps is None:
            steps = budget.rounds * -(-n_train // self.batch_size_)
        round_steps = max(1, -(-steps // ROUNDS))
        return Budget(-(-steps // round_steps), steps, round_steps)
