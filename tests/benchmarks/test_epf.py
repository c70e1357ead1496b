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
