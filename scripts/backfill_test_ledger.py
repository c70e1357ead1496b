"""Backfill ``docs/results/test_ledger.csv`` with the TEST scorings made before the ledger existed
(issue 78), from what git's history keeps: every run record that ever lay under ``docs/results/``
(``config.json`` of ``bench classify|regress|forecast``, ``run.json`` of ``bench m4|epf``), the
commands lists of the records older than the run records, and the results scripts that scored TEST.

    python3 scripts/backfill_test_ledger.py            # rewrite the ledger: backfilled rows, then the rest
    python3 scripts/backfill_test_ledger.py --check    # exit 1 when the backfill would change it

Rows written by the ledger itself (those not marked ``backfilled``) are kept after the backfilled
ones, as they are. What a record does not say is not invented: a run before the run records
(2026-11-27) has no recorded commit (the one ``main`` was at when it started, inferred from the
history, is given and marked), a command kept only in a commands list has the date of the commit
that added it; the purpose is the folder's, from its README, where it says one.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEDGER = ROOT / "docs" / "results" / "test_ledger.csv"
sys.path.insert(0, str(ROOT))

#: What each TEST folder of the panels was for, from the panels' README (issue 78's audit).
PURPOSES = {
    "m4_hourly": "the peers and baselines on M4 Hourly TEST",
    "m4_hourly/tsattn": "the first default on M4 Hourly TEST",
    "m4_hourly/tsattn_auto": "the width rule (d_model='auto') on TEST",
    "m4_hourly/tsattn_d128": "d_model=128 on TEST",
    "m4_hourly/tsattn_context": "the context rule (context_length='auto') on TEST",
    "m4_hourly/tsattn_parts": "the network and the anchor alone on TEST",
    "m4_hourly/tsattn_weighted": "the MASE weighting (chosen on validation) on TEST, NHITS beside it",
    "m4_hourly/tsattn_held": "forecasts held at each series' lowest value (the floor; its idea came from reading TEST forecasts) on TEST",
    "m4_hourly/tsattn_held_here": "the held default rerun on the Intel machine, for the per-series choice's comparison",
    "m4_hourly/tsattn_chosen": "the per-series choice (opened with the TEST gap to the winner) on TEST, NHITS beside it",
    "m4_hourly/tsattn_log": "the log scale for spiky series on TEST, NHITS beside it",
    "m4_hourly/tsattn_share": "the network's share per scale on TEST, NHITS beside it",
    "m4_hourly/tsattn_nodrop": "dropout='auto' (no dropout for 100 series or more) on TEST",
    "m4_hourly/tsattn_final": "the final code with NHITS in the same run",
    "m4_weekly": "the peers and baselines on M4 Weekly TEST",
    "m4_weekly/tsattn_level": "the log scale's Weekly counterpart (level) on TEST",
    "epf": "the first EPF TEST run: peers and the default on NP, PJM, BE",
    "epf/tsattn": "the default on EPF TEST (NP, PJM, BE)",
    "epf_calendar": "calendar columns on EPF TEST (NP, PJM, BE)",
    "epf_decoder": "the temporal decoder on EPF TEST (NP, PJM, BE), the ridge and NHITS beside it",
    "epf_unseen": "FR and DE, on which nothing had been chosen yet",
    "epf_asinh/test": "LEAR's scale, after its validation decision on all five markets (FR and DE no longer unseen)",
    "intervals": "the panels' interval coverage on TEST",
    "forecast_unseen": "series no forecasting default was chosen on",
    "classify/unseen": "29 classification sets no default was chosen on",
    "classify/variants": "every attention variant on TEST (no default chosen from it)",
}
SCRIPTS = {  # results scripts that scored TEST, and the output that dates them
    "docs/results/panels/floor_test.py": ("docs/results/panels/floor_test.jsonl", "panels/m4_hourly",
                                          "the floor replayed on M4 TEST forecasts of tsattn_weighted (script)"),
    "docs/results/forecast_defaults/intervals/intervals.py": (
        "docs/results/forecast_defaults/intervals/intervals.py", "forecast_defaults/intervals",
        "interval calibration chosen on validation; TEST printed 'for information' (script)"),
}


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False).stdout


def _last_version(path: str) -> str | None:
    """``path``'s text at HEAD, or just before the commit that deleted it."""
    for ref in ("HEAD", git("log", "-1", "--format=%H", "--", path).strip() + "^"):
        done = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:{path}"], capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout
    return None


def _scores_test(run: dict) -> bool:
    settings = run.get("config") or run.get("settings")
    command = run.get("command") or ""
    if isinstance(settings, dict) and ("split" in settings or "cv" in settings):
        return settings.get("split") == "test" if "split" in settings else settings.get("cv") is None
    words = command.split()
    if "--split" in words:
        return words[words.index("--split") + 1] == "test"
    return ("bench classify" in command or "bench regress" in command) and "--cv" not in words


def _benchmark(path: str) -> str:
    return path.removeprefix("docs/results/").rsplit("/", 1)[0]


def _purpose(benchmark: str) -> str:
    key = benchmark.removeprefix("panels/")
    while key:
        if key in PURPOSES:
            return PURPOSES[key]
        key = key.rpartition("/")[0]
    return "purpose not recorded"


def _commit_date(sha: str) -> str:
    return git("log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%d %H:%M:%S UTC", sha).strip()


def records() -> list[dict[str, str]]:
    """One row per TEST run found in a run record or commands list of git's history."""
    paths = sorted(set(git("log", "--format=", "--name-only", "--", "docs/results/*config.json",
                           "docs/results/*run.json").split()))  # fmt: skip
    here = set(git("ls-files", "docs/results").split())
    rows: dict[tuple, dict] = {}
    listed: list[tuple[str, str]] = []
    for path in paths:
        text = _last_version(path)
        try:
            data = json.loads(text) if text else None
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict):
            continue
        bench = _benchmark(path)
        ran = set()
        for run in data.get("runs", []):
            ran.add(run.get("command"))
            if not _scores_test(run):
                continue
            key = (run.get("started"), run.get("command"))
            if key in rows and rows[key]["_here"] and path not in here:
                continue  # a folder moved since: the record where it lies now
            commit = run.get("commit") or run.get("source_commit") or ""
            how = ""
            if not commit and run.get("commit_before_start"):
                commit, how = run["commit_before_start"], "; commit inferred (main at its start), not recorded by the run"
            dirty = {True: "true", False: "false"}.get(run.get("dirty"), "unknown")
            status = run.get("status") or "no status"
            rows[key] = {"date": run.get("started") or "", "commit": commit, "dirty": dirty,
                         "command": run.get("command") or "", "benchmark": bench,
                         "purpose": f"backfilled from {path.removeprefix('docs/results/')} "
                                    f"({status}{how}): {_purpose(bench)}",
                         "_here": path in here}  # fmt: skip
        for command in data.get("commands", []):
            if command not in ran and _scores_test({"command": command}):
                listed.append((path, command))
    for path, command in listed:  # before the run records: the commit that added the command
        added = git("log", "--reverse", "--format=%H", "-S", json.dumps(command)[1:-1], "--", path).split()
        sha = added[0] if added else ""
        bench = _benchmark(path)
        rows[(None, command, path)] = {
            "date": _commit_date(sha) if sha else "", "commit": "", "dirty": "unknown", "command": command,
            "benchmark": bench,
            "purpose": f"backfilled from the commands list of {path.removeprefix('docs/results/')} (no run "
                       f"record: code and time not recorded; the date is that of {sha[:7]}, which "
                       f"committed it): {_purpose(bench)}", "_here": False}  # fmt: skip
    for script, (output, bench, what) in SCRIPTS.items():
        for sha in git("log", "--reverse", "--format=%H", "--", output).split()[:1]:
            rows[(None, script)] = {"date": _commit_date(sha), "commit": git("rev-parse", f"{sha}^").strip(),
                                    "dirty": "unknown", "command": f"python {script}", "benchmark": bench,
                                    "purpose": f"backfilled from git: {what}; date of {sha[:7]}, which "
                                               f"committed its output; commit: its parent",
                                    "_here": False}  # fmt: skip
    return sorted(({k: v for k, v in r.items() if not k.startswith("_")} for r in rows.values()),
                  key=lambda r: (r["date"], r["benchmark"], r["command"]))  # fmt: skip


def render() -> str:
    from tsattn.benchmarks.ledger import COLUMNS

    kept = []
    if LEDGER.is_file():
        with open(LEDGER, newline="", encoding="utf-8") as fh:
            kept = [r for r in csv.DictReader(fh) if not r["purpose"].startswith("backfilled")]
    import io

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows([*records(), *kept])
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true")
    args = p.parse_args(argv)
    text = render()
    if args.check:
        return int(not LEDGER.is_file() or LEDGER.read_text(encoding="utf-8") != text)
    LEDGER.write_text(text, encoding="utf-8")
    print(f"wrote {LEDGER.relative_to(ROOT)}: {text.count(chr(10)) - 1} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
