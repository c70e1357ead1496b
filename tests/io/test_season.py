"""The season of a series (``tsattn.io.season``, issue 77 item 4): from every pandas frequency as
the module's table gives it, from irregular stamps by their modal step, and from the values where
the time carries no frequency; the forecaster's ``period='auto'`` reads them, ``period=`` wins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tsattn import TSForecaster
from tsattn.io import seasonal_period
from tsattn.io.season import (
    pooled_acf,
    season_from_data,
    season_from_index,
    season_from_offset,
    season_from_step,
)

#: Every row of the module's table, a pandas alias (or offset) and its season.
TABLE = [
    ("h", 24), ("2h", 12), ("6h", 4), ("30min", 48), ("15min", 96), ("10min", 144),
    ("min", 1440), ("7h", 24), ("5h", 1), ("11min", 1),
    ("s", 3600), ("10s", 360), ("7s", 1), ("ms", 1), ("us", 1), ("ns", 1),
    ("bh", 8), ("2bh", 4), ("cbh", 8), (pd.offsets.BusinessHour(start="08:00", end="18:00"), 10),
    ("D", 7), ("2D", 1), ("5D", 1), ("7D", 52), ("14D", 26),
    ("B", 5), ("C", 5), ("2B", 1), (pd.offsets.CustomBusinessDay(weekmask="Sun Mon Tue Wed Thu Fri"), 6),
    ("W", 52), ("W-SUN", 52), ("W-MON", 52), ("2W", 26), ("4W", 13), ("3W", 1),
    ("SMS", 24), ("SME", 24),
    ("MS", 12), ("ME", 12), ("BMS", 12), ("BME", 12), ("WOM-1MON", 12), ("LWOM-SAT", 12),
    ("2MS", 6), ("3MS", 4), ("6ME", 2), ("5MS", 1),
    ("QS", 4), ("QE", 4), ("QS-FEB", 4), ("BQS", 4), ("BQE", 4), ("2QS", 2), ("3QE", 1),
    ("YS", 1), ("YE", 1), ("BYS", 1), ("BYE", 1), ("2YS", 1),
    (pd.offsets.Easter(), 1),
    (pd.offsets.FY5253(weekday=0, startingMonth=1, variation="nearest"), 1),
    (pd.offsets.FY5253Quarter(weekday=0, startingMonth=1, qtr_with_extra_week=1,
                              variation="nearest"), 4),  # fmt: skip
    (pd.DateOffset(months=3), 4), (pd.DateOffset(months=1), 12), (pd.DateOffset(years=1), 1),
    (pd.DateOffset(days=1), 7), (pd.DateOffset(hours=2), 12),
]  # fmt: skip


@pytest.mark.parametrize("freq, season", TABLE)
def test_every_frequency_gives_the_tables_season(freq, season):
    assert season_from_offset(freq) == season


@pytest.mark.parametrize("freq, season", [(f, s) for f, s in TABLE if isinstance(f, str)])
def test_a_regular_index_gives_its_frequencys_season_with_or_without_freq(freq, season):
    index = pd.date_range("2001-01-01", periods=40, freq=freq)
    assert season_from_index(index) == season
    assert seasonal_period(index) == season
    if freq not in ("bh", "2bh", "cbh", "C", "SMS", "SME"):  # pandas infers none of these
        assert season_from_index(pd.DatetimeIndex(index.to_numpy())) == season  # freq inferred


@pytest.mark.parametrize("freq, season", [("h", 24), ("15min", 96), ("D", 7), ("W-SUN", 52),
                                          ("M", 12), ("Q", 4), ("Y", 1), ("2h", 12)])  # fmt: skip
def test_a_period_index_gives_its_frequencys_season(freq, season):
    assert season_from_index(pd.period_range("2001-01-01", periods=12, freq=freq)) == season


def test_the_issues_examples_business_days_5_and_quarters_4():
    """Issue 77's evidence: business days gave 7 (the median step, a day) and quarterly dates 1."""
    assert seasonal_period(pd.bdate_range("2020-01-01", periods=60)) == 5
    assert seasonal_period(pd.date_range("2000-01-01", periods=20, freq="QS")) == 4
    assert seasonal_period(pd.date_range("2000-03-31", periods=20, freq="QE")) == 4


def test_irregular_stamps_give_their_modal_steps_season():
    hours = pd.date_range("2021-01-01", periods=200, freq="h")
    gappy = pd.DatetimeIndex(hours.delete([5, 50, 51, 120]).to_numpy())
    assert pd.infer_freq(gappy) is None and season_from_index(gappy) == 24
    holidays = pd.DatetimeIndex(pd.bdate_range("2020-01-01", periods=80).delete([10, 30]).to_numpy())
    assert pd.infer_freq(holidays) is None and season_from_index(holidays) == 5  # no weekend day
    days = pd.DatetimeIndex(pd.date_range("2020-01-01", periods=80, freq="D").delete([3, 40]).to_numpy())
    assert season_from_index(days) == 7
    months = pd.DatetimeIndex(pd.date_range("2000-01-01", periods=40, freq="MS").delete([7]).to_numpy())
    assert pd.infer_freq(months) is None and season_from_index(months) == 12
    quarters = pd.DatetimeIndex(pd.date_range("2000-01-01", periods=30, freq="QS").delete([4]).to_numpy())
    assert season_from_index(quarters) == 4


@pytest.mark.parametrize("step, season", [
    (pd.Timedelta(hours=1), 24), (pd.Timedelta(minutes=15), 96), (pd.Timedelta(days=1), 7),
    (pd.Timedelta(days=7), 52), (pd.Timedelta(days=30), 12), (pd.Timedelta(days=91), 4),
    (pd.Timedelta(days=365), 1), (np.timedelta64(2, "h"), 12), (pd.offsets.MonthBegin(), 12),
    ("QS", 4), (pd.offsets.BDay(), 5),
])  # fmt: skip
def test_a_long_frames_step_gives_its_season(step, season):
    assert season_from_step(step) == season


@pytest.mark.parametrize("time", [1, np.int64(3), None, pd.RangeIndex(50), pd.Index(np.arange(5)),
                                  pd.Index(["a", "b", "c"])])  # fmt: skip
def test_integer_time_carries_no_frequency(time):
    read = season_from_index(time) if isinstance(time, pd.Index) else season_from_step(time)
    assert read is None
    assert seasonal_period(time) == 1  # without values: no season


def _seasonal(n: int, period: int, noise: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    return np.sin(2 * np.pi * t / period) + 0.5 * np.cos(4 * np.pi * t / period + 1) \
        + noise * rng.standard_normal(n)  # fmt: skip


def test_the_values_give_their_season_without_a_frequency():
    assert season_from_data(_seasonal(500, 12, 0.3)) == 12
    assert season_from_data(_seasonal(2000, 24, 0.5)) == 24
    trend = _seasonal(600, 7, 0.3) + np.linspace(0, 20, 600)  # a trend under the season
    assert season_from_data(trend) == 7
    two = np.stack([_seasonal(800, 52, 0.3), _seasonal(800, 52, 0.3, seed=1)], axis=1)
    assert season_from_data(two) == 52  # the channels of one series pooled
    assert seasonal_period(pd.RangeIndex(500), _seasonal(500, 12, 0.3)) == 12
    assert seasonal_period(None, _seasonal(500, 12, 0.3)) == 12  # an array
    # a frequency wins over the values
    assert seasonal_period(pd.date_range("2000", periods=500, freq="h"), _seasonal(500, 12, 0.3)) == 24


def test_values_without_a_season_give_1():
    rng = np.random.default_rng(0)
    assert season_from_data(rng.standard_normal(1000)) == 1  # white noise
    assert season_from_data(np.cumsum(rng.standard_normal(1000))) == 1  # a random walk
    assert season_from_data(np.cumsum(rng.standard_normal(1000) + 0.3)) == 1  # with drift
    assert season_from_data(np.ones(100)) == 1  # constant
    assert season_from_data(np.arange(8.0)) == 1  # too short for three seasons of any length
    assert season_from_data([]) == 1
    assert season_from_data(_seasonal(60, 24, 0.1)) == 1  # fewer than three seasons


def test_a_panels_series_are_pooled():
    """Series too short each to show their season alone show it together; a panel of random walks
    shows none."""
    rng = np.random.default_rng(0)
    short = [_seasonal(int(n), 24, 0.8, seed=i) for i, n in enumerate(rng.integers(75, 90, 20))]
    assert sum(season_from_data(s) == 24 for s in short) < 10
    assert season_from_data(short) == 24
    walks = [np.cumsum(rng.standard_normal(300)) for _ in range(20)]
    assert season_from_data(walks) == 1


def test_pooled_acf_is_the_mean_of_each_channels_autocorrelation():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(50), rng.standard_normal(80)

    def acf(x, k):
        x = x - x.mean()
        return float(np.sum(x[k:] * x[: len(x) - k]) / np.sum(x * x))

    got = pooled_acf([a, b[:, None], np.ones(30)], 5)  # the constant series is left out
    np.testing.assert_allclose(got, [(acf(a, k) + acf(b, k)) / 2 for k in range(6)], atol=1e-12)
    np.testing.assert_allclose(pooled_acf(a, 3, difference=1)[1], acf(np.diff(a), 1), atol=1e-12)
    assert pooled_acf([np.ones(10)], 3).tolist() == [0, 0, 0, 0]


FAST = dict(max_steps=2, random_state=0, d_model=16, n_heads=2, n_layers=1, dim_feedforward=16)


def _panel(integer: bool, freq: str = "h") -> pd.DataFrame:
    frames = []
    for i in range(4):
        y = 10.0 * i + _seasonal(150, 24, 0.2, seed=i)
        ds = np.arange(1, 151) if integer else pd.date_range("2021-03-01", periods=150, freq=freq)
        frames.append(pd.DataFrame({"unique_id": f"s{i}", "ds": ds, "y": y}))
    return pd.concat(frames, ignore_index=True)


def test_the_forecaster_reads_the_season_and_period_overrides_it():
    panel = _panel(integer=True)
    assert TSForecaster(horizon=6, **FAST).fit(panel).period_ == 24  # from the values
    assert TSForecaster(horizon=6, period=12, **FAST).fit(panel).period_ == 12
    assert TSForecaster(horizon=6, period=None, **FAST).fit(panel).period_ == 1
    assert TSForecaster(horizon=6, period=1, **FAST).fit(panel).period_ == 1
    # a datetime step: the frequency's season, whatever the values
    assert TSForecaster(horizon=6, **FAST).fit(_panel(integer=False, freq="B")).period_ == 5
    assert TSForecaster(horizon=6, **FAST).fit(_panel(integer=False, freq="2h")).period_ == 12
    series = _seasonal(300, 12, 0.2)
    assert TSForecaster(horizon=6, context_length=24, **FAST).fit(series).period_ == 12
    assert TSForecaster(horizon=6, context_length=24, **FAST).fit(pd.Series(series)).period_ == 12
    noise = np.random.default_rng(0).standard_normal(300)
    assert TSForecaster(horizon=6, context_length=24, **FAST).fit(noise).period_ == 1
