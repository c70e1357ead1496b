"""`tsattn bench classify`: names, resumable rows, failures as rows, time limits, report, CLI."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tsattn.benchmarks import resolve_models
from tsattn.benchmarks.classify import (
    PEERS,
    ClassifyBenchmark,
    _missing_peer_package,
    resolve_datasets,
    run_classify_benchmark,
    run_one,
)
from tsattn.benchmarks.classify_report import _summary_section, published, summarise
from tsattn.cli import main

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_epochs=2)


def test_suites_and_names_resolve_case_insensitively():
    uea = resolve_datasets(["uea"])
    assert ("uea", "JapaneseVowels") in uea and len(uea) == 30
    assert resolve_datasets(["gunpoint", "covid3month"]) == [("ucr", "GunPoint"), ("tser", "Covid3Month")]
    assert resolve_datasets(["GunPoint", "gunpoint"]) == [("ucr", "GunPoint")]


def test_unknown_and_forecasting_names_are_refused_with_a_hint():
    with pytest.raises(ValueError, match="Did you mean 'JapaneseVowels'"):
        resolve_datasets(["JapanesVowels"])
    with pytest.raises(ValueError, match="bench forecast"):
        resolve_datasets(["ETTh1"])
    with pytest.raises(ValueError, match="Did you mean 'bn_sh'"):
        resolve_models(["bn_shh"], [], PEERS)
    with pytest.raises(ValueError, match="Did you mean 'minirocket'"):
        resolve_models([], ["minirockett"], PEERS)


def test_missing_peer_is_skipped_with_one_warning(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "sktime" else real(n, *a))
    with pytest.warns(UserWarning, match="mvts-transformer.*sktime not installed"):
        assert resolve_models(["softmax"], ["mvts-transformer"], PEERS, missing=_missing_peer_package) == ["tsattn:softmax"]


def test_cached_only_keeps_local_datasets(shared_datasets, monkeypatch):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    local = resolve_datasets(["uea", "ucr"], cached_only=True)
    assert ("uea", "NATOPS") in local and ("ucr", "Adiac") in local
    assert ("ucr", "Crop") not in local  # in the archive, not on this disk


def test_published_numbers_are_found():
    assert published("JapaneseVowels", "uea", "tsattn:bn_sh")[0] == 99.55
    assert published("Adiac", "ucr", "minirocket")[0] == pytest.approx(80.17)
    assert published("Adiac", "ucr", "tsattn:bn_sh") is None


def test_summary_is_not_cut_down_to_the_sets_of_a_model_run_on_few():
    rows = [dict(archive="uea", dataset=d, model=m, metric="accuracy", seed=0, fold=-1, score=acc,
                 log_loss=np.nan, status="ok", fit_s=1.0)
            for d, accs in {"A": (0.9, 0.8, 0.7), "B": (0.6, 0.7, None), "C": (0.5, 0.5, None)}.items()
            for m, acc in zip(("minirocket", "tsattn:bn_sh", "tsattn:sh"), accs, strict=True) if acc is not None]
    text = "\n".join(_summary_section(summarise(pd.DataFrame(rows))))
    assert "| uea | minirocket | 3 | 66.67 |" in text and "| uea | tsattn:bn_sh | 3 | 66.67 |" in text
    assert "| uea | tsattn:sh (own sets only) | 1 | 70.00 (MiniRocket 90.00) | - | 0/0/1 |" in text


def test_failed_fit_is_a_row_not_a_crash():
    config = ClassifyBenchmark(params={**TINY, "d_model": 15})  # 15 % 2 heads: refused at fit
    row = run_one("uea", "BasicMotions", "tsattn:softmax", 0, config)
    assert row["status"] == "error" and "d_model" in row["error"]


def test_time_limit_stops_training_and_scores_the_model():
    config = ClassifyBenchmark(params={**TINY, "max_epochs": 50}, time_limit=1e-3)
    row = run_one("uea", "BasicMotions", "tsattn:softmax", 0, config)
    assert row["status"] == "ok" and row["time_limited"] and row["n_epochs"] == 1


def test_run_is_resumable_and_writes_the_report(tmp_path):
    config = ClassifyBenchmark(datasets=["BasicMotions"], attentions=["softmax"],
                               peers=["minirocket"], seeds=[0, 1], params=TINY)  # fmt: skip
    rows = run_classify_benchmark(config, tmp_path, progress=False, log=lambda *a: None)
    assert len(rows) == 4 and set(rows.status) == {"ok"}
    assert set(rows.model) == {"tsattn:softmax", "minirocket"}
    assert (rows.score > 0.2).all()
    if Path("/proc/self/clear_refs").exists():  # the memory each fit and prediction added, MiB
        assert (rows.peak_mb >= 0).all()
    # rerun: nothing recomputed, nothing lost
    seen = []
    again = run_classify_benchmark(config, tmp_path, progress=False, log=seen.append)
    assert "0 fits to run, 4 already" in seen[0]
    pd.testing.assert_frame_equal(rows, again)
    report = (tmp_path / "results.md").read_text()
    assert "BasicMotions" in report and "98.75" in report  # 001 Table 9, softmax
    assert (tmp_path / "vs_minirocket.png").stat().st_size > 0
    assert (tmp_path / "mean_ranks.png").stat().st_size > 0


def test_two_processes_starting_on_one_folder_write_one_header(tmp_path):
    """The header check and the write happen under the file's lock: a row waits for a holder."""
    import threading

    from tsattn._filelock import acquire_lock, release_lock
    from tsattn.benchmarks import append_row
    from tsattn.benchmarks.classify import RESULT_COLUMNS
    from tsattn.benchmarks.collection_run import recorded_rows

    path = tmp_path / "results.csv"
    row = {"dataset": "GunPoint", "archive": "ucr", "model": "minirocket", "seed": 0, "fold": 0,
           "metric": "accuracy", "score": 0.9, "status": "ok"}  # fmt: skip
    fd = acquire_lock(path)  # as a second process would hold it, mid-write
    writer = threading.Thread(target=append_row, args=(path, row, RESULT_COLUMNS))
    writer.start()
    writer.join(timeout=0.5)
    assert writer.is_alive() and not path.exists()  # waited for the lock
    first = {**row, "seed": 1}
    with open(path, "w", encoding="utf-8") as fh:  # the holder's own first row, with the header
        pd.DataFrame([{c: first.get(c) for c in RESULT_COLUMNS}]).to_csv(fh, index=False)
    release_lock(fd)
    writer.join(timeout=30)
    lines = path.read_text().splitlines()
    assert lines[0].startswith("dataset,") and sum(x.startswith("dataset,") for x in lines) == 1
    assert len(lines) == 3
    # a file left with a header repeated mid-way (runs before the lock) resumes, repaired
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(lines[0] + "\n")
    append_row(path, {**row, "seed": 2}, RESULT_COLUMNS)
    rows, done = recorded_rows(path, RESULT_COLUMNS, retry_failed=False)
    assert sorted(rows.seed) == [0, 1, 2] and rows.score.dtype == float
    assert done == {("GunPoint", "minirocket", s, 0) for s in (0, 1, 2)}
    assert sum(x.startswith("dataset,") for x in path.read_text().splitlines()) == 1


def test_rows_of_an_interrupted_run_survive(tmp_path, ctrl_c_on_fit):
    from tsattn.benchmarks import BenchmarkInterrupted

    config = ClassifyBenchmark(datasets=["BasicMotions"], attentions=["softmax"], peers=[],
                               seeds=[0, 1], params={**TINY, "callbacks": [ctrl_c_on_fit(fit=2)]})  # fmt: skip
    with pytest.raises(BenchmarkInterrupted):
        run_classify_benchmark(config, tmp_path, progress=False, log=lambda *a: None)
    rows = pd.read_csv(tmp_path / "results.csv")
    assert list(rows.seed) == [0] and rows.status.iloc[0] == "ok"


def test_cli_runs_and_rejects_typos(tmp_path, capsys):
    out = tmp_path / "bc"
    assert main(["bench", "classify", "--datasets", "BasicMotions", "--attentions", "softmax",
                 "--peers", "--param", "max_epochs=1", "--param", "d_model=16", "--param",
                 "n_heads=2", "--param", "n_layers=1", "--out", str(out), "-q"]) == 0  # fmt: skip
    assert len(pd.read_csv(out / "results.csv")) == 1
    assert main(["bench", "classify", "--datasets", "BasicMotion", "--out", str(out), "-q"]) == 2
    assert "Did you mean 'BasicMotions'" in capsys.readouterr().out


def test_regression_rows_report_rmse(tmp_path, shared_datasets, monkeypatch):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    row = run_one("tser", "Covid3Month", "tsattn:softmax", 0, ClassifyBenchmark(params=TINY))
    assert row["status"] == "ok" and row["metric"] == "rmse" and np.isfinite(row["score"])


def test_cv_mode_never_reads_test_and_labels_configurations(tmp_path, monkeypatch):
    import tsattn.benchmarks.classify as bench

    real = bench._load

    def train_only(archive, name):
        X, y, _, _ = real(archive, name)
        return X, y, None, None  # TEST withheld: any use of it fails

    monkeypatch.setattr(bench, "_load", train_only)
    config = ClassifyBenchmark(datasets=["BasicMotions"], attentions=["softmax"], peers=["minirocket"],
                               params=TINY, cv=2, label="tiny")  # fmt: skip
    rows = run_classify_benchmark(config, tmp_path, progress=False, log=lambda *a: None)
    assert set(rows.status) == {"ok"}, rows.error.tolist()
    assert sorted(rows.fold) == [0, 0, 1, 1] and set(rows.model) == {"tsattn:softmax[tiny]", "minirocket"}
    assert set(rows.n_test) == {20} and set(rows.n_train) == {20}  # 40 TRAIN series in two folds
    tiny = rows[rows.model == "tsattn:softmax[tiny]"]
    assert (tiny.log_loss >= 0).all() and tiny.log_loss.notna().all()  # the anchor may be certain
    report = (tmp_path / "results.md").read_text()
    assert "Cross-validation on TRAIN" in report and "published" not in report


def test_fit_time_command_times_a_default_fit(tmp_path):
    import json

    out = tmp_path / "ft"
    assert main(["bench", "fit-time", "--n", "6", "--channels", "2", "--length", "300", "--param",
                 "max_steps=3", "--param", "d_model=16", "--param", "n_heads=2", "--out", str(out)]) == 0  # fmt: skip
    record = json.loads((out / "n6_c2_l300.json").read_text())
    assert record["n_steps"] == 3 and record["n_tokens"] <= 32 and record["median_seconds"] > 0
    assert main(["bench", "fit-time", "--n", "0", "--length", "5", "--out", str(out)]) == 2


def test_invocations_on_one_folder_keep_each_other_in_config_and_report(tmp_path, monkeypatch):
    import json

    import tsattn.benchmarks.classify as bench

    base = dict(datasets=["BasicMotions"], attentions=["softmax"], peers=[], params=TINY)
    first = ClassifyBenchmark(**base, label="a")
    run_classify_benchmark(first, tmp_path, progress=False, log=lambda *a: None, command="cmd a")
    real = bench.run_one

    def overlapping(*args, **kwargs):  # another run on the folder ends while this one fits
        monkeypatch.setattr(bench, "run_one", real)
        run_classify_benchmark(ClassifyBenchmark(**base, label="c"), tmp_path, progress=False,
                               log=lambda *a: None, command="cmd c")  # fmt: skip
        return real(*args, **kwargs)

    monkeypatch.setattr(bench, "run_one", overlapping)
    run_classify_benchmark(ClassifyBenchmark(**base, label="b"), tmp_path, progress=False,
                           log=lambda *a: None, command="cmd b")  # fmt: skip
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["commands"] == ["cmd a", "cmd b", "cmd c"]
    assert len(config["invocations"]) == 3 and config["models"] == ["tsattn:softmax[b]"]
    table = next(line for line in (tmp_path / "results.md").read_text().splitlines()
                 if line.startswith("| dataset |"))  # fmt: skip
    assert all(f"tsattn:softmax[{x}]" in table for x in "abc")  # every configuration's column


def test_quant_peer_runs_alone_from_the_command_line_on_a_real_set(tmp_path, shared_datasets, monkeypatch):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    out = tmp_path / "quant"
    assert main(["bench", "classify", "--datasets", "Coffee", "--attentions", "--peers", "quant",
                 "--seeds", "0", "--cached-only", "--out", str(out), "-q"]) == 0  # fmt: skip
    rows = pd.read_csv(out / "results.csv")
    assert list(rows.model) == ["quant"] and rows.status.tolist() == ["ok"]
    assert rows.score[0] > 0.9  # QUANT's published Coffee accuracy is 1.0; chance is 0.5
    with pytest.raises(ValueError, match="Did you mean 'quant'"):
        resolve_models([], ["qant"], PEERS)


def test_hivecote2_peer_is_aeons_single_threaded_and_stopped_by_the_time_limit(shared_datasets, monkeypatch):
    from aeon.classification.hybrid import HIVECOTEV2

    from tsattn.benchmarks.classify import _build

    est = _build("hivecote2", "classification", 3, ClassifyBenchmark(), None)
    assert isinstance(est, HIVECOTEV2) and est.n_jobs == 1 and est.random_state == 3
    with pytest.raises(ValueError, match="no regressor"):
        _build("hivecote2", "regression", 0, ClassifyBenchmark(), None)
    # its full fit takes hours on large sets: the limit stops it and the row says so
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    row = run_one("ucr", "Coffee", "hivecote2", 0, ClassifyBenchmark(peers=("hivecote2",), time_limit=1.0))
    assert row["status"] == "timeout" and "time limit" in row["error"], row["error"]


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux's /proc only")
def test_peak_memory_is_what_the_block_added_at_its_highest():
    from tsattn.benchmarks.collection_fit import peak_rss

    held = np.ones(50 * 2**20 // 8)  # 50 MiB before the block: not counted
    quiet, busy = {}, {}
    with peak_rss(quiet):
        pass
    with peak_rss(busy):
        np.ones(200 * 2**20 // 8).sum()  # 200 MiB, freed before the block ends
    assert quiet["peak_mb"] < 20 and 190 < busy["peak_mb"] < 260
    del held


def test_an_alarm_that_compiled_code_turned_into_another_error_is_still_a_timeout(monkeypatch):
    from tsattn.benchmarks import classify

    class Compiled:  # what numba does with an exception set during its call: a SystemError, its
        def __init__(self, chained):  # cause chained, or (other libraries) dropped
            self.chained = chained

        def fit(self, X, y):
            error = SystemError("CPUDispatcher(<function f>) returned a result with an exception set")
            try:
                while True:  # the alarm arrives here
                    time.sleep(0.01)
            except TimeoutError as err:
                if self.chained:
                    raise error from err
            raise error  # no trace of the alarm left

    monkeypatch.setattr(classify, "_warm_up", lambda *a, **k: None)
    for chained in (True, False):
        monkeypatch.setattr(classify, "_build", lambda *a, c=chained, **k: Compiled(c))
        row = run_one("uea", "BasicMotions", "quant", 0, ClassifyBenchmark(peers=("quant",), time_limit=0.2))
        assert row["status"] == "timeout" and row["error"].startswith("fit exceeded the time limit"), row
        assert "SystemError" in row["error"]


def test_a_fit_that_catches_the_alarm_and_goes_on_is_still_stopped_and_a_timeout(monkeypatch):
    from tsattn.benchmarks import classify

    class Swallows:  # one component catches the error of its step and the fit moves on
        def __init__(self, catch_all):
            self.catch_all, self.steps = catch_all, 0

        def fit(self, X, y):
            try:
                time.sleep(5)
            except TimeoutError:
                pass
            for _ in range(20):  # the next components: caught too, or not
                self.steps += 1
                try:
                    time.sleep(0.1)
                except TimeoutError:
                    if not self.catch_all:
                        raise
            return self

    monkeypatch.setattr(classify, "_warm_up", lambda *a, **k: None)
    for catch_all, steps in ((True, 20), (False, 19)):  # finishes late; stopped by the next alarm
        est = Swallows(catch_all)
        monkeypatch.setattr(classify, "_build", lambda *a, e=est, **k: e)
        row = run_one("uea", "BasicMotions", "quant", 0, ClassifyBenchmark(peers=("quant",), time_limit=0.2))
        assert row["status"] == "timeout" and row["error"].startswith("fit exceeded the time limit"), row
        assert (est.steps == steps) if catch_all else (est.steps < steps), est.steps
