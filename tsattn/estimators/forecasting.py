"""``TSForecaster``: multi-step forecasting of one (possibly multivariate) series with a transformer.

Instance-normalised context windows, patch tokens, the chosen attention and a linear or Fourier
(002, Algorithms 3-4) head, blended with a closed-form linear forecaster (:mod:`._anchor`);
intervals from the validation errors (:mod:`._intervals`); windows cut on the fly under a budget
of optimiser steps (:class:`tsattn.training.WindowData`).
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
import torch

from tsattn.attention import AttentionSpec
from tsattn.estimators import _anchor, _basis
from tsattn.estimators._forecast_fit import PanelForecasting
from tsattn.estimators._forecaster_params import LOSSES, ForecasterParams
from tsattn.estimators._windows import WindowScores
from tsattn.estimators.params import declare
from tsattn.io import series as series_io
from tsattn.nn.forecasting import ForecastingTransformer
from tsattn.training import Budget, TrainingDivergedError, WindowData

__all__ = ["TSForecaster"]

#: Validation samples (windows, or window-channel pairs) kept at most for the calibration after
#: training (anchor, blend, intervals); a fixed random subset above.
MAX_VALID_SAMPLES = 32_768
#: Validation samples scored after each of the ``ROUNDS`` training rounds to pick the best one; a
#: fixed random subset above. Scoring 32,768 samples 20 times took a third of a default fit on
#: ETTm1 (docs/results/speed/fit_time/).
MAX_ROUND_SAMPLES = 8_192
#: ``max_steps='auto'``: optimiser steps whatever the data's size (the best round is kept, so a
#: small series is not overfitted by them; 300 steps left ILI 16-26% worse on validation).
AUTO_STEPS = 3000
#: Validation rounds per fit (each ``round_steps_`` optimiser steps).
ROUNDS = 20


@declare
class TSForecaster(PanelForecasting, WindowScores, ForecasterParams):
    """Transformer forecaster: the ``horizon`` steps after a ``context_length``-step window.

    ``fit`` trains on the stride-1 windows of one series (cut on the fly: memory does not grow
    with the window count) for a budget of optimiser steps (``max_steps='auto'``: ``n_steps_``),
    validated ``ROUNDS`` times on the end of the series (``validation_fraction``) or on ``y_val``
    and keeping the best round's weights (stopping after ``patience`` rounds without a better
    one). Then, on the validation windows, the network's forecast is blended with the ``anchor``
    (``blend_``) and the errors calibrate the intervals of :meth:`predict_quantiles` and
    :meth:`predict_interval`. With ``channel_independent``, a sample is one channel of one window
    and ``batch_size`` counts such univariate windows. :meth:`score` is the *negative* MSE;
    :meth:`mse` and :meth:`mae` the errors. The series is standardised per channel with its
    training part's statistics (``channel_mean_``, ``channel_scale_``), the unit of the loss and of
    the long-horizon benchmarks.

    Attributes
    ----------
    module_ : the trained :class:`tsattn.nn.forecasting.ForecastingTransformer`; ``n_channels_``.
    channel_mean_, channel_scale_ : ndarray (n_channels,), training statistics.
    last_context_ : ndarray (context_length, n_channels), the end of the training series.
    patch_len_ : the patch length used (``patch_len='auto'``: ``context_length // 6``, at most 16).
    patch_stride_ : the steps between two patches' starts (``patch_len_`` without overlap).
    blend_, anchor_ : the network's share in the forecast (1 without anchor or validation data), the anchor used.
    anchor_refit_ : whether the anchor was refitted on the validation rows too (``anchor_refit``).
    network_refit_ : whether the network was trained again on the validation rows too
        (``network_refit``; then ``history_`` and ``best_round_`` are the selection fit's and
        ``refit_steps_`` the refit's optimiser steps).
    period_ : steps per season of the seasonal anchor (1: none; also when the training rows are
        fewer than two seasons).
    interval_table_, interval_floor_, interval_source_ : the calibrated normalised errors.
    history_, best_round_, n_rounds_, round_steps_, n_steps_, max_steps_, interrupted_ : training
        record: a record of ``history_`` per validation round of ``round_steps_`` optimiser steps
        (its ``epoch``: passes over the training samples so far).
    """

    _network = ForecastingTransformer

    def _weight_average(self) -> float | None:
        return self.weight_average

    def _loss(self, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return LOSSES[self.loss](output, target)

    @staticmethod
    def _score_fn(output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return -torch.nn.functional.mse_loss(output, target)

    def _refit_network(self, train_data: WindowData, valid_windows: WindowData,
                       season: torch.Tensor | None, seed: int, rng: np.random.Generator) -> None:  # fmt: skip
        """``network_refit``: a network trained from the same initial weights on the training and
        validation rows as one series (when the validation rows continue the training rows) for
        the ``best_round_`` rounds chosen, with the schedule of the whole budget; it takes the
        chosen anchor, ``blend_`` and season of the selection fit's network."""
        rows = _joined(train_data.x, valid_windows.x, self.context_length)
        if rows is None or self.best_round_ < 1:
            return
        data = self._window_data(rows, rng, self.max_train_windows)
        if season is not None:
            data = _deseasoned(data, season, phase=0)
        chosen = self.module_
        budget = self._budget(len(train_data))  # the selection fit's
        try:
            module, result = self._run(data, None, budget, seed, rng, None, True, "refit",
                                       max_rounds=self.best_round_, user_callbacks=False)  # fmt: skip
        except TrainingDivergedError:
            self.module_ = chosen  # the selection fit's network stays; say so
            warnings.warn("network_refit: training on the validation rows too diverged; "
                          "keeping the network fitted without them.", UserWarning, stacklevel=3)
            return
        if result.interrupted:  # Ctrl-C in the refit: the finished selection fit is kept whole
            self.module_ = chosen
            warnings.warn("network_refit interrupted; keeping the network fitted without the "
                          "validation rows (fitted and usable).", UserWarning, stacklevel=3)
            return
        with torch.no_grad():
            if chosen.anchor is not None:
                module.anchor.load_state_dict(chosen.anchor.state_dict())
            module.set_blend(self.blend_)
            if season is not None:
                module.set_season(season)
        self.module_, self.network_refit_ = module, True
        self.refit_steps_ = result.n_steps

    def _pretrain(self, train_data: WindowData, rng: np.random.Generator) -> None:
        """``basis='ortho'``: the network's bases from the training rows, before any step."""
        if self.basis == "ortho":
            series = train_data.x.double().cpu().numpy()
            self.module_.set_basis(*_basis.temporal_bases(series, self.context_length, self.horizon))

    def _season(self, train_data: WindowData) -> torch.Tensor | None:
        """``(period_, C)`` the profile the network's input is taken from, or None."""
        if not self.deseasonalize or self.period_ <= 1:
            return None
        series = train_data.x.double().cpu().numpy()
        profile = _anchor.cycle_profile(series, self.period_)
        return torch.as_tensor(profile, dtype=train_data.x.dtype, device=train_data.x.device)

    def _validate(self) -> AttentionSpec:
        spec = super()._validate()
        if self.patch_levels > 1 and (self.head != "linear" or self.tokens != "patch"):
            raise ValueError(f"patch_levels={self.patch_levels} needs tokens='patch' and "
                             f"head='linear' (got tokens={self.tokens!r}, head={self.head!r}).")
        if self.basis == "ortho" and self.head != "linear":
            raise ValueError(f"basis='ortho' needs head='linear' (got head={self.head!r}): the "
                             "Fourier head extrapolates steps, not basis coefficients.")
        overlap = self.patch_stride is not None and self.patch_stride != self.patch_len
        if overlap and (self.tokens != "patch" or self.head != "linear" or self.patch_levels > 1
                        or self.token_embedding != "linear"):  # fmt: skip
            raise ValueError(f"patch_stride={self.patch_stride!r} needs tokens='patch', head='linear', "
                             "patch_levels=1 and token_embedding='linear' (got "
                             f"tokens={self.tokens!r}, head={self.head!r}, patch_levels="
                             f"{self.patch_levels}, token_embedding={self.token_embedding!r}).")
        if isinstance(self.patch_stride, Integral) and self.patch_len != "auto" and self.patch_stride > self.patch_len:
            raise ValueError(f"patch_stride={self.patch_stride} exceeds patch_len={self.patch_len}; "
                             "patches would leave steps out.")
        if self.patch_len != "auto" and self.patch_len > self.context_length:
            raise ValueError(f"patch_len={self.patch_len} exceeds context_length="
                             f"{self.context_length}; choose a patch no longer than the context.")
        return spec

    def _auto_steps(self, n_train: int) -> int:
        return AUTO_STEPS

    def _batch(self, n_train: int) -> int:
        """``batch_size`` univariate series: whole windows of every channel for variate tokens."""
        size = super()._batch(n_train)
        return max(1, size // self.n_channels_) if self.tokens == "variate" else size

    def _budget(self, n_train: int) -> Budget:
        """The step budget cut into ``ROUNDS`` validation rounds of ``round_steps`` steps."""
        budget = super()._budget(n_train)
        steps = budget.steps
        if steps is None:
            steps = budget.rounds * -(-n_train // self.batch_size_)
        round_steps = max(1, -(-steps // ROUNDS))
        return Budget(-(-steps // round_steps), steps, round_steps)

    def _network_params(self, spec: AttentionSpec) -> dict:
        """``network_params_`` of the network without covariates."""
        return dict(
            n_channels=self.n_channels_, context_length=int(self.context_length),
            horizon=int(self.horizon), head=self.head, n_harm=int(self.n_harm),
            instance_norm=bool(self.instance_norm), instance_norm_eps=float(self.instance_norm_eps),
            instance_center=self.instance_center, linear_skip=bool(self.linear_skip),
            token_embedding=self.token_embedding,
            channel_independent=self._independent(), patch_len=self.patch_len_, tokens=self.tokens,
            anchor=self.anchor is not None, anchor_period=self.period_,
            season_period=self.period_ if self.deseasonalize else 1, basis=self.basis == "ortho",
            patch_levels=int(self.patch_levels), patch_stride=self.patch_stride_,
            **self._trunk_params(spec),
        )  # fmt: skip

    def _period(self, info: dict | None, n_train: int) -> int:
        """``period_``: the ``period`` parameter, ``'auto'`` read from the time index; 1 without a
        seasonal anchor or with fewer than two seasons of training rows."""
        period = self.period
        if period == "auto":
            index = (info or {}).get("index")
            period = 1 if index is None else series_io.seasonal_period(index)
        period = int(period or 1)
        if (self.anchor not in ("auto", "cycle", "ncycle") and not self.deseasonalize) \
                or n_train < 2 * period:
            period = 1
        needs = ([f"anchor={self.anchor!r}"] if self.anchor in ("cycle", "ncycle") else []) + (
            ["deseasonalize=True"] if self.deseasonalize else [])
        if needs and period == 1:  # never a seasonal setting silently without a season
            raise ValueError(
                f"{' and '.join(needs)} needs a season of at least 2 steps and two seasons of "
                f"training rows; got period={self.period!r} ({n_train} training rows). Pass "
                "period=<steps per season> (e.g. 24 for hourly data), or a pandas series with a "
                "regular DatetimeIndex and period='auto', or use anchor='auto' and "
                "deseasonalize=False.")  # fmt: skip
        return period

    def _independent(self) -> bool:
        """Whether a training sample is one channel of a window (patch tokens per channel)."""
        return bool(self.channel_independent) and self.tokens == "patch"
