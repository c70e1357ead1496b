"""EPF markets and M4 frequencies as long frames: the shared files through the cache, checked
against the raw CSV rows; the epftoolbox layout; corrupt and missing files; bad files."""

from __future__ import annotations

import csv
import shutil

import numpy as np
import pandas as pd
import pytest

from tests.helpers.datasets import isolate
from tsattn.datasets import (
    DatasetNotAvailableError,
    catalogue,
    epf_info,
    load_epf,
    load_m4,
    m4_info,
)
from tsattn.datasets.epf import read_epf_csv
from tsattn.datasets.m4 import read_m4_csv

SHARED_EPF = ("NP", "PJM", "BE")
COVARIATES = {"NP": ("load_forecast", "wind_forecast"),
              "PJM": ("load_forecast", "zonal_load_forecast"),
              "BE": ("load_forecast", "generation_forecast")}  # fmt: skip


@pytest.fixture
def shared_cache(monkeypatch, shared_datasets):
    isolate(monkeypatch, shared_datasets)  # offline, read-only: nothing may be downloaded
    return shared_datasets


def _raw_rows(path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("market", SHARED_EPF)
def test_epf_market_frame(shared_cache, market):
    df = load_epf(market)
    info = epf_info(market)
    assert df.shape == (52416, 5) and info.n_rows == 52416
    assert list(df.columns) == ["unique_id", "ds", "y", *COVARIATES[market]]
    assert info.covariates == info.future_covariates == COVARIATES[market]
    assert (info.horizon, info.seasonal_period, info.frequency) == (24, 24, "h")
    assert pd.api.types.is_string_dtype(df["unique_id"]) and set(df["unique_id"]) == {market}
    assert df["ds"].dtype == np.dtype("datetime64[ns]")
    assert all(df[c].dtype == np.float64 for c in ("y", *COVARIATES[market]))
    assert (df["ds"].diff().iloc[1:] == pd.Timedelta(hours=1)).all()  # sorted, hourly, no gap
    assert (df["ds"].iloc[0], df["ds"].iloc[-1]) == (info.start, info.end)
    raw = _raw_rows(shared_cache / "forecasting" / "epf" / f"{market}.csv")
    headers = {"NP": (" Grid load forecast", " Wind power forecast"),
               "PJM": (" System load forecast", " Zonal COMED load foecast"),
               "BE": (" System load forecast", " Generation forecast")}[market]
    for i in (0, 1, len(raw) - 1):
        row = df.iloc[i]
        assert row["ds"] == pd.Timestamp(pd.to_datetime(raw[i]["date"], format="%Y/%m/%d %H:%M"))
        assert row["y"] == float(raw[i]["OT"])
        assert [row[c] for c in COVARIATES[market]] == [float(raw[i][h]) for h in headers]


def test_epf_first_values_and_names(shared_cache):
    np_ = load_epf("np")  # any case
    assert np_.iloc[0][["y", "load_forecast", "wind_forecast"]].tolist() == [31.05, 42497, 2798]
    assert str(np_["ds"].iloc[0]) == "2013-01-01 00:00:00"
    be = load_epf("BE")
    assert str(be["ds"].iloc[0]) == "2011-01-09 00:00:00" and be["y"].iloc[-1] == 34.94
    with pytest.raises(ValueError, match="Did you mean"):
        load_epf("NPP")
    with pytest.raises(ValueError, match="source must be one of"):
        load_epf("NP", source="nordpool")


def _as_epftoolbox(df: pd.DataFrame, headers: list[str], price: str, date: str = "Date"):
    """The frame written in the layout of epftoolbox's Zenodo files: ISO times first, the price,
    then the covariates (leading spaces in the headers, as there)."""
    out = pd.DataFrame({date: df["ds"].dt.strftime("%Y-%m-%d %H:%M:%S"), price: df["y"]})
    for header, column in zip(headers, df.columns[3:], strict=True):
        out[header] = df[column]
    return out


@pytest.mark.parametrize(("market", "price", "headers"), [
    ("NP", " Price", [" Grid load forecast", " Wind power forecast"]),
    ("BE", " Prices", [" System load forecast", " Generation forecast"]),
    ("PJM", " Zonal COMED price", [" System load forecast", " Zonal COMED load foecast"]),
])  # fmt: skip
def test_epftoolbox_layout_gives_the_same_frame(shared_cache, tmp_path, monkeypatch, market,
                                                price, headers):
    """The Zenodo layout (other headers, other column order, ISO times) is read by header into
    the same frame; the file is placed by hand in the cache, so it is used as it is."""
    reference = load_epf(market)
    target = tmp_path / "forecasting" / "epf" / "epftoolbox" / f"{market}.csv"
    target.parent.mkdir(parents=True)
    _as_epftoolbox(reference, headers, price).to_csv(target, index=False)
    isolate(monkeypatch, tmp_path)
    pd.testing.assert_frame_equal(load_epf(market, source="epftoolbox"), reference)


def test_epf_germany_unnamed_time_column(shared_cache, tmp_path):
    """epftoolbox's DE.csv has no header over its times (pandas: 'Unnamed: 0')."""
    ref = load_epf("NP").head(48).assign(unique_id="DE")
    path = tmp_path / "DE.csv"
    _as_epftoolbox(ref, ["Ampirion Load Forecast", "PV+Wind Forecast"], "Price", date="").to_csv(
        path, index=False)
    df = read_epf_csv(path, "DE")
    assert list(df.columns) == ["unique_id", "ds", "y", "load_forecast", "wind_forecast"]
    np.testing.assert_array_equal(df.iloc[:, 2:].to_numpy(), ref.iloc[:, 2:].to_numpy())


def test_epf_bad_files_are_named(tmp_path):
    good = "date, Grid load forecast, Wind power forecast,OT\n2013/1/1 0:00,1,2,3\n"
    cases = {
        "header": ("date, Grid load forecast, Solar forecast,OT\n2013/1/1 0:00,1,2,3\n",
                   "Solar forecast' is not a known header"),
        "gap": (good + "2013/1/1 2:00,1,2,3\n", r"not hourly without gaps: row 1"),
        "missing": (good + "2013/1/1 1:00,1,,3\n", r"missing value in 'wind_forecast'"),
        "text": (good + "2013/1/1 1:00,1,n/a?,3\n", "non-numeric"),
        "times": ("date, Grid load forecast, Wind power forecast,OT\n1/1/13 x,1,2,3\n",
                  "does not parse as times"),
    }  # fmt: skip
    for name, (text, message) in cases.items():
        path = tmp_path / f"{name}.csv"
        path.write_text(text)
        with pytest.raises(ValueError, match=message):
            read_epf_csv(path, "NP")


def _m4_raw(path) -> dict[str, list[float]]:
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    return {r[0]: [float(v) for v in r[1:] if v != ""] for r in rows}


def test_m4_hourly_train_and_test(shared_cache):
    info = m4_info("hourly")
    assert (info.frequency, info.horizon, info.seasonal_period, info.n_series) == (
        "Hourly", 48, 24, 414)
    train, test = load_m4("Hourly"), load_m4("Hourly", "test")
    for df in (train, test):
        assert list(df.columns) == ["unique_id", "ds", "y"]
        assert pd.api.types.is_string_dtype(df["unique_id"])
        assert df["ds"].dtype == np.int64 and df["y"].dtype == np.float64
        assert df.equals(df.sort_values(["unique_id", "ds"], ignore_index=True))
        assert not df["y"].isna().any()
    lengths = train.groupby("unique_id").size()
    assert len(lengths) == 414 and lengths.min() == 700 and lengths.max() == 960
    assert len(train) == lengths.sum()
    assert (train.groupby("unique_id")["ds"].agg(["min", "max"]).to_numpy()
            == np.c_[np.ones(414), lengths.to_numpy()]).all()  # fmt: skip
    steps = test.groupby("unique_id")["ds"].agg(["size", "min", "max"])
    assert (steps["size"] == 48).all() and len(test) == 414 * 48
    assert (steps["min"] == lengths + 1).all() and (steps["max"] == lengths + 48).all()
    folder = shared_cache / "forecasting" / "m4"
    raw_train, raw_test = _m4_raw(folder / "Hourly-train.csv"), _m4_raw(folder / "Hourly-test.csv")
    for sid in ("H1", "H414", lengths.idxmin(), lengths.idxmax()):
        series = train[train["unique_id"] == sid]["y"].to_numpy()
        assert series.tolist() == raw_train[sid]
        assert test[test["unique_id"] == sid]["y"].tolist() == raw_test[sid]
    assert train["y"].iloc[0] == 605.0 and test["y"].iloc[0] == 619.0  # H1's first values


def test_m4_frequencies_and_bad_names():
    facts = {f: (m4_info(f).horizon, m4_info(f).seasonal_period)
             for f in ("Yearly", "Quarterly", "Monthly", "Weekly", "Daily", "Hourly")}
    assert facts == {"Yearly": (6, 1), "Quarterly": (8, 4), "Monthly": (18, 12),
                     "Weekly": (13, 1), "Daily": (14, 1), "Hourly": (48, 24)}
    with pytest.raises(ValueError, match="Did you mean Hourly"):
        m4_info("Hourley")
    with pytest.raises(ValueError, match="split must be one of"):
        load_m4("Hourly", "validation")


def test_m4_bad_files_are_named(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text('"V1","V2","V3","V4"\n"H1","1","","3"\n')
    with pytest.raises(ValueError, match="series H1 has a missing or non-numeric value"):
        read_m4_csv(path)
    path.write_text('"V1","V2"\n"H1",""\n')
    with pytest.raises(ValueError, match="series H1 has no values"):
        read_m4_csv(path)


def test_corrupt_copy_fails_with_both_checksums(shared_datasets, tmp_path, monkeypatch):
    target = tmp_path / "forecasting" / "epf" / "NP.csv"
    target.parent.mkdir(parents=True)
    shutil.copyfile(shared_datasets / "forecasting" / "epf" / "NP.csv", target)
    data = bytearray(target.read_bytes())
    data[-3] = ord("9") if data[-3] != ord("9") else ord("8")  # one digit of the last price
    target.write_bytes(bytes(data))
    isolate(monkeypatch, tmp_path)
    with pytest.raises(DatasetNotAvailableError) as info:
        load_epf("NP")
    msg = str(info.value)
    recorded = catalogue()["files"]["forecasting/epf/NP.csv"]["sha256"]
    assert "wrong checksum" in msg and f"differs from the recorded {recorded}" in msg
    assert str(target) in msg and "by hand" in msg


@pytest.mark.parametrize(("call", "relpath", "url"), [
    (lambda: load_epf("FR"), "forecasting/epf/FR.csv",
     "https://raw.githubusercontent.com/thuml/TimeXer/"),
    (lambda: load_epf("DE", source="epftoolbox"), "forecasting/epf/epftoolbox/DE.csv",
     "https://zenodo.org/records/4624805/files/DE.csv?download=1"),
    (lambda: load_m4("Monthly"), "forecasting/m4/Monthly-train.csv",
     "https://raw.githubusercontent.com/Mcompetitions/M4-methods/"),
])  # fmt: skip
def test_missing_file_offline_names_url_and_place(tmp_path, monkeypatch, call, relpath, url):
    isolate(monkeypatch, tmp_path)
    with pytest.raises(DatasetNotAvailableError) as info:
        call()
    msg = str(info.value)
    assert "is not in the cache" in msg and url in msg and "TSATTN_OFFLINE" in msg
    assert f"save it as {tmp_path / relpath}" in msg and "by hand" in msg
    assert not (tmp_path / relpath).exists()
