"""The forecaster's data: one object per fit and per predict, and the one place windows are laid.

:class:`ForecastData` holds what was given, whatever its form (an array, a Series or DataFrame,
a long frame of many series, a batch of context windows): each series' rows ``(T_i, C + k)``,
the ``C`` target channels first and the ``k`` covariates after them, on the series scale of the
scale chain (:mod:`.scales`); the covariates' roles (:mod:`.roles`); the per-series statistics the
chain reads (``mean``, ``scale``, ``low``, ``selected``); at predict, the last context of each
series and the future covariates' horizon rows; and how to give forecasts back in the input's
form (:class:`Form`). :mod:`.frames` builds it from every input form.

Windows are laid here once: :func:`split` holds out each series' validation rows (one rule),
:func:`lay_out` puts series end to end with the window starts that stay inside one series, and
:meth:`ForecastData.windows` and :meth:`ForecastData.network_input` cut them with
:class:`~tsattn.training.WindowData` (training, validation, calibration and the anchors' samples;
predict's inputs), so a window is cut by one definition (:func:`tsattn.training.cut`).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from tsattn.estimators.forecaster.roles import Covariates
from tsattn.io import series as series_io
from tsattn.io.panel import long_output
from tsattn.training import WindowData

__all__ = ["Form", "ForecastData", "holdout", "labels", "lay_out", "last_contexts", "pad_left",
           "seasonal_weights", "split", "windows"]  # fmt: skip


@dataclass
class Form:
    """The form forecasts go back in: ``info`` (one series' kind, from
    :func:`tsattn.io.series.as_series`; ``{"kind": "long"}`` for a long frame; None for a batch
    of windows) and, for a long frame, each series' ``ids``, ``last_stamps`` and the ``step``."""

    info: dict | None
    ids: list | None = None
    last_stamps: list | None = None
    step: Any = None

    @property
    def long(self) -> bool:
        return self.info is not None and self.info["kind"] == "long"

    def format(self, out: np.ndarray, column: str = "y") -> Any:
        """``out (n, H, C)`` in the input's form (a long frame, the one series' kind, or an
        array)."""
        if self.info is None:
            return out
        if self.long:
            return long_output(self.ids, self.last_stamps, self.step, out[..., :1], [column])
        return series_io.format_output(out[0], self.info)

    def format_quantiles(self, out: np.ndarray, alpha: np.ndarray) -> Any:
        """Quantiles ``(n, H, C, len(alpha))``: arrays as they are; for a long frame a long frame
        with a column per level; for one pandas series a frame with ``(column, alpha)``
        columns."""
        if self.info is None:
            return out
        if self.long:
            frame = self.format(out[..., 0]).drop(columns="y")
            for j, a in enumerate(alpha):
                frame[float(a)] = out[:, :, 0, j].reshape(-1)
            return frame
        return series_io.format_quantiles(out[0], self.info, alpha)


@dataclass
class ForecastData:
    """What ``fit`` or ``predict`` was given, read (:mod:`.frames`).

    ``rows``: each series ``(T_i, C + k)`` on the series scale (the logarithm of the targets of
    the series ``selected`` marks); ``n_targets`` ``C``; ``covariates`` their names and roles;
    ``form`` how forecasts go back; ``valid``: ``y_val``'s rows (one series). Per series:
    ``mean``/``scale`` ``(n, C + k)`` (the standardisation), ``low (n, C)`` (the floor, None where
    forecasts are not held), ``selected (n,)`` (None: no series on the series scale). At predict:
    ``contexts (n, L, C + k)`` the last context of each series (series scale, unstandardised),
    ``future (n, H, k_f)`` the future covariates' horizon rows (standardised), and ``rows`` each
    series' rows as given (the per-series choice's backtest reads their targets)."""

    rows: list[np.ndarray]
    n_targets: int
    covariates: Covariates
    form: Form
    valid: np.ndarray | None = None
    mean: np.ndarray | None = None
    scale: np.ndarray | None = None
    low: np.ndarray | None = None
    selected: np.ndarray | None = None
    contexts: np.ndarray | None = None
    future: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    @property
    def targets(self) -> list[np.ndarray]:
        """Each series' target rows ``(T_i, C)``."""
        return [r[:, : self.n_targets] for r in self.rows]

    def scaled_contexts(self) -> np.ndarray:
        """``contexts`` standardised per series, ``(n, L, C + k)``."""
        return (self.contexts - self.mean[:, None]) / self.scale[:, None]

    def network_input(self, scaled: np.ndarray, future: np.ndarray | None, horizon: int,
                      device: torch.device) -> torch.Tensor:  # fmt: skip
        """The network's input for the contexts ``scaled (n, L, C + k)`` (the network's units):
        the windows as they are ``(n, L, C)`` without covariates; with them each target channel
        packed with the covariates, ``(n * C, L + H, 1 + k)``, the future-known ones' horizon rows
        ``future (n, H, k_f)`` beside, packed as training packs its samples (:class:`WindowData`)."""
        n, length, width = scaled.shape
        if not len(self.covariates):  # the windows as read (their memory order kept)
            return torch.tensor(scaled, dtype=torch.float32, device=device)
        rows = np.zeros((n, length + horizon, width))
        rows[:, :length] = scaled
        if future is not None:
            rows[:, length:, [self.n_targets + j for j in self.covariates.future]] = future
        tensor = torch.tensor(rows.reshape(n * (length + horizon), width), dtype=torch.float32,
                              device=device)  # fmt: skip
        windows = WindowData(tensor, length, horizon, np.arange(n) * (length + horizon),
                             known=self.covariates.known(length, horizon))  # fmt: skip
        return windows.gather(torch.arange(len(windows), device=device))

    def unpack(self, out: np.ndarray, n: int) -> np.ndarray:
        """Network outputs back to ``(n, H, C)`` (with covariates a sample is one channel)."""
        if not len(self.covariates):
            return out
        return out.reshape(n, self.n_targets, out.shape[1]).transpose(0, 2, 1)


def labels(what: str, n: int, ids: list | None = None, unit: str = "series") -> list[str]:
    """How an error names each of ``n`` rows: a long frame's series by id, the one series given
    as ``what``, else ``"<unit> i"``."""
    if ids is not None:
        return [f"series {i!r}" for i in ids]
    return [what] if n == 1 else [f"{unit} {i}" for i in range(n)]


def pad_left(rows: np.ndarray, length: int) -> np.ndarray:
    """``rows (T, C)`` with its first row repeated before it up to ``length`` rows."""
    if len(rows) >= length:
        return rows
    return np.concatenate([np.repeat(rows[:1], length - len(rows), axis=0), rows])


def last_contexts(rows: list[np.ndarray], context_length: int) -> np.ndarray:
    """``(n, context_length, C + k)``: the last ``context_length`` rows of each series, left-padded
    with its first row where it is shorter."""
    return np.stack([pad_left(r, context_length)[-context_length:] for r in rows])


def holdout(length: int, fraction: float, horizon: int) -> int:
    """The validation rows held out of a series of ``length`` rows, one series or each of many:
    ``max(horizon, ceil(fraction * length))`` (the last ``horizon`` at least, as the M4 rules hold
    out), 0 where ``fraction`` is 0 or the series has no row left for training. Chosen over the
    rule one series had before issue 76 (``ceil(fraction * length)`` rows, none where they were
    fewer than ``horizon`` or left less than a window for training) on single short series' validation
    rows (``docs/results/forecast_defaults/split_rule/``)."""
    if fraction <= 0:
        return 0
    n_val = max(horizon, math.ceil(fraction * length))
    return n_val if length - n_val >= 1 else 0


def split(rows: list[np.ndarray], fraction: float, context_length: int, horizon: int
          ) -> tuple[list[np.ndarray], list[np.ndarray | None]]:  # fmt: skip
    """Each series' training rows and validation rows (:func:`holdout`'s last rows, after
    ``context_length`` rows of context, left-padded where the series is shorter): ``(train,
    valid)``, ``valid[i]`` None where none are held out (with a warning where no series has
    any)."""
    train, valid = [], []
    for r in rows:
        n_val = holdout(len(r), fraction, horizon)
        if not n_val:
            train.append(r)
            valid.append(None)
            continue
        train.append(r[: len(r) - n_val])
        valid.append(pad_left(r, context_length + n_val)[-(context_length + n_val):])
    if fraction > 0 and all(v is None for v in valid):
        warnings.warn(f"every series is at most horizon={horizon} rows long: no validation rows "
                      "can be held out; training without validation and monitoring the training "
                      "loss. Pass longer series or validation_fraction=0 to silence this.",
                      UserWarning, stacklevel=5)  # fmt: skip
    return train, valid


def lay_out(rows: list[np.ndarray | None], context_length: int, horizon: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The series end to end, each left-padded to at least one window: ``(series (R, C),
    window starts inside one series, the series of each start)``; ``None`` entries are skipped."""
    span = context_length + horizon
    parts, starts, owner, offset = [], [], [], 0
    for i, r in enumerate(rows):
        if r is None:
            continue
        r = pad_left(r, span)
        parts.append(r)
        n = len(r) - span + 1
        starts.append(offset + np.arange(n))
        owner.append(np.full(n, i))
        offset += len(r)
    if not parts:
        return np.zeros((0, 0)), np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(parts), np.concatenate(starts), np.concatenate(owner)


def windows(rows: list[np.ndarray | None], context_length: int, horizon: int,
            device: torch.device, channel_independent: bool,
            covariates: Covariates) -> tuple[WindowData, np.ndarray]:  # fmt: skip
    """The windows of the scaled series ``rows`` laid end to end (None entries skipped), and the
    series (index in ``rows``) of each window; with covariates each sample is a target channel
    packed with them, read on their roles' rows."""
    series, starts, owner = lay_out(rows, context_length, horizon)
    tensor = torch.tensor(series, dtype=torch.float32, device=device)
    known = covariates.known(context_length, horizon) if len(covariates) else None
    return WindowData(tensor, context_length, horizon, starts, channel_independent,
                      known), owner  # fmt: skip


def seasonal_weights(rows: list[np.ndarray | None], period: int) -> np.ndarray:
    """``(n_series,)``: one over the squared mean absolute difference at lag ``period`` (lag 1
    where a series is not longer than ``period``) of each standardised series ``rows[i] (T_i, C)``
    over its target columns, 1 for a None entry or a constant series. Weighing a series' squared
    errors by it weighs them as MASE, the M4 competition's scaled error, does: a smooth series,
    whose seasonal naive forecast errs little, counts for more."""
    out = np.ones(len(rows))
    for i, r in enumerate(rows):
        if r is None or len(r) < 2:
            continue
        lag = period if len(r) > period else 1
        d = float(np.mean(np.abs(r[lag:] - r[:-lag])))
        if d > 1e-12:
            out[i] = 1.0 / d**2
    return out
