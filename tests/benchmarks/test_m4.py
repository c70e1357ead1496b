"""M4 scores against hand computation, Naive2's decomposition on constructed series, the published
Naive benchmarks reproduced on the real Hourly files, and the harness on a few series."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tsattn.benchmarks import m4_scores as sc
from tsattn.benchmarks.m4 import M4Benchmark, read_m4, run_m4, score_forecasts, split_panel


def test_smape_mase_owa_by_hand():
    y, f = np.array([100.0, 200.0]), np.array([110.0, 180.0])
    assert sc.smape(y, f) == pytest.approx([200 * 10 / 210, 200 * 20 / 380])
    # lag-2 differences of 1, 2, 4, 7, 11: 3, 5, 7 -> mean 5
    assert sc.mase_scale(np.array([1.0, 2, 4, 7, 11]), 2) == pytest.approx(5.0)
    assert sc.owa(10.0, 1.0, 20.0, 4.0) == pytest.approx(0.5 * (0.5 + 0.25))
    with pytest.raises(ValueError, match="longer than m=24"):
        sc.mase_scale(np.ones(24), 24)


def test_seasonal_indices_recover_the_constructed_pattern():
    s = np.array([0.8, 1.3, 1.1, 0.8])  # mean 1
    x = 50.0 * np.tile(s, 10)
    assert sc.seasonal_indices(x, 4) == pytest.approx(s)
    # odd period, series starting mid-cycle: index i belongs to steps t with t % m == i
    s3 = np.array([0.5, 1.5, 1.0])
    x3 = 20.0 * np.tile(np.roll(s3, -1), 9)
    assert sc.seasonal_indices(x3, 3) == pytest.approx(np.roll(s3, -1))


def test_naive2_continues_a_seasonal_series_and_falls_back_to_naive1():
    rng = np.random.default_rng(0)
    s = 1 + 0.5 * np.sin(2 * np.pi * np.arange(24) / 24)
    x = 100.0 * np.tile(s, 30) * (1 + 0.01 * rng.standard_normal(720))
    assert sc.seasonality_test(x, 24)
    f = sc.naive2(x, 48, 24)
    truth = 100.0 * np.tile(s, 2)
    assert np.max(np.abs(f / truth - 1)) < 0.05
    noise = 100 + rng.standard_normal(720)
    assert not sc.seasonality_test(noise, 24)
    assert sc.naive2(noise, 5, 24) == pytest.approx(np.repeat(noise[-1], 5))
    assert not sc.seasonality_test(x[:71], 24)  # shorter than three periods
    assert sc.seasonal_naive(np.arange(5.0), 4, 2) == pytest.approx([3, 4, 3, 4])


def _few_series(tmp_path, shared_datasets, n=4):
    src = shared_datasets / "forecasting" / "m4"
    paths = []
    for part in ("train", "test"):
        wide = pd.read_csv(src / f"Hourly-{part}.csv").head(n)
        paths.append(tmp_path / f"Hourly-{part}.csv")
        wide.to_csv(paths[-1], index=False)
    return paths


def test_naive_benchmarks_reproduce_the_published_hourly_scores(shared_datasets):
    src = shared_datasets / "forecasting" / "m4"
    train, test = read_m4(src / "Hourly-train.csv", src / "Hourly-test.csv")
    fit, target = split_panel(train, test, "test", 48)
    from tsattn.benchmarks.m4 import _forecaster

    got = {}
    for model in ("naive1", "snaive", "naive2"):
        pred = _forecaster(M4Benchmark(), model, 0)(fit)
        s = score_forecasts(fit, target, pred, 24)
        got[model] = (round(s["smape"], 3), round(s["mase"], 3))
    # the M4 paper's Hourly rows
    assert got == {"naive1": (43.003, 11.608), "snaive": (13.912, 1.193), "naive2": (18.383, 2.395)}


def test_harness_records_errors_resumes_and_reads_no_test_file_for_val(tmp_path, shared_datasets):
    train_path, test_path = _few_series(tmp_path, shared_datasets)
    out = tmp_path / "out"
    config = M4Benchmark(models=["naive2", "snaive", "no_such_model"], split="val")
    missing = tmp_path / "absent-test.csv"  # val must not open the test file
    res = run_m4(config, train_path, missing, out, command="t", progress=False)
    assert list(res["status"][:2]) == ["ok", "ok"]
    assert res["status"].iloc[2].startswith("error: ValueError: unknown model 'no_such_model'")
    res = run_m4(config, train_path, missing, out, command="t", progress=False)
    assert len(res) == 4  # the two ok rows kept, the failing model tried again
    runs = json.loads((out / "run.json").read_text())["runs"]
    assert [r["status"] for r in runs] == ["finished", "finished"]
    assert {"commit", "dirty", "cpu", "torch_threads", "started", "ended"} <= set(runs[0])
    report = (out / "results.md").read_text()
    assert "| val | naive2 | 1 |" in report and "published" in report and "no_such_model" in report
    # the held-out rows are the last 48 of each training series
    train, _ = read_m4(train_path)
    fit, target = split_panel(train, None, "val", 48)
    assert target.groupby("unique_id").size().eq(48).all()
    assert len(fit) + len(target) == len(train)


@pytest.mark.slow
def test_statsforecast_seasonal_naive_matches_ours(tmp_path, shared_datasets):
    pytest.importorskip("statsforecast")
    train_path, test_path = _few_series(tmp_path, shared_datasets, n=3)
    res = run_m4(M4Benchmark(models=["snaive", "sf:SeasonalNaive"], split="test"), train_path,
                 test_path, tmp_path / "o", progress=False)  # fmt: skip
    assert (res["status"] == "ok").all()
    assert res["smape"].iloc[0] == pytest.approx(res["smape"].iloc[1])


def test_cli_runs_and_names_a_missing_test_file(tmp_path, shared_datasets, capsys):
    from tsattn.cli import main

    train_path, test_path = _few_series(tmp_path, shared_datasets, n=2)
    assert main(["bench", "m4", "--train", str(train_path), "--test", str(test_path), "--split", "test",
                 "--models", "naive2", "--out", str(tmp_path / "o"), "-q"]) == 0  # fmt: skip
    assert "| test | naive2 | 1 |" in capsys.readouterr().out
    assert main(["bench", "m4", "--train", str(train_path), "--split", "test"]) != 0
    assert "--split test needs --test" in capsys.readouterr().err


@pytest.mark.slow
def test_a_global_neuralforecast_peer_forecasts_every_series(tmp_path, shared_datasets):
    pytest.importorskip("neuralforecast")
    train_path, test_path = _few_series(tmp_path, shared_datasets, n=3)
    config = M4Benchmark(models=["nf:NHITS"], split="val", max_steps=2)
    res = run_m4(config, train_path, None, tmp_path / "o", progress=False)
    assert res["status"].iloc[0] == "ok" and res["n_series"].iloc[0] == 3


def test_msis_and_coverage_by_hand():
    fit = pd.DataFrame({"unique_id": "a", "ds": np.arange(1, 27), "y": np.r_[np.zeros(24), 2.0, 2.0]})
    # MASE's divisor: the mean absolute lag-24 difference of the in-sample rows, (2 + 2) / 2 = 2
    target = pd.DataFrame({"unique_id": "a", "ds": [27, 28], "y": [1.0, 5.0]})
    pred = target.assign(y=[1.0, 1.0], lo95=[0.0, 0.0], lo80=[0.5, 0.5], hi80=[1.5, 1.5], hi95=[2.0, 3.0])
    s = score_forecasts(fit, target, pred, 24)
    assert s["cov80"] == 0.5 and s["cov95"] == 0.5  # 1.0 inside both; 5.0 above both
    # step 1: width 2 / 2 = 1; step 2: (3 + 40 * (5 - 3)) / 2 = 41.5
    assert s["msis"] == pytest.approx((1 + 41.5) / 2)
    assert "cov80" not in score_forecasts(fit, target, pred[["unique_id", "ds", "y"]], 24)


@pytest.mark.slow
def test_tsattn_rows_carry_their_intervals_coverage(tmp_path, shared_datasets):
    train_path, test_path = _few_series(tmp_path, shared_datasets)
    config = M4Benchmark(models=["tsattn"], split="val", tsattn_params={
        "max_steps": 10, "d_model": 8, "n_heads": 2, "n_layers": 1, "period": 24})
    res = run_m4(config, train_path, test_path, tmp_path / "o", progress=False)
    assert res["status"].tolist() == ["ok"]
    assert 0 <= res["cov80"].iloc[0] <= res["cov95"].iloc[0] <= 1 and res["msis"].iloc[0] > 0
