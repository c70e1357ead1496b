"""Run records (:mod:`tsattn.benchmarks.runinfo`): each run ends with its own final status, the
code it ran from and the machine; the committed records hold no run left ``running``."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tsattn.benchmarks import runinfo

ROOT = Path(__file__).resolve().parents[2]


def _runs(folder: Path) -> list[dict]:
    return json.loads((folder / "config.json").read_text())["runs"]


def test_overlapping_runs_on_one_folder_each_end_their_own_entry(tmp_path, monkeypatch):
    """The first run to start ends after the second started: each entry keeps its own end."""
    monkeypatch.setattr(runinfo.os, "getpid", lambda: 111)
    first = runinfo.recorded_run(tmp_path, "first", {})
    first.__enter__()
    monkeypatch.setattr(runinfo.os, "getpid", lambda: 222)
    second = runinfo.recorded_run(tmp_path, "second", {})
    second.__enter__()
    first.__exit__(None, None, None)
    assert [(r["command"], r["status"]) for r in _runs(tmp_path)] == [
        ("first", "finished"), ("second", "running")]
    second.__exit__(None, None, None)
    assert [r["status"] for r in _runs(tmp_path)] == ["finished", "finished"]


def test_ctrl_c_an_error_and_sigterm_each_leave_their_final_status(tmp_path):
    with pytest.raises(KeyboardInterrupt), runinfo.recorded_run(tmp_path, "a", {}):
        raise KeyboardInterrupt
    with pytest.raises(ValueError), runinfo.recorded_run(tmp_path, "b", {}):
        raise ValueError("bad setting")
    with pytest.raises(KeyboardInterrupt), runinfo.recorded_run(tmp_path, "c", {}):
        os.kill(os.getpid(), signal.SIGTERM)  # what `timeout` or `kill` sends
    with pytest.raises(SystemExit), runinfo.recorded_run(tmp_path, "d", {}):
        try:  # Lightning catches the interrupt and exits instead
            os.kill(os.getpid(), signal.SIGTERM)
        except KeyboardInterrupt:
            raise SystemExit(1) from None
    runs = _runs(tmp_path)
    assert [r["status"] for r in runs] == ["interrupted", "failed", "interrupted", "interrupted"]
    assert "SystemExit" in runs[3]["note"]
    assert "bad setting" in runs[1]["note"] and all(r["ended"] for r in runs)
    assert signal.getsignal(signal.SIGTERM) is not None  # the handler was put back


def test_a_record_names_its_commit_machine_and_settings(tmp_path):
    with runinfo.recorded_run(tmp_path, "tsattn bench x", {"seeds": [0]}, "cpu") as entry:
        pass
    run = _runs(tmp_path)[0]
    assert run["id"] == entry["id"] and run["settings"] == {"seeds": [0]} and run["device"] == "cpu"
    assert {"cpu", "cpu_count", "torch_threads", "gpu", "torch"} <= set(run["machine"])
    if (ROOT / ".git").exists():  # a checkout (a worktree's .git is a file): the commit is known
        assert len(run["commit"]) == 40 and isinstance(run["dirty"], bool)
        assert runinfo.publishable(run) == (None if not run["dirty"] else runinfo.publishable(run))


def test_a_dirty_or_unfinished_run_cannot_feed_a_table():
    clean = {"id": "r", "status": "finished", "commit": "a" * 40, "dirty": False}
    assert runinfo.publishable(clean) is None
    assert "dirty" in runinfo.publishable({**clean, "dirty": True, "dirty_files": ["tsattn/x.py"]})
    assert "running" in runinfo.publishable({**clean, "status": "running"})
    assert "no commit" in runinfo.publishable({**clean, "commit": None})


def test_dirty_means_the_package_differs_from_its_commit(monkeypatch):
    outputs = {"rev-parse": None, "status": " M tsattn/nn/model.py\n?? tsattn/notes.txt\n?? tsattn/new.py\n"}

    def git(*args):
        if args[0] == "rev-parse":
            return "f" * 40 if args[1] == "HEAD" else str(runinfo._PACKAGE.parent)
        return outputs["status"]

    monkeypatch.setattr(runinfo, "_git", git)
    state = runinfo.code_state()
    assert state["dirty"] and state["dirty_files"] == ["tsattn/nn/model.py", "tsattn/new.py"]
    outputs["status"] = "?? tsattn/notes.txt\n"  # an untracked note is not code
    assert runinfo.code_state()["dirty"] is False


def test_a_killed_run_is_found_stale(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"runs": [
        {"id": "gone", "status": "running", "pid": 2**22 + 12345},
        {"id": "me", "status": "running", "pid": os.getpid()},
        {"id": "done", "status": "finished", "pid": 1}]}))
    assert [r["id"] for r in runinfo.stale_runs(tmp_path / "config.json")] == ["gone"]


_RECORDS = sorted([*(ROOT / "docs" / "results").rglob("config.json"),
                   *(ROOT / "docs" / "results").rglob("run.json")])


@pytest.mark.parametrize("path", _RECORDS, ids=lambda p: str(p.relative_to(ROOT / "docs" / "results")))
def test_every_committed_run_names_its_code_machine_and_end(path):
    """Issue 52: each record gives a command, a final status (none left ``running``), the code (its commit; for runs written before
    runinfo, the commit main was at when it started, marked as inferred), a machine (or at least
    the device, marked as not recorded) and a final status."""
    data = json.loads(path.read_text())
    runs = data.get("runs", []) if isinstance(data, dict) else []
    for run in runs:
        what = f"{path.relative_to(ROOT)}: {run.get('command', '')[:80]!r}"
        assert run.get("command"), what
        assert run.get("status") in runinfo.FINAL_STATUSES, (
            f"{what}: status {run.get('status')!r} (a run left 'running': give its real end)")
        code = run.get("commit") or run.get("source_commit") or run.get("commit_before_start")
        assert code or run.get("commit_note"), f"{what}: no commit"
        if "commit_before_start" in run:
            assert "not recorded" in run["commit_note"], what
        assert run.get("machine") or run.get("cpu"), f"{what}: no machine"


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_a_copy_without_git_is_checked_by_its_package_digest():
    """A run on a lent machine (a copy without .git) names the commit it claims; the claim stands
    only when the package's files are that commit's."""
    head = runinfo._git("rev-parse", "HEAD").strip()
    assert runinfo.digest_at(head) is not None
    run = {"id": "gpu", "status": "finished", "commit": None, "source_commit": head,
           "digest": runinfo.digest_at(head)}
    assert runinfo.publishable(run) is None
    assert "not commit" in runinfo.publishable({**run, "digest": "0" * 64})
    assert "no commit" in runinfo.publishable({**run, "source_commit": None})
    if not runinfo.code_state()["dirty"]:  # this checkout's files are HEAD's
        assert runinfo.package_digest() == runinfo.digest_at(head)
