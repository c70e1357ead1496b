"""Calendar covariates from ``ds``: the encodings at known stamps, the sets ``'auto'`` picks by
the step, the errors for input without a calendar, and their use as future-known covariates of a
long frame (``make_future_dataframe``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tsattn.io import add_calendar, calendar_names


def _frame(freq: str, n: int = 30, start: str = "2024-03-02") -> pd.DataFrame:
    return pd.DataFrame({"ds": pd.date_range(start, periods=n, freq=freq)})


def test_hourly_columns_encode_the_hour_the_weekday_and_the_weekend():
    out = add_calendar(_frame("h", 72))  # 2024-03-02 is a Saturday
    assert calendar_names("auto", out["ds"]) == [
        "cal_hour_sin", "cal_hour_cos", "cal_dayofweek_sin", "cal_dayofweek_cos", "cal_weekend"]
    noon_sat = out.iloc[12]
    assert noon_sat["cal_hour_sin"] == pytest.approx(0.0, abs=1e-12)
    assert noon_sat["cal_hour_cos"] == pytest.approx(-1.0)
    assert noon_sat["cal_dayofweek_sin"] == pytest.approx(np.sin(2 * np.pi * 5 / 7))
    assert noon_sat["cal_weekend"] == 1.0
    monday = out.iloc[71]  # Monday 23:00: next to midnight on the hour's circle
    assert monday["cal_weekend"] == 0.0
    assert monday["cal_hour_cos"] == pytest.approx(np.cos(2 * np.pi * 23 / 24))
    assert np.hypot(out["cal_hour_sin"], out["cal_hour_cos"]).to_numpy() == pytest.approx(np.ones(72))
    assert list(out.columns[:1]) == ["ds"] and len(out) == 72  # a copy, the input's rows kept


@pytest.mark.parametrize("freq, cycles", [("D", ["dayofweek", "weekend", "dayofyear"]),
                                          ("W", ["weekofyear"]), ("MS", ["month"]),
                                          ("QS", ["quarter"]), ("15min", ["hour", "dayofweek", "weekend"])])
def test_auto_picks_the_cycles_the_step_resolves(freq, cycles):
    cols = [c for c in add_calendar(_frame(freq)).columns if c != "ds"]
    assert {c.removeprefix("cal_").rsplit("_", 1)[0] if c != "cal_weekend" else "weekend" for c in cols} == set(cycles)


def test_named_features_and_a_long_frame_read_by_its_first_series():
    a = _frame("D", 10).assign(unique_id="a")
    b = _frame("D", 10, "2025-01-01").assign(unique_id="b")
    out = add_calendar(pd.concat([a, b], ignore_index=True), features=["month", "weekend"])
    assert list(out.columns[-3:]) == ["cal_month_sin", "cal_month_cos", "cal_weekend"]
    assert out["cal_month_cos"].iloc[10] == pytest.approx(1.0)  # January


def test_errors_say_what_is_wrong():
    with pytest.raises(ValueError, match="Did you mean 'hour'"):
        add_calendar(_frame("h"), features="hours")
    with pytest.raises(ValueError, match="integer steps have no calendar"):
        add_calendar(pd.DataFrame({"ds": np.arange(5)}))
    with pytest.raises(ValueError, match="yearly series need no calendar"):
        add_calendar(_frame("YS", 5))
    with pytest.raises(ValueError, match="name the features"):
        add_calendar(_frame("h", 1))
    with pytest.raises(ValueError, match="a 'ds' column"):
        add_calendar(pd.DataFrame({"t": [1]}))


def test_calendar_columns_as_future_covariates_of_a_long_frame():
    from tsattn import TSForecaster

    rng = np.random.default_rng(0)
    rows = []
    for sid in ("a", "b"):
        ds = pd.date_range("2024-01-01", periods=24 * 14, freq="h")
        y = 10 + 3 * (ds.dayofweek >= 5) + np.sin(2 * np.pi * ds.hour / 24) + rng.normal(0, 0.1, len(ds))
        rows.append(pd.DataFrame({"unique_id": sid, "ds": ds, "y": y}))
    df = add_calendar(pd.concat(rows, ignore_index=True))
    cal = calendar_names("auto", df["ds"].iloc[:2])
    f = TSForecaster(horizon=24, context_length=48, future_covariates=cal, max_steps=20,
                     random_state=0).fit(df)  # fmt: skip
    future = f.make_future_dataframe()
    assert list(future.columns) == ["unique_id", "ds"] and len(future) == 48
    assert future["ds"].iloc[0] == df["ds"].iloc[-1] + pd.Timedelta(hours=1)
    with pytest.raises(ValueError, match="cal_hour_sin"):
        f.predict()
    pred = f.predict(X=add_calendar(future))
    assert len(pred) == 48 and np.isfinite(pred["y"]).all()
    one = TSForecaster(horizon=4, context_length=8, max_steps=2).fit(np.arange(40.0))
    with pytest.raises(ValueError, match="long frame"):
        one.make_future_dataframe()
