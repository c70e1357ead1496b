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
        pred = _forecaster(M4Benchmark().resolve("Hourly"), model, 0)(fit)
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


def _write_m4(path, series):
    """``{id: values}`` as an M4 file: one series a row, its id then its values, padded with
    empty cells (the competition's layout)."""
    width = max(len(v) for v in series.values())
    wide = pd.DataFrame([np.r_[v, np.full(width - len(v), np.nan)] for v in series.values()],
                        index=pd.Index(list(series), name="V1"),
                        columns=[f"V{i + 2}" for i in range(width)])  # fmt: skip
    wide.to_csv(path)
    return path


def _weekly_panel(n=5, seed=0):
    rng = np.random.default_rng(seed)
    return {f"W{i + 1}": 100 + np.cumsum(rng.normal(0, 2, 60 + 15 * i)) for i in range(n)}


def test_the_frequency_is_read_from_the_ids_and_checked_against_the_file_names(tmp_path):
    from tsattn.benchmarks.m4_frequencies import frequency_of

    weekly = _write_m4(tmp_path / "Weekly-train.csv", _weekly_panel())
    ids = read_m4(weekly)[0]["unique_id"].unique()
    assert frequency_of(ids, [weekly, None]) == "Weekly"
    assert frequency_of(ids, [tmp_path / "my_panel.csv"]) == "Weekly"  # a name that names none
    misnamed = _write_m4(tmp_path / "Hourly-train.csv", _weekly_panel())
    with pytest.raises(ValueError, match=r"Hourly-train.csv is named for M4 Hourly, but its series "
                       r"ids start with 'W' \(M4 Weekly\).*--frequency"):  # fmt: skip
        frequency_of(ids, [misnamed])
    assert frequency_of(ids, [misnamed], frequency="weekly") == "Weekly"  # the option overrides
    with pytest.raises(ValueError, match=r"no single M4 frequency: 2 ids starting 'W', 1 ids "
                       r"starting 'D'.*--frequency"):  # fmt: skip
        frequency_of(["W1", "W2", "D1"])
    with pytest.raises(ValueError, match=r"1 ids starting 'X'.*H \(Hourly\)"):
        frequency_of(["X1"])


def test_weekly_runs_with_its_horizon_and_m_end_to_end(tmp_path):
    train_path = _write_m4(tmp_path / "Weekly-train.csv", _weekly_panel())
    out = tmp_path / "out"
    res = run_m4(M4Benchmark(models=["naive1", "snaive", "naive2"], split="val"), train_path, None,
                 out, progress=False)  # fmt: skip
    assert res["status"].tolist() == ["ok"] * 3 and (res["n_series"] == 5).all()
    config = json.loads((out / "run.json").read_text())["runs"][-1]["config"]
    assert (config["frequency"], config["horizon"], config["season"]) == ("Weekly", 13, 1)
    assert config["mstl_seasons"] == [52] and config["input_size"] == 26
    assert config["tsattn_params"] == {"period": 52}
    pred = pd.read_csv(out / "forecasts" / "val_naive2_0.csv.gz")
    assert pred.groupby("unique_id").size().eq(13).all()
    # m = 1: the seasonal naive and Naive2 are Naive1 (with m = 24 the three would differ)
    assert res["smape"].nunique() == 1 and res["mase"].nunique() == 1
    # MASE scaled by the lag-1 differences of the fitted rows, by hand
    train, _ = read_m4(train_path)
    fit, target = split_panel(train, None, "val", 13)
    last = fit.groupby("unique_id")["y"].last()
    scale = fit.groupby("unique_id")["y"].apply(lambda s: np.mean(np.abs(np.diff(s))))
    by_hand = (np.abs(target["y"] - target["unique_id"].map(last)) / target["unique_id"].map(scale)).mean()
    assert res["mase"].iloc[0] == pytest.approx(by_hand)
    summary = json.loads((out / "summary.json").read_text())
    assert {r["model"]: r["OWA"] for r in summary}["naive2"] == pytest.approx(1.0)
    report = (out / "results.md").read_text()
    assert report.startswith("# M4 Weekly (5 series, horizon 13, m = 1)\n")
    assert "| Naive2 (M4 benchmark) | 9.161 | 2.777 | 1.000 |" in report  # Weekly's, not Hourly's
    assert "18.383" not in report and "| Smyl ES-RNN (M4 winner) | 7.817 | 2.356 | 0.851 |" in report
    # one folder, one frequency
    _write_m4(tmp_path / "Hourly-train.csv", {f"H{i}": np.arange(1.0, 200.0) for i in range(2)})
    with pytest.raises(ValueError, match="holds results of M4 Weekly"):
        run_m4(M4Benchmark(), tmp_path / "Hourly-train.csv", None, out, progress=False)


def test_weekly_test_split_and_an_mstl_that_cannot_apply(tmp_path):
    panel = _weekly_panel(n=3)
    train_path = _write_m4(tmp_path / "Weekly-train.csv", {k: v[:-13] for k, v in panel.items()})
    test_path = _write_m4(tmp_path / "Weekly-test.csv", {k: v[-13:] for k, v in panel.items()})
    res = run_m4(M4Benchmark(models=["naive2", "sf:MSTL"], split="test"), train_path, test_path,
                 tmp_path / "o", progress=False)  # fmt: skip
    assert res["status"].iloc[0] == "ok"  # scored on the 13 test values of each series
    # the shortest series has 47 values, fewer than two years of weeks: a clear error row
    assert res["status"].iloc[1].startswith("error: ValueError: MSTL at seasons (52,) needs two "
                                            "periods (104 values) of every series; 3 of 3 Weekly "
                                            "series are shorter (the shortest, W1, has 47)")  # fmt: skip


def test_hourly_defaults_are_unchanged_and_the_table_covers_every_frequency():
    from tsattn.benchmarks.m4_frequencies import SETTINGS, mstl_problem
    from tsattn.datasets import m4_info

    c = M4Benchmark().resolve("hourly")
    assert (c.frequency, c.horizon, c.season, c.mstl_seasons, c.input_size) == ("Hourly", 48, 24, (24, 168), 168)
    assert c.tsattn_params == {"period": 24}
    given = M4Benchmark(input_size=336, tsattn_params={"period": 168, "d_model": 8}).resolve("Hourly")
    assert given.input_size == 336 and given.tsattn_params == {"period": 168, "d_model": 8}
    assert set(SETTINGS) == {"Yearly", "Quarterly", "Monthly", "Weekly", "Daily", "Hourly"}
    for name, row in SETTINGS.items():
        if name != "Hourly":
            assert row.input_size == 2 * m4_info(name).horizon
    assert "M4 Yearly has no season" in mstl_problem("Yearly", (), {"Y1": 30})
    assert mstl_problem("Daily", (7,), {"D1": 14, "D2": 900}) is None


def test_naive2_with_the_m_of_other_frequencies():
    rng = np.random.default_rng(1)
    x = rng.uniform(50, 60, 40)
    assert sc.naive2(x, 13, 1) == pytest.approx(np.repeat(x[-1], 13))  # m = 1: Naive1
    s = np.array([0.7, 1.2, 1.3, 0.8])  # quarterly pattern, mean 1
    q = 100 * np.tile(s, 12) * (1 + 0.005 * rng.standard_normal(48))
    assert sc.seasonality_test(q, 4)
    assert sc.naive2(q, 8, 4) / (100 * np.tile(s, 2)) == pytest.approx(np.ones(8), abs=0.05)
    s12 = 1 + 0.4 * np.sin(2 * np.pi * np.arange(12) / 12)
    mo = 100 * np.tile(s12, 8) * (1 + 0.005 * rng.standard_normal(96))
    assert sc.seasonality_test(mo, 12) and not sc.seasonality_test(mo[:35], 12)  # 3 years at least
    assert sc.naive2(mo, 18, 12) / (100 * np.resize(s12, 18)) == pytest.approx(np.ones(18), abs=0.05)


def test_cli_names_a_file_whose_name_and_ids_disagree_and_takes_frequency(tmp_path, capsys):
    from tsattn.cli import main

    misnamed = _write_m4(tmp_path / "Hourly-train.csv", _weekly_panel(n=2))
    args = ["bench", "m4", "--train", str(misnamed), "--models", "naive2", "-q"]
    assert main(args + ["--out", str(tmp_path / "a")]) != 0
    assert "Hourly-train.csv is named for M4 Hourly, but its series ids start with 'W'" in capsys.readouterr().err
    assert main(args + ["--out", str(tmp_path / "b"), "--frequency", "weekly"]) == 0
    assert "# M4 Weekly (2 series, horizon 13, m = 1)" in capsys.readouterr().out


TINY = {"max_steps": 10, "d_model": 8, "n_heads": 2, "n_layers": 1, "period": 24}
PARTS = ["blend", "net_smape", "net_mase", "anchor_smape", "anchor_mase"]


def test_tsattn_rows_record_what_the_model_did_and_its_errors_per_step(tmp_path, shared_datasets):
    from tsattn.estimators import TSForecaster

    train_path, _ = _few_series(tmp_path, shared_datasets)
    out = tmp_path / "o"
    config = M4Benchmark(models=["tsattn", "naive2"], split="val", tsattn_params=TINY)
    res = run_m4(config, train_path, None, out, progress=False).set_index("model")
    assert (res["status"] == "ok").all()
    assert np.isfinite(res.loc["tsattn", PARTS].astype(float)).all() and 0 <= res.loc["tsattn", "blend"] <= 1
    assert res.loc["naive2", PARTS + ["anchor"]].isna().all()  # peers: empty
    # by hand: the same seeded fit, its parts scored with the bench's own scores
    train, _ = read_m4(train_path)
    fit, target = split_panel(train, None, "val", 48)
    f = TSForecaster(horizon=48, random_state=0, **TINY).fit(fit)
    parts = f.predict_components()
    assert res.loc["tsattn", "blend"] == pytest.approx(f.blend_, rel=1e-12)  # through the CSV's digits
    assert res.loc["tsattn", "anchor"] == f.anchor_
    assert res.loc["tsattn", "switched"] == np.count_nonzero(f.series_choice_)
    assert np.isnan(res.loc["naive2", "switched"])
    logged = res.loc["tsattn", "logged"]  # the series on the log scale, or empty where none is
    assert (np.isnan(logged) and f.log_series_ is None) or logged == np.count_nonzero(f.log_series_)
    for name, prefix in (("network", "net"), ("anchor", "anchor")):
        s = score_forecasts(fit, target, parts[name], 24)
        assert res.loc["tsattn", [f"{prefix}_smape", f"{prefix}_mase"]].tolist() == pytest.approx(
            [s["smape"], s["mase"]], rel=1e-12)  # fmt: skip
    assert not np.allclose(parts["network"]["y"], parts["forecast"]["y"])  # the check can tell them apart
    # the point forecast is predict's, bit for bit (the committed fits depend on it)
    written = pd.read_csv(out / "forecasts" / "val_tsattn_0.csv.gz", float_precision="round_trip")
    np.testing.assert_array_equal(written["y"].to_numpy(), f.predict()["y"].to_numpy())
    # per step: every series has 48 targets, so the mean over steps is the row's score
    steps = pd.read_csv(out / "horizon" / "val_tsattn_0.csv")
    assert steps["step"].tolist() == list(range(1, 49)) and (steps["model"] == "tsattn").all()
    for col in ("smape", "mase", "net_smape", "net_mase", "anchor_smape", "anchor_mase"):
        assert steps[col].mean() == pytest.approx(res.loc["tsattn", col], rel=1e-5)
    assert not (out / "horizon" / "val_naive2_0.csv").exists()
    report = (out / "results.md").read_text()
    assert "## what the tsattn model did" in report and "| val | tsattn | 1 | " in report.split("did")[1]
    summary = {r["model"]: r for r in json.loads((out / "summary.json").read_text())}
    assert summary["tsattn"]["net_MASE"] == pytest.approx(res.loc["tsattn", "net_mase"])
    assert summary["naive2"]["net_MASE"] is None


def test_results_from_before_the_parts_columns_still_report_and_resume(tmp_path, shared_datasets):
    train_path, _ = _few_series(tmp_path, shared_datasets, n=2)
    out = tmp_path / "o"
    out.mkdir()
    old = "split,model,seed,smape,mase,n_series,seconds,status\nval,tsattn,0,12.5,1.5,2,3.0,ok\n"
    (out / "results.csv").write_text(old)
    from tsattn.benchmarks.m4 import write_m4_report

    write_m4_report(out, "Hourly")
    report = (out / "results.md").read_text()
    assert "| val | tsattn | 1 | 12.500 |" in report and "what the tsattn model did" not in report
    res = run_m4(M4Benchmark(models=["naive2"], split="val"), train_path, None, out, progress=False)
    assert res["model"].tolist() == ["tsattn", "naive2"] and res["blend"].isna().all()
    assert (out / "results.md").read_text().count("| val | tsattn | 1 | 12.500 |") == 1
