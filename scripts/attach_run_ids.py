"""Give every row of the current results files under ``docs/results/`` the ``run_id`` of the run
record that wrote it (issue 78), for the rows written before the benches put it there.

    python3 scripts/attach_run_ids.py            # write the ids (records and rows)
    python3 scripts/attach_run_ids.py --dry-run  # say what it would attach, and what it cannot

A row is matched to the runs of its folder's record (``config.json`` or ``run.json``) whose command
covers it: the row's dataset (or market), horizon, model, seed and split are among those the command
ran (its ``--datasets``, ``--horizons``, ``--markets``, ``--settings``, ``--models``, ``--attentions``
with ``--label``, ``--peers``, ``--seeds``, ``--split``, ``--cv``). Where several runs cover a row
(a resumed or repeated command), the first in the record's order is taken: a resumed run skips the
rows an earlier one wrote. A run kept only in a record's ``commands`` list (the records older than
``tsattn/benchmarks/runinfo.py``) first gets an entry of its own: its command, the commit before
the one that committed it (``commit_before_start``, marked as not recorded) and no start time.
Entries without an ``id`` get one (``backfill-<start or commit>-<n>``). Rows no recorded command
covers get one entry per model that says so (``command``: "not recorded: ...", the commit that
added the rows, its parent as ``commit_before_start``): their record is the history's, and says no
more than that.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
NOTE = ("not recorded by the run (it predates tsattn/benchmarks/runinfo.py; kept only in this "
        "record's commands list): commit_before_start is the parent of the commit that committed "
        "the command, and its start, end and machine are unknown (issue 78's backfill)")  # fmt: skip
#: the default --peers of each bench, and its default --attentions
PEERS = {"classify": ["minirocket"], "regress": ["minirocket", "multirocket", "rocket", "mean"],
         "forecast": ["patchtst", "itransformer", "dlinear", "nhits"]}  # fmt: skip
ATTENTIONS = {"classify": ["bn_sh"], "regress": ["softmax"], "forecast": ["softmax"]}
BASELINES = ["naive_last", "seasonal_naive", "ar"]


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True).stdout


def options(command: str) -> tuple[str, dict[str, list[str]]]:
    """The bench's name and its options, each with the words after it (flags: an empty list)."""
    words = shlex.split(command)
    bench = words[2] if len(words) > 2 and words[1] == "bench" else ""
    out: dict[str, list[str]] = {}
    key = None
    for w in words[3:]:
        if w.startswith("--"):
            key = w[2:].split("=")[0]
            out.setdefault(key, [])
            if "=" in w:
                out[key].append(w.split("=", 1)[1])
        elif key is not None:
            out[key].append(w)
    return bench, out


def _models(bench: str, opts: dict, run: dict) -> set[str] | None:
    """The model names a command ran (None: any)."""
    if bench in ("m4", "epf"):
        return set(opts["models"]) if "models" in opts else None
    attentions = opts.get("attentions", ATTENTIONS.get(bench, []))
    for param in opts.get("param", []):  # --param attention="bn_sh" names the model by it
        if param.startswith("attention="):
            attentions = [json.loads(param.split("=", 1)[1])]
    label = (opts.get("label") or [None])[0]
    names = set()
    if attentions == ["all"]:  # every registered variant: the label and head name the rows
        from tsattn import list_attention

        attentions = list_attention()
    for a in attentions:
        for head in opts.get("heads") or [None]:
            base = f"tsattn:{a}" + (f"/{head}" if head else "")
            names.add(base + (f"[{label}]" if label else ""))
    names |= set(opts.get("peers", PEERS.get(bench, [])))
    if bench == "forecast":
        names |= set(opts.get("baselines", BASELINES))
    return names


def covers(run: dict, row: dict, folder: str) -> bool:
    bench, opts = options(run.get("command") or "")
    settings = run.get("config") or run.get("settings") or {}
    models = _models(bench, opts, run)
    if models is not None and row.get("model") not in models:
        return False
    if "seed" in row and row["seed"] != "":
        seeds = opts.get("seeds", ["0"])
        if str(int(float(row["seed"]))) not in seeds and not row["model"].startswith(("naive", "seasonal", "ar", "mean", "sf:", "snaive")):
            return False
    split = (opts.get("split") or [None])[0]
    if "split" in row and split and row["split"] != split:
        return False
    if bench in ("classify", "regress"):
        cv = opts.get("cv")
        if "fold" in row and ((int(float(row["fold"])) == -1) != (cv is None)):
            return False
        names = opts.get("datasets")
        resolved = settings.get("datasets_resolved") if isinstance(settings, dict) else None
        if names and not set(n.lower() for n in names) & {"uea", "ucr", "tser", "regression"}:
            if row["dataset"] not in names and not any(n.startswith("$") for n in names):
                return False
        elif resolved and row["dataset"] not in resolved and names and "$" not in "".join(names):
            pass
    if bench == "forecast":
        names = opts.get("datasets") or opts.get("dataset") or []
        if names and row["dataset"] not in names and not any(n.endswith(".csv") and Path(n).stem == row["dataset"] for n in names):
            return False
        horizons = opts.get("horizons")
        if horizons and str(int(float(row["horizon"]))) not in horizons:
            return False
    if bench == "epf":
        markets = {Path(m).stem for m in opts.get("markets", [])}
        if markets and row["market"] not in markets:
            return False
        settings_ = opts.get("settings", ["past", "future"])
        if row["setting"] not in settings_ and row["setting"] != "none":
            return False
    return True


def _commands_entries(folder: Path, data: dict) -> list[dict]:
    """Entries for the commands a ``config.json`` lists without a run entry."""
    ran = {r.get("command") for r in data.get("runs", [])}
    path = str((folder / "config.json").relative_to(ROOT))
    out = []
    for k, command in enumerate(data.get("commands", [])):
        if command in ran:
            continue
        added = git("log", "--reverse", "--format=%H", "-S", json.dumps(command)[1:-1], "--", path).split()
        parent = git("rev-parse", f"{added[0]}^").strip() if added else ""
        out.append({"id": f"backfill-{parent[:7] or 'unknown'}-{k}", "command": command,
                    "commit": None, "commit_before_start": parent or None, "commit_note": NOTE,
                    "dirty": None, "machine": {"device": data.get("device", "cpu"), "recorded": False},
                    "started": None, "ended": None, "status": "finished",
                    "note": "status not recorded; the rows it wrote are in results.csv"})  # fmt: skip
    return out


def attach(folder: Path, write: bool) -> tuple[int, int, list]:
    """Attach ids in ``folder``'s results.csv; returns (rows given an id, rows already with one,
    rows no run covers)."""
    record = folder / "run.json" if (folder / "run.json").is_file() else folder / "config.json"
    data = json.loads(record.read_text(encoding="utf-8")) if record.is_file() else {"runs": []}
    runs = data.setdefault("runs", [])
    new = _commands_entries(folder, data) if record.name == "config.json" else []
    runs[:0] = new  # the commands list's runs came first
    for k, run in enumerate(runs):
        if not run.get("id"):
            stamp = (run.get("started") or "").replace("-", "").replace(":", "").replace(" UTC", "").replace(" ", "T")
            run["id"] = f"backfill-{stamp or (run.get('commit') or run.get('commit_before_start') or 'x')[:7]}-{k}"
    path = folder / "results.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
        fields = list(rows[0].keys()) if rows else []
    if "run_id" not in fields:
        fields.append("run_id")
    given, had, orphans = 0, 0, []
    for row in rows:
        if row.get("run_id"):
            had += 1
            continue
        match = next((r for r in runs if covers(r, row, folder.name)), None)
        if match is None:
            orphans.append(row)
            continue
        row["run_id"] = match["id"]
        given += 1
    # rows no recorded command covers: one entry per model, naming the commit that added them
    groups: dict[str, list[dict]] = {}
    for row in orphans:
        groups.setdefault(row.get("model", ""), []).append(row)
    for k, (model, group) in enumerate(groups.items()):
        first = ",".join(str(group[0][f]) for f in fields[:3])
        sha = (git("log", "--reverse", "--format=%H", "-S", first, "--", str(path.relative_to(ROOT))).split() or [""])[0]
        parent = git("rev-parse", f"{sha}^").strip() if sha else ""
        sets = sorted({r.get("dataset") or r.get("market") or "" for r in group})
        entry = {"id": f"backfill-unrecorded-{sha[:7] or 'x'}-{k}",
                 "command": f"not recorded: the rows of {model or 'this file'}"
                            + (f" on {', '.join(sets)}" if any(sets) else "")
                            + f", which no recorded command covers; committed in {sha[:7]}",
                 "commit": None, "commit_before_start": parent or None, "commit_note": NOTE.replace(
                     "kept only in this record's commands list", "its command kept nowhere").replace(
                     "committed the command", "committed its rows"),
                 "dirty": None, "machine": {"device": data.get("device", "cpu"), "recorded": False},
                 "started": None, "ended": None, "status": "finished",
                 "note": "command and status not recorded; its rows are in results.csv"}  # fmt: skip
        runs.append(entry)
        new.append(entry)
        for row in group:
            row["run_id"] = entry["id"]
    if write:
        out = io.StringIO()
        w = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
        path.write_text(out.getvalue(), encoding="utf-8")
        used = {row.get("run_id") for row in rows}
        data["runs"] = [r for r in runs if r not in new or r["id"] in used]  # no entry for a command with no row
        record.write_text(json.dumps(data, indent=2, default=repr) + "\n", encoding="utf-8")
    return given, had, orphans


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("folders", nargs="*", help="folders under docs/results (default: every one with a results.csv)")
    args = p.parse_args(argv)
    folders = [RESULTS / f for f in args.folders] or sorted(p.parent for p in RESULTS.rglob("results.csv"))
    for folder in folders:
        given, had, orphans = attach(folder, write=not args.dry_run)
        if given or orphans:
            models = sorted({r.get("model") for r in orphans})
            print(f"{folder.relative_to(RESULTS)}: {given} rows given an id, {had} had one, {len(orphans)} "
                  f"no recorded command covers" + (f" (an entry per model: {models})" if orphans else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
