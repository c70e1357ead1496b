"""Benchmark data with one call: UEA, UCR and TSER archives and long-horizon forecasting sets.

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
    sha256_file,
)
from tsattn.datasets.catalogue import catalogue, list_datasets, render_readme
from tsattn.datasets.forecasting import (
    ForecastingSplits,
    forecasting_borders,
    forecasting_entry,
    forecasting_splits,
    load_forecasting,
    sliding_windows,
)

__all__ = [
    "ChecksumError",
    "DatasetNotAvailableError",
    "ForecastingSplits",
    "SettingError",
    "archive_file",
    "catalogue",
    "data_dir",
    "forecasting_borders",
    "forecasting_entry",
    "forecasting_splits",
    "list_datasets",
    "load_forecasting",
    "load_tser",
    "load_uea",
    "load_ucr",
    "render_readme",
    "sha256_file",
    "sliding_windows",
]
