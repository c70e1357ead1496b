"""``tsattn.plotting``: what the figures draw is the estimator's own forecast, intervals and history."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from tsattn import TSClassifier, TSForecaster  # noqa: E402
from tsattn.plotting import plot_forecast, plot_history  # noqa: E402


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    t = np.arange(360)
    frame = pd.DataFrame({"load": np.sin(t / 6) + 0.1 * rng.normal(size=len(t)),
                          "temp": np.cos(t / 9) + 0.1 * rng.normal(size=len(t))},
                         index=pd.date_range("2021-03-01", periods=len(t), freq="h"))  # fmt: skip
    est = TSForecaster(12, 48, max_steps=40, random_state=0).fit(frame.iloc[:300])
    return est, frame


def _line(ax, label):
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == label]
    return line


def _band(ax, label):
    (band,) = [c for c in ax.collections if c.get_label() == label]
    return band


def test_forecast_panels_draw_the_forecast_and_intervals_of_the_estimator(fitted):
    est, frame = fitted
    context, future = frame.iloc[:300], frame.iloc[300:]
    fig = plot_forecast(est, context, y_true=future, components=True)
    axes = fig.axes
    assert len(axes) == 2 and [a.get_title(loc="left") for a in axes] == ["load", "temp"]
    expected = est.predict(context)
    parts = est.predict_components(context)
    lower, upper = est.predict_interval(context, coverage=0.8)
    for a, name in zip(axes, ["load", "temp"], strict=True):
        line = _line(a, "forecast")
        np.testing.assert_allclose(line.get_ydata(), expected[name].to_numpy())
        # the forecast continues the context's hourly index
        assert pd.Timestamp(matplotlib.dates.num2date(line.get_xdata(orig=False)[0]).replace(tzinfo=None)) == frame.index[300]
        np.testing.assert_allclose(_line(a, "actual").get_ydata(), future[name].to_numpy()[:12])
        np.testing.assert_allclose(_line(a, "history").get_ydata(), context[name].to_numpy()[-48:])
        np.testing.assert_allclose(_line(a, f"anchor alone ({est.anchor_})").get_ydata(),
                                   parts["anchor"][name].to_numpy())  # fmt: skip
        band = _band(a, "80% interval").get_paths()[0].vertices[:, 1]
        assert np.isclose(band.min(), min(lower[name].min(), upper[name].min()))
        assert np.isclose(band.max(), max(lower[name].max(), upper[name].max()))


def test_forecast_without_context_draws_the_end_of_the_training_series(fitted):
    est, frame = fitted
    (ax,) = plot_forecast(est, channels=["temp"], coverages=(), history=60).axes
    np.testing.assert_allclose(_line(ax, "forecast").get_ydata(), est.predict()["temp"].to_numpy())
    # est keeps the last context_length rows of the training series: those are drawn
    np.testing.assert_allclose(_line(ax, "history").get_ydata(), frame["temp"].to_numpy()[252:300])
    assert not ax.collections


def test_forecast_of_an_array_context_on_step_positions(fitted):
    est, frame = fitted
    values = frame.to_numpy()[:200]
    (ax,) = plot_forecast(est, values, channels=[-1]).axes
    np.testing.assert_array_equal(_line(ax, "forecast").get_xdata(), np.arange(200, 212))
    np.testing.assert_allclose(_line(ax, "forecast").get_ydata(), est.predict(values)[:, 1])
    assert ax.get_title(loc="left") == "channel 1"


def test_forecast_on_a_period_index_is_drawn_on_its_timestamps():
    index = pd.period_range("2001-01", periods=200, freq="M")
    y = pd.Series(np.sin(np.arange(200) / 3), index=index, name="sales")
    est = TSForecaster(6, 24, max_steps=5, random_state=0).fit(y)
    (ax,) = plot_forecast(est, coverages=0.5).axes
    x = matplotlib.dates.num2date(_line(ax, "forecast").get_xdata(orig=False))
    assert [d.strftime("%Y-%m") for d in x] == [p.strftime("%Y-%m") for p in est.predict().index]
    assert ax.get_title(loc="left") == "sales"


def test_one_series_with_future_covariates_reads_them_from_X():
    t = np.arange(240)
    index = pd.date_range("2022-01-01", periods=240, freq="h")
    temp = pd.DataFrame({"temp": np.cos(t / 5)}, index=index)
    y = pd.Series(np.sin(t / 4) + temp["temp"], index=index, name="load")
    est = TSForecaster(6, 24, max_steps=10, d_model=16, random_state=0,
                       future_covariates=["temp"]).fit(y.iloc[:230], X=temp.iloc[:230])  # fmt: skip
    (ax,) = plot_forecast(est, X=temp.iloc[230:236], coverages=0.8).axes
    np.testing.assert_allclose(_line(ax, "forecast").get_ydata(),
                               est.predict(X=temp.iloc[230:236]).to_numpy())  # fmt: skip
    # the end of the training series, its target alone (last_context_ holds the covariate too)
    np.testing.assert_allclose(_line(ax, "history").get_ydata(), y.to_numpy()[206:230])
    (ax,) = plot_forecast(est, y.iloc[:200], X=temp.iloc[:206], coverages=()).axes
    np.testing.assert_allclose(_line(ax, "forecast").get_ydata(),
                               est.predict(y.iloc[:200], X=temp.iloc[:206]).to_numpy())  # fmt: skip


def test_the_end_of_a_series_fitted_on_the_log_scale_is_drawn_in_its_units():
    y = np.exp(np.sin(np.arange(150) / 4)) + 1.0
    est = TSForecaster(6, 24, max_steps=5, d_model=16, random_state=0, target_transform="log").fit(y)
    (ax,) = plot_forecast(est, coverages=()).axes
    np.testing.assert_allclose(_line(ax, "history").get_ydata(), y[-24:])
    np.testing.assert_allclose(_line(ax, "forecast").get_ydata(), est.predict())


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(channels=["wind"]), "'wind' is not one of"),
        (dict(channels=[2]), "positions below 2"),
        (dict(channels=[]), "channels is empty"),
        (dict(coverages=(80,)), "strictly between 0 and 1"),
        (dict(y_true=np.zeros((12, 3))), "y_true has 3 channels"),
    ],
)
def test_forecast_plot_errors_say_what_to_pass(fitted, kwargs, message):
    est, _ = fitted
    with pytest.raises(ValueError, match=message):
        plot_forecast(est, **kwargs)


def test_forecast_plot_checks_its_axes_and_input(fitted):
    est, frame = fitted
    with pytest.raises(ValueError, match="one Axes per channel"):
        plot_forecast(est, ax=matplotlib.pyplot.subplots()[1])
    with pytest.raises(ValueError, match="not a 3-D array"):
        plot_forecast(est, np.zeros((4, 48, 2)))
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        plot_forecast(TSForecaster(12, 48))


def test_many_channels_draw_the_first_panels_with_a_warning():
    values = np.random.default_rng(1).normal(size=(200, 8))
    est = TSForecaster(4, 24, max_steps=5, random_state=0).fit(values)
    with pytest.warns(UserWarning, match="first 6 of 8"):
        fig = plot_forecast(est)
    assert len(fig.axes) == 6


def test_history_draws_each_round_and_marks_the_kept_weights(fitted):
    est, _ = fitted
    ax = plot_history(est)
    rounds = [r["round"] for r in est.history_]
    np.testing.assert_allclose(_line(ax, "training loss").get_ydata(), [r["train_loss"] for r in est.history_])
    np.testing.assert_allclose(_line(ax, "validation loss").get_ydata(), [r["valid_loss"] for r in est.history_])
    kept = max(k for k, r in enumerate(est.history_) if r["best"])
    (marker,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("weights kept")]
    assert marker.get_xdata()[0] == rounds[kept] == est.best_round_


def test_history_of_a_classifier_without_validation_and_of_an_unfitted_estimator():
    X = np.random.default_rng(0).normal(size=(20, 2, 16))
    est = TSClassifier(max_epochs=3, random_state=0).fit(X, np.arange(20) % 2)
    ax = plot_history(est)
    assert [ln.get_label() for ln in ax.get_lines()][0] == "training loss"
    assert "validation loss" not in [ln.get_label() for ln in ax.get_lines()]
    with pytest.raises(ValueError, match="fit it first"):
        plot_history(TSClassifier())


# --- many series: a long frame, one panel per series -------------------------------------------

def _long_frame(n_series=5, length=120, covariate=False, int_ds=False):
    rng = np.random.default_rng(3)
    parts = []
    for k in range(n_series):
        t = np.arange(length)
        temp = np.cos(t / 7 + k)
        ds = 1000 + t if int_ds else pd.date_range("2024-01-01", periods=length, freq="h")
        part = pd.DataFrame({"unique_id": f"H{k + 1}", "ds": ds,
                             "y": 10 + k + np.sin(t / 4 + k) + 0.1 * rng.normal(size=length)})  # fmt: skip
        if covariate:
            part["y"] += temp
            part["temp"] = temp
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def panel():
    df = _long_frame()
    train = df.groupby("unique_id").head(114)
    est = TSForecaster(6, 24, max_steps=20, d_model=16, random_state=0).fit(train)
    return est, train, df.groupby("unique_id").tail(6)


@pytest.fixture(scope="module")
def covariate_panel():
    df = _long_frame(n_series=3, covariate=True, int_ds=True)
    train = df.groupby("unique_id").head(114)
    est = TSForecaster(6, 24, max_steps=20, d_model=16, random_state=0,
                       future_covariates=["temp"]).fit(train)  # fmt: skip
    future = df.groupby("unique_id").tail(6)[["unique_id", "ds", "temp"]]
    return est, train, future


def _rows(frame, sid, column="y"):
    return frame.loc[frame["unique_id"] == sid, column].to_numpy()


def _band_holds(ax, label, lower, upper):
    y = _band(ax, label).get_paths()[0].vertices[:, 1]
    for v in np.concatenate([lower, upper]):  # every bound is a vertex of the band
        assert np.min(np.abs(y - v)) < 1e-9 * max(1.0, abs(v))


def test_panel_draws_each_series_history_forecast_and_interval_in_the_users_columns(panel):
    est, train, _ = panel
    user = train.rename(columns={"unique_id": "store", "ds": "date", "y": "sales"})
    fig = plot_forecast(est, user, ids=["H4", "H2"], coverages=0.8, id_col="store",
                        time_col="date", target_col="sales")  # fmt: skip
    assert [a.get_title(loc="left") for a in fig.axes] == ["H4", "H2"]
    chosen = train[train["unique_id"].isin(["H2", "H4"])]
    expected = est.predict(chosen)
    lower, upper = est.predict_interval(chosen, coverage=0.8)
    for a, sid in zip(fig.axes, ["H4", "H2"], strict=True):
        forecast = _line(a, "forecast")
        np.testing.assert_allclose(forecast.get_ydata(), _rows(expected, sid))
        np.testing.assert_array_equal(forecast.get_xdata(), _rows(expected, sid, "ds"))
        np.testing.assert_allclose(_line(a, "history").get_ydata(), _rows(train, sid)[-24:])
        np.testing.assert_array_equal(_line(a, "history").get_xdata(), _rows(train, sid, "ds")[-24:])
        _band_holds(a, "80% interval", _rows(lower, sid), _rows(upper, sid))
        assert not [c for c in a.collections if c.get_label() == "95% interval"]
        assert (a.get_xlabel(), a.get_ylabel()) == ("date", "sales") or a.get_ylabel() == ""
    assert fig.axes[0].get_ylabel() == "sales" and fig.axes[1].get_xlabel() == "date"
    # each series forecast from its own rows: the same numbers as from the whole frame
    whole = est.predict(train)
    np.testing.assert_allclose(_rows(whole, "H4"), _rows(expected, "H4"), rtol=1e-5)


def test_panel_caps_the_series_drawn_and_draws_what_followed(panel):
    est, train, test = panel
    with pytest.warns(UserWarning, match=r"first 3 of 5 series; pass ids=\[...\]"):
        fig = plot_forecast(est, train, y_true=test, max_ids=3, history=10, coverages=(0.5, 0.9))
    assert [a.get_title(loc="left") for a in fig.axes] == ["H1", "H2", "H3"]
    for a in fig.axes:
        sid = a.get_title(loc="left")
        np.testing.assert_allclose(_line(a, "actual").get_ydata(), _rows(test, sid))
        assert len(_line(a, "history").get_ydata()) == 10
        assert {c.get_label() for c in a.collections} == {"50% interval", "90% interval"}
    assert fig.legends and fig.axes[0].get_legend() is None  # one legend above the grid


def test_panel_without_rows_draws_the_fitted_series_forecasts(panel):
    est, _, _ = panel
    fig = plot_forecast(est, ids="H5", coverages=())
    (ax,) = fig.axes
    expected = est.predict()
    np.testing.assert_allclose(_line(ax, "forecast").get_ydata(), _rows(expected, "H5"))
    assert [ln.get_label() for ln in ax.get_lines()] == ["forecast"]  # no history to draw


def test_covariate_panel_reads_the_future_covariates(covariate_panel):
    est, train, future = covariate_panel
    fig = plot_forecast(est, train, X=future, ids=["H3"], coverages=0.8, components=True)
    (ax,) = fig.axes
    rows = train[train["unique_id"] == "H3"]  # only the series drawn are forecast
    expected = est.predict(rows, X=future)
    lower, upper = est.predict_interval(rows, coverage=0.8, X=future)
    np.testing.assert_allclose(_line(ax, "forecast").get_ydata(), _rows(expected, "H3"))
    np.testing.assert_array_equal(_line(ax, "forecast").get_xdata(), np.arange(1114, 1120))
    _band_holds(ax, "80% interval", _rows(lower, "H3"), _rows(upper, "H3"))
    parts = est.predict_components(rows, X=future)
    np.testing.assert_allclose(_line(ax, f"anchor alone ({est.anchor_})").get_ydata(),
                               _rows(parts["anchor"], "H3"))  # fmt: skip
    # the fitted series, their horizon rows filled from make_future_dataframe()
    X = est.make_future_dataframe().merge(future, on=["unique_id", "ds"])
    fig = plot_forecast(est, X=X, ids=["H1", "H2"])
    np.testing.assert_allclose(_line(fig.axes[1], "forecast").get_ydata(),
                               _rows(est.predict(X=X), "H2"))  # fmt: skip


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(ids=["H1", "H44"]), ValueError, r"\['H44'\] not among the 5 series of y_context; close to 'H44': \['H4'\]"),
        (dict(ids=["H7"]), ValueError, r"they include \['H1', 'H2', 'H3', 'H4', 'H5'\]"),
        (dict(ids=[]), ValueError, "ids is empty"),
        (dict(channels=[0]), ValueError, "choose the series of a long frame with ids"),
        (dict(id_col="store"), ValueError, r"lacks the column\(s\) \['store'\]"),
        (dict(max_ids=0), ValueError, "max_ids must be a positive int"),
    ],
)
def test_panel_plot_errors_say_what_to_pass(panel, kwargs, error, message):
    est, train, _ = panel
    with pytest.raises(error, match=message):
        plot_forecast(est, train, **kwargs)


def test_panel_plot_refuses_what_it_cannot_draw(panel, fitted):
    import matplotlib.pyplot as plt  # not left imported by another test: this one may run alone

    est, train, test = panel
    with pytest.raises(ValueError, match="fitted on a long frame: pass its series' rows"):
        plot_forecast(est, train["y"].to_numpy())
    with pytest.raises(ValueError, match=r"\['H9'\] not among the 5 series of the fitted series"):
        plot_forecast(est, ids=["H9"])
    with pytest.raises(ValueError, match="y_true shares no"):
        plot_forecast(est, train, y_true=train, ids=["H1"])
    with pytest.raises(ValueError, match="has column\\(s\\) \\['y'\\] beside \\['sales'\\]"):
        plot_forecast(est, train.assign(sales=train["y"]), target_col="sales")
    with pytest.raises(ValueError, match="ax holds 1 axes for 2 series to draw"):
        plot_forecast(est, train, ids=["H1", "H2"], ax=plt.subplots()[1])
    with pytest.raises(ValueError, match="ids chooses series of a long frame"):
        plot_forecast(fitted[0], ids=["load"])


def test_panel_names_the_standard_columns_to_a_predict_that_takes_them(panel):
    # a predict that takes id_col / time_col / target_col (and may answer in other names)
    est, train, _ = panel
    calls = []

    class NamedColumns(TSForecaster):
        def predict(self, y=None, X=None, id_col="store", time_col="date", target_col="sales"):
            calls.append((id_col, time_col, target_col))
            return super().predict(y, X).set_axis([id_col, time_col, target_col], axis=1)

    named = NamedColumns.__new__(NamedColumns)
    named.__dict__.update(est.__dict__)
    user = train.rename(columns={"unique_id": "store", "ds": "date", "y": "sales"})
    (ax,) = plot_forecast(named, user, ids=["H1"], coverages=(), id_col="store", time_col="date",
                          target_col="sales").axes  # fmt: skip
    assert calls == [("unique_id", "ds", "y")]
    np.testing.assert_allclose(_line(ax, "forecast").get_ydata(),
                               _rows(est.predict(train[train["unique_id"] == "H1"]), "H1"))  # fmt: skip


def test_panel_of_a_model_fitted_on_the_users_columns_reads_them_without_being_told(panel):
    est, train, _ = panel
    user = train.rename(columns={"unique_id": "store", "ds": "date", "y": "sales"})
    named = TSForecaster(**est.get_params()).fit(user, id_col="store", time_col="date",
                                                 target_col="sales")  # fmt: skip
    assert named.columns_.id == "store"
    (ax,) = plot_forecast(named, user, ids=["H3"], coverages=0.8).axes
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("date", "sales")
    expected = named.predict(user[user["store"] == "H3"])
    np.testing.assert_allclose(_line(ax, "forecast").get_ydata(), expected["sales"].to_numpy())
