"""``tsattn bench fit-time --baseline``: default fits timed against an earlier version of the code in
the same run (timings never asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tsattn.benchmarks.fit_versions import baseline_tree
from tsattn.cli import main

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--param", "max_steps=3", "--param", "d_model=8", "--param", "n_heads=2",
        "--param", "n_layers=1", "--param", "dim_feedforward=16"]  # fmt: skip


@pytest.mark.integration
def test_a_commit_becomes_a_temporary_worktree_and_a_folder_is_used_as_it_is():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    with baseline_tree("HEAD", ROOT) as (tree, label):
        assert (tree / "tsattn" / "__init__.py").is_file() and tree != ROOT and label
    assert not tree.exists()  # removed with its worktree entry
    with baseline_tree(str(ROOT)) as (tree, label):
        assert tree == ROOT.resolve() and label == str(ROOT)
    with pytest.raises(ValueError, match="neither a folder holding tsattn/ nor a commit"):
        with baseline_tree("no-such-ref", ROOT):
            pass


@pytest.mark.integration
def test_fits_of_both_versions_are_interleaved_and_summarised(tmp_path, shared_datasets, monkeypatch, capsys):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    code = main(["bench", "fit-time", "--datasets", "BasicMotions", "--baseline", str(ROOT),
                 "--repeats", "1", "--threads", "1", "--beside-load", "--out", str(tmp_path), *TINY])  # fmt: skip
    assert code == 0
    rows = pd.read_csv(tmp_path / "fit_time.csv")
    assert len(rows) == 4 and set(rows.beside) == {"none", "cpu_hog"} and (rows.n_steps == 3).all()
    assert (rows.torch_threads == 1).all()  # --threads reaches both workers
    # each pair of fits alternates which version goes first
    firsts = rows.groupby(rows.index // 2)["version"].first().tolist()
    assert firsts == ["current", "baseline"]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["none"]["datasets"] == 1 and "BasicMotions" in summary["slowdown_beside_cpu_hog_current"]
    table = pd.read_csv(tmp_path / "summary.csv")
    assert set(table.columns) >= {"dataset", "beside", "current_s", "baseline_s", "ratio"}


@pytest.mark.integration
def test_datasets_without_a_baseline_time_this_code_alone(tmp_path, shared_datasets, monkeypatch):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    code = main(["bench", "fit-time", "--datasets", "BasicMotions", "--repeats", "2", "--threads", "1",
                 "--out", str(tmp_path), *TINY])  # fmt: skip
    assert code == 0
    rows = pd.read_csv(tmp_path / "fit_time.csv")
    assert len(rows) == 2 and set(rows.version) == {"current"} and (rows.n_steps == 3).all()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["none"]["datasets"] == 1 and summary["none"]["median_s"] > 0
    assert set(pd.read_csv(tmp_path / "summary.csv").columns) == {"dataset", "beside", "current_s", "current_cpu_s"}


def test_a_baseline_without_datasets_is_refused(capsys, tmp_path):
    assert main(["bench", "fit-time", "--baseline", "HEAD", "--out", str(tmp_path)]) == 2
    assert "--baseline needs --datasets" in capsys.readouterr().err
