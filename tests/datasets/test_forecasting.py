"""Long-horizon sets: frames, the Informer/Autoformer borders, train-only scaling, windows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.helpers.datasets import isolate
from tsattn.datasets import (
    forecasting_borders,
    forecasting_splits,
    load_forecasting,
    sliding_windows,
)
from tsattn.io import seasonal_period


@pytest.fixture
def shared_cache(monkeypatch, shared_datasets):
    isolate(monkeypatch, shared_datasets)
    return shared_datasets


def test_etth1_frame(shared_cache):
    df = load_forecasting("ETTh1")
    assert df.shape == (17420, 7)
    assert isinstance(df.index, pd.DatetimeIndex) and df.index.name == "date"
    assert df.index[0] == pd.Timestamp("2016-07-01 00:00") and df.index.is_monotonic_increasing
    assert list(df.columns)[-1] == "OT" and set(df.dtypes) == {np.dtype("float64")}
    raw = pd.read_csv(shared_cache / "forecasting" / "ETTh1.csv")
    np.testing.assert_array_equal(df.to_numpy(), raw.drop(columns="date").to_numpy(float))


def test_etth1_splits_and_train_only_scaler(shared_cache):
    df = load_forecasting("ETTh1")
    s = forecasting_splits(df, "ETTh1", context_length=96)
    assert s.borders == ((0, 8640), (8640 - 96, 11520), (11520 - 96, 14400))
    assert (len(s.train), len(s.val), len(s.test)) == (8640, 2880 + 96, 2880 + 96)
    assert s.val.index[96] == df.index[8640] and s.test.index[96] == df.index[11520]
    train = df.iloc[:8640].to_numpy()
    np.testing.assert_allclose(s.scaler.mean_, train.mean(axis=0))
    np.testing.assert_allclose(s.scaler.scale_, train.std(axis=0))
    assert not np.allclose(s.scaler.mean_, df.to_numpy().mean(axis=0))
    np.testing.assert_allclose(s.scaled("train").mean(axis=0), 0, atol=1e-10)
    np.testing.assert_allclose(s.scaled("test"), (s.test.to_numpy() - train.mean(0)) / train.std(0))
    x, y = s.windows("test", 96)
    assert x.shape == (2880 - 96 + 1, 96, 7) and y.shape == (2880 - 96 + 1, 96, 7)
    scaled_full = s.scaler.transform(df.to_numpy())
    np.testing.assert_allclose(y[0], scaled_full[11520:11616])
    np.testing.assert_allclose(y[-1][-1], scaled_full[14399])
    np.testing.assert_allclose(x[0], scaled_full[11520 - 96:11520])
    frame = s.scaled_frame("val")  # the same values on the split's own index, which fit reads
    assert frame.index.equals(s.val.index) and list(frame.columns) == list(df.columns)
    np.testing.assert_array_equal(frame.to_numpy(), s.scaled("val"))
    assert seasonal_period(frame.index) == 24
    with pytest.raises(ValueError, match="part must be one of"):
        s.scaled_frame("holdout")


def test_ettm1_months_times_four(shared_cache):
    df = load_forecasting("ETTm1")
    assert len(df) == 69680
    assert forecasting_borders("ETTm1", len(df), 96) == (
        (0, 34560), (34560 - 96, 46080), (46080 - 96, 57600))


@pytest.mark.parametrize(("name", "rows", "context"), [("exchange_rate", 7588, 96),
                                                        ("illness", 966, 36)])
def test_ratio_splits(shared_cache, name, rows, context):
    df = load_forecasting(name)
    assert len(df) == rows
    n_train, n_test = int(rows * 0.7), int(rows * 0.2)
    n_val = rows - n_train - n_test
    s = forecasting_splits(df, name, context_length=context)
    assert s.borders == ((0, n_train), (n_train - context, n_train + n_val),
                         (rows - n_test - context, rows))
    assert (len(s.train), len(s.val), len(s.test)) == (n_train, n_val + context, n_test + context)


def test_exchange_rate_dates_parse(shared_cache):
    df = load_forecasting("exchange_rate")
    assert df.index[0] == pd.Timestamp("1990-01-01") and df.shape[1] == 8


def test_sliding_windows_every_window():
    values = np.arange(20.0).reshape(10, 2)
    x, y = sliding_windows(values, 3, 2)
    assert x.shape == (6, 3, 2) and y.shape == (6, 2, 2)
    np.testing.assert_array_equal(x[2], values[2:5])
    np.testing.assert_array_equal(y[5], values[8:10])
    assert not x.flags.writeable
    with pytest.raises(ValueError, match="too few"):
        sliding_windows(values, 8, 3)
    with pytest.raises(ValueError, match="2-D"):
        sliding_windows(values.ravel(), 3, 2)


def test_bad_context_length_and_short_ett():
    with pytest.raises(ValueError, match="context_length"):
        forecasting_borders("exchange_rate", 100, 500)
    with pytest.raises(ValueError, match="14400"):
        forecasting_borders("ETTh2", 1000, 96)
