"""The TEST ledger (:mod:`tsattn.benchmarks.ledger`, issue 78): a TEST run appends a row, one from a
dirty tree is refused unless declared unpublishable, a clean commit is recorded as clean, and the
committed ledger is well formed."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tsattn.benchmarks import ledger, runinfo
from tsattn.cli import main

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "docs" / "results" / "test_ledger.csv"
CLEAN = {"commit": "a" * 40, "dirty": False, "dirty_files": []}
DIRTY = {"commit": "a" * 40, "dirty": True, "dirty_files": ["tsattn/x.py"]}


@pytest.fixture
def strict(monkeypatch, tmp_path):
    """The ledger's own rules, not the suite's leave to run from a dirty tree."""
    monkeypatch.delenv("TSATTN_UNPUBLISHABLE", raising=False)
    path = tmp_path / "ledger.csv"
    monkeypatch.setenv("TSATTN_TEST_LEDGER", str(path))
    return path


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_which_settings_score_test():
    assert ledger.scores_test({"split": "test"}) and not ledger.scores_test({"split": "val"})
    assert ledger.scores_test({"cv": None, "seeds": [0]}) and not ledger.scores_test({"cv": 3})
    assert not ledger.scores_test({"seeds": [0]})  # a timing or kernel benchmark


def test_a_test_run_from_a_clean_tree_appends_its_row(strict, tmp_path):
    out = tmp_path / "out"
    with ledger.declared("the default's rows after the CV decision"):
        assert ledger.record_test_run(out, "tsattn bench classify --datasets GunPoint", {"cv": None},
                                      CLEAN) is False  # fmt: skip
    assert ledger.record_test_run(out, "tsattn bench forecast --split val", {"split": "val"}, DIRTY) is None
    rows = _rows(strict)
    assert len(rows) == 1 and list(rows[0]) == list(ledger.COLUMNS)
    row = rows[0]
    assert row["commit"] == "a" * 40 and row["dirty"] == "false" and row["benchmark"] == f"<elsewhere>/{tmp_path.name}/out"
    assert row["command"] == "tsattn bench classify --datasets GunPoint"
    assert row["purpose"] == "the default's rows after the CV decision" and row["date"].endswith("UTC")


def test_a_test_run_from_a_dirty_tree_is_refused_unless_declared_unpublishable(strict, tmp_path, monkeypatch):
    with pytest.raises(ledger.DirtyTestRun, match="dirty tree"):
        ledger.record_test_run(tmp_path, "tsattn bench epf --split test", {"split": "test"}, DIRTY)
    assert not strict.exists()  # refused before anything was written
    with ledger.declared("a look at a bug", unpublishable=True):
        assert ledger.record_test_run(tmp_path, "tsattn bench epf", {"split": "test"}, DIRTY) is True
    row = _rows(strict)[-1]
    assert row["dirty"] == "true" and row["purpose"] == "UNPUBLISHABLE: a look at a bug"
    monkeypatch.setenv("TSATTN_UNPUBLISHABLE", "1")
    assert ledger.record_test_run(tmp_path, "tsattn bench epf", {"split": "test"}, DIRTY) is True


def test_a_dirty_test_run_is_refused_before_its_record_and_an_unpublishable_one_never_feeds_a_table(
        strict, tmp_path, monkeypatch):  # fmt: skip
    monkeypatch.setattr(runinfo, "code_state", lambda: {**DIRTY, "tsattn_version": "0", "digest": "d"})
    with pytest.raises(ledger.DirtyTestRun), runinfo.recorded_run(tmp_path, "tsattn bench classify", {"cv": None}):
        pytest.fail("the block must not run")
    assert not (tmp_path / "config.json").exists()
    with ledger.declared(unpublishable=True), runinfo.recorded_run(tmp_path, "tsattn bench classify", {"cv": None}):
        pass
    run = json.loads((tmp_path / "config.json").read_text())["runs"][0]
    assert run["unpublishable"] is True and "unpublishable" in runinfo.publishable(run)
    # validation and CV runs are neither refused nor ledgered
    with runinfo.recorded_run(tmp_path, "tsattn bench classify --cv 3", {"cv": 3}):
        pass
    assert len(_rows(strict)) == 1


def test_the_command_line_refuses_a_dirty_test_run_and_names_the_flag(strict, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(runinfo, "code_state", lambda: {**DIRTY, "tsattn_version": "0", "digest": "d"})
    code = main(["bench", "classify", "--datasets", "GunPoint", "--attentions", "--peers", "minirocket",
                 "--out", str(tmp_path / "o"), "-q"])  # fmt: skip
    assert code == 2 and "--unpublishable" in capsys.readouterr().err
    assert not strict.exists() and not (tmp_path / "o" / "results.csv").exists()


def test_the_panels_refuse_a_dirty_test_run_too(strict, tmp_path, monkeypatch):
    from tsattn.benchmarks import panel_run

    monkeypatch.setattr(runinfo, "code_state", lambda: {**DIRTY, "tsattn_version": "0", "digest": "d"})
    with pytest.raises(ledger.DirtyTestRun), panel_run.recorded_run(tmp_path, "tsattn bench m4", {"split": "test"}):
        pytest.fail("the block must not run")
    with panel_run.recorded_run(tmp_path, "tsattn bench m4", {"split": "val"}):
        pass
    assert not strict.exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_clean_commit_in_a_fresh_repository_is_recorded_clean_and_an_edit_makes_it_dirty(tmp_path):
    """A copy of the package committed in a temporary git repository: its TEST run is ledgered
    with that commit and ``dirty`` false; after an edit of a package file it is refused."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "tsattn", repo / "tsattn", ignore=shutil.ignore_patterns("__pycache__"))
    (repo / "docs" / "results").mkdir(parents=True)

    def git(*args):
        return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", "tsattn")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "copy")
    head = git("rev-parse", "HEAD").strip()
    (tmp_path / "out").mkdir()
    script = ("import sys; from tsattn.benchmarks import runinfo\n"
              "with runinfo.recorded_run(sys.argv[1], 'tsattn bench regress', {'cv': None}): pass\n")  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "out")], env=env,
                          capture_output=True, text=True, cwd=repo)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = _rows(repo / "docs" / "results" / "test_ledger.csv")
    assert [(r["commit"], r["dirty"], r["command"]) for r in rows] == [(head, "false", "tsattn bench regress")]
    with open(repo / "tsattn" / "benchmarks" / "ledger.py", "a") as fh:
        fh.write("\n# an edit\n")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "out")], env=env,
                          capture_output=True, text=True, cwd=repo)  # fmt: skip
    assert done.returncode != 0 and "DirtyTestRun" in done.stderr
    assert len(_rows(repo / "docs" / "results" / "test_ledger.csv")) == 1


def test_the_committed_ledger_is_well_formed():
    """Every row names a date, a commit (or says none was recorded), whether the tree was clean,
    the command, the benchmark and the purpose; rows written by the hook come from clean trees
    unless marked unpublishable."""
    with open(LEDGER, encoding="utf-8") as fh:
        assert fh.readline().strip() == ",".join(ledger.COLUMNS)
    rows = _rows(LEDGER)
    for i, row in enumerate(rows, start=2):
        assert row["date"] and row["command"] and row["benchmark"] and row["purpose"], f"line {i}: {row}"
        assert row["dirty"] in ("true", "false", "unknown"), f"line {i}: {row['dirty']!r}"
        if row["dirty"] == "true":
            assert "UNPUBLISHABLE" in row["purpose"] or "backfilled" in row["purpose"], f"line {i}"


def _test_runs_on_record() -> list[tuple[str, str, str]]:
    """``(record, command, commit)`` of every run in the committed run records that scored TEST."""
    out = []
    results = ROOT / "docs" / "results"
    for path in sorted([*results.rglob("config.json"), *results.rglob("run.json")]):
        data = json.loads(path.read_text(encoding="utf-8"))
        for run in data.get("runs", []) if isinstance(data, dict) else []:
            settings = run.get("settings") or run.get("config") or {}
            if ledger.scores_test(settings):
                commit = run.get("commit") or run.get("source_commit") or run.get("commit_before_start") or ""
                out.append((str(path.relative_to(results)), run.get("command") or "", commit))
    return out


def test_every_test_run_on_record_has_its_ledger_row():
    """The ledger and the folders agree: each TEST run a committed record keeps (its command and
    commit) has a row; the backfill (scripts/backfill_test_ledger.py) wrote those before the ledger."""
    rows = {(r["command"], r["commit"][:7]) for r in _rows(LEDGER)}
    runs = _test_runs_on_record()
    assert len(runs) > 20
    missing = [run for run in runs if (run[1], run[2][:7]) not in rows]
    assert not missing, f"TEST runs without a ledger row: {missing[:5]}"


def test_panel_rows_carry_the_id_of_the_run_that_wrote_them(tmp_path):
    """``bench m4`` and ``bench epf`` rows get their run's ``run_id`` (issue 78), also when the file
    was written before the column existed; the run's entry in ``run.json`` has that id."""
    import pandas as pd

    from tsattn.benchmarks import append_row, panel_run

    path, columns = tmp_path / "results.csv", ["split", "model", "seed", "mse"]
    append_row(path, {"split": "val", "model": "old", "seed": 0, "mse": 1.0}, columns)
    with panel_run.recorded_run(tmp_path, "tsattn bench m4 --split val", {"split": "val"}):
        panel_run.write_row(path, {"split": "val", "model": "new", "seed": 0, "mse": 0.5}, columns)
    runinfo.ensure_columns(path, columns)  # a later run's start keeps the column
    rows = pd.read_csv(path)
    run = json.loads((tmp_path / "run.json").read_text())["runs"][0]
    assert list(rows.columns) == [*columns, "run_id"]
    assert rows.run_id.isna().tolist() == [True, False] and rows.run_id[1] == run["id"]


def test_a_collection_run_keeps_its_folders_status(tmp_path):
    """``bench classify|regress`` rewrite ``config.json`` at each invocation: a new folder says
    ``current``, and a status written there (``superseded (by ...)``) stays (issue 78)."""
    from tsattn.benchmarks.collection_run import _save_config

    path = tmp_path / "config.json"
    _save_config(path, {"seeds": [0]}, "tsattn bench classify --seeds 0")
    assert json.loads(path.read_text())["status"] == "current"
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "status": "superseded (by ../other/)"}))
    _save_config(path, {"seeds": [0, 1]}, "tsattn bench classify --seeds 0 1", {"fits": 2})
    data = json.loads(path.read_text())
    assert data["status"] == "superseded (by ../other/)" and data["seeds"] == [0, 1]
    assert len(data["commands"]) == 2 and data["invocations"] == [{"fits": 2}]
