"""Collections of series: every collection format users pass becomes a padded array and lengths.

Accepted ``X``:

* numpy ``(n, channels, length)``; trailing all-NaN steps of a series are padding;
* numpy ``(n, length)``: univariate;
* a list of ``(channels, length_i)`` (or 1-D ``(length_i,)``) arrays of unequal length;
* pandas collection formats: ``pd-multiindex`` (rows indexed by (instance, time), one column per
  channel; slices of a larger frame included), sktime's ``nested_univ`` (one row per series, one
  cell per channel holding a pd.Series or array), and the others aeon converts (``pd-wide``, ...).
  Series are taken in the order their instance ids first appear, as ``y`` is positional (sktime's
  order too; aeon's converter sorts the ids, which would silently misalign ``y``), and the steps of
  a series are sorted by their time labels;
* a list of DataFrames, one per series: aeon's ``df-list`` (``(channels, length_i)``, numbered
  columns) or sktime's (``(length_i, channels)``: a time index or named columns, as sktime's
  ``var_0``...). A frame with numbered columns and a plain index is read as aeon's.

Unequal lengths are padded and masked inside the model, never truncated. The model computes in
float32: values beyond its range (about 3.4e38) are refused, and a warning says when rounding to
float32 drowns a channel's variation (a large offset with small changes, or values below float32's
smallest numbers); in both cases the fix is to rescale or centre ``X`` first, which the per-channel
standardisation of the estimators makes free of any other effect.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

__all__ = ["SeriesBatch", "to_series_batch"]


@dataclass
class SeriesBatch:
    """A collection of series as one padded array.

    Attributes
    ----------
    values : ndarray ``(n, length_max, channels)``
        float32 (or the ``dtype`` asked of :func:`to_series_batch`), zero at padded steps
        (time-major for the model).
    lengths : ndarray ``(n,)``
        int64, real steps per series (each >= 1).
    """

    values: np.ndarray
    lengths: np.ndarray

    @property
    def n_channels(self) -> int:
        return self.values.shape[2]

    @property
    def equal_length(self) -> bool:
        return bool((self.lengths == self.values.shape[1]).all())


def _from_multiindex(X) -> list[np.ndarray]:
    """``pd-multiindex`` (last level time, the others the instance) -> list of (channels, length)."""
    import pandas as pd

    index = X.index
    dup = index.duplicated()
    if dup.any():
        label = "(" + ", ".join(str(v) for v in index[dup][0]) + ")"
        raise ValueError(
            f"X (pd-multiindex) has the (instance, time) label {label} more than once; "
            "each instance may have each time label once. Drop or aggregate the duplicate rows."
        )
    codes, _ = index.droplevel(-1).factorize()  # instance ids in order of first appearance
    try:
        ranks, _ = pd.factorize(index.get_level_values(-1), sort=True)
    except TypeError as err:
        raise ValueError(
            f"the time level of X (pd-multiindex) cannot be sorted ({err}); use one type of time "
            "label (integers or timestamps)."
        ) from err
    try:
        values = X.to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"X (pd-multiindex) has non-numeric columns ({err}); pass numeric channels only."
        ) from err
    order = np.lexsort((ranks, codes))
    ends = np.cumsum(np.bincount(codes))
    return [part.T for part in np.split(values[order], ends[:-1])]


def _is_nested(X) -> bool:
    import pandas as pd

    return (
        isinstance(X, pd.DataFrame)
        and X.size > 0
        and all(d.kind == "O" for d in X.dtypes)
        and all(isinstance(v, (pd.Series, np.ndarray, list)) for v in X.iloc[0])
    )


def _from_nested(X) -> list[np.ndarray]:
    """sktime's ``nested_univ`` (row = series, cell = one channel's values) -> list of arrays."""
    out = []
    for i, row in enumerate(X.itertuples(index=False)):
        channels = [_as_float(cell, f"series {i}, channel {c}").ravel() for c, cell in enumerate(row)]
        lengths = {len(c) for c in channels}
        if len(lengths) > 1:
            raise ValueError(
                f"series {i} of X (nested_univ) has channels of lengths {sorted(lengths)}; the "
                "channels of one series must have the same length (pad the shorter ones with "
                "trailing NaN)."
            )
        out.append(np.stack(channels))
    return out


def _from_dataframe(X):
    import pandas as pd

    if len(X) == 0:
        raise ValueError(f"X is empty: a {type(X).__name__} with 0 rows; pass at least one series.")
    if isinstance(X, pd.DataFrame) and isinstance(X.index, pd.MultiIndex):
        return _from_multiindex(X)
    if _is_nested(X):
        return _from_nested(X)
    try:
        from aeon.utils.conversion import convert_collection
    except ImportError as err:  # pragma: no cover - aeon is a core dependency
        raise ImportError("Reading pandas collection formats needs aeon: pip install aeon") from err
    try:
        return convert_collection(X, "np-list")
    except Exception as err:
        raise ValueError(
            "X is a pandas object that is not an aeon/sktime collection format (pd-multiindex, "
            "nested_univ, df-list, ...). Pass a numpy array (n, channels, length), a 2-D array "
            f"(n, length) or a list of (channels, length_i) arrays. aeon said: {err}"
        ) from err


def _series_list(X) -> list[np.ndarray]:
    """Normalise X to a list of float64 ``(channels, length_i)`` arrays (length_i may include NaN tails)."""
    try:
        import pandas as pd

        if isinstance(X, (pd.DataFrame, pd.Series)):
            X = _from_dataframe(X)
    except ImportError:  # pragma: no cover
        pass
    if hasattr(X, "detach") and hasattr(X, "cpu"):  # torch tensor
        X = X.detach().cpu().numpy()
    if isinstance(X, (list, tuple)):
        if len(X) == 0:
            raise ValueError("X is empty: got an empty list of series; pass at least one series.")
        out = []
        for i, s in enumerate(X):
            a = _as_float(s, f"series {i}")
            if _time_by_channels(s):
                a = a.T
            if a.ndim == 1:
                a = a[None, :]
            if a.ndim != 2:
                raise ValueError(
                    f"series {i} in the list has shape {a.shape}; each must be (channels, length) "
                    "or (length,)."
                )
            out.append(a)
        return out
    a = _as_float(X, "X")
    if a.ndim == 1:
        raise ValueError(
            f"X is 1-D (shape {a.shape}); expected (n_series, n_channels, series_length) or "
            "(n_series, series_length). Reshape your data: X.reshape(1, -1) for a single series, "
            "X.reshape(-1, 1) for many series of length 1."
        )
    if a.ndim == 2:
        if a.shape[1] == 0:
            raise ValueError(
                f"X has 0 feature(s) (shape={a.shape}) while a minimum of 1 is required: each "
                "series needs at least one time step."
            )
        a = a[:, None, :]
    if a.ndim != 3:
        raise ValueError(
            f"X has {a.ndim} dimension(s) (shape {a.shape}); expected (n_series, n_channels, "
            "series_length), (n_series, series_length) for univariate series, or a list of "
            "(n_channels, length_i) arrays."
        )
    if a.shape[0] == 0:
        raise ValueError(f"X is empty: shape {a.shape} has 0 series; pass at least one series.")
    return list(a)


def _time_by_channels(frame) -> bool:
    """Whether a DataFrame in a list holds one series as (time, channels) (sktime's ``df-list``)
    rather than (channels, time) (aeon's): a time index, or named rather than numbered columns."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        return False
    if isinstance(frame.index, (pd.DatetimeIndex, pd.PeriodIndex, pd.TimedeltaIndex)):
        return True
    return not pd.api.types.is_integer_dtype(frame.columns.dtype)


def _as_float(a, what: str) -> np.ndarray:
    if hasattr(a, "toarray") or type(a).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"Sparse data was passed for {what}, but dense data is required. Use '.toarray()' to "
            "convert to a dense numpy array."
        )
    try:
        arr = np.asarray(a)
        if arr.dtype.kind == "c":
            raise ValueError(f"Complex data not supported: {what} is complex; pass real values.")
        arr = arr.astype(np.float64, copy=False)
    except TypeError as err:  # same type as numpy/sklearn raise for non-numeric entries
        raise TypeError(f"{what} has non-numeric entries: {err}") from err
    except ValueError as err:
        raise ValueError(f"{what} could not be converted to a float array: {err}") from err
    return arr


def to_series_batch(X, dtype: type = np.float32, check_float32: bool | None = None) -> SeriesBatch:
    """Validate ``X`` and pad it into a :class:`SeriesBatch` of ``dtype`` values.

    Raises ``ValueError`` for: empty input, wrong dimensions, channels differing between series, a
    series with no real step, infinite values, NaN anywhere other than a trailing all-NaN tail, and
    (``dtype=float32``) values beyond float32's range. Warns when rounding to float32 drowns a
    channel's variation. ``dtype=np.float64`` keeps the values as given, for a caller that
    standardises in float64 before its own cast; ``check_float32`` (default: only for float32)
    runs the float32 checks on such a batch too.
    """
    series = _series_list(X)
    n_channels = series[0].shape[0]
    lengths = np.empty(len(series), dtype=np.int64)
    for i, s in enumerate(series):
        if s.shape[0] != n_channels:
            raise ValueError(
                f"series {i} has {s.shape[0]} channels but series 0 has {n_channels}; every series "
                "must have the same number of channels."
            )
        if n_channels == 0:
            raise ValueError("X has 0 channels; each series needs at least one channel.")
        if np.isinf(s).any():
            raise ValueError(
                f"series {i} contains infinite values; clean or impute them before fitting."
            )
        nan_steps = np.isnan(s).any(axis=0)
        if nan_steps.any():
            real = np.flatnonzero(~np.isnan(s).all(axis=0))
            length = int(real[-1]) + 1 if real.size else 0
            if nan_steps[:length].any():
                t = int(np.flatnonzero(nan_steps[:length])[0])
                raise ValueError(
                    f"series {i} has NaN at time step {t}, inside the series. Only trailing "
                    "all-NaN steps are read as padding of unequal-length series; impute missing "
                    "values first (e.g. with sklearn's SimpleImputer or aeon's transformers)."
                )
        else:
            length = s.shape[1]
        if length == 0:
            raise ValueError(
                f"series {i} has no real time step (length 0 or all NaN); drop it or fill it."
            )
        lengths[i] = length
    max_len = int(lengths.max())
    values = np.zeros((len(series), max_len, n_channels), dtype=dtype)
    if check_float32 is None:
        check_float32 = np.dtype(dtype) == np.float32
    check = _Float32Check(n_channels) if check_float32 else None
    for i, s in enumerate(series):
        real = s[:, : lengths[i]]
        if check is not None:
            check.add(i, real)
        values[i, : lengths[i]] = real.T
    if check is not None:
        check.warn()
    return SeriesBatch(values=values, lengths=lengths)


_F32 = np.finfo(np.float32)
#: Rounding noise (std of the float32 error) above this fraction of a channel's spread warns.
ROUNDING_NOISE_WARN = 0.01


class _Float32Check:
    """Refuses values float32 cannot hold; measures, per channel, the noise rounding adds.

    Fed one series at a time (``(channels, length)`` float64), so it needs no copy of the data:
    the channel spread is combined across series with Chan et al.'s pairwise update (stable for
    a large offset, which is the case it looks for).
    """

    def __init__(self, n_channels: int) -> None:
        self.n = 0
        self.mean = np.zeros(n_channels)
        self.m2 = np.zeros(n_channels)  # sum of squared deviations from the mean
        self.err = np.zeros(n_channels)  # sum of (float32(x) - x)
        self.err2 = np.zeros(n_channels)  # sum of (float32(x) - x) ** 2
        self.peak = np.zeros(n_channels)  # largest |x|

    def add(self, i: int, real: np.ndarray) -> None:
        peak = np.abs(real).max(axis=1)
        if (peak > _F32.max).any():
            c = int(np.argmax(peak > _F32.max))
            t = int(np.argmax(np.abs(real[c]) > _F32.max))
            raise ValueError(
                f"X holds values beyond float32's range of +-{_F32.max:.3g}, in which the model "
                f"computes (first: series {i}, channel {c}, time step {t}: {real[c, t]:.3g}); they "
                "would become inf and every prediction garbage. Rescale X first, e.g. "
                f"X / 1e{int(np.ceil(np.log10(peak.max()))) - 30}: each channel is standardised "
                "inside the estimator, so a constant factor changes nothing else."
            )
        self.peak = np.maximum(self.peak, peak)
        n = real.shape[1]
        mean = real.mean(axis=1)
        m2 = ((real - mean[:, None]) ** 2).sum(axis=1)
        total = self.n + n
        delta = mean - self.mean
        self.mean = self.mean + delta * (n / total)
        self.m2 = self.m2 + m2 + delta**2 * (self.n * n / total)
        self.n = total
        err = real.astype(np.float32).astype(np.float64) - real
        self.err += err.sum(axis=1)
        self.err2 += (err**2).sum(axis=1)

    def warn(self) -> None:
        spread = np.sqrt(self.m2 / self.n)
        noise = np.sqrt(np.maximum(self.err2 / self.n - (self.err / self.n) ** 2, 0.0))
        for c in np.flatnonzero(noise > ROUNDING_NOISE_WARN * spread):
            warnings.warn(
                f"channel {c} of X varies by {spread[c]:.3g} (std) around {self.mean[c]:.7g}: "
                "float32, in which the model computes, keeps about 7 significant digits, so "
                f"rounding adds noise of {100 * noise[c] / spread[c]:.0f}% of that variation"
                + (" (its values are below float32's smallest normal number)"
                   if self.peak[c] < _F32.tiny else "")
                + f". Centre or rescale channel {c} first (subtract its mean, or multiply tiny "
                "values by a power of ten): the estimators standardise each channel anyway.",
                UserWarning,
                stacklevel=_outside_tsattn(),
            )


def _outside_tsattn() -> int:
    """The ``stacklevel`` of the innermost caller outside the tsattn package (the user's line)."""
    import os
    import sys

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tsattn/, not tsattn/io/
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame, level = frame.f_back, level + 1
    return level
