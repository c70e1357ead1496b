"""Benchmark data with one call: UEA, UCR and TSER archives, long-horizon forecasting sets, and
panels of many series as long frames (the EPF electricity markets, the M4 competition).

Files come from their canonical public sources into a local cache (``TSATTN_DATA_DIR``, default
``~/.cache/tsattn``), are checked against the sha256 recorded in the catalogue, and are read with
aeon's readers, so every user gets the same arrays. See ``datasets/README.md`` for the catalogue.
"""

from tsattn.datasets.archives import archive_file, load_tser, load_ucr, load_uea
from tsattn.datasets.cache import (
    ChecksumError,
    DatasetNotAvailableError,
    SettingError,
    data_dir,
    git_blob_sha1,
    sha256_file,
)
from tsattn.datasets.catalogue import catalogue, list_datasets, render_readme
from tsattn.datasets.epf import EPFInfo, epf_info, load_epf
from tsattn.datasets.forecasting import (
    ForecastingSplits,
    forecasting_borders,
    forecasting_entry,
    forecasting_splits,
    load_forecasting,
    sliding_windows,
)
from tsattn.datasets.m4 import M4Info, load_m4, m4_info

__all__ = [
    "ChecksumError",
    "DatasetNotAvailableError",
    "EPFInfo",
    "ForecastingSplits",
    "M4Info",
    "SettingError",
    "archive_file",
    "catalogue",
    "data_dir",
    "epf_info",
    "forecasting_borders",
    "forecasting_entry",
    "forecasting_splits",
    "git_blob_sha1",
    "list_datasets",
    "load_epf",
    "load_forecasting",
    "load_m4",
    "load_tser",
    "load_uea",
    "load_ucr",
    "m4_info",
    "render_readme",
    "sha256_file",
    "sliding_windows",
]
