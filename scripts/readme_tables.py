"""README.md's result tables, rendered from the committed result files of named runs.

    python3 scripts/readme_tables.py            # print the three tables
    python3 scripts/readme_tables.py --write    # put them into README.md in place of the old ones
    python3 scripts/readme_tables.py --check    # exit 1 when README.md differs (tests/test_readme.py)

Each table is followed by one line naming the runs it comes from (commit, dates, machine, budget).
A number in a table is a mean over the rows this script selects, never typed in; what it selects is
declared below (``CLASSIFY``, ``FORECAST``, ``REGRESS``). Runs recorded by
:mod:`tsattn.benchmarks.runinfo` (``run_id`` in their rows) name their commit, machine and status,
and a dirty or unfinished one is refused; older runs recorded no commit, so the commit their
folder's README states is shown as stated. The published numbers are the papers', cited with them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
sys.path.insert(0, str(ROOT))  # this checkout's tsattn, whatever is installed

CLASSIFY = {"folder": "classify", "model": "tsattn:bn_sh", "peer": "minirocket",
            "archives": {"uea": 5, "ucr": 3},
            "stated": "tsattn rows: code of c016f85, 2026-11-26 (as its README states; the runs "
                      "recorded no commit); MiniRocket rows from earlier runs (130b708, "
                      "ebcafe1-24cb1fd)"}  # fmt: skip
FORECAST = {
    "folder": "forecast", "model": "tsattn:softmax[refit]", "seeds": (0, 1, 2),
    "peers": {"patchtst": "PatchTST", "itransformer": "iTransformer", "dlinear": "DLinear",
              "nhits": "NHITS"},
    #: one run of today's code: its default and peers replace the older rows where complete
    "same_run": "forecast/side_by_side",
    "sets": {"ETTh1": "ETTh1", "ETTh2": "ETTh2", "ETTm1": "ETTm1", "exchange_rate": "Exchange",
             "illness": "ILI"},
    "budget": 3000,
    "stated": "code of 025ebcc as its README states (the run recorded no commit)",
    #: the papers' averages at input 96 (ILI 36), not run here: docs/results/forecast/README.md
    "published": {"ETTh1": "0.419 (TimeMixer++)", "ETTh2": "0.339 (TimeMixer++)",
                  "ETTm1": "0.369 (TimeMixer++)", "exchange_rate": "0.339 (S3Attention)",
                  "illness": "2.077 (Non-stationary Transformer)"},
}  # fmt: skip
REGRESS = {"folder": "regress",
           "models": {"tsattn:softmax[multirocket]": "TSRegressor (default: MultiRocket anchor)",
                      "tsattn:softmax[before]": "TSRegressor before these defaults",
                      "multirocket": "MultiRocket", "rocket": "Rocket"},
           "stated": "the default: code of f70ca55 plus the anchor (as its README states; the runs "
                     "recorded no commit)"}  # fmt: skip


def _config_runs(folder: str) -> list[dict]:
    path = RESULTS / folder / "config.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get("runs", []) if isinstance(data, dict) else []


def _recorded(folder: str, run_ids, rows: pd.DataFrame | None = None) -> str:
    """The provenance of the recorded runs ``run_ids`` of ``folder``: per commit and machine, the
    dates (and, given their ``rows``, the models each ran), then the interrupted ones. Raises when
    one cannot feed a README table (dirty, unfinished, no commit)."""
    from tsattn.benchmarks.runinfo import publishable

    runs = [r for r in _config_runs(folder) if r.get("id") in set(run_ids)]
    for run in runs:
        why = publishable(run)
        if why:
            raise SystemExit(f"docs/results/{folder}: {why}; it cannot feed a README table")
    groups: dict[tuple[str, str], list[dict]] = {}
    for run in runs:
        groups.setdefault(((run.get("commit") or run["source_commit"])[:7], _machine(run)), []).append(run)
    parts = []
    for (commit, machine), group in groups.items():
        days = ", ".join(sorted({r["started"][:10] for r in group}))
        models = ""
        if rows is not None:
            ran = [m for m in rows[rows.run_id.isin({r["id"] for r in group})].model.unique()
                   if m in _SHOWN]  # fmt: skip
            models = " (" + ", ".join(_SHOWN[m] for m in sorted(ran, key=list(_SHOWN).index)) + ")"
        parts.append(f"commit {commit}, {days}, {machine}{models}")
    interrupted = [r["id"] for r in runs if r["status"] == "interrupted"]
    status = f"; interrupted before their end: {', '.join(interrupted)}" if interrupted else ""
    return "; ".join(parts) + status


def _machine(run: dict) -> str:
    """A run's machine in words: its GPU or CPU, cores, fits at once and threads per fit."""
    m = run.get("machine") or {}
    words = (run.get("command") or "").split()
    jobs = int(words[words.index("--n-jobs") + 1]) if "--n-jobs" in words else 1
    threads = (run.get("settings") or {}).get("params", {}).get("n_threads") or max(
        1, (m.get("cpu_count") or 1) // jobs)
    return (f"{m.get('gpu') or m.get('cpu')}, {m.get('cpu_count')} cores, {jobs} fit(s) at once, "
            f"{threads} thread(s) per fit")


_SHOWN = {"tsattn:softmax": "default", **FORECAST["peers"]}


# ---------------------------------------------------------------------- classification
def classification() -> str:
    from tsattn.benchmarks.classify_report import published, summarise

    spec = CLASSIFY
    rows = pd.read_csv(RESULTS / spec["folder"] / "results.csv")
    table = summarise(rows[rows.model.isin([spec["model"], spec["peer"]])])
    lines = ["| archive | sets | tsattn | MiniRocket | wins / ties / losses | papers (BN+SH, selected "
             "on TEST) |", "|---|---|---|---|---|---|"]  # fmt: skip
    for archive, seeds in spec["archives"].items():
        part = table[table.archive == archive]
        wide = part.pivot(index="dataset", columns="model", values="mean").dropna()
        n = part.pivot(index="dataset", columns="model", values="n").reindex(wide.index)
        assert (n == seeds).all().all(), f"{archive}: not {seeds} seeds everywhere"
        ours, theirs = wide[spec["model"]], wide[spec["peer"]]
        diff = (ours - theirs).round(6)
        cells = [f"{ours.mean():.2f}", f"{theirs.mean():.2f}"]
        best = int(np.argmax([ours.mean(), theirs.mean()]))
        cells[best] = f"**{cells[best]}**"
        pubs = [(d, published(d, archive, spec["model"])) for d in wide.index]
        pubs = [(d, p[0]) for d, p in pubs if p]
        papers = (f"at or above on {sum(ours[d] >= p for d, p in pubs)} of {len(pubs)} reported sets"
                  if pubs else "-")  # fmt: skip
        lines.append(f"| {archive.upper()} | {len(wide)} | {cells[0]} | {cells[1]} | "
                     f"{(diff > 0).sum()} / {(diff == 0).sum()} / {(diff < 0).sum()} | {papers} |")
    lines.append(f"\nRuns: `docs/results/{spec['folder']}/results.csv`, {spec['stated']}; the "
                 f"project's 2-core CPU machine, 2 fits at once, one thread each; UEA "
                 f"{spec['archives']['uea']} seeds, UCR {spec['archives']['ucr']}.")
    return "\n".join(lines)


# ---------------------------------------------------------------------- forecasting
def _complete(rows: pd.DataFrame, horizons: list[int]) -> pd.DataFrame:
    """The seeds of ``rows`` (one model, one set) that have every horizon: a stray seed's extra
    horizon does not enter a mean."""
    full = [s for s, part in rows.groupby("seed") if set(part.horizon) >= set(horizons)]
    return rows[rows.seed.isin(full) & rows.horizon.isin(horizons)]


def _cell(rows: pd.DataFrame, spec_seeds: int, budget: int, marks: list[str]) -> tuple[float, str]:
    """The 4-horizon mean of ``rows``, averaged over seeds, and its note (seeds and steps when
    they differ from the default's)."""
    per_seed = rows.groupby("seed").mse.mean()
    note = []
    if len(per_seed) != spec_seeds:
        note.append(f"{len(per_seed)} seed" + ("s" if len(per_seed) > 1 else ""))
    steps = rows.n_steps.dropna()
    if len(steps) and steps.max() < budget:
        note.append(f"{int(steps.min())}-{int(steps.max())} steps")
        marks.append("steps")
    return float(per_seed.mean()), f" ({', '.join(note)})" if note else ""


def _peer_rows(rows: pd.DataFrame, horizons: list[int], budget: int) -> tuple[pd.DataFrame, str]:
    """A peer's complete seeds at one budget: today's rule where some seed ran it at every horizon
    (seeds at an older budget or a mix are left out and named), else the older budget's seeds."""
    rows = _complete(rows, horizons)
    at_budget = {s for s, part in rows.groupby("seed") if (part.n_steps >= budget).all()}
    if at_budget and len(at_budget) < rows.seed.nunique():
        left = rows[~rows.seed.isin(at_budget)].groupby("seed").mse.mean()
        text = ", ".join(f"seed {s} {v:.4f}" for s, v in left.items())
        return rows[rows.seed.isin(at_budget)], f"at fewer steps or a mix left out: {text}"
    return rows, ""


def forecasting() -> str:
    spec = FORECAST
    old = pd.read_csv(RESULTS / spec["folder"] / "results.csv")
    old = old[(old.status == "ok") & (old.split == "test")]
    same_path = RESULTS / spec["same_run"] / "results.csv"
    same = pd.read_csv(same_path) if same_path.is_file() else old.iloc[:0]
    same = same[(same.status == "ok") & (same.split == "test")] if len(same) else same
    seeds = len(spec["seeds"])
    header = ["set", "tsattn", "network alone", *spec["peers"].values(),
              "network's share per horizon", "published best"]  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes, same_sets, same_ids, old_peer_sets = [], [], set(), []
    for name, shown in spec["sets"].items():
        ours = old[(old.dataset == name) & (old.model == spec["model"]) & old.seed.isin(spec["seeds"])]
        horizons = sorted(ours.horizon.unique())
        ours = _complete(ours, horizons)
        in_same = same[same.dataset == name] if len(same) else same
        default_same = _complete(in_same[in_same.model == "tsattn:softmax"], horizons) if len(in_same) else in_same
        use_same = len(default_same) and default_same.seed.nunique() == seeds
        if use_same:
            ours, source = default_same, in_same
            same_sets.append(shown)
            same_ids |= set(default_same.run_id)
        marks: list[str] = []
        mean, note = _cell(ours, seeds, spec["budget"], marks)
        net = ours.groupby("seed").mse_network.mean().mean()
        cells = {"tsattn": mean}
        texts = {"tsattn": note, "network alone": ""}
        cells["network alone"] = float(net)
        for peer, label in spec["peers"].items():
            ran = source[source.model == peer] if use_same else old.iloc[:0]
            rows = _complete(ran, horizons) if len(ran) else ran
            older = not len(rows)
            if not older:
                same_ids |= set(rows.run_id)
                left = ""
            else:
                if len(ran):  # the same run reached some horizons only: named, not mixed in
                    same_ids |= set(ran.run_id)
                    notes.append(f"{shown} {label} in the same run, seed 0 at "
                                 + ", ".join(f"h{h} {v:.4f}" for h, v in ran.groupby("horizon").mse.mean().items())
                                 + " (the other horizons not reached)")  # fmt: skip
                rows, left = _peer_rows(old[(old.dataset == name) & (old.model == peer)], horizons,
                                        spec["budget"])  # fmt: skip
                if len(rows):
                    old_peer_sets.append(shown)
            if not len(rows):
                cells[label], texts[label] = float("nan"), ""
                continue
            cells[label], texts[label] = _cell(rows, seeds, spec["budget"], marks)
            if older:
                texts[label] += "†"
            if left:
                notes.append(f"{shown} {label}: {left}")
        best = min((v, k) for k, v in cells.items() if k != "network alone" and v == v)[1]
        share = ours.groupby("horizon").blend.mean()
        row = [shown]
        for key in ["tsattn", "network alone", *spec["peers"].values()]:
            v = cells.get(key, float("nan"))
            text = "-" if v != v else f"{v:.4f}"
            text = f"**{text}**" if key == best else text
            row.append(text + texts.get(key, ""))
        row.append(" / ".join(f"{s:.2f}" for s in share))
        row.append(spec["published"][name])
        lines.append("| " + " | ".join(row) + " |")
    old_sets = [s for s in spec["sets"].values() if s not in same_sets]
    source_line = (f"Runs: tsattn {', '.join(old_sets)}: `docs/results/{spec['folder']}/results.csv` "
                   f"label `refit`, seeds 0-2, {spec['stated']}, "
                   f"{_dates(spec['folder'], 'refit')}, the 2-core CPU machine, one thread per fit, "
                   f"at most {spec['budget']} steps with early stopping")  # fmt: skip
    if same_sets:
        source_line += (f"; {', '.join(same_sets)}: the default and the peers without † from these runs "
                        f"(`docs/results/{spec['same_run']}/`: {_recorded(spec['same_run'], same_ids, same)}; "
                        f"the peers at the default's step rule)")  # fmt: skip
    if old_peer_sets:
        source_line += (f"; † peers of {', '.join(dict.fromkeys(old_peer_sets))}: older runs and code "
                        f"({_peer_dates(spec['folder'], spec['peers'])}, CPU or a lent H100), "
                        f"not the default's run")  # fmt: skip
    text = "\n".join(lines) + "\n\n" + source_line + "."
    if notes:
        text += " " + "; ".join(notes) + "."
    text += _partial_same_run(same, spec, same_sets)
    cov = old[old.model == spec["model"]].cov80
    return text + (f" The default's 80% intervals cover {100 * cov.min():.0f}-{100 * cov.max():.0f}% of "
                   f"the test values at every set, horizon and seed of those rows.")


def _partial_same_run(same: pd.DataFrame, spec: dict, complete: list[str]) -> str:
    """The same run's rows of the sets it has not completed, per horizon (the default's mean over
    its seeds, each peer's seeds): shown as partial, never mixed into the table above."""
    parts, ids = [], set()
    for name, shown in spec["sets"].items():
        rows = same[same.dataset == name] if len(same) else same
        if shown in complete or not len(rows):
            continue
        for h, at in rows.groupby("horizon"):
            ours = at[at.model == "tsattn:softmax"]
            peers = at[at.model.isin(list(spec["peers"]) + ["nhits"])]
            if not len(ours) or not len(peers):
                continue
            ids |= set(at.run_id)
            cells = [f"default {ours.mse.mean():.4f} (seeds {', '.join(map(str, sorted(ours.seed)))})"]
            cells += [f"{m} {g.mse.mean():.4f} (seeds {', '.join(map(str, sorted(g.seed)))}, "
                      f"{int(g.n_steps.max())} steps)" for m, g in peers.groupby("model")]  # fmt: skip
            parts.append(f"{shown} h{h}: " + ", ".join(cells))
    if not parts:
        return ""
    return (f" Partial, runs of today's code, the peers at the default's step rule "
            f"(`docs/results/{spec['same_run']}/`, {_recorded(spec['same_run'], ids, same)}): "
            + "; ".join(parts) + ".")


def _dates(folder: str, label: str) -> str:
    days = sorted({r["started"][:10] for r in _config_runs(folder)
                   if (r.get("config") or r.get("settings") or {}).get("label") == label})  # fmt: skip
    return days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"


def _peer_dates(folder: str, peers) -> str:
    days = sorted({r["started"][:10] for r in _config_runs(folder)
                   if set((r.get("config") or r.get("settings") or {}).get("peers") or []) & set(peers)})
    return f"{days[0]} to {days[-1]}"


# ---------------------------------------------------------------------- regression
def regression() -> str:
    from tsattn.benchmarks.regress_report import _gmean, ratio_table

    spec = REGRESS
    rows = pd.read_csv(RESULTS / spec["folder"] / "results.csv")
    rows = rows[rows.fold == -1]
    ratios = ratio_table(rows)
    seeds = sorted(rows.seed.unique())
    lines = ["| model | RMSE / MiniRocket's (geometric mean over the tasks) | highest | tasks above 1.2 |",
             "|---|---|---|---|"]  # fmt: skip
    for model, shown in spec["models"].items():
        r = ratios[model].dropna()
        lines.append(f"| {shown} | {_gmean(r):.3f} | {r.max():.2f} | {(r > 1.2).sum()} of {len(r)} |")
    lines.append(f"\nRuns: `docs/results/{spec['folder']}/results.csv`, {len(ratios)} tasks, seeds "
                 f"{', '.join(map(str, seeds))}, {spec['stated']}; dates not recorded by those runs, "
                 f"the 2-core CPU machine.")  # fmt: skip
    return "\n".join(lines)


TABLES = {"classification": classification, "forecasting": forecasting, "regression": regression}


def render() -> dict[str, str]:
    """Every table, by name, as it belongs in README.md (the table and its runs line)."""
    return {name: make() for name, make in TABLES.items()}


def _replace(readme: str, block: str) -> str:
    """``readme`` with the table whose header row is ``block``'s first line (and the lines up to
    its "Runs:" line) replaced by ``block``."""
    lines = readme.split("\n")
    head = block.split("\n", 1)[0].split("|")[1].strip()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {head} |"))
    end = start
    while end < len(lines) and (lines[end].startswith("|") or not lines[end].strip()):
        end += 1
    if end < len(lines) and lines[end].startswith("Runs:"):
        while end < len(lines) and lines[end].strip():
            end += 1
    return "\n".join([*lines[:start], block, "", *lines[end:]]).replace("\n\n\n", "\n\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--write", action="store_true", help="replace README.md's tables")
    p.add_argument("--check", action="store_true", help="exit 1 when README.md differs")
    args = p.parse_args(argv)
    path = ROOT / "README.md"
    readme = path.read_text(encoding="utf-8")
    tables = render()
    if args.write:
        for name, block in tables.items():
            placeholder = f"\n{name.upper()}\n"  # where a table goes the first time
            readme = (readme.replace(placeholder, f"\n{block}\n") if placeholder in readme
                      else _replace(readme, block))
        path.write_text(readme, encoding="utf-8")
    elif args.check:
        stale = [name for name, block in tables.items() if block not in readme]
        if stale:
            print(f"README.md's {', '.join(stale)} table(s) differ from the result files: run "
                  "python3 scripts/readme_tables.py --write")  # fmt: skip
            return 1
    else:
        print("\n\n".join(tables.values()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
