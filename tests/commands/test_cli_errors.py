"""Bad command-line input is refused before any work, with what was received, what is allowed and
the likely fix; interrupted and one-seed runs leave honest files and tables."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from tsattn.cli import main

TINY = ["--param", "d_model=8", "--param", "n_heads=2", "--param", "n_layers=1",
        "--param", "dim_feedforward=16"]  # fmt: skip


@pytest.fixture
def no_work(monkeypatch):
    """Make every data load, fit and study fail the test: the command must stop before them."""
    import tsattn.analysis
    import tsattn.benchmarks.compare
    import tsattn.benchmarks.epoch_time
    import tsattn.benchmarks.forecast
    import tsattn.datasets
    import tsattn.tuning

    def forbidden(*args, **kwargs):
        raise AssertionError("work started although an argument was invalid")

    for module, name in [(tsattn.datasets, "load_uea"), (tsattn.datasets, "load_ucr"),
                         (tsattn.datasets, "load_tser"), (tsattn.datasets, "load_forecasting"),
                         (tsattn.benchmarks.compare, "compare_attentions"),
                         (tsattn.benchmarks.forecast, "run_forecast_benchmark"),
                         (tsattn.benchmarks.epoch_time, "epoch_time_vs_sktime"),
                         (tsattn.tuning, "tune"), (tsattn.analysis, "profile_attention")]:
        monkeypatch.setattr(module, name, forbidden)


def _error(capsys, argv, code=2):
    """Run the command; check its exit status (argparse's own errors included); return stderr."""
    try:
        got = main(argv)
    except SystemExit as exit_:  # argparse refuses a value of the wrong type
        got = exit_.code
    assert got == code
    return capsys.readouterr().err


@pytest.fixture
def unwritable(tmp_path):
    """A folder path nobody can create (its parent is a file; root ignores permission bits)."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    return str(blocker / "out")


# ----------------------------------------------------------------------------- compare
@pytest.mark.parametrize("argv, match", [
    (["--seeds", "0"], "argument --seeds: must be an integer >= 1, got '0'"),
    (["--max-epochs", "-3"], "argument --max-epochs: must be an integer >= 1"),
    (["--dataset", "JapanseVowels"], "unknown dataset 'JapanseVowels'.*Did you mean JapaneseVowels"),
    (["--dataset", "ETTh1"], "'ETTh1' is a forecasting set.*tsattn bench forecast --dataset ETTh1"),
    (["--dataset", "covid3month"], "TSER regression set.*tsattn tune --dataset Covid3Month"),
    (["--attentions", "sofmax"], "unknown attention 'sofmax'.*Did you mean 'softmax'\\?"),
    (["--param", "dmodel=8"], "no parameter 'dmodel'. Did you mean 'd_model'\\?"),
    (["--param", "d_model=abc"], "--param: d_model must be"),
    (["--param", "novalue"], "--param needs NAME=VALUE"),
    (["--device", "gpu"], "--device 'gpu'.*'auto', 'cpu', 'cuda'"),
])  # fmt: skip
def test_compare_refuses_bad_arguments_before_any_work(capsys, no_work, argv, match):
    err = _error(capsys, ["compare", "--quiet", *argv])
    assert re.search(match, err), err


def test_compare_out_that_cannot_be_written(capsys, no_work, unwritable):
    err = _error(capsys, ["compare", "--quiet", "--out", unwritable])
    assert "--out" in err and "cannot be written" in err and "Not a directory" in err


def test_compare_one_seed_prints_no_spread(tmp_path, capsys):
    """One seed measures no spread: the table printed "± 0.00" and summary.csv a std of 0."""
    code = main(["compare", "--attentions", "softmax", "--max-epochs", "1", "--quiet",
                 "--dataset", "BasicMotions", "--out", str(tmp_path), *TINY])  # fmt: skip
    assert code == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("softmax"))
    assert re.match(r"\s*softmax\s+\d+\.\d\d\s+\d", row), row  # the accuracy, then fit seconds
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert summary.accuracy_std.isna().all() and summary.accuracy_mean.notna().all()


def test_compare_with_two_seeds_prints_the_spread(tmp_path, capsys):
    code = main(["compare", "--attentions", "softmax", "--max-epochs", "1", "--quiet", "--seeds",
                 "2", "--dataset", "BasicMotions", "--out", str(tmp_path), *TINY])  # fmt: skip
    assert code == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("softmax"))
    assert re.match(r"\s*softmax\s+\d+\.\d\d ± \d+\.\d\d\s", row), row
    assert pd.read_csv(tmp_path / "summary.csv").accuracy_std.notna().all()


def test_ctrl_c_in_the_first_fit_leaves_a_readable_runs_csv(tmp_path, capsys, monkeypatch):
    """It used to hold only a newline, and reading it back raised EmptyDataError."""
    from tsattn import TSClassifier

    def ctrl_c(self, X, y):
        raise KeyboardInterrupt

    monkeypatch.setattr(TSClassifier, "fit", ctrl_c)
    code = main(["compare", "--quiet", "--dataset", "BasicMotions", "--out", str(tmp_path), *TINY])
    assert code == 130
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert runs.empty and {"attention", "seed", "accuracy"} <= set(runs.columns)
    assert "the 0 finished runs are in" in capsys.readouterr().err


def test_compare_attentions_refuses_no_seeds():
    from tsattn.benchmarks.compare import compare_attentions

    with pytest.raises(ValueError, match="at least one seed"):
        compare_attentions(None, None, None, None, ["softmax"], seeds=range(0))
    with pytest.raises(ValueError, match="nope"):
        compare_attentions(None, None, None, None, ["nope"])


# ----------------------------------------------------------------------------- tune
@pytest.mark.parametrize("argv, match", [
    (["--dataset", "JapanseVowels"], "Did you mean JapaneseVowels"),
    (["--dataset", "ETTh1"], "forecasting set.*tsattn bench forecast"),
    (["--attention", "bnn"], "'bnn'.*Did you mean 'bn"),
    (["--param", "betta=0.5"], "no parameter 'betta'. Did you mean 'beta"),
    (["--dataset", "Covid3Month", "--metric", "score"], "regression dataset: use --metric loss"),
    (["--dataset", "NoSuchSet", "--archive", "uea"], "unknown uea dataset.*only --archive tser"),
])  # fmt: skip
def test_tune_refuses_bad_arguments_before_any_work(capsys, no_work, argv, match):
    err = _error(capsys, ["tune", "-q", *argv])
    assert re.search(match, err), err


@pytest.mark.parametrize("option", ["--out", "--storage"])
def test_tune_output_that_cannot_be_written_is_refused_before_the_trials(
    capsys, no_work, unwritable, option
):
    """All trials used to run, and the results were lost when the files could not be written."""
    path = unwritable + ("/study.db" if option == "--storage" else "")
    err = _error(capsys, ["tune", "-q", option, path])
    assert option in err and "cannot be written" in err


def test_tune_argument_types(capsys, no_work):
    for argv in (["--trials", "0"], ["--validation-fraction", "1.5"], ["--timeout", "-1"]):
        assert f"argument {argv[0]}" in _error(capsys, ["tune", *argv])


def test_best_params_json_does_not_count_failed_trials(tmp_path, capsys):
    import optuna

    from tsattn.tuning import resolve_storage

    storage, out = tmp_path / "tune.db", tmp_path / "out"
    argv = ["tune", "--dataset", "BasicMotions", "--attention", "bn", "--trials", "2",
            "--storage", str(storage), "--study-name", "s", "--max-epochs", "2",
            "--no-training-params", *TINY, "--out", str(out), "-q"]  # fmt: skip
    assert main(argv) == 0
    study = optuna.load_study(study_name="s", storage=resolve_storage(storage))
    failed = study.ask()  # e.g. a trial cut by Ctrl-C, or by an error in a worker
    study.tell(failed, state=optuna.trial.TrialState.FAIL)
    assert main(argv) == 0  # the study is full: nothing to run, the report is rewritten
    report = json.loads((out / "best_params.json").read_text())
    assert report["finished_trials"] == 2 and report["failed_trials"] == 1
    assert report["complete_trials"] + report["pruned_trials"] == 2


def test_tune_with_no_completed_trial_reports_instead_of_crashing(tmp_path, capsys, monkeypatch):
    import optuna

    import tsattn.tuning

    real = tsattn.tuning.tune

    def all_pruned(*args, **kwargs):
        return real(*args, **kwargs, pruner=optuna.pruners.ThresholdPruner(upper=-1.0))

    monkeypatch.setattr(tsattn.tuning, "tune", all_pruned)
    out = tmp_path / "out"
    code = main(["tune", "--dataset", "BasicMotions", "--attention", "bn", "--trials", "2",
                 "--max-epochs", "2", "--no-training-params", *TINY, "--out", str(out), "-q"])
    assert code == 1
    assert "no trial completed (2 pruned" in capsys.readouterr().out
    report = json.loads((out / "best_params.json").read_text())
    assert report["pruned_trials"] == 2 and "best_params" not in report
    assert (out / "trials.csv").is_file()


# ----------------------------------------------------------------------------- bench, profile
def test_bench_forecast_unknown_attention_before_any_work(capsys, no_work, tmp_path):
    """It used to train nothing, raise KeyError and leave an empty results.csv."""
    out = tmp_path / "f"
    err = _error(capsys, ["bench", "forecast", "--dataset", "ETTh1", "--attentions", "sofmax",
                          "--baselines", "--out", str(out)])  # fmt: skip
    assert "tsattn bench forecast: error:" in err and "Did you mean 'softmax'" in err
    assert not out.exists()


@pytest.mark.parametrize("argv, match", [
    (["--dataset", "ETTh3"], "Did you mean ETTh2, ETTh1"),
    (["--dataset", "JapaneseVowels"], "UEA classification set.*tsattn compare"),
    (["--dataset", "ETTh1", "--param", "patch_len=200"], "patch_len=200 exceeds context_length=96"),
    (["--dataset", "ETTh1", "--param", "n_heads=3"], "not divisible"),
    (["--dataset", "ETTh1", "--param", "dropout=1.5"], "dropout must be"),
    (["--dataset", "ETTh1", "--device", "tpu"], "device must be"),
    (["--dataset", "ETTh1", "--peers", "patchtsd"], "unknown peer.*Did you mean patchtst"),
    (["--dataset", "ETTh1", "--peer-steps", "0"], "--peer-steps"),
])  # fmt: skip
def test_bench_forecast_refuses_bad_settings_before_any_work(capsys, no_work, argv, match):
    err = _error(capsys, ["bench", "forecast", *argv])
    assert re.search(match, err), err


def test_forecast_benchmark_library_checks_before_work(tmp_path):
    from tsattn.benchmarks.forecast import ForecastBenchmark, run_forecast_benchmark

    for config, match in [
        (ForecastBenchmark(["ETTh1"], attentions=["nope"]), "unknown attention"),
        (ForecastBenchmark(["ETTh1"], attentions=[], peers=[], baselines=[]), "nothing to run"),
        (ForecastBenchmark(["ETTh1"], seeds=[]), "seeds is empty"),
        (ForecastBenchmark(["ETTh1"], ar_lags=0), "ar_lags"),
        (ForecastBenchmark(["ETTh1"], split="train"), "split must be"),
        (ForecastBenchmark(["ETTh1"], baselines=["mean"]), "unknown baseline"),
    ]:
        with pytest.raises(ValueError, match=match):
            run_forecast_benchmark(config, tmp_path / "out")
        assert not (tmp_path / "out").exists()


def test_bench_epoch_refuses_bad_arguments(capsys, no_work, unwritable):
    assert "UCR classification set" in _error(capsys, ["bench", "epoch", "--dataset", "GunPoint"])
    assert "'x'" in _error(capsys, ["bench", "epoch", "--attentions", "x"])
    assert "cannot be written" in _error(capsys, ["bench", "epoch", "--out", unwritable])


def test_profile_refuses_bad_arguments_before_any_measurement(capsys, no_work, unwritable):
    err = _error(capsys, ["profile", "--out", unwritable])
    assert "--out" in err and "cannot be written" in err
    assert "'nope'" in _error(capsys, ["profile", "--variants", "nope", "softmax_explicit"])
    assert "KEY=VALUE" in _error(capsys, ["profile", "--hyper", "scales"])
    assert "argument --lengths" in _error(capsys, ["profile", "--lengths", "0"])


# ----------------------------------------------------------------------------- environment
@pytest.mark.parametrize("setting, value", [("TSATTN_CONNECT_TIMEOUT", "abc"),
                                            ("TSATTN_CONNECT_TIMEOUT", "-1"),
                                            ("TSATTN_OFFLINE", "maybe")])  # fmt: skip
def test_bad_environment_settings_are_named(capsys, monkeypatch, tmp_path, setting, value):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("TSATTN_OFFLINE", raising=False)
    monkeypatch.setenv(setting, value)
    err = _error(capsys, ["datasets", "fetch", "NATOPS"], code=1)
    assert f"{setting}={value!r}" in err
    assert main(["compare", "--dataset", "NATOPS", "--quiet", "--out", str(tmp_path / "o"),
                 *TINY]) == 1  # fmt: skip
    assert f"{setting}={value!r}" in capsys.readouterr().err


# ----------------------------------------------------------------------------- found by the battery
def test_tune_storage_that_cannot_be_opened_is_refused_before_the_data(capsys, no_work):
    """A database URL without its driver raised ImportError after the data had been loaded."""
    err = _error(capsys, ["tune", "-q", "--storage", "postgresql://nohost.invalid/db"])
    assert "--storage 'postgresql://nohost.invalid/db' cannot be opened" in err
    assert "driver" in err


@pytest.mark.parametrize("argv, match", [
    (["--context-length", "100000"], "context_length must be in \\[0, 8640\\]"),
    (["--horizons", "96", "3000"], "horizon 3000 leaves no validation window.*<= 2880"),
])  # fmt: skip
def test_bench_forecast_splits_too_short_for_the_windows(capsys, no_work, argv, match):
    err = _error(capsys, ["bench", "forecast", "--dataset", "ETTh1", *argv])
    assert re.search(match, err), err


def test_profile_checks_layers_and_hyperparameters_before_measuring(capsys, no_work):
    """--hyper nope=1 was ignored; --n-heads 3 failed with a traceback in the first measurement."""
    assert "not divisible by n_heads=3" in _error(capsys, ["profile", "--n-heads", "3"])
    err = _error(capsys, ["profile", "--variants", "bn_sh", "--hyper", "nope=1"])
    assert "--hyper nope: no profiled variant takes it" in err and "bn_sh: ['beta'" in err
    err = _error(capsys, ["profile", "--variants", "bn_sh", "--hyper", "s3.r=8"])
    assert "'s3' is not among --variants" in err
    err = _error(capsys, ["profile", "--variants", "sh", "--hyper", "scales=1,2,3"])
    assert "scales has 3 entries but n_heads=2" in err


def test_bench_epoch_checks_the_model_size_before_loading(capsys, no_work):
    assert "not divisible by n_heads=3" in _error(capsys, ["bench", "epoch", "--n-heads", "3"])


def test_datasets_catalogue_write_to_an_unwritable_path(capsys, unwritable):
    err = _error(capsys, ["datasets", "catalogue", "--write", unwritable + "/README.md"])
    assert "--write" in err and "cannot be written" in err


def test_callbacks_cannot_come_from_the_command_line(capsys, no_work):
    err = _error(capsys, ["compare", "--param", "callbacks=1"])
    assert "callbacks are Python objects" in err


def test_tune_points_to_archive_tser_for_sets_outside_the_catalogue(capsys, no_work):
    err = _error(capsys, ["tune", "-q", "--dataset", "Tecator"])
    assert "unknown dataset 'Tecator'" in err and "--archive tser" in err


def test_ctrl_c_in_the_first_forecast_fit_leaves_a_readable_results_csv(tmp_path, ctrl_c_on_fit):
    import numpy as np

    from tsattn.benchmarks import BenchmarkInterrupted
    from tsattn.benchmarks.forecast import ForecastBenchmark, run_forecast_benchmark

    t = np.arange(400)
    frame = pd.DataFrame({"OT": np.sin(t / 3)}, index=pd.date_range("2000", periods=400, freq="D"))
    config = ForecastBenchmark(
        ["exchange_rate"], horizons=[4], context_length=16, attentions=["softmax"], peers=[],
        baselines=[], params=dict(max_steps=4, d_model=8, n_heads=2, n_layers=1, patch_len=4,
                                  callbacks=[ctrl_c_on_fit(fit=1)]),
    )  # fmt: skip
    with pytest.raises(BenchmarkInterrupted), pytest.warns(UserWarning):
        run_forecast_benchmark(config, tmp_path, frames={"exchange_rate": frame},
                               log=lambda *_: None)  # fmt: skip
    results = pd.read_csv(tmp_path / "results.csv")  # held only a newline: EmptyDataError
    assert results.empty and {"horizon", "model", "mse"} <= set(results.columns)


def test_compare_checks_the_params_against_every_attention(capsys, no_work):
    """softmax ignores scales, sh refuses 3 of them for 8 heads: that failed after softmax's fits."""
    err = _error(capsys, ["compare", "--attentions", "softmax", "sh", "--param", "scales=[1,2,3]"])
    assert "scales has 3 entries but n_heads=8" in err
