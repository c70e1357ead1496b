"""The sktime forecaster on panels and hierarchies (one global model) and with exogenous X."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sktime")

from sktime.utils.estimator_checks import check_estimator  # noqa: E402

from tsattn.adapters._panel_frames import PanelLayout  # noqa: E402
from tsattn.adapters.sktime import TSAttnForecaster  # noqa: E402

TINY = TSAttnForecaster.get_test_params()[0]

# sktime's checks of the capabilities declared for issue 51: X in fit, predict and update,
# hierarchies with X, unequal lengths (every test parameter set, 1 and 2 columns of y)
NEW_CAPABILITIES = [
    "test_hierarchical_with_exogenous",
    "test_unequal_length_hierarchical_fit_predict",
    "test_update_with_exogenous_variables",
    "test_fit_predict",
]


def test_sktime_checks_of_exogenous_and_panel_capabilities():
    results = check_estimator(TSAttnForecaster, tests_to_run=NEW_CAPABILITIES, verbose=False)
    failed = {k: v for k, v in results.items() if v != "PASSED"}
    assert any("2cols" in k for k in results) and not failed, failed


def make_panel(n_series=3, n=60, freq="D", levels=1, seed=0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(y, X)`` on sktime's row MultiIndex: ``n_series`` instances (``levels`` instance levels)
    of length ``n`` on a ``PeriodIndex``; ``y`` follows the covariate ``x`` of the same step."""
    rng = np.random.default_rng(seed)
    time = pd.period_range("2020-01-01", periods=n, freq=freq)
    frames = []
    for i in range(n_series):
        x = np.sin(np.arange(n) / 3 + i) + 0.3 * rng.standard_normal(n)
        key = (f"r{i % 2}", f"s{i}") if levels == 2 else (f"s{i}",)
        index = pd.MultiIndex.from_tuples([(*key, t) for t in time])
        frames.append(pd.DataFrame({"y": 10.0 * i + 3.0 * x, "x": x}, index=index))
    frame = pd.concat(frames)
    frame.index.names = ["region", "store", "time"][-(levels + 1) :]
    return frame[["y"]], frame[["x"]]


def test_a_panel_is_one_global_model_forecasting_each_series():
    y, _ = make_panel()
    f = TSAttnForecaster(**TINY).fit(y, fh=[1, 2, 3])
    assert not f._is_vectorized and f.forecaster_.series_ids_ == ["s0", "s1", "s2"]
    assert isinstance(f.forecaster_.module_, __import__("torch").nn.Module)  # one network
    pred = f.predict()
    expected = pd.MultiIndex.from_product(
        [["s0", "s1", "s2"], pd.period_range("2020-03-01", periods=3, freq="D")],
        names=["store", "time"])  # fmt: skip
    assert pred.index.equals(expected) and list(pred.columns) == ["y"]
    long = f.forecaster_.predict()  # the wrapped forecaster's own long frame
    np.testing.assert_allclose(pred["y"].to_numpy(), long["y"].to_numpy())
    gaps = TSAttnForecaster(**TINY).fit(y, fh=[1, 3])  # the steps of fh, from a horizon of 3
    both = gaps.forecaster_.predict().y.to_numpy().reshape(3, 3)[:, [0, 2]]
    np.testing.assert_allclose(gaps.predict()["y"].to_numpy(), both.reshape(-1))
    assert gaps.predict().index.get_level_values(-1)[:2].tolist() == [
        pd.Period("2020-03-01", "D"), pd.Period("2020-03-03", "D")]  # fmt: skip


def test_future_known_x_moves_the_forecast_and_past_only_x_does_not():
    y, X = make_panel(n_series=1)
    y, X = y.droplevel(0), X.droplevel(0)  # one series
    train_y, train_X, future = y.iloc[:-3], X.iloc[:-3], X.iloc[-3:]
    moved = future + 2.0
    past = TSAttnForecaster(**TINY).fit(train_y, X=train_X, fh=[1, 2, 3])
    assert past.forecaster_.covariates_ == ["x"] and past.forecaster_.future_ == ()
    pd.testing.assert_frame_equal(past.predict(X=future), past.predict(X=moved))
    known = TSAttnForecaster(**TINY, future_covariates=["x"]).fit(train_y, X=train_X, fh=[1, 2, 3])
    base = known.predict(X=future)
    assert base.index.equals(future.index)
    assert not np.allclose(base.to_numpy(), known.predict(X=moved).to_numpy())
    np.testing.assert_allclose(  # the wrapped forecaster, given the rows seen and the horizon's
        base.to_numpy()[:, 0],
        known.forecaster_.predict(train_y.to_numpy(), X=X.to_numpy())[:, 0], rtol=1e-6)  # fmt: skip
    with pytest.raises(ValueError, match=r"steps 1 \.\. 3 after the cutoff"):
        known.predict(X=future.iloc[1:])
    with pytest.raises(ValueError, match="future covariates \\['x'\\]"):
        known.predict()
    past.update(y.iloc[-3:-2], update_params=False)  # y's new row without its X row
    with pytest.raises(ValueError, match="X has no row for 1 time point"):
        past.predict(X=future)


def test_future_known_x_on_a_panel_and_update_keeps_the_past_rows():
    y, X = make_panel()
    cut = y.index.get_level_values(-1) < pd.Period("2020-02-27", "D")
    f = TSAttnForecaster(**TINY, future_covariates=["x"]).fit(y[cut], X=X[cut], fh=[1, 2])
    future = X[~cut]  # 3 steps per series, 2 needed
    base = f.predict(X=future)
    assert not np.allclose(base.to_numpy(), f.predict(X=future * 0.0 + 5.0).to_numpy())
    # update without refitting: the new rows (and their covariates) are the contexts now
    new = (y.index.get_level_values(-1) >= pd.Period("2020-02-27", "D")) & (
        y.index.get_level_values(-1) < pd.Period("2020-02-28", "D"))  # fmt: skip
    f.update(y[new], X=X[new], update_params=False)
    after = f.predict(X=future)
    assert (after.index.get_level_values(-1) == pd.Period("2020-02-28", "D")).sum() == 3
    assert f.forecaster_.series_ids_ == ["s0", "s1", "s2"]  # not refitted


def test_hierarchical_frames_and_intervals_on_panels():
    y, X = make_panel(n_series=4, levels=2, freq="M", n=40)
    f = TSAttnForecaster(**TINY).fit(y, X=X, fh=[1, 2])
    assert f.forecaster_.series_ids_ == ["r0/s0", "r0/s2", "r1/s1", "r1/s3"]
    pred = f.predict()
    assert pred.index.names == ["region", "store", "time"] and len(pred) == 8
    assert set(pred.index.get_level_values(-1)) == {
        pd.Period("2023-05", "M"),
        pd.Period("2023-06", "M"),
    }
    q = f.predict_quantiles(alpha=[0.1, 0.9])
    assert list(q.columns) == [("y", 0.1), ("y", 0.9)] and q.index.equals(pred.index)
    long = f.forecaster_.predict_quantiles(alpha=(0.1, 0.9))
    # rows in y's order of instances; the long frame's are sorted by unique_id
    np.testing.assert_allclose(q.sort_index().to_numpy(), long[[0.1, 0.9]].to_numpy())
    interval = f.predict_interval(coverage=0.8)
    lower, upper = interval[("y", 0.8, "lower")], interval[("y", 0.8, "upper")]
    np.testing.assert_allclose(lower.to_numpy(), q[("y", 0.1)].to_numpy())
    assert (lower.to_numpy() < upper.to_numpy()).all()


def test_several_columns_of_a_panel_are_series_of_the_one_model():
    y, X = make_panel()
    y2 = y.assign(z=X["x"].to_numpy())
    f = TSAttnForecaster(**TINY).fit(y2, fh=[1])
    assert len(f.forecaster_.series_ids_) == 6 and f.forecaster_.series_ids_[:2] == ["s0/y", "s0/z"]
    assert list(f.predict().columns) == ["y", "z"]
    with pytest.raises(ValueError, match="channel_independent=True"):
        TSAttnForecaster(**TINY, channel_independent=False).fit(y2, fh=[1])
    # one multivariate series still mixes its channels with channel_independent=False
    one = y2.loc["s1"]
    g = TSAttnForecaster(**TINY, channel_independent=False).fit(one, fh=[1, 2])
    assert g.predict().shape == (2, 2)


def test_layout_integers_and_unequal_ends_continue_each_series():
    index = pd.MultiIndex.from_tuples(
        [("a", t) for t in range(30)] + [("b", t) for t in range(5, 25)]
    )
    y = pd.DataFrame({"v": np.arange(50.0)}, index=index)
    layout = PanelLayout.of(y)
    long = layout.long_target(y)
    assert long.unique_id.unique().tolist() == ["a", "b"] and long.ds.dtype.kind == "i"
    f = TSAttnForecaster(**TINY).fit(y, fh=[1, 2])
    pred = f.predict()  # each series from its own last row
    assert pred.index.tolist() == [("a", 30), ("a", 31), ("b", 25), ("b", 26)]
    clash = pd.MultiIndex.from_tuples([(1, t) for t in range(3)] + [("1", t) for t in range(3)])
    with pytest.raises(ValueError, match="same series name"):
        PanelLayout.of(pd.DataFrame({"v": np.arange(6.0)}, index=clash))
