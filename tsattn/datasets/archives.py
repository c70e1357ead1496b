"""Loaders for the fixed TRAIN/TEST archives: UEA multivariate, UCR univariate (2018) and TSER.

Files are read with aeon's own readers (``load_from_ts_file``, ``load_from_tsv_file``), so the
arrays are exactly aeon's. Lookup order for ``<archive>/<Name>_<SPLIT>.ts``: the cache (used only if
its sha256 matches the catalogue, where one is recorded), then the copy bundled inside aeon, then a
download into the cache.

The TSER archive keeps growing (e.g. Tecator is not among the 63 names aeon 1.6 lists), so
:func:`load_tser` also takes a name outside the catalogue: it is looked up in the cache and then at
the archive's zip source (``timeseriesclassification.com/aeon-toolkit/<Name>.zip``, where aeon's
own loaders look for names without a Zenodo record), without a checksum. Sets bundled with sktime
(Tecator) are found there, after aeon's bundle, when the cache has no copy.

``load_tser`` also loads the regression tasks derived from the forecasting sets
(:mod:`tsattn.datasets.derived`, e.g. ``"ETTh1NextDayOT"``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import numpy as np

from tsattn._validation import did_you_mean
from tsattn.datasets.cache import (
    DatasetNotAvailableError,
    Source,
    data_dir,
    ensure_file,
    sha256_file,
)
from tsattn.datasets.catalogue import ARCHIVES, archive_names, catalogue, file_sha256, resolve_name

__all__ = [
    "load_tser", "load_uea", "load_ucr", "archive_file", "resolve_archive_name", "OPEN_ARCHIVES",
]  # fmt: skip

Split = Literal["train", "test"] | None
# (n, channels, length) float64 array, or a list of (channels, length_i) arrays
Series = np.ndarray | list


def _aeon_bundled(name: str, split: str) -> Path | None:
    import aeon.datasets

    path = Path(aeon.datasets.__file__).parent / "data" / name / f"{name}_{split}.ts"
    return path if path.is_file() else None


def _sktime_bundled(name: str, split: str) -> Path | None:
    """sktime's bundled copy (Tecator, not in aeon's), found without importing sktime."""
    import importlib.util

    spec = importlib.util.find_spec("sktime")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    path = root / "datasets" / "data" / name / f"{name}_{split}.ts"
    return path if path.is_file() else None


def bundled_file(name: str, split: str) -> Path | None:
    """The copy of ``<name>_<split>.ts`` bundled with aeon, else with sktime, else None."""
    return _aeon_bundled(name, split) or _sktime_bundled(name, split)


#: Archives whose loaders also take names outside the catalogue (fetched from the zip source).
OPEN_ARCHIVES = ("tser",)
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def resolve_archive_name(archive: str, name: str) -> tuple[str, bool]:
    """``(spelling, listed)``: the catalogue's spelling of ``name``, or ``name`` itself for an
    open archive (``listed`` False). An unknown name elsewhere raises ValueError with close
    matches."""
    try:
        return resolve_name(name, archive), True
    except ValueError as err:
        if archive not in OPEN_ARCHIVES:
            raise
        if not isinstance(name, str) or not _SAFE_NAME.fullmatch(name):
            raise ValueError(
                f"{err} A {archive} name outside the catalogue is fetched by name, so it must be "
                f"letters, digits, '_' or '-' (as the archive's names are); got {name!r}."
            ) from None
        return name, False


def _sources(archive: str, name: str, filename: str) -> list[Source]:
    info = catalogue()["archives"][archive]
    out = []
    for template in info["sources"]:
        record = info["zenodo"].get(name)
        if "{record}" in template and record is None:
            continue
        if template.startswith("zip:"):
            out.append(Source(template[4:].format(name=name, record=record), member=filename))
        else:
            out.append(Source(template.format(name=name, record=record, file=filename)))
    return out


def archive_file(archive: str, name: str, split: str, fmt: str = "ts") -> Path:
    """Return a verified local path of one split file, downloading it if needed.

    Parameters
    ----------
    archive : {"uea", "ucr", "tser"}
    name : str
        Dataset name as in the catalogue (case-insensitive).
    split : {"TRAIN", "TEST"}
    fmt : {"ts", "tsv"}
        ``"tsv"`` (UCR only) reads ``ucr/tsv/<Name>_<SPLIT>.tsv``; it has no public per-file
        source (the UCR zip is password protected), so it must be in the cache or mirror.
    """
    if archive not in ARCHIVES:
        raise ValueError(f"archive must be one of {ARCHIVES} (forecasting sets: "
                         f"load_forecasting); got {archive!r}")
    if split not in ("TRAIN", "TEST"):
        raise ValueError(f"split must be 'TRAIN' or 'TEST' for archive_file; got {split!r}")
    if fmt not in ("ts", "tsv") or (fmt == "tsv" and archive != "ucr"):
        raise ValueError(f"format {fmt!r} is not available for {archive}; use 'ts'"
                         + (" or 'tsv'" if archive == "ucr" else ""))
    name, listed = resolve_archive_name(archive, name)
    filename = f"{name}_{split}.{fmt}"
    relpath = f"{archive}/tsv/{filename}" if fmt == "tsv" else f"{archive}/{filename}"
    sha = file_sha256(relpath)
    cached = data_dir() / relpath
    if cached.is_file() and (sha is None or sha256_file(cached) == sha):
        return cached
    if fmt == "ts":
        bundled = bundled_file(name, split)
        if bundled is not None:
            return bundled
    sources = _sources(archive, name, filename) if fmt == "ts" else []
    if listed:
        return ensure_file(relpath, sources, sha)
    try:
        return ensure_file(relpath, sources, sha)
    except DatasetNotAvailableError as err:
        hint = did_you_mean(name, archive_names(archive), 5, quote=False)
        raise DatasetNotAvailableError(
            f"{name!r} is not in the {archive} catalogue, so it was looked for by its name as a "
            f"set of the archive, and not found.{hint}\n{err}"
        ) from None


def _read(path: Path, fmt: str) -> tuple[Series, np.ndarray]:
    if fmt == "tsv":
        from aeon.datasets import load_from_tsv_file

        X, y = load_from_tsv_file(str(path))
        return np.asarray(X, dtype=np.float64), np.asarray(y).astype(str)
    from aeon.datasets import load_from_ts_file

    X, y = load_from_ts_file(str(path))
    if isinstance(X, list):
        X = [np.asarray(x, dtype=np.float64) for x in X]
    else:
        X = np.asarray(X, dtype=np.float64)
    return X, y


def _load(archive: str, name: str, split: Split, fmt: str = "ts") -> tuple[Series, np.ndarray]:
    if fmt not in ("ts", "tsv") or (fmt == "tsv" and archive != "ucr"):
        raise ValueError(f"format {fmt!r} is not available for {archive}; use 'ts'"
                         + (" or 'tsv'" if archive == "ucr" else ""))
    if split is None:
        parts = ["TRAIN", "TEST"]
    elif isinstance(split, str) and split.lower() in ("train", "test"):
        parts = [split.upper()]
    else:
        raise ValueError(f"split must be 'train', 'test' or None (both, train first); got {split!r}")
    loaded = [_read(archive_file(archive, name, part, fmt), fmt) for part in parts]
    if len(loaded) == 1:
        X, y = loaded[0]
    else:
        (X1, y1), (X2, y2) = loaded
        if isinstance(X1, list) or isinstance(X2, list) or X1.shape[1:] != X2.shape[1:]:
            X = list(X1) + list(X2)
        else:
            X = np.concatenate([X1, X2])
        y = np.concatenate([y1, y2])
    if archive == "tser":
        y = np.asarray(y, dtype=np.float64)
    else:
        y = np.asarray(y).astype(str)
    return X, y


def load_uea(name: str, split: Split = "train") -> tuple[Series, np.ndarray]:
    """Load a dataset of the UEA multivariate classification archive (2018).

    Parameters
    ----------
    name : str
        e.g. ``"JapaneseVowels"``; see ``list_datasets("uea")``. Unknown names raise ValueError
        listing close matches.
    split : {"train", "test"} or None
        None returns TRAIN followed by TEST.

    Returns
    -------
    X : ndarray of shape (n_cases, n_channels, length), float64, or list of (n_channels, length_i)
        arrays when lengths differ (e.g. JapaneseVowels, 7-29 steps).
    y : ndarray of shape (n_cases,), str
        Class labels.
    """
    return _load("uea", name, split)


def load_ucr(name: str, split: Split = "train", format: str = "ts") -> tuple[Series, np.ndarray]:
    """Load a dataset of the UCR univariate classification archive (2018); see :func:`load_uea`.

    ``format="tsv"`` reads the archive's original ``.tsv`` form (label first) from
    ``ucr/tsv/<Name>_<SPLIT>.tsv`` in the cache. X has shape (n_cases, 1, length).
    """
    return _load("ucr", name, split, format)


def load_tser(name: str, split: Split = "train") -> tuple[Series, np.ndarray]:
    """Load a time series extrinsic regression dataset (TSER archive); see :func:`load_uea`.

    Returns float64 targets ``y`` of shape (n_cases,). Also loads the tasks derived from the
    forecasting sets (:mod:`tsattn.datasets.derived`; ``catalogue()["derived"]``), e.g.
    ``load_tser("ETTh1NextDayOT")``: ``X (n, channels, window)``.
    """
    from tsattn.datasets.derived import derived_entry, load_derived

    if isinstance(name, str) and derived_entry(name) is not None:
        return load_derived(name, split)
    return _load("tser", name, split)
