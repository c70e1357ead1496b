"""Long-horizon forecasting sets (ETT, electricity, traffic, weather, exchange_rate, illness):
loading, the standard train/validation/test borders, the train-only scaler, and sliding windows.

The borders follow the Informer/Autoformer code (``data_provider/data_loader.py``,
``Dataset_ETT_hour``, ``Dataset_ETT_minute``, ``Dataset_Custom``), which nearly every later paper
reuses: ETT hourly 12/4/4 months of 30 days (8640/2880/2880 rows; the rest of the file is unused),
ETT 15-minute the same months (x4), every other set 70/10/20 by time with
``num_train = int(n * 0.7)``, ``num_test = int(n * 0.2)``, ``num_vali = n - num_train - num_test``.
Validation and test start ``context_length`` rows before their split, so their first window's
targets are the split's first rows.

Any other set in the same file format (a ``date`` column, then one numeric column per channel) is
named by its path, ``"data/my_series.csv"``: it takes the 70/10/20 borders, context 96 and
horizons 96/192/336/720 of ``Dataset_Custom``, and is read as it is (no checksum); a file named as
a catalogue set (a local ``ETTh1.csv``) takes that set's protocol, with a warning where its bytes
are not the catalogue's.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler

from tsattn.datasets.cache import Source, ensure_file, sha256_file
from tsattn.datasets.catalogue import catalogue, file_sha256, resolve_name

__all__ = ["ForecastingSplits", "forecasting_borders", "forecasting_entry", "forecasting_splits",
           "load_forecasting", "sliding_windows"]

_PARTS = ("train", "val", "test")


#: The protocol of a set named by its file path (``Dataset_Custom``'s).
_FILE_ENTRY = {"split": "ratio_70_10_20", "context_length": 96, "horizons": [96, 192, 336, 720]}


def _is_file(name: str | Path) -> bool:
    return isinstance(name, Path) or (isinstance(name, str) and name.lower().endswith(".csv"))


def forecasting_entry(name: str | Path) -> tuple[str, dict]:
    """``(label, entry)`` of a set: a catalogue name (any case) with its catalogue entry, or the
    path of a CSV file (``file`` in the entry) with its stem as label and the 70/10/20 protocol;
    a file named as a catalogue set (a local ``ETTh1.csv``) takes that set's name and protocol, as
    the published numbers shown beside it assume. Raises ``ValueError`` for an unknown name or a
    missing file."""
    if not _is_file(name):
        label = resolve_name(name, "forecasting")
        return label, catalogue()["forecasting"][label]
    path = Path(name).expanduser()
    if not path.is_file():
        raise ValueError(f"no file {str(path)!r}: give the path of a CSV file with a 'date' column "
                         "and one numeric column per channel, or a catalogue name "
                         "(tsattn.datasets.list_datasets('forecasting')).")  # fmt: skip
    try:
        label = resolve_name(path.stem, "forecasting")
    except ValueError:
        return path.stem, {**_FILE_ENTRY, "file": str(path)}
    entry = {k: v for k, v in catalogue()["forecasting"][label].items() if k != "url"}
    return label, {**entry, "file": str(path), "catalogue_file": entry["file"]}


def load_forecasting(name: str | Path) -> pd.DataFrame:
    """Load a long-horizon forecasting set as a float64 frame indexed by time.

    Parameters
    ----------
    name : {"ETTh1", "ETTh2", "ETTm1", "ETTm2", "electricity", "traffic", "weather", \
"exchange_rate", "illness"} or the path of a CSV file in their format

    Returns
    -------
    pandas.DataFrame of shape (n_rows, n_channels)
        Indexed by a ``DatetimeIndex`` named ``date`` (the file's ``date`` column); the columns
        are the file's other columns in file order (the target ``OT`` last).
    """
    label, entry = forecasting_entry(name)
    if "url" not in entry:
        expected = file_sha256(entry.get("catalogue_file", ""))
        if expected is not None and sha256_file(entry["file"]) != expected:
            warnings.warn(f"{entry['file']} is named as the catalogue's {label} and takes its split, "
                          f"but is not its file (sha256 differs): the published {label} numbers "
                          "beside its results may not apply. Rename it to keep them apart.",
                          UserWarning, stacklevel=2)  # fmt: skip
        stat = Path(entry["file"]).stat()  # a changed file is read again
        return _read_frame(str(Path(entry["file"]).resolve()), stat.st_mtime_ns, stat.st_size).copy()
    path = ensure_file(entry["file"], [Source(entry["url"])], file_sha256(entry["file"]))
    df = pd.read_csv(path)
    df.index = pd.DatetimeIndex(pd.to_datetime(df.pop("date")), name="date")
    return df.astype(np.float64)


@functools.lru_cache(maxsize=2)
def _read_frame(path: str, mtime_ns: int, size: int) -> pd.DataFrame:
    """A user's CSV file, checked: a ``date`` column of increasing times, numeric channels and no
    missing value (each would otherwise give a wrong or NaN score without a word). Cached by
    modification time and size: the benchmark's command checks a file, then runs on it."""
    df = pd.read_csv(path)
    fix = "expected a 'date' column, then one numeric column per channel (as ETTh1.csv)"
    if "date" not in df.columns:
        raise ValueError(f"{path} has no 'date' column (columns: {list(df.columns)[:8]}); {fix}.")
    try:
        index = pd.DatetimeIndex(pd.to_datetime(df.pop("date")), name="date")
    except (ValueError, TypeError) as err:
        raise ValueError(f"{path}: the 'date' column does not parse as times ({err}); {fix}.") from None
    if not index.is_monotonic_increasing or index.has_duplicates:
        raise ValueError(f"{path}: the dates are not strictly increasing; sort the rows by date "
                         "and drop repeated dates.")  # fmt: skip
    text = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])]
    if text or df.shape[1] == 0:
        raise ValueError(f"{path}: {'non-numeric column(s) ' + str(text) if text else 'no channel'}"
                         f"; {fix}.")  # fmt: skip
    missing = df.isna().sum()
    if missing.any():
        raise ValueError(f"{path}: {int(missing.sum())} missing values (first in column "
                         f"{missing.idxmax()!r}); fill or interpolate them first, e.g. "
                         "df.interpolate(limit_direction='both').")  # fmt: skip
    df.index = index
    return df.astype(np.float64)


def forecasting_borders(name: str, n_rows: int, context_length: int
                        ) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    """Return ``((start, end), ...)`` row borders of train, validation and test.

    ``start`` of validation and test is ``context_length`` rows before the split itself;
    ``end`` is exclusive. Follows the Informer/Autoformer code exactly (see module docstring).
    """
    name, entry = forecasting_entry(name)
    split = entry["split"]
    if split in ("ett_hourly", "ett_minute"):
        per_month = 30 * 24 * (4 if split == "ett_minute" else 1)
        n_train, n_val, n_test = 12 * per_month, 4 * per_month, 4 * per_month
        if n_rows < n_train + n_val + n_test:
            raise ValueError(f"{name} needs at least {n_train + n_val + n_test} rows for the "
                             f"12/4/4-month split; got {n_rows}")
    else:
        n_train, n_test = int(n_rows * 0.7), int(n_rows * 0.2)
        n_val = n_rows - n_train - n_test
    if context_length < 0 or context_length > n_train:
        raise ValueError(f"context_length must be in [0, {n_train}] for {name}; "
                         f"got {context_length}")
    return ((0, n_train),
            (n_train - context_length, n_train + n_val),
            (n_train + n_val - context_length, n_train + n_val + n_test))


@dataclass(frozen=True)
class ForecastingSplits:
    """Train/validation/test frames of a forecasting set and the scaler fitted on train.

    Attributes
    ----------
    train, val, test : pandas.DataFrame
        Unscaled rows; ``val`` and ``test`` include the ``context_length`` rows before their
        split (2880 + context rows each for ETTh1).
    scaler : sklearn.preprocessing.StandardScaler
        Fitted on the train rows only.
    borders : tuple of three (start, end) pairs
        Row indices of the three frames in the full frame (end exclusive).
    context_length : int
    """

    train: pd.DataFrame
    val: pd.DataFrame
    test: pd.DataFrame
    scaler: StandardScaler
    borders: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]
    context_length: int

    def scaled(self, part: str) -> np.ndarray:
        """Return ``part`` ("train", "val" or "test") scaled with train statistics, shape
        (rows, channels), float64."""
        if part not in _PARTS:
            raise ValueError(f"part must be one of {_PARTS}; got {part!r}")
        frame = getattr(self, part)
        return self.scaler.transform(frame.to_numpy(dtype=np.float64))

    def scaled_frame(self, part: str) -> pd.DataFrame:
        """:meth:`scaled` as a frame on ``part``'s own time index and columns: what
        ``TSForecaster.fit`` reads the season from (``period='auto'``) and continues at predict."""
        values = self.scaled(part)  # checks part
        frame = getattr(self, part)
        return pd.DataFrame(values, index=frame.index, columns=frame.columns)

    def windows(self, part: str, horizon: int) -> tuple[np.ndarray, np.ndarray]:
        """Return scaled ``(contexts, targets)`` of every window of ``part``; see
        :func:`sliding_windows`."""
        return sliding_windows(self.scaled(part), self.context_length, horizon)


def forecasting_splits(df: pd.DataFrame, name: str, context_length: int = 96
                       ) -> ForecastingSplits:
    """Split a frame from :func:`load_forecasting` by the standard borders and fit the scaler.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_channels)
    name : str
        The dataset's name, which decides the border convention.
    context_length : int, default 96
        Rows of history before each target window (36 for illness in the papers).
    """
    borders = forecasting_borders(name, len(df), context_length)
    train, val, test = (df.iloc[start:end] for start, end in borders)
    scaler = StandardScaler().fit(train.to_numpy(dtype=np.float64))
    return ForecastingSplits(train, val, test, scaler, borders, context_length)


def sliding_windows(values: np.ndarray, context_length: int, horizon: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Cut every stride-1 window whose targets lie inside ``values``.

    Parameters
    ----------
    values : ndarray of shape (rows, channels)
    context_length, horizon : int
        Steps of input and of target per window.

    Returns
    -------
    contexts : ndarray of shape (n_windows, context_length, channels)
    targets : ndarray of shape (n_windows, horizon, channels)
        ``n_windows = rows - context_length - horizon + 1``; window ``i`` has context rows
        ``i : i + context_length`` and target rows ``i + context_length : ... + horizon``.
        Both are read-only views into ``values`` (no copy: the electricity test split would
        otherwise take gigabytes); ``np.array(...)`` them to get writable copies.
    """
    values = np.asarray(values)
    if values.ndim != 2:
        raise ValueError(f"values must be 2-D (rows, channels); got shape {values.shape}")
    if context_length < 1 or horizon < 1:
        raise ValueError(f"context_length and horizon must be >= 1; got {context_length}, "
                         f"{horizon}")
    total = context_length + horizon
    if values.shape[0] < total:
        raise ValueError(f"{values.shape[0]} rows are too few for one window of "
                         f"{context_length} + {horizon} steps")
    # (n_windows, channels, total) -> (n_windows, total, channels)
    view = np.lib.stride_tricks.sliding_window_view(values, total, axis=0).transpose(0, 2, 1)
    return view[:, :context_length], view[:, context_length:]
