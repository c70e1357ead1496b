"""EPF under TimeXer's protocol: splits, TRAIN-only standardisation, windows, the naive forecasts and
the ridge on a constructed market, the harness's error rows, and the real files' window counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tsattn.benchmarks.epf import EPFBenchmark, EPFData, forecast, read_epf, run_epf


def _market(n=1200, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    load = 100 + 20 * np.sin(2 * np.pi * t / 24) + rng.normal(0, 2, n)
    wind = rng.gamma(2.0, 10.0, n)
    price = 0.5 * load - 0.3 * wind + rng.normal(0, 1, n)
    dates = pd.date_range("2020-01-01", periods=n, freq="h").strftime("%Y/%-m/%-d %-H:%M")
    return pd.DataFrame({"date": dates, "Load forecast": load, "Wind forecast": wind, "OT": price})


def test_split_standardisation_and_windows_follow_timexer():
    frame = _market()
    data = EPFData(frame, context=168, horizon=24)
    n_train, n_test = int(0.7 * 1200), int(0.2 * 1200)
    assert data.ranges == {"train": (0, n_train), "val": (n_train - 168, 1200 - n_test),
                           "test": (1200 - n_test - 168, 1200)}  # fmt: skip
    assert data.values[:n_train].mean(0) == pytest.approx(np.zeros(3), abs=1e-9)
    assert data.values[:n_train].std(0) == pytest.approx(np.ones(3))
    assert abs(data.values[n_train:, -1].mean()) > 1e-6  # not re-standardised on its own rows
    y_ctx, x_win, y_true = data.windows("test")
    assert y_ctx.shape == (n_test + 168 - 192 + 1, 168) and x_win.shape == (len(y_ctx), 192, 2)
    start = 1200 - n_test - 168
    assert y_true[5] == pytest.approx(data.values[start + 5 + 168: start + 5 + 192, -1])
    assert x_win[5, -1] == pytest.approx(data.values[start + 5 + 191, :-1])


def test_naive_forecasts_and_the_ridge_reading_future_covariates():
    data = EPFData(_market(), 168, 24)
    config = EPFBenchmark(split="test")
    y_ctx, _, _ = data.windows("test")
    assert forecast(data, config, "naive_day", "none", 0) == pytest.approx(y_ctx[:, -24:])
    assert forecast(data, config, "naive_week", "none", 0) == pytest.approx(y_ctx[:, :24])
    y_true = data.windows("test")[2]
    mse = {s: np.mean((forecast(data, config, "ridge", s, 0) - y_true) ** 2) for s in ("past", "future")}
    # the price is linear in the horizon's covariates: knowing them must help a lot
    assert mse["future"] < 0.5 * mse["past"]


def test_lear_fits_the_ridge_on_the_asinh_scale_and_forecasts_the_price():
    from tsattn.benchmarks.epf import _lear_scale

    data = EPFData(_market(), 168, 24, calendar=True)
    before = data.values.copy()
    scaled, inverse = _lear_scale(data)
    assert np.array_equal(data.values, before)  # the data as they were
    cal = [data.covariates.index(c) for c in data.calendar]
    assert np.array_equal(scaled.values[:, cal], before[:, cal])  # the calendar untouched
    train = before[: data.n_train, 0]
    med = np.median(train)
    mad = 1.4826 * np.median(np.abs(train - med))
    assert scaled.values[:, 0] == pytest.approx(np.arcsinh((before[:, 0] - med) / mad))
    assert inverse(scaled.values[:, -1]) == pytest.approx(before[:, -1])
    y_true = data.windows("test")[2]
    config = EPFBenchmark(split="test")
    lear = forecast(data, config, "lear", "future", 0)
    naive = data.windows("test")[0][:, -24:]
    assert lear.shape == y_true.shape
    assert np.mean((lear - y_true) ** 2) < 0.5 * np.mean((naive - y_true) ** 2)


def test_harness_records_a_failing_model_and_resumes(tmp_path):
    path = tmp_path / "XX.csv"
    _market().to_csv(path, index=False)
    out = tmp_path / "out"
    config = EPFBenchmark(models=["naive_day", "ridge", "nope"], settings=["future"], split="val")
    res = run_epf(config, {"XX": path}, out, progress=False)
    assert list(res["status"][:2]) == ["ok", "ok"]
    assert res["status"].iloc[2].startswith("error: ValueError: unknown model 'nope'")
    assert len(run_epf(config, {"XX": path}, out, progress=False)) == 4
    assert "XX, split val, covariates future" in (out / "results.md").read_text()


def test_real_markets_give_timexers_window_counts(shared_datasets):
    for market in ("NP", "PJM", "BE"):
        frame = read_epf(shared_datasets / "forecasting" / "epf" / f"{market}.csv")
        data = EPFData(frame, 168, 24)
        assert len(frame) == 52416 and len(data.covariates) == 2
        assert len(data.windows("test")[0]) == 10460 and len(data.windows("val")[0]) == 5219


@pytest.mark.slow
def test_neuralforecast_peers_read_their_covariates_on_a_short_market(tmp_path):
    pytest.importorskip("neuralforecast")
    path = tmp_path / "XX.csv"
    _market(n=900).to_csv(path, index=False)
    config = EPFBenchmark(models=["nf:NHITS", "nf:PatchTST"], split="test", max_steps=2)
    res = run_epf(config, {"XX": path}, tmp_path / "o", progress=False)
    assert list(res["setting"]) == ["past", "future", "none"]
    assert (res["status"] == "ok").all() and (res["n_windows"] == 180 + 168 - 192 + 1).all()


def test_tsattn_rows_record_how_often_its_intervals_cover_the_price(tmp_path):
    path = tmp_path / "XX.csv"
    _market(n=900).to_csv(path, index=False)
    config = EPFBenchmark(models=["tsattn", "naive_day"], settings=["future"], split="test",
                          tsattn_params={"max_steps": 20, "d_model": 8, "n_heads": 2, "n_layers": 1})
    res = run_epf(config, {"XX": path}, tmp_path / "o", progress=False).set_index("model")
    assert (res["status"] == "ok").all()
    assert 0 < res.loc["tsattn", "cov80"] < res.loc["tsattn", "cov95"] <= 1
    assert np.isnan(res.loc["naive_day", "cov80"])  # no intervals: no coverage
    # by hand from the model's own quantiles: the 80% band's share of the test prices
    data = EPFData(_market(n=900), 168, 24)
    out = forecast(data, config, "tsattn", "future", 0)
    y_true = data.windows("test")[2]
    assert out.shape == (*y_true.shape, 5)
    assert (out[..., 1] <= out[..., 2]).all() and (out[..., 3] <= out[..., 4]).all()
    inside = np.mean((y_true >= out[..., 2]) & (y_true <= out[..., 3]))
    assert res.loc["tsattn", "cov80"] == pytest.approx(inside)
    assert res.loc["tsattn", "mse"] == pytest.approx(np.mean((out[..., 0] - y_true) ** 2))


TINY = {"max_steps": 20, "d_model": 8, "n_heads": 2, "n_layers": 1}
PARTS = ["blend", "net_mse", "net_mae", "anchor_mse", "anchor_mae"]


def test_tsattn_rows_record_what_the_model_did_and_its_errors_per_step(tmp_path):
    from tsattn.estimators import TSForecaster

    path = tmp_path / "XX.csv"
    _market(n=900).to_csv(path, index=False)
    out = tmp_path / "o"
    config = EPFBenchmark(models=["tsattn", "naive_day"], settings=["past"], split="test", tsattn_params=TINY)
    res = run_epf(config, {"XX": path}, out, progress=False).set_index("model")
    assert (res["status"] == "ok").all()
    assert np.isfinite(res.loc["tsattn", PARTS].astype(float)).all() and 0 <= res.loc["tsattn", "blend"] <= 1
    assert res.loc["naive_day", PARTS + ["anchor"]].isna().all()  # peers: empty
    # by hand: the same seeded fit, its parts scored on the same windows
    data = EPFData(_market(n=900), 168, 24)
    n = data.n_train
    g = TSForecaster(horizon=24, context_length=168, future_covariates=[], random_state=0, **TINY).fit(
        data.values[:n, -1], pd.DataFrame(data.values[:n, :-1], columns=data.covariates))  # fmt: skip
    y_ctx, x_win, y_true = (np.ascontiguousarray(a) for a in data.windows("test"))
    parts = g.predict_components(y_ctx, X=x_win)
    assert res.loc["tsattn", "blend"] == g.blend_ and res.loc["tsattn", "anchor"] == g.anchor_
    assert np.isnan(res.loc["tsattn", "switched"])  # one series with covariates: no choice
    for name, prefix in (("network", "net"), ("anchor", "anchor")):
        err = parts[name][..., 0] - y_true
        assert res.loc["tsattn", f"{prefix}_mse"] == pytest.approx(np.mean(err**2), rel=1e-12)
        assert res.loc["tsattn", f"{prefix}_mae"] == pytest.approx(np.mean(np.abs(err)), rel=1e-12)
    assert not np.allclose(parts["network"], parts["forecast"])  # the check can tell them apart
    # the point forecast is predict's, bit for bit (the committed fits depend on it)
    point = forecast(data, config, "tsattn", "past", 0)[..., 0]
    np.testing.assert_array_equal(point, np.asarray(g.predict(y_ctx, X=x_win))[..., 0])
    # per step: every window has 24 steps, so the mean over steps is the row's MSE (and MAE)
    steps = pd.read_csv(out / "horizon" / "XX_test_past_tsattn_0.csv")
    assert steps["step"].tolist() == list(range(1, 25)) and (steps["setting"] == "past").all()
    for col in ("mse", "mae", "net_mse", "net_mae", "anchor_mse", "anchor_mae"):
        assert steps[col].mean() == pytest.approx(res.loc["tsattn", col], rel=1e-5)
    assert len(list((out / "horizon").iterdir())) == 1  # the peer writes none
    report = (out / "results.md").read_text()
    assert "## what the tsattn model did" in report
    assert "| XX | test | past | tsattn | 1 | " in report.split("did")[1]


def test_results_from_before_the_parts_columns_still_report_and_resume(tmp_path):
    path = tmp_path / "XX.csv"
    _market(n=900).to_csv(path, index=False)
    out = tmp_path / "o"
    out.mkdir()
    (out / "results.csv").write_text("market,split,setting,model,seed,mse,mae,n_windows,seconds,status\n"
                                     "XX,val,past,tsattn,0,0.25,0.4,157,3.0,ok\n")  # fmt: skip
    from tsattn.benchmarks.epf import write_epf_report

    write_epf_report(out)
    report = (out / "results.md").read_text()
    assert "| XX | val | past | tsattn | 1 | 0.250 |" in report and "what the tsattn model did" not in report
    res = run_epf(EPFBenchmark(models=["naive_day"], settings=["past"]), {"XX": path}, out, progress=False)
    assert res["model"].tolist() == ["tsattn", "naive_day"] and res["blend"].isna().all()
    assert "what the tsattn model did" not in (out / "results.md").read_text()


def test_calendar_settings_add_the_calendar_known_ahead_to_every_covariate_reader(tmp_path):
    frame = _market(n=900)
    plain, cal = EPFData(frame, 168, 24), EPFData(frame, 168, 24, calendar=True)
    assert cal.calendar == ["cal_hour_sin", "cal_hour_cos", "cal_dayofweek_sin", "cal_dayofweek_cos",
                            "cal_weekend"]  # fmt: skip
    assert cal.covariates == plain.covariates + cal.calendar
    # the price and covariates as without calendar; the calendar columns as add_calendar gives them
    assert np.array_equal(cal.values[:, [0, 1, -1]], plain.values)
    assert set(np.unique(cal.values[:, 6])) == {0.0, 1.0}
    assert cal.future("past+calendar") == cal.calendar and cal.future("future+calendar") == cal.covariates
    assert plain.future("past") == [] and plain.future("future") == plain.covariates
    with pytest.raises(ValueError, match="calendar=True"):
        plain.future("past+calendar")
    with pytest.raises(ValueError, match="unknown setting"):
        cal.future("later")
    from tsattn.benchmarks.epf import _nf_frames, _ridge_features

    w = len(cal.windows("val")[0])
    assert _ridge_features(cal, "val", "past+calendar")[0].shape == (w, 168 * 8 + 24 * 5)
    assert _ridge_features(plain, "val", "future")[0].shape == (w, 168 + 192 * 2)
    _, _, futr, exog = _nf_frames(cal, "val", "past+calendar", "nf:NHITS")
    assert exog == {"futr_exog": ["x2", "x3", "x4", "x5", "x6"], "hist_exog": ["x0", "x1"]}
    assert list(futr.columns) == ["unique_id", "ds", "x2", "x3", "x4", "x5", "x6"]
    train, df, futr, exog = _nf_frames(cal, "val", "none", "nf:PatchTST")  # reads the price alone
    assert futr is None and exog == {} and list(df.columns) == ["unique_id", "ds", "y"]
    path = tmp_path / "XX.csv"
    frame.to_csv(path, index=False)
    config = EPFBenchmark(models=["ridge", "tsattn"], settings=["past", "past+calendar"], split="val",
                          tsattn_params=TINY)  # fmt: skip
    res = run_epf(config, {"XX": path}, tmp_path / "o", progress=False)
    assert (res["status"] == "ok").all() and list(res["setting"]) == ["past", "past+calendar"] * 2
    assert "XX, split val, covariates past+calendar" in (tmp_path / "o" / "results.md").read_text()


def test_the_command_offers_every_setting():
    from tsattn.benchmarks.epf import SETTINGS
    from tsattn.cli import build_parser

    for setting in SETTINGS:
        args = build_parser().parse_args(["bench", "epf", "--markets", "NP.csv", "--settings", setting])
        assert args.settings == [setting]


def test_a_failure_a_rerun_mended_is_not_reported_as_failed():
    from tsattn.benchmarks.panel_run import failures

    keys = ["market", "model", "seed"]
    rows = pd.DataFrame({"market": ["NP", "PJM", "NP", "BE"], "model": ["nf:PatchTST"] * 4,
                         "seed": [0, 0, 0, 0], "status": ["error: A", "error: B", "ok", "ok"]})
    section = "".join(failures(rows, keys))
    assert "PJM" in section and "error: B" in section and "NP" not in section
    assert failures(rows.iloc[2:], keys) == []
