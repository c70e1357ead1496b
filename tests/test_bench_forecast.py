"""The forecasting benchmark: baselines, protocol (every test window), outputs, and the CLI."""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
import pytest

from tsattn.benchmarks.forecast import (
    ForecastBenchmark,
    ar_forecast,
    fit_ar,
    run_forecast_benchmark,
    seasonal_naive,
)
from tsattn.commands import bench


def _frame(n=400, c=2, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    values = np.stack(
        [np.sin(2 * np.pi * t / 12 + k) + 0.1 * rng.normal(size=n) for k in range(c)], 1
    )
    return pd.DataFrame(values, index=pd.date_range("2000-01-01", periods=n, freq="D"),
                        columns=[f"x{k}" for k in range(c - 1)] + ["OT"])  # fmt: skip


def test_seasonal_naive_repeats_the_last_season():
    ctx = np.arange(10, dtype=float).reshape(1, 10, 1)
    np.testing.assert_array_equal(seasonal_naive(ctx, 5, 3)[0, :, 0], [7, 8, 9, 7, 8])
    np.testing.assert_array_equal(seasonal_naive(ctx, 3, 1)[0, :, 0], [9, 9, 9])
    np.testing.assert_array_equal(seasonal_naive(ctx, 2, 52)[0, :, 0], [9, 9])  # period > context


def test_ar_forecast_matches_statsmodels():
    from statsmodels.tsa.ar_model import AutoReg

    y = _frame(300, 1).to_numpy()
    params = fit_ar(y, 5)
    expected = AutoReg(y[:, 0], lags=5, trend="c").fit().forecast(7)
    np.testing.assert_allclose(ar_forecast(params, y[None, -5:], 7)[0, :, 0], expected, rtol=1e-8)


def test_benchmark_writes_every_test_window_and_outputs(tmp_path):
    config = ForecastBenchmark(
        dataset="exchange_rate", horizons=[4], context_length=16, attentions=["softmax"],
        max_epochs=1, d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, ar_lags=4,
        max_train_windows=50, patch_len=4,
    )  # fmt: skip
    results = run_forecast_benchmark(config, tmp_path, frame=_frame(), log=lambda *_: None)
    # 70/10/20 split of 400 rows: 80 test rows plus 16 of context -> 96 - 16 - 4 + 1 windows
    assert set(results["n_test_windows"]) == {77}
    assert set(results["model"]) == {"naive_last", "seasonal_naive", "ar", "softmax/linear",
                                     "softmax/fourier"}  # fmt: skip
    assert np.isfinite(results["mse"]).all()
    for name in ("results.csv", "results.md", "config.json", "forecast_h4.png"):
        assert (tmp_path / name).is_file()
    assert "softmax/fourier" in (tmp_path / "results.md").read_text()


def test_naive_baseline_mse_is_computed_on_scaled_test_windows(tmp_path):
    from tsattn.datasets import forecasting_splits

    df = _frame()
    config = ForecastBenchmark(dataset="exchange_rate", horizons=[5], context_length=10,
                               attentions=[], ar_lags=3)  # fmt: skip
    results = run_forecast_benchmark(config, tmp_path, frame=df, log=lambda *_: None)
    ctx, tgt = forecasting_splits(df, "exchange_rate", 10).windows("test", 5)
    expected = np.mean((ctx[:, -1:] - tgt) ** 2)
    got = results.set_index("model").loc["naive_last", "mse"]
    assert got == pytest.approx(expected)


def test_cli_parses_and_runs(tmp_path, monkeypatch):
    import tsattn.datasets

    monkeypatch.setattr(tsattn.datasets, "load_forecasting", lambda name: _frame())
    parser = argparse.ArgumentParser()
    bench.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["bench", "forecast", "--dataset", "exchange_rate", "--horizons", "3",
         "--context-length", "12", "--attentions", "softmax", "--heads", "linear",
         "--max-epochs", "1", "--d-model", "8", "--n-heads", "2", "--n-layers", "1",
         "--ar-lags", "4", "--patch-len", "4", "--out", str(tmp_path)]
    )  # fmt: skip
    assert args.func(args) == 0
    assert len(pd.read_csv(tmp_path / "results.csv")) == 4


def test_ctrl_c_stops_the_benchmark_and_keeps_finished_runs(tmp_path, ctrl_c_on_fit):
    """The interrupted fit is not scored as if it had finished, and earlier rows reach disk."""
    import json

    from tsattn.benchmarks import BenchmarkInterrupted

    config = ForecastBenchmark(
        dataset="exchange_rate", horizons=[4], context_length=16, attentions=["softmax"],
        heads=["linear"], seeds=[0, 1, 2], max_epochs=2, d_model=8, n_heads=2, n_layers=1,
        dim_feedforward=16, ar_lags=4, max_train_windows=50, patch_len=4,
        extra={"callbacks": [ctrl_c_on_fit(fit=2)]},
    )  # fmt: skip
    with pytest.raises(BenchmarkInterrupted, match="seed 1") as stop, pytest.warns(UserWarning):
        run_forecast_benchmark(config, tmp_path, frame=_frame(), log=lambda *_: None)
    written = pd.read_csv(tmp_path / "results.csv")
    assert list(written.model) == ["naive_last", "seasonal_naive", "ar", "softmax/linear"]
    assert list(written.seed.dropna()) == [0]
    assert len(stop.value.partial) == 4
    assert json.loads((tmp_path / "config.json").read_text())["interrupted"] is True
