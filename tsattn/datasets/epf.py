"""The EPF day-ahead electricity price benchmark (Lago et al. 2021) as long frames.

Five markets, hourly, 52,416 rows each: Nord Pool (``NP``), PJM (``PJM``), EPEX Belgium
(``BE``), France (``FR``) and Germany (``DE``), each with two day-ahead forecasts (of load, and of
generation or wind) as covariates. Both covariates are future-known in the market's setting: they
are published before the day-ahead auction, so at a forecast origin at midnight their next 24
values are known (TimeXer's protocol reads them as past-only).

Two distributions of the same data are read: thuml/TimeXer's copy (``source="timexer"``, the
default; a ``date`` column as ``2013/1/1 0:00``, the covariates, the price as ``OT``), whose
sha256 the catalogue records for all five markets, and epftoolbox's Zenodo record 4624805
(``source="epftoolbox"``; the date first as ISO times, the price, then the covariates, under other
headers), for which no checksum is published: the cache records the sha256 of the first download
and checks it afterwards. Columns are matched by their header, whatever their order.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tsattn.datasets.cache import Source, ensure_file
from tsattn.datasets.catalogue import catalogue, file_checksums, resolve_name

__all__ = ["EPF_SOURCES", "EPFInfo", "epf_info", "load_epf", "read_epf_csv"]

#: The distributions ``load_epf`` reads (``source=``).
EPF_SOURCES = ("timexer", "epftoolbox")
_TIME_FORMATS = ("%Y/%m/%d %H:%M", "ISO8601")


@dataclass(frozen=True)
class EPFInfo:
    """Facts of one EPF market, from the catalogue.

    Attributes
    ----------
    market : str
        ``"NP"``, ``"PJM"``, ``"BE"``, ``"FR"`` or ``"DE"`` (the frame's ``unique_id``).
    name : str
        What the price is (e.g. ``"Nord Pool system price"``).
    frequency : str
        ``"h"`` (pandas alias).
    horizon, seasonal_period : int
        24 and 24: one day ahead, daily season.
    covariates : tuple of str
        The covariate columns of the frame, in order (e.g. ``("load_forecast", "wind_forecast")``).
    future_covariates : tuple of str
        Those known for the horizon at a forecast origin: both day-ahead forecasts.
    start, end : pandas.Timestamp
        First and last hour of the series.
    n_rows : int
        52416.
    """

    market: str
    name: str
    frequency: str
    horizon: int
    seasonal_period: int
    covariates: tuple[str, ...]
    future_covariates: tuple[str, ...]
    start: pd.Timestamp
    end: pd.Timestamp
    n_rows: int


def epf_info(market: str) -> EPFInfo:
    """Return the :class:`EPFInfo` of ``market`` (any case; unknown names list close matches)."""
    market = resolve_name(market, "epf")
    epf = catalogue()["epf"]
    entry = epf["markets"][market]
    covariates = tuple(entry["covariates"])
    start, end = (pd.Timestamp(t) for t in entry["period"])
    return EPFInfo(market=market, name=entry["name"], frequency="h", horizon=epf["horizon"],
                   seasonal_period=epf["seasonal_period"], covariates=covariates,
                   future_covariates=covariates, start=start, end=end, n_rows=entry["rows"])


def load_epf(market: str, source: str = "timexer") -> pd.DataFrame:
    """Load one EPF market as a long frame, from the checksummed cache (downloaded once).

    Parameters
    ----------
    market : {"NP", "PJM", "BE", "FR", "DE"}
        Any case.
    source : {"timexer", "epftoolbox"}, default "timexer"
        Which distribution (see the module docstring); cached as ``forecasting/epf/<market>.csv``
        and ``forecasting/epf/epftoolbox/<market>.csv``.

    Returns
    -------
    pandas.DataFrame of shape (52416, 3 + 2)
        Columns ``unique_id`` (the market, str), ``ds`` (hourly ``datetime64[ns]``, naive local
        time), ``y`` (the price, float64), then the two covariates (float64) named in
        ``epf_info(market).covariates``; sorted by ``ds``, default index.

    Raises
    ------
    DatasetNotAvailableError
        Not cached and not downloadable (the message names the URL and where to put the file).
    ValueError
        Unknown market or source, or a file whose header, times or values are not as expected.
    """
    market = resolve_name(market, "epf")
    if source not in EPF_SOURCES:
        raise ValueError(f"source must be one of {EPF_SOURCES}; got {source!r}")
    src = catalogue()["epf"]["sources"][source]
    relpath = src["file"].format(market=market)
    sha256, git_sha1 = file_checksums(relpath)
    path = ensure_file(relpath, [Source(src["url"].format(market=market))], sha256, git_sha1)
    return read_epf_csv(path, market)


def _column_names(header: list[str], market: str, path: Path) -> dict[str, str]:
    """``{file header: frame column}`` for every column after the first (the times)."""
    epf = catalogue()["epf"]
    known = {h.casefold(): "y" for h in epf["price_headers"]}
    for name, cov in epf["markets"][market]["covariates"].items():
        known.update({h.casefold(): name for h in cov["headers"]})
    names = {}
    for column in header[1:]:
        target = known.get(column.strip().casefold())
        if target is None or target in names.values():
            expected = sorted(set(epf["price_headers"]) | {
                h for c in epf["markets"][market]["covariates"].values() for h in c["headers"]})
            raise ValueError(
                f"{path}: column {column!r} is {'repeated' if target else 'not a known header'} "
                f"for the EPF market {market}; expected the times first, then the price and the "
                f"two covariates under headers among {expected}.")
        names[column] = target
    missing = {"y", *epf["markets"][market]["covariates"]} - set(names.values())
    if missing:
        raise ValueError(f"{path}: no column for {sorted(missing)} of the EPF market {market} "
                         f"(header: {header}).")  # fmt: skip
    return names


def _parse_times(values: pd.Series, path: Path) -> pd.DatetimeIndex:
    for fmt in _TIME_FORMATS:
        try:
            return pd.DatetimeIndex(pd.to_datetime(values, format=fmt))
        except (ValueError, TypeError):
            continue
    raise ValueError(f"{path}: the first column does not parse as times in either EPF format "
                     f"(e.g. '2013/1/1 0:00' or '2013-01-01 00:00:00'); first value "
                     f"{values.iloc[0]!r}.")  # fmt: skip


def read_epf_csv(path: str | Path, market: str) -> pd.DataFrame:
    """Read an EPF market file in either distribution's format into the frame of :func:`load_epf`.

    The first column holds the times; the others are matched to ``y`` and the covariates by their
    header (spaces and case ignored). The times must be hourly without gaps or repeats, and every
    value a number: each fault raises a ``ValueError`` naming the file and the row.
    """
    path = Path(path)
    market = resolve_name(market, "epf")
    raw = pd.read_csv(path)
    names = _column_names(list(raw.columns), market, path)
    times = _parse_times(raw.iloc[:, 0], path)
    bad = np.flatnonzero((times[1:] - times[:-1]) != pd.Timedelta(hours=1))
    if len(bad):
        i = int(bad[0])
        raise ValueError(f"{path}: the times are not hourly without gaps: row {i + 1} "
                         f"({times[i]}) is followed by {times[i + 1]}.")  # fmt: skip
    frame = raw.iloc[:, 1:].rename(columns=names)
    order = ["y", *catalogue()["epf"]["markets"][market]["covariates"]]
    try:
        values = frame[order].astype(np.float64)
    except (ValueError, TypeError) as err:
        raise ValueError(f"{path}: a non-numeric value in the price or covariates ({err}).") from None
    missing = values.isna().to_numpy().nonzero()
    if len(missing[0]):
        row, col = int(missing[0][0]), order[int(missing[1][0])]
        raise ValueError(f"{path}: missing value in {col!r} at {times[row]} (row {row + 1}); the "
                         "published files have none: download the file again.")  # fmt: skip
    out = pd.DataFrame({"unique_id": market, "ds": times.as_unit("ns").to_numpy()})
    return pd.concat([out, values.reset_index(drop=True)], axis=1)
