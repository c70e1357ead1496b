"""The M4 competition (Makridakis et al. 2020) as long frames, one frequency at a time.

The files are the competition's own (``Mcompetitions/M4-methods``, ``Dataset/Train`` and
``Dataset/Test``, pinned to a commit): one series a row, its id (``H1``) then its values, shorter
series ending in empty fields; the test file holds each series' next ``horizon`` values. ``ds`` is
the step number: ``1..T`` for a series' ``T`` training values, ``T+1..T+horizon`` for its test
values. (M4-info.csv at the same source gives start dates with two-digit years; they are not read:
the competition's rules and its measures use the steps only.)

Checks: the sha256 the catalogue records where one was computed here (Hourly, Weekly, and every
test file but Monthly's), else the git blob id the source repository publishes in its tree.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tsattn.datasets.cache import Source, ensure_file
from tsattn.datasets.catalogue import catalogue, file_checksums, resolve_name

__all__ = ["M4Info", "M4_SPLITS", "load_m4", "m4_info", "read_m4_csv"]

M4_SPLITS = ("train", "test")


@dataclass(frozen=True)
class M4Info:
    """Facts of one M4 frequency, from the catalogue (the competition's guide).

    Attributes
    ----------
    frequency : str
        ``"Yearly"``, ``"Quarterly"``, ``"Monthly"``, ``"Weekly"``, ``"Daily"`` or ``"Hourly"``.
    horizon : int
        Steps to forecast: 6, 8, 18, 13, 14, 48.
    seasonal_period : int
        The season of the competition's measures (MASE, Naive2): 1, 4, 12, 1, 1, 24.
    n_series : int
        23000, 24000, 48000, 359, 4227, 414.
    prefix : str
        First letter of the series ids (``"H"`` for ``H1``...).
    """

    frequency: str
    horizon: int
    seasonal_period: int
    n_series: int
    prefix: str


def m4_info(frequency: str) -> M4Info:
    """Return the :class:`M4Info` of ``frequency`` (any case)."""
    frequency = resolve_name(frequency, "m4")
    entry = catalogue()["m4"]["frequencies"][frequency]
    return M4Info(frequency=frequency, horizon=entry["horizon"],
                  seasonal_period=entry["seasonal_period"], n_series=entry["n_series"],
                  prefix=entry["prefix"])


def _m4_file(frequency: str, split: str) -> Path:
    m4 = catalogue()["m4"]
    relpath = m4["file"].format(frequency=frequency, split=split)
    url = m4["url"].format(frequency=frequency, split=split, Split=split.capitalize())
    return ensure_file(relpath, [Source(url)], *file_checksums(relpath))


def load_m4(frequency: str, split: str = "train") -> pd.DataFrame:
    """Load one M4 frequency's training or test values as a long frame, from the checksummed
    cache (downloaded once; the test split also reads the training file, for the step numbers).

    Parameters
    ----------
    frequency : {"Yearly", "Quarterly", "Monthly", "Weekly", "Daily", "Hourly"}
        Any case; :func:`m4_info` gives its horizon and seasonal period.
    split : {"train", "test"}, default "train"

    Returns
    -------
    pandas.DataFrame of shape (n_values, 3)
        Columns ``unique_id`` (the series id, str), ``ds`` (int64 step: ``1..T`` in train,
        ``T+1..T+horizon`` in test, ``T`` the series' training length) and ``y`` (float64);
        sorted by ``(unique_id, ds)`` (ids in string order: H1, H10, H100, ...), default index.

    Raises
    ------
    DatasetNotAvailableError
        Not cached and not downloadable (the message names the URL and where to put the file).
    ValueError
        Unknown frequency or split, or files not in the M4 layout.
    """
    info = m4_info(frequency)
    if split not in M4_SPLITS:
        raise ValueError(f"split must be one of {M4_SPLITS}; got {split!r}")
    train = read_m4_csv(_m4_file(info.frequency, "train"))
    if split == "train":
        return _long(train, {sid: 1 for sid in train})
    path = _m4_file(info.frequency, "test")
    test = read_m4_csv(path)
    if set(test) != set(train):
        raise ValueError(f"{path}: its series ids differ from the training file's "
                         f"({len(set(test) ^ set(train))} ids in only one of them).")  # fmt: skip
    short = [sid for sid, v in test.items() if len(v) != info.horizon]
    if short:
        raise ValueError(f"{path}: series {short[0]} has {len(test[short[0]])} test values, not "
                         f"the horizon {info.horizon} ({len(short)} series so).")  # fmt: skip
    return _long(test, {sid: len(values) + 1 for sid, values in train.items()})


def read_m4_csv(path: str | Path) -> dict[str, np.ndarray]:
    """Read an M4 file: ``{series id: float64 values}`` in file order, the empty fields that end
    shorter series dropped. A missing value inside a series, or a row without values, raises a
    ``ValueError`` naming the series."""
    out: dict[str, np.ndarray] = {}
    with open(path, newline="") as fh:
        rows = csv.reader(fh)
        next(rows, None)  # "V1","V2",...
        for row in rows:
            if not row:
                continue
            values = row[1:]
            while values and values[-1] == "":
                values.pop()
            try:
                out[row[0]] = np.array(values, dtype=np.float64)
            except ValueError:
                raise ValueError(f"{path}: series {row[0]} has a missing or non-numeric value "
                                 "inside it; the M4 files have none: download the file "
                                 "again.") from None  # fmt: skip
            if not values:
                raise ValueError(f"{path}: series {row[0]} has no values.")
    return out


def _long(series: dict[str, np.ndarray], first: dict[str, int]) -> pd.DataFrame:
    """Stack ``series`` into ``unique_id, ds, y`` sorted by id, ``ds`` counting from ``first``."""
    ids = sorted(series)
    lengths = np.array([len(series[s]) for s in ids])
    starts = np.repeat([first[s] for s in ids], lengths)
    offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return pd.DataFrame({
        "unique_id": np.repeat(np.array(ids, dtype=object), lengths),
        "ds": (starts + offsets).astype(np.int64),
        "y": np.concatenate([series[s] for s in ids]) if ids else np.empty(0),
    })
