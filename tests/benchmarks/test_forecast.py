"""The forecasting benchmark: baselines, protocol (every test window, the same for every model),
resuming, the validation mode, neuralforecast peers, outputs, and the CLI."""

from __future__ import annotations

import argparse
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from tsattn.benchmarks import forecast_peers
from tsattn.benchmarks.forecast import ForecastBenchmark, run_forecast_benchmark
from tsattn.benchmarks.forecast_baselines import ar_forecast, fit_ar, seasonal_naive
from tsattn.commands import bench
from tsattn.io import seasonal_period

TINY = dict(d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_steps=4, patch_len=4)


def _frame(n=400, c=2, seed=0, freq="D"):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    values = np.stack(
        [np.sin(2 * np.pi * t / 12 + k) + 0.1 * rng.normal(size=n) for k in range(c)], 1
    )
    return pd.DataFrame(values, index=pd.date_range("2000-01-01", periods=n, freq=freq),
                        columns=[f"x{k}" for k in range(c - 1)] + ["OT"])  # fmt: skip


def _config(**kw):
    base = dict(datasets=["exchange_rate"], horizons=[4], context_length=16, params=TINY,
                peers=[], ar_lags=4, n_plot=1)  # fmt: skip
    return ForecastBenchmark(**{**base, **kw})


def _run(config, out, frame=None):
    return run_forecast_benchmark(config, out, frames={"exchange_rate": _frame() if frame is None
                                                       else frame}, log=lambda *_: None)  # fmt: skip


def test_seasonal_naive_repeats_the_last_season():
    ctx = np.arange(10, dtype=float).reshape(1, 10, 1)
    np.testing.assert_array_equal(seasonal_naive(ctx, 5, 3)[0, :, 0], [7, 8, 9, 7, 8])
    np.testing.assert_array_equal(seasonal_naive(ctx, 3, 1)[0, :, 0], [9, 9, 9])
    np.testing.assert_array_equal(seasonal_naive(ctx, 2, 52)[0, :, 0], [9, 9])  # period > context


@pytest.mark.parametrize("freq, period", [("h", 24), ("15min", 96), ("10min", 144), ("D", 7),
                                          ("7D", 52), ("MS", 12), ("2D", 1)])  # fmt: skip
def test_seasonal_period_is_read_from_the_time_index_not_the_name(freq, period):
    assert seasonal_period(pd.date_range("2000", periods=50, freq=freq)) == period
    assert seasonal_period(pd.date_range("2000", periods=50, freq=freq).to_period()) == period
    assert seasonal_period(pd.RangeIndex(50)) == 1


def test_ar_forecast_matches_statsmodels():
    from statsmodels.tsa.ar_model import AutoReg

    y = _frame(300, 1).to_numpy()
    params = fit_ar(y, 5)
    expected = AutoReg(y[:, 0], lags=5, trend="c").fit().forecast(7)
    np.testing.assert_allclose(ar_forecast(params, y[None, -5:], 7)[0, :, 0], expected, rtol=1e-8)


def test_benchmark_scores_every_test_window_and_writes_its_outputs(tmp_path):
    results = _run(_config(horizons=[4, 6]), tmp_path)
    # 70/10/20 split of 400 rows: 80 test rows plus 16 of context -> 96 - 16 - h + 1 windows
    assert dict(results.groupby("horizon")["n_windows"].first()) == {4: 77, 6: 75}
    assert set(results["model"]) == {"naive_last", "seasonal_naive", "ar", "tsattn:softmax"}
    assert (results["status"] == "ok").all() and np.isfinite(results["mse"]).all()
    ours = results[results["model"] == "tsattn:softmax"]
    assert ours[["cov80", "cov95", "blend", "mse_network", "mse_anchor"]].notna().all().all()
    assert (ours["cov95"] >= ours["cov80"]).all()
    for name in ("results.csv", "results.md", "config.json", "plots/exchange_rate_test_h4.png"):
        assert (tmp_path / name).is_file()
    report = (tmp_path / "results.md").read_text()
    assert "| tsattn:softmax |" in report and "S3Attention" in report  # the published table
    run = json.loads((tmp_path / "config.json").read_text())["runs"][0]
    assert run["status"] == "finished" and run["ended"] and run["machine"]["cpu_count"] >= 1
    assert set(results["run_id"]) == {run["id"]}  # every row names the run that wrote it


def test_naive_baseline_mse_is_computed_on_scaled_test_windows(tmp_path):
    from tsattn.datasets import forecasting_splits

    df = _frame()
    results = _run(_config(horizons=[5], context_length=10, attentions=[], ar_lags=3), tmp_path, df)
    ctx, tgt = forecasting_splits(df, "exchange_rate", 10).windows("test", 5)
    expected = np.mean((ctx[:, -1:] - tgt) ** 2)
    assert results.set_index("model").loc["naive_last", "mse"] == pytest.approx(expected)


def test_rerun_skips_what_is_done_and_extends_with_new_seeds(tmp_path):
    first = _run(_config(seeds=[0]), tmp_path)
    again = _run(_config(seeds=[0]), tmp_path)
    pd.testing.assert_frame_equal(first, again)  # nothing refitted, nothing appended
    more = _run(_config(seeds=[0, 1]), tmp_path)
    assert len(more) == len(first) + 1 and sorted(more["seed"].unique()) == [0, 1]
    assert len(json.loads((tmp_path / "config.json").read_text())["runs"]) == 3


def test_validation_split_reads_no_test_data(tmp_path):
    frame = _frame()
    frame.iloc[-80:] = np.nan  # the test rows: any use of them makes the scores NaN
    results = _run(_config(split="val"), tmp_path, frame)
    assert (results["split"] == "val").all() and np.isfinite(results["mse"]).all()
    assert set(results["n_windows"]) == {40 - 4 + 1}  # 40 validation rows, every window


def test_missing_neuralforecast_skips_the_peers_with_one_warning(tmp_path, monkeypatch):
    monkeypatch.setattr(forecast_peers, "missing_peers", lambda: "neuralforecast is not installed")
    import tsattn.benchmarks.forecast as forecast

    monkeypatch.setattr(forecast, "missing_peers", forecast_peers.missing_peers)
    with pytest.warns(UserWarning, match="not installed"):
        results = _run(_config(peers=["patchtst", "dlinear"], attentions=[]), tmp_path)
    assert set(results["model"]) == {"naive_last", "seasonal_naive", "ar"}


def test_peer_scores_the_benchmarks_windows(tmp_path):
    """A real neuralforecast DLinear, a few steps: the targets it sees back are the benchmark's."""
    pytest.importorskip("neuralforecast")
    results = _run(_config(peers=["dlinear"], attentions=[], baselines=[], peer_steps=3), tmp_path)
    row = results.iloc[0]
    assert row["model"] == "dlinear" and row["status"] == "ok" and np.isfinite(row["mse"])
    assert row["n_windows"] == 77 and row["n_steps"] == 3
    series = np.sin(np.arange(60) / 3)[:, None]
    windows = np.stack([series[i + 16 : i + 20] for i in range(20 - 4 + 1)])
    with pytest.raises(RuntimeError, match="other windows"):
        forecast_peers.peer_forecasts("dlinear", series, windows + 1.0, 16, 4, 0, 20, 0, 2, 8)


@pytest.mark.gpu
@pytest.mark.parametrize("device", ["cuda", "cpu"])
def test_benchmark_peers_train_on_the_benchmarks_device(tmp_path, device):
    """neuralforecast's peers run on the GPU with ``device="cuda"``, and on the CPU of a GPU machine
    with ``device="cpu"`` (given no ``devices``, neuralforecast asks for every GPU there)."""
    pytest.importorskip("neuralforecast")

    config = _config(peers=["dlinear"], attentions=[], baselines=[], peer_steps=3, device=device)
    row = _run(config, tmp_path).iloc[0]
    assert row["status"] == "ok" and np.isfinite(row["mse"]), row["error"]


def test_failed_fit_is_recorded_and_the_run_goes_on(tmp_path, monkeypatch):
    import tsattn.benchmarks.forecast as forecast

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(forecast, "_fit_tsattn", broken)
    results = _run(_config(), tmp_path)
    failed = results[results["status"] == "failed"]
    assert list(failed["model"]) == ["tsattn:softmax"] and "boom" in failed["error"].iloc[0]
    assert (results[results["status"] == "ok"]["model"] == "ar").any()
    assert "Failed fits" in (tmp_path / "results.md").read_text()


def test_cli_parses_and_runs(tmp_path, monkeypatch):
    import tsattn.datasets

    monkeypatch.setattr(tsattn.datasets, "load_forecasting", lambda name: _frame())
    parser = argparse.ArgumentParser()
    bench.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["bench", "forecast", "--datasets", "exchange_rate", "--horizons", "3",
         "--context-length", "12", "--attentions", "softmax", "--param", "d_model=8",
         "--param", "n_heads=2", "--param", "max_steps=3", "--param", "patch_len=4",
         "--peers", "--ar-lags", "4", "--label", "tiny", "--out", str(tmp_path)]
    )  # fmt: skip
    assert args.func(args) == 0
    written = pd.read_csv(tmp_path / "results.csv")
    assert len(written) == 4 and "tsattn:softmax[tiny]" in set(written["model"])


def test_cli_with_no_attentions_runs_the_others_only(tmp_path, monkeypatch):
    """``--attentions`` with no name fits none of ours (as ``--peers`` runs no peer): a peer or
    baseline can be added to a folder without refitting our rows."""
    import tsattn.datasets

    monkeypatch.setattr(tsattn.datasets, "load_forecasting", lambda name: _frame())
    parser = argparse.ArgumentParser()
    bench.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["bench", "forecast", "--datasets", "exchange_rate", "--horizons", "3", "--context-length",
         "12", "--attentions", "--peers", "--baselines", "naive_last", "ar", "--ar-lags", "4",
         "--out", str(tmp_path)]
    )  # fmt: skip
    assert args.func(args) == 0
    assert set(pd.read_csv(tmp_path / "results.csv")["model"]) == {"naive_last", "ar"}


def test_ctrl_c_stops_the_benchmark_and_keeps_finished_runs(tmp_path, ctrl_c_on_fit):
    """The interrupted fit is not scored as if it had finished, and earlier rows reach disk."""
    from tsattn.benchmarks import BenchmarkInterrupted

    config = _config(seeds=[0, 1, 2], params={**TINY, "callbacks": [ctrl_c_on_fit(fit=2)]})
    with pytest.raises(BenchmarkInterrupted, match="seed 1") as stop, pytest.warns(UserWarning):
        _run(config, tmp_path)
    written = pd.read_csv(tmp_path / "results.csv")
    assert list(written.model) == ["naive_last", "seasonal_naive", "ar", "tsattn:softmax"]
    assert len(stop.value.partial) == 4
    assert "after 4 of 6 fits" in str(stop.value)  # counted without a progress bar too
    assert json.loads((tmp_path / "config.json").read_text())["runs"][-1]["status"] == "interrupted"


def test_fit_time_of_a_forecaster_on_a_wide_random_walk(tmp_path):
    """The wide-data measurement (Electricity/Traffic shapes) in miniature: 60 channels."""
    from tsattn.cli import main

    out = tmp_path / "ft"
    assert main(["bench", "fit-time", "--forecast", "--channels", "60", "--length", "1000",
                 "--param", "max_steps=3", "--param", "d_model=8", "--out", str(out)]) == 0  # fmt: skip
    record = json.loads((out / "n1_c60_l1000.json").read_text())
    samples = (900 - 96 - 96 + 1) * 60  # 10% validation tail, context and horizon 96
    assert record["task"] == "forecasting" and record["n_steps"] == 3
    assert record["train_samples"] == samples and record["planned_steps"] == 3
    assert record["patch_len"] == 16 and 0 < record["peak_rss_mb"] < 8192


def test_summary_counts_a_partial_peer_at_the_horizons_it_ran():
    """A peer that ran at some horizons only (ILI's PatchTST at h24) still beats ours there: the
    summary's "below every peer" counts it at those horizons (it once ignored any peer missing a
    horizon), while the best peer is chosen among the complete ones."""
    from tsattn.benchmarks.forecast_report import _summary

    rows = [("tsattn:softmax", 24, 2.3), ("tsattn:softmax", 36, 2.4), ("patchtst", 24, 2.2),
            ("dlinear", 24, 2.7), ("dlinear", 36, 2.5), ("naive_last", 24, 6.0),
            ("naive_last", 36, 7.0)]  # fmt: skip
    frame = pd.DataFrame([dict(dataset="illness", model=m, horizon=h, mse=v, seed=0)
                          for m, h, v in rows])  # fmt: skip
    line = _summary(frame)[2]
    assert "| dlinear (2.6000) | 1/2 | 2/2 |" in line, line


@pytest.mark.parametrize("name, freq, first, columns", [
    ("weather", "10min", "2020-01-01 00:10:00", ["p (mbar)", "T (degC)", "rh (%)", "OT"]),
    ("electricity", "h", "2016-07-01 02:00:00", ["0", "1", "2", "OT"]),
    ("traffic", "h", "2016-07-01 02:00:00", ["0", "1", "2", "OT"]),
])  # fmt: skip
def test_a_set_missing_from_shared_runs_through_the_same_command(tmp_path, monkeypatch, name, freq,
                                                                 first, columns):  # fmt: skip
    """The command a user runs on ETTh1, on a long-horizon set this machine cannot download: a
    file in the set's canonical layout (``date`` first, ``OT`` last) placed in the cache is read
    by the real loader (offline, no checksum recorded for it), split 70/10/20, and benchmarked;
    the forecaster reads the set's season off its time index (a day: 144 or 24 rows)."""
    from tests.helpers.datasets import isolate
    from tsattn import TSForecaster
    from tsattn.datasets import forecasting_splits, load_forecasting

    rows = 1500
    data = _frame(rows, len(columns), freq=freq)
    data.index = pd.date_range(first, periods=rows, freq=freq)
    (tmp_path / "data" / "forecasting").mkdir(parents=True)
    data.set_axis(columns, axis=1).rename_axis("date").reset_index().assign(
        date=lambda f: f["date"].dt.strftime("%Y-%m-%d %H:%M:%S")).to_csv(
        tmp_path / "data" / "forecasting" / f"{name}.csv", index=False)  # fmt: skip
    isolate(monkeypatch, tmp_path / "data")
    df = load_forecasting(name)
    assert list(df.columns) == columns and len(df) == rows
    assert pd.infer_freq(df.index) == pd.tseries.frequencies.to_offset(freq).freqstr
    splits = forecasting_splits(df, name, 24)
    period = {"10min": 144, "h": 24}[freq]
    fitted = TSForecaster(6, 24, **{**TINY, "max_steps": 2}).fit(splits.scaled_frame("train"))
    assert fitted.period_ == period
    parser = argparse.ArgumentParser()
    bench.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["bench", "forecast", "--datasets", name, "--horizons", "6", "--context-length", "24",
         "--param", "d_model=8", "--param", "n_heads=2", "--param", "max_steps=3", "--peers",
         "--ar-lags", "4", "--out", str(tmp_path / "out")]
    )  # fmt: skip
    assert args.func(args) == 0
    written = pd.read_csv(tmp_path / "out" / "results.csv")
    assert (written["status"] == "ok").all() and "tsattn:softmax" in set(written["model"])
    # 20% test rows plus the context, every stride-1 window scored
    assert set(written["n_windows"]) == {int(rows * 0.2) + 24 - 24 - 6 + 1}


def _write_csv(path, frame):
    frame.rename_axis("date").reset_index().to_csv(path, index=False)
    return path


def test_a_users_csv_file_runs_through_the_same_command(tmp_path):
    """A set outside the catalogue, named by its path: read with the loader's checks, split
    70/10/20 with Dataset_Custom's borders, its rows and plots named by the file's stem."""
    from tsattn.datasets import forecasting_borders, forecasting_entry, load_forecasting

    rows = 600
    path = _write_csv(tmp_path / "my_sensor.csv", _frame(rows, 3, freq="h"))
    label, entry = forecasting_entry(str(path))
    assert label == "my_sensor" and entry["horizons"] == [96, 192, 336, 720]
    frame = load_forecasting(str(path))
    assert frame.shape == (rows, 3) and isinstance(frame.index, pd.DatetimeIndex)
    assert forecasting_borders(str(path), rows, 24) == ((0, 420), (396, 480), (456, 600))
    parser = argparse.ArgumentParser()
    bench.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["bench", "forecast", "--datasets", str(path), "--horizons", "6", "--context-length", "24",
         "--param", "d_model=8", "--param", "n_heads=2", "--param", "max_steps=3", "--peers",
         "--ar-lags", "4", "--out", str(tmp_path / "out")]
    )  # fmt: skip
    assert args.func(args) == 0
    written = pd.read_csv(tmp_path / "out" / "results.csv")
    assert set(written["dataset"]) == {"my_sensor"} and (written["status"] == "ok").all()
    assert set(written["n_windows"]) == {int(rows * 0.2) - 6 + 1}
    assert (tmp_path / "out" / "plots" / "my_sensor_test_h6.png").is_file()


@pytest.mark.parametrize("edit, message", [
    (lambda f: f.reset_index(drop=True), "no 'date' column"),
    (lambda f: f.iloc[::-1], "not strictly increasing"),
    (lambda f: f.assign(x0=f["x0"].where(f.index != f.index[5])), "1 missing values"),
    (lambda f: f.assign(site="a"), "non-numeric column(s) ['site']"),
])  # fmt: skip
def test_a_bad_csv_file_is_refused_before_any_work_saying_what_to_fix(tmp_path, edit, message):
    from tsattn.benchmarks.forecast import check_config

    frame = edit(_frame(300, 2, freq="h"))
    path = tmp_path / "bad.csv"
    if "date" in message:
        frame.to_csv(path, index=False)
    else:
        _write_csv(path, frame)
    with pytest.raises(ValueError, match=re.escape(message)):
        check_config(_config(datasets=[str(path)]))


def test_a_missing_csv_file_says_what_a_dataset_may_be(tmp_path):
    from tsattn.datasets import load_forecasting

    with pytest.raises(ValueError, match="no file .*nope.csv.*'date' column.*catalogue name"):
        load_forecasting(str(tmp_path / "nope.csv"))


def test_scores_summed_over_chunks_are_the_whole_arrays_scores():
    from tsattn.benchmarks.forecast_scores import chunks, score_windows

    rng = np.random.default_rng(0)
    contexts, targets = rng.normal(size=(23, 5, 3)), rng.normal(size=(23, 4, 3))
    pred = targets + rng.normal(size=targets.shape)
    lo, hi = pred - 1.0, pred + rng.uniform(0, 2, size=pred.shape)

    def forecast(where, chunk):
        assert chunk.shape[0] == where.stop - where.start
        return {"pred": pred[where], "bands": {0.8: (lo[where], hi[where])},
                "parts": {"mse_network": pred[where] * 2}}  # fmt: skip

    picks = np.array([0, 11, 22])
    assert len(chunks(23, 4, 3, chunk_bytes=3 * 4 * 3 * 8)) == 8  # three windows a chunk
    whole, parts = (score_windows(forecast, contexts, targets, picks, b).row() for b in (None, 100))
    assert whole == pytest.approx(parts, rel=1e-12)
    inside = (targets >= lo) & (targets <= hi)
    assert parts["mse"] == pytest.approx(np.mean((pred - targets) ** 2))
    assert parts["mae"] == pytest.approx(np.mean(np.abs(pred - targets)))
    assert parts["cov80"] == pytest.approx(inside.mean())
    assert parts["width80"] == pytest.approx(np.mean(hi - lo))
    assert parts["mse_network"] == pytest.approx(np.mean((2 * pred - targets) ** 2))
    kept = score_windows(forecast, contexts, targets, picks, 100)
    np.testing.assert_allclose(kept.sample("pred"), pred[picks, :, -1], rtol=1e-6)
    np.testing.assert_allclose(kept.sample("hi"), hi[picks, :, -1], rtol=1e-6)


def test_the_benchmark_scores_the_same_in_small_chunks(tmp_path, monkeypatch):
    """Rows and kept samples of a run scored a few windows at a time equal one whole-array run's."""
    from tsattn.benchmarks import forecast_scores

    whole = _run(_config(), tmp_path / "whole")
    monkeypatch.setattr(forecast_scores, "CHUNK_BYTES", 4 * 2 * 8 * 3)  # three windows a chunk
    small = _run(_config(), tmp_path / "small")
    cols = ["mse", "mae", "cov80", "cov95", "width80", "mse_network", "mse_anchor"]
    # the network's float32 sums differ in the last digits with the batch's size
    np.testing.assert_allclose(small[cols].to_numpy(float), whole[cols].to_numpy(float), rtol=1e-6)
    a, b = (np.load(p / "samples" / "exchange_rate_test_h4.npz") for p in (tmp_path / "whole",
                                                                           tmp_path / "small"))
    assert sorted(a) == sorted(b)
    for key in a:
        np.testing.assert_allclose(a[key], b[key], rtol=1e-6)


def test_a_wide_sets_windows_are_never_held_whole(tmp_path, monkeypatch):
    """Traffic's TEST targets at h720 would be 13.8 GB as one array: the benchmark holds a chunk
    of windows at a time. Here the targets of a 500-channel set would be 160 MB; the run's peak
    allocation stays far below it (numpy reports its buffers to tracemalloc)."""
    import tracemalloc

    from tsattn.benchmarks import forecast_scores

    monkeypatch.setattr(forecast_scores, "CHUNK_BYTES", 1 << 22)  # 4 MiB, 64 in a real run
    rows, channels, horizon = 2000, 500, 200
    frame = _frame(rows, channels, freq="h")
    targets_bytes = (int(rows * 0.2) - horizon + 1) * horizon * channels * 8
    config = _config(horizons=[horizon], context_length=16, attentions=[],
                     baselines=["naive_last", "seasonal_naive"], n_plot=1)  # fmt: skip
    tracemalloc.start()
    try:
        run_forecast_benchmark(config, tmp_path, frames={"exchange_rate": frame}, log=lambda *_: None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    written = pd.read_csv(tmp_path / "results.csv")
    assert (written["status"] == "ok").all() and len(written) == 2
    assert targets_bytes > 150e6 and peak < targets_bytes / 3, (peak, targets_bytes)


def test_a_peer_too_big_for_the_machine_is_skipped_with_why_and_no_row(tmp_path, monkeypatch):
    """neuralforecast returns every window's forecast at once (Traffic at h96: about 34 GB): where
    that cannot fit, the peer is not started (an out-of-memory kill would end the whole run), the
    log says why, and no row is written, so a rerun on a larger machine runs it."""
    import tsattn.benchmarks.forecast as forecast

    assert forecast_peers.memory_problem(3413, 96, 862, available=24 * 10**9).startswith(
        "neuralforecast would hold all 3413 x 96 x 862 forecast values at once, about 34 GB")
    assert forecast_peers.memory_problem(10801, 720, 7, available=24 * 10**9) is None  # ETTm1
    monkeypatch.setattr(forecast, "missing_peers", lambda: None)
    monkeypatch.setattr(forecast_peers, "BYTES_PER_VALUE", 10**12)  # any set is too big

    def never(*args, **kwargs):
        raise AssertionError("the peer was started")

    monkeypatch.setattr(forecast, "peer_forecasts", never)
    lines = []
    results = run_forecast_benchmark(_config(peers=["patchtst"], attentions=[]), tmp_path,
                                     frames={"exchange_rate": _frame()}, log=lines.append)  # fmt: skip
    assert "patchtst" not in set(results["model"]) and len(results) == 3
    assert any("patchtst seed=0: skipped, neuralforecast would hold all" in line for line in lines)


def test_the_progress_bar_counts_the_fits_left_and_names_the_one_under_way(tmp_path, capsys):
    _run(_config(seeds=[0]), tmp_path)  # 3 baselines and ours: done, not counted again below
    lines = []
    run_forecast_benchmark(_config(seeds=[0, 1]), tmp_path, frames={"exchange_rate": _frame()},
                           log=lines.append, progress=True)  # fmt: skip
    bar = capsys.readouterr().err
    assert "bench forecast" in bar and "1/1" in bar and "tsattn:softmax seed=1" in bar, bar
    assert len(lines) == 1


def test_a_local_copy_of_a_catalogue_set_takes_its_name_and_protocol(tmp_path, shared_datasets):
    """A file named ETTh1.csv is split 12/4/4 months as ETTh1 (the published numbers shown beside
    it assume that split); one whose bytes are not the catalogue's file says so."""
    from tsattn.datasets import forecasting_borders, forecasting_entry, load_forecasting

    shared = shared_datasets / "forecasting" / "ETTh1.csv"
    if not shared.is_file():
        pytest.skip(f"needs {shared}")
    copy = tmp_path / "ETTh1.csv"
    copy.write_bytes(shared.read_bytes())
    label, entry = forecasting_entry(str(copy))
    assert label == "ETTh1" and entry["split"] == "ett_hourly" and "url" not in entry
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the very file: no warning
        frame = load_forecasting(str(copy))
    assert forecasting_borders(str(copy), len(frame), 96)[0] == (0, 8640)
    other = tmp_path / "other" / "etth1.csv"
    other.parent.mkdir()
    _write_csv(other, _frame(300, 2, freq="h"))
    with pytest.warns(UserWarning, match=r"named as the catalogue's ETTh1 .*\(sha256 differs\)"):
        load_forecasting(str(other))


def test_plots_keep_each_models_lowest_seed(tmp_path):
    """A later run of more seeds does not replace a model's plotted forecast; a lower seed does."""
    def kept(out):
        return np.load(out / "samples" / "exchange_rate_test_h4.npz")

    config = dict(baselines=[])
    _run(_config(seeds=[0], **config), tmp_path / "zero")
    _run(_config(seeds=[0], **config), tmp_path / "up")
    _run(_config(seeds=[1], **config), tmp_path / "up")  # seed 1 after seed 0: kept as it was
    _run(_config(seeds=[1], **config), tmp_path / "down")
    first = kept(tmp_path / "down")["pred:tsattn:softmax"].copy()
    _run(_config(seeds=[0], **config), tmp_path / "down")  # seed 0 after seed 1: replaces it
    zero = kept(tmp_path / "zero")["pred:tsattn:softmax"]
    for name in ("up", "down"):
        arrays = kept(tmp_path / name)
        assert int(arrays["seed:tsattn:softmax"]) == 0
        np.testing.assert_array_equal(arrays["pred:tsattn:softmax"], zero)
    assert not np.array_equal(first, zero)  # the two seeds forecast differently


def test_a_sample_kept_before_seeds_were_recorded_gives_way_to_seed_0_only(tmp_path):
    """...and a rerun of the kept seed replaces its forecast (the code may have changed)."""
    from types import SimpleNamespace

    from tsattn.benchmarks.forecast_report import save_samples

    data = SimpleNamespace(name="set", part="test")
    contexts, targets = np.zeros((3, 5, 1)), np.zeros((3, 2, 1))
    def scores(value):
        return SimpleNamespace(picks=np.array([0]), sample=lambda k: None if k != "pred"
                               else np.full((1, 2), value))  # fmt: skip

    path = tmp_path / "samples" / "set_test_h2.npz"
    path.parent.mkdir()
    np.savez(path, **{"pred:m": np.full((1, 2), 7.0)})  # no "seed:m": an older file
    for seed, value, expected in ((2, 2.0, 7.0), (1, 1.0, 7.0), (0, 0.0, 0.0), (1, 1.0, 0.0),
                                  (0, 5.0, 5.0)):  # the last: seed 0 rerun, e.g. after a change
        save_samples(tmp_path, data, 2, "m", contexts, targets, scores(value), seed)
        assert np.load(path)["pred:m"][0, 0] == expected, seed
    assert int(np.load(path)["seed:m"]) == 0


def test_plot_labels_each_forecast_with_its_seed(tmp_path, monkeypatch):
    from types import SimpleNamespace

    import matplotlib.pyplot as plt

    from tsattn.benchmarks.forecast_report import plot_samples

    path = tmp_path / "samples" / "set_test_h2.npz"
    path.parent.mkdir()
    np.savez(path, context=np.zeros((1, 5)), truth=np.zeros((1, 2)), picks=np.array([0]),
             **{"pred:m": np.ones((1, 2)), "seed:m": np.asarray(2), "pred:old": np.ones((1, 2))})
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    plot_samples(tmp_path, SimpleNamespace(name="set", part="test", columns=["c"]), 2)
    labels = [t.get_text() for t in figures[0].axes[0].get_legend().get_texts()]
    assert "m (seed 2)" in labels and "old" in labels  # no seed recorded: none claimed
    assert (tmp_path / "plots" / "set_test_h2.png").is_file()


def test_a_zoo_of_attentions_and_heads_is_compared_with_softmax_and_the_linear_head(tmp_path):
    """--attentions with --heads: every variant with every head, named tsattn:<attention>/<head>,
    each row recording what the model did (blend_, anchor_, the parts alone) and its intervals'
    pinball loss; the report ranks the settings against softmax with the linear head."""
    from tsattn.benchmarks.forecast_report import zoo_table

    config = _config(attentions=["softmax", "bn"], heads=["linear", "fourier"], horizons=[4, 6],
                     baselines=[], seeds=[0, 1])  # fmt: skip
    results = _run(config, tmp_path)
    assert set(results["model"]) == {"tsattn:softmax/linear", "tsattn:softmax/fourier",
                                     "tsattn:bn/linear", "tsattn:bn/fourier"}  # fmt: skip
    assert (results["status"] == "ok").all() and len(results) == 16
    assert set(results["anchor"]) <= {"linear", "nlinear", "last", "cycle", "ncycle"}
    assert results[["pinball80", "pinball95", "mse_network", "mse_anchor"]].notna().all().all()
    table = zoo_table(results)
    assert table.loc["tsattn:softmax/linear", "exchange_rate"] == pytest.approx(1.0)
    means = results.groupby(["model", "horizon"])["mse"].mean().unstack()
    ratio = np.exp(np.mean(np.log(means.loc["tsattn:bn/fourier"] / means.loc["tsattn:softmax/linear"])))
    assert table.loc["tsattn:bn/fourier", "exchange_rate"] == pytest.approx(ratio)
    assert sorted(table["mean_rank"]) == [1.0, 2.0, 3.0, 4.0]
    report = (tmp_path / "results.md").read_text()
    assert "Settings compared (test split)" in report and (tmp_path / "plots" / "zoo_test.png").is_file()
    assert "MSE relative to `tsattn:softmax/linear`" in report


def test_the_settings_table_names_the_setting_its_ratios_are_relative_to(tmp_path):
    """Without softmax/linear among them the first setting run is the reference, and the report
    names it even when another setting ranks first (it once named the best ranked)."""
    from tsattn.benchmarks.forecast_report import _zoo, zoo_baseline

    rows = [dict(dataset="ETTh1", split="test", horizon=h, model=m, seed=0, mse=mse, status="ok",
                 fit_s=1.0, blend=0.5)
            for h in (96, 192) for m, mse in (("tsattn:softmax", 1.0), ("tsattn:softmax[b]", 0.5))]
    results = pd.DataFrame(rows)
    assert zoo_baseline(results) == "tsattn:softmax"
    report = "\n".join(_zoo(results, tmp_path))
    assert "MSE relative to `tsattn:softmax` per dataset" in report
    assert "| tsattn:softmax[b] | 0.500 |" in report  # ranked first, relative to the reference


def test_bad_heads_are_refused(tmp_path):
    with pytest.raises(ValueError, match="heads must be some of"):
        _run(_config(heads=["flat"]), tmp_path / "bad")


def test_results_written_before_a_column_was_added_are_kept(tmp_path):
    """A results.csv of an older version (no anchor/pinball columns) is widened, not misaligned."""
    from tsattn.benchmarks.forecast import RESULT_COLUMNS

    _run(_config(baselines=["naive_last"], attentions=[]), tmp_path)
    csv = tmp_path / "results.csv"
    old = pd.read_csv(csv).drop(columns=["anchor", "pinball80", "pinball95"])
    old.to_csv(csv, index=False)
    results = _run(_config(baselines=["naive_last"]), tmp_path)
    assert tuple(results.columns) == RESULT_COLUMNS and len(results) == 2
    assert results.set_index("model").loc["naive_last", "mse"] == pytest.approx(old["mse"].iloc[0])


@pytest.mark.integration
def test_fits_in_worker_processes_give_the_rows_of_one_process(tmp_path):
    """--n-jobs: the same fits in worker processes (rows in any order, the same numbers)."""
    config = _config(attentions=["softmax", "bn"], horizons=[4, 6], seeds=[0, 1])
    serial = _run(config, tmp_path / "serial")
    parallel = run_forecast_benchmark(config, tmp_path / "parallel", log=lambda *_: None, n_jobs=2,
                                      frames={"exchange_rate": _frame()})  # fmt: skip
    key = ["horizon", "model", "seed"]
    a, b = (r.sort_values(key).reset_index(drop=True) for r in (serial, parallel))
    assert len(a) == len(b) == 3 * 2 + 2 * 2 * 2
    pd.testing.assert_series_equal(a["mse"], b["mse"], rtol=1e-5)
    assert (tmp_path / "parallel" / "results.md").is_file()
    assert (tmp_path / "parallel" / "plots" / "exchange_rate_test_h6.png").is_file()
