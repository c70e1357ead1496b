"""A practitioner's own frame (issue 77): named columns and every layout of a long frame, explicit
covariate roles, backtests, intervals that hold the forecast, the fit's closing line, and one rule
for short data; each habit also as the bad input it can be."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from tsattn import TSForecaster

FAST = dict(max_steps=30, random_state=0, d_model=16, n_heads=2, n_layers=1, dim_feedforward=16)


def shop(lengths=(200, 180, 150), ids=(10, 11, 12), seed=0) -> pd.DataFrame:
    """Hourly sales of a few stores, named as a practitioner names them, with a price."""
    rng = np.random.default_rng(seed)
    frames = []
    for sid, n in zip(ids, lengths, strict=True):
        t = np.arange(n)
        frames.append(pd.DataFrame({
            "store": sid, "date": pd.date_range("2021-01-01", periods=n, freq="h"),
            "sales": 50.0 + 5 * np.sin(2 * np.pi * t / 24) + rng.normal(size=n),
            "price": rng.normal(size=n)}))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


NAMES = dict(id_col="store", time_col="date", target_col="sales")


def fitted(df=None, **kw) -> TSForecaster:
    df = shop() if df is None else df
    params = dict(horizon=12, context_length=48, past_covariates=["price"], **FAST) | kw
    return TSForecaster(**params).fit(df, **NAMES)


# ----------------------------------------------------------------------------- columns, layouts
def test_named_columns_are_read_and_written_back_with_their_names_and_dtypes():
    model = fitted()
    out = model.predict()
    assert list(out.columns) == ["store", "date", "sales"] and out.store.dtype == np.int64
    assert sorted(out.store.unique()) == [10, 11, 12] and len(out) == 36
    future = model.make_future_dataframe()
    assert list(future.columns) == ["store", "date"]
    # predict reads a frame by the fit's names without being told them again
    pd.testing.assert_frame_equal(model.predict(shop()), out)


def test_string_ids_a_multiindex_and_a_time_index_are_long_frames_too():
    df = shop(ids=("a", "b", "c"))
    by_index = df.set_index(["store", "date"])  # sktime's layout, its level names the names
    model = TSForecaster(horizon=12, context_length=48, past_covariates=["price"], **FAST)
    out = model.fit(by_index, target_col="sales").predict()
    assert list(out.columns) == ["store", "date", "sales"] and set(out.store) == {"a", "b", "c"}
    pd.testing.assert_frame_equal(fitted(df).predict(), out)
    time_index = df.set_index("date")  # the time as the index beside an id column
    pd.testing.assert_frame_equal(fitted(time_index).predict(), out)


@pytest.mark.parametrize(("frame", "kw", "message"), [
    (lambda d: d, {}, r"no 'unique_id'|'unique_id'.*'ds'.*'y'"),
    (lambda d: d.rename(columns={"store": "unique_id", "date": "ds"}), {},
     r"without its target column 'y'.*target_col='sales'|target_col="),
    (lambda d: d.drop(columns="date").rename(columns={"store": "unique_id"}), {},
     r"'unique_id' column but no 'ds'"),
    (lambda d: d.assign(store=d.store.astype(str)).drop(columns="date"), {},
     r"non-numeric column\(s\) \['store'\]"),
])  # fmt: skip
def test_a_frame_that_is_no_recognised_layout_names_the_columns_expected(frame, kw, message):
    with pytest.raises(ValueError, match=message):
        TSForecaster(horizon=12, context_length=48, **FAST).fit(frame(shop()), **kw)


def test_a_stray_column_is_an_error_that_lists_it_and_x_columns_are_past_covariates():
    with pytest.raises(ValueError, match=r"\['index'\].*past_covariates=.*drop"):
        fitted(shop().reset_index())
    with pytest.raises(ValueError, match=r"\['price'\]"):
        TSForecaster(horizon=12, context_length=48, **FAST).fit(shop(), **NAMES)
    df = shop()
    x = df[["store", "date", "price"]]
    model = TSForecaster(horizon=12, context_length=48, **FAST).fit(df.drop(columns="price"),
                                                                    X=x, **NAMES)  # fmt: skip
    assert model.fit_plan_.covariates.roles == ("past",)
    with pytest.raises(ValueError, match="listed for two roles"):
        fitted(future_covariates=["price"])


# ----------------------------------------------------------------------------- backtests
def test_predict_on_the_fitted_frame_is_predict_and_a_fitted_series_keeps_its_scale():
    model = fitted()
    df = shop()
    pd.testing.assert_frame_equal(model.predict(df), model.predict())
    shifted = df.assign(store=df.store + 100)  # the same rows, unseen ids: their own scale
    assert not np.allclose(model.predict(shifted).sales, model.predict().sales)


def test_cross_validation_lays_out_windows_as_neuralforecast_does():
    df = shop()
    model = TSForecaster(horizon=12, context_length=48, past_covariates=["price"], **FAST)
    cv = model.cross_validation(df, n_windows=3, step_size=6, level=[80], **NAMES)
    assert list(cv.columns) == ["store", "date", "cutoff", "sales", "forecast", "lo-80", "hi-80"]
    assert len(cv) == 3 * 3 * 12 and cv.groupby("store").cutoff.nunique().tolist() == [3, 3, 3]
    truth = cv.merge(df, on=["store", "date"], suffixes=("", "_df"))
    np.testing.assert_array_equal(truth.sales, truth.sales_df)  # the rows that followed
    assert (cv.date > cv.cutoff).all() and (cv["lo-80"] <= cv.forecast).all()
    last = cv.groupby("store").cutoff.max()
    expected = df.groupby("store").date.apply(lambda d: d.iloc[-13])
    pd.testing.assert_series_equal(last, expected, check_names=False)
    # fitted on each series' rows before its first origin, not after
    assert model.last_stamps_ == list(df.groupby("store").date.apply(lambda d: d.iloc[-25]))
    refit = TSForecaster(horizon=12, context_length=48, past_covariates=["price"], **FAST)
    assert len(refit.cross_validation(df, n_windows=2, refit=True, **NAMES)) == 2 * 3 * 12
    with pytest.raises(ValueError, match="too few for 30 window"):
        model.cross_validation(df, n_windows=30, **NAMES)


# ----------------------------------------------------------------------------- intervals
def test_every_central_interval_holds_the_forecast_and_levels_are_nixtlas_columns():
    from aeon.datasets import load_airline

    series = load_airline(return_array=False)
    model = TSForecaster(horizon=12, context_length=36, random_state=0, max_steps=200).fit(series)
    point = model.predict()
    for coverage in (0.5, 0.8, 0.95):
        low, high = model.predict_interval(coverage=coverage)
        assert ((low <= point) & (point <= high)).all()
    q = model.predict_quantiles(alpha=(0.05, 0.25, 0.5, 0.75, 0.95)).to_numpy()
    assert (np.diff(q, axis=1) >= 0).all()
    framed = model.predict(level=[80, 95])
    assert list(framed.columns) == [series.name, "lo-80", "hi-80", "lo-95", "hi-95"]
    np.testing.assert_allclose(framed["hi-80"], model.predict_interval(coverage=0.8)[1])
    with pytest.raises(ValueError, match="level must be percentages"):
        model.predict(level=[120])
    panel = fitted().predict(level=[80])
    assert ((panel["lo-80"] <= panel.sales) & (panel.sales <= panel["hi-80"])).all()


# ----------------------------------------------------------------------------- the closing line
def test_a_fit_says_what_happened_and_when_the_network_takes_no_weight(capsys):
    t = np.arange(300)
    y = np.sin(2 * np.pi * t / 24) + 0.01 * t
    quiet = TSForecaster(horizon=12, context_length=48, **FAST).fit(y)  # 'auto': nobody watches
    assert quiet.verbose == "auto" and capsys.readouterr().err == ""
    loud = TSForecaster(horizon=12, context_length=48, verbose=1, **FAST).fit(y)
    err = capsys.readouterr().err
    assert loud.summary() in err and "one series; 30 steps in" in err
    loud.blend_ = 0.0
    assert "alone: it was better than any share of the network" in loud.summary()
    loud.blend_ = 0.4
    assert "0.40 x network + 0.60 x the anchor" in loud.summary()


# ----------------------------------------------------------------------------- short data
def test_one_rule_for_short_data_at_fit_and_at_predict():
    with pytest.warns(UserWarning, match=r"1 of 1 series have fewer rows than the 60.*\(40\)"):
        one = TSForecaster(horizon=12, context_length=48, **FAST).fit(np.arange(40.0))
    assert one.predict().shape == (12,)
    with pytest.warns(UserWarning, match=r"windows have fewer rows than the 48"):
        one.predict(np.ones((2, 20, 1)))
    with pytest.warns(UserWarning, match=r"y_context: .*\(20\)"):
        one.predict(np.arange(20.0))
    df = shop(lengths=(200, 180, 30))
    with pytest.warns(UserWarning, match=r"1 of 3 series have fewer rows than the 60.*12 \(30\)"):
        fitted(df)
    with pytest.raises(ValueError, match=r"pass y\.T"):  # (channels, time) read as (time, channels)
        TSForecaster(horizon=12, context_length=48, **FAST).fit(np.zeros((3, 500)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted()  # long enough: no warning
