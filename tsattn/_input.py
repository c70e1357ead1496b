"""The one input validator: every collection format users pass becomes a padded array and lengths.

Accepted ``X``:

* numpy ``(n, channels, length)``; trailing all-NaN steps of a series are padding;
* numpy ``(n, length)``: univariate;
* a list of ``(channels, length_i)`` (or 1-D ``(length_i,)``) arrays of unequal length;
* aeon/sktime collection formats (``pd-multiindex``, ``nested_univ``, ``df-list``, ...), converted
  with aeon's own converter.

Unequal lengths are padded and masked inside the model, never truncated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SeriesBatch", "to_series_batch"]


@dataclass
class SeriesBatch:
    """A collection of series as one padded array.

    values : ``(n, length_max, channels)`` float32, zero at padded steps (time-major for the model).
    lengths : ``(n,)`` int64, real steps per series (each >= 1).
    """

    values: np.ndarray
    lengths: np.ndarray

    @property
    def n_channels(self) -> int:
        return self.values.shape[2]

    @property
    def equal_length(self) -> bool:
        return bool((self.lengths == self.values.shape[1]).all())


def _from_dataframe(X):
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


def to_series_batch(X) -> SeriesBatch:
    """Validate ``X`` and pad it into a :class:`SeriesBatch`.

    Raises ``ValueError`` for: empty input, wrong dimensions, channels differing between series, a
    series with no real step, infinite values, and NaN anywhere other than a trailing all-NaN tail.
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
    values = np.zeros((len(series), max_len, n_channels), dtype=np.float32)
    for i, s in enumerate(series):
        values[i, : lengths[i]] = s[:, : lengths[i]].T
    return SeriesBatch(values=values, lengths=lengths)
