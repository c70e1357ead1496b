"""`tsattn bench regress`: task names, rows with RMSE/MAE/coverage, CV without TEST, the report's
ratios to MiniRocket and their geometric mean, the command line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tsattn.benchmarks import resolve_models
from tsattn.benchmarks.classify import resolve_datasets
from tsattn.benchmarks.regress import (
    PEERS,
    RegressBenchmark,
    _build,
    _missing_peer_package,
    regression_suite,
    resolve_tasks,
    run_one,
    run_regress_benchmark,
)
from tsattn.benchmarks.regress_report import ratio_table, write_report
from tsattn.cli import main

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_steps=4)


def test_suite_and_names_resolve():
    suite = resolve_tasks(["regression"])
    assert suite == regression_suite() and len(suite) >= 8
    assert resolve_tasks(["etth1nextdayot", "covid3month", "ETTh1NextDayOT"]) == [
        "ETTh1NextDayOT", "Covid3Month"]
    assert resolve_tasks(["tecator"]) == ["Tecator"]
    with pytest.raises(ValueError, match="Did you mean 'ETTh1NextDayOT'"):
        resolve_tasks(["ETTh1NextDayOTT"])


def test_bench_classify_reaches_the_regression_suite(shared_datasets, monkeypatch):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    local = resolve_datasets(["tser"], cached_only=True)
    assert {("tser", n) for n in regression_suite()} <= set(local)


def test_rows_have_rmse_mae_and_interval_coverage(shared_datasets, monkeypatch):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    config = RegressBenchmark(params={**TINY, "validation_fraction": 0.2}, coverage=0.8)
    row = run_one("IllnessNext4WeeksILI", "tsattn:softmax", 0, config)
    assert row["status"] == "ok", row["error"]
    assert row["n_train"] == 190 and row["n_test"] == 45
    assert np.isfinite(row["rmse"]) and 0 < row["mae"] <= row["rmse"]
    assert 0 <= row["coverage"] <= 1 and row["width"] > 0
    mean = run_one("IllnessNext4WeeksILI", "mean", 0, config)
    from tsattn.datasets import load_tser

    _, y = load_tser("IllnessNext4WeeksILI", "train")
    _, yt = load_tser("IllnessNext4WeeksILI", "test")
    assert mean["rmse"] == pytest.approx(np.sqrt(np.mean((yt - y.mean()) ** 2)))
    assert np.isnan(mean.get("coverage", np.nan))


def test_cv_never_reads_test(monkeypatch, shared_datasets, tmp_path):
    import tsattn.benchmarks.regress as bench

    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    real = bench._load

    def train_only(name):
        X, y, _, _ = real(name)
        return X, y, None, None  # TEST withheld: any use of it fails

    monkeypatch.setattr(bench, "_load", train_only)
    config = RegressBenchmark(datasets=["Covid3Month"], peers=["mean"], params=TINY, cv=2,
                              label="default")  # fmt: skip
    rows = run_regress_benchmark(config, tmp_path, progress=False, log=lambda *a: None)
    assert set(rows.status) == {"ok"}, rows.error.tolist()
    assert sorted(rows.fold) == [0, 0, 1, 1] and set(rows.n_train) == {70}
    assert set(rows.model) == {"tsattn:softmax[default]", "mean"}
    # a rerun resumes: nothing left to run
    again = run_regress_benchmark(config, tmp_path, progress=False, log=lambda *a: None)
    assert len(again) == 4


def test_cv_folds_score_some_folds_of_the_same_split(monkeypatch, shared_datasets, tmp_path):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    config = RegressBenchmark(datasets=["Covid3Month"], attentions=(), peers=["mean"], cv=3,
                              cv_folds=[1])  # fmt: skip
    assert config.folds() == [1]
    rows = run_regress_benchmark(config, tmp_path / "one", progress=False, log=lambda *a: None)
    full = run_regress_benchmark(RegressBenchmark(datasets=["Covid3Month"], attentions=(),
                                                  peers=["mean"], cv=3),
                                 tmp_path / "all", progress=False, log=lambda *a: None)  # fmt: skip
    assert list(rows.fold) == [1]
    assert rows.rmse.iloc[0] == pytest.approx(full.set_index("fold").rmse[1])
    for bad in ([3], [-1], []):
        with pytest.raises(ValueError, match="cv_folds must name folds"):
            run_regress_benchmark(RegressBenchmark(peers=["mean"], cv=3, cv_folds=bad), tmp_path)
    with pytest.raises(ValueError, match="cv_folds must name folds"):
        run_regress_benchmark(RegressBenchmark(peers=["mean"], cv_folds=[0]), tmp_path)


def _rows(table):
    """Result rows from ``{(task, model, seed): rmse}``."""
    return pd.DataFrame([dict(dataset=t, model=m, seed=s, fold=-1, rmse=r, mae=r / 2, status="ok",
                              error="", fit_s=1.0) for (t, m, s), r in table.items()])  # fmt: skip


def test_ratio_is_mean_rmse_over_minirocket_on_the_same_seeds_and_the_geometric_mean(tmp_path):
    rows = _rows({("A", "minirocket", 0): 1.0, ("A", "minirocket", 1): 3.0,
                  ("A", "tsattn:softmax", 0): 2.0, ("A", "tsattn:softmax", 1): 2.0,
                  ("B", "minirocket", 0): 4.0, ("B", "tsattn:softmax", 0): 1.0,
                  ("B", "tsattn:softmax", 1): 9.0})  # B seed 1 has no MiniRocket: left out
    ratio = ratio_table(rows)
    assert ratio.at["A", "tsattn:softmax"] == pytest.approx(1.0)
    assert ratio.at["B", "tsattn:softmax"] == pytest.approx(0.25)
    text = write_report(rows, tmp_path).read_text()
    assert "| **geometric mean** | 1.000 | 0.500 |" in text  # sqrt(1.0 * 0.25)
    assert "| per seed | 1.000 ± 0 | 0.687 ± 0.03 |" in text  # seed 0: sqrt(2 * 0.25); 1: 2/3
    assert "| tasks above 1.2 | 0/2 | 0/2 |" in text


def test_cv_report_compares_settings_with_the_default(tmp_path):
    rows = _rows({("A", "minirocket", 0): 1.0, ("B", "minirocket", 0): 1.0,
                  ("A", "tsattn:softmax[default]", 0): 2.0, ("B", "tsattn:softmax[default]", 0): 1.0,
                  ("A", "tsattn:softmax[x]", 0): 1.0, ("B", "tsattn:softmax[x]", 0): 1.005})
    rows["fold"] = 0
    text = write_report(rows, tmp_path).read_text()
    assert "| tsattn:softmax[x] | 2 | 0.709 | 1/1/0 | A 0.50, B 1.00 |" in text  # sqrt(0.5 * 1.005)


def test_command_line_runs_and_refuses_bad_input(shared_datasets, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    out = tmp_path / "out"
    assert main(["bench", "regress", "--datasets", "CardanoSentiment", "--peers", "mean",
                 "--param", "max_steps=2", "--param", "d_model=16", "--param", "n_heads=2",
                 "--param", "n_layers=1", "--out", str(out), "-q"]) == 0  # fmt: skip
    rows = pd.read_csv(out / "results.csv")
    assert len(rows) == 2 and set(rows.status) == {"ok"}
    assert "CardanoSentiment" in (out / "results.md").read_text()
    assert main(["bench", "regress", "--datasets", "NoSuch-Task", "--out", str(out), "-q"]) == 2
    assert "unknown regression task" in capsys.readouterr().err
    assert main(["bench", "regress", "--param", "loss=l1", "--out", str(out), "-q"]) == 2


def test_quant_regressor_fits_and_beats_the_mean_on_tecator(shared_datasets, monkeypatch):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    config = RegressBenchmark()
    quant, mean = (run_one("Tecator", m, 0, config) for m in ("quant", "mean"))
    assert quant["status"] == "ok", quant["error"]
    assert quant["n_train"] == 172 and quant["rmse"] < 0.5 * mean["rmse"]


def test_interval_and_feature_peers_are_built_with_the_seed_on_one_core():
    drcif = _build("drcif", 3, RegressBenchmark(), None)
    assert type(drcif).__name__ == "DrCIFRegressor"
    assert drcif.random_state == 3 and drcif.n_jobs == 1 and drcif.n_estimators == 200  # aeon's
    assert "n_jobs" not in _build("quant", 3, RegressBenchmark(), None).get_params()


def test_unknown_peer_and_missing_tsfresh_are_said_plainly(monkeypatch):
    import importlib.util

    with pytest.raises(ValueError, match="Did you mean 'drcif'"):
        resolve_models([], ["drcf"], PEERS)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "tsfresh" else real(n, *a))
    with pytest.warns(UserWarning, match="freshprince.*tsfresh not installed"):
        assert resolve_models([], ["freshprince", "mean"], PEERS, missing=_missing_peer_package) == ["mean"]
