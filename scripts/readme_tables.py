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

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
sys.path.insert(0, str(ROOT))  # this checkout's tsattn, whatever is installed

CLASSIFY = {"folder": "classify", "model": "tsattn:bn_sh[hmr0]",
            #: the strongest peers run on the archives; each shown over the default's sets
            "peers": {"minirocket": "MiniRocket", "hydra-multirocket": "MultiRocket-Hydra",
                      "quant": "QUANT"},
            "archives": {"uea": 5, "ucr": 3},
            "stated": "tsattn rows: today's default `TSClassifier` (`anchor='hydra-multirocket'`, "
                      "`label_smoothing=0`; the first run, on 7 UCR sets, gave the two as `--param`), "
                      "from the recorded runs named below; MiniRocket rows from earlier runs "
                      "(130b708, ebcafe1-24cb1fd), on the project's 2-core CPU machine, 2 fits at "
                      "once, one thread each"}  # fmt: skip
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
                      "multirocket": "MultiRocket", "rocket": "Rocket", "quant": "QUANT",
                      "drcif": "DrCIF", "freshprince": "FreshPRINCE"},
           "default": "tsattn:softmax[multirocket]",
           "stated": "the default: code of f70ca55 plus the anchor (as its README states); "
                     "its runs and those of the rows above QUANT recorded no commit or date, on "
                     "the 2-core CPU machine"}  # fmt: skip

def _config_runs(folder: str) -> list[dict]:
    path = RESULTS / folder / "config.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get("runs", []) if isinstance(data, dict) else []


def _recorded(folder: str, run_ids, rows: pd.DataFrame | None = None,
              names: dict | None = None) -> str:
    """The provenance of the recorded runs ``run_ids`` of ``folder``: per commit and machine, the
    dates (and, given their ``rows``, the models each ran, shown by ``names``, the forecasting
    table's by default), then the interrupted ones. Raises when one cannot feed a README table
    (dirty, unfinished, no commit)."""
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
            names = names or _SHOWN
            ran = [m for m in rows[rows.run_id.isin({r["id"] for r in group})].model.unique()
                   if m in names]  # fmt: skip
            models = " (" + ", ".join(names[m] for m in sorted(ran, key=list(names).index)) + ")"
        parts.append(f"commit {commit}, {days}, {machine}{models}")
    interrupted = [r["id"] for r in runs if r["status"] == "interrupted"]
    status = f"; interrupted before their end: {', '.join(interrupted)}" if interrupted else ""
    return "; ".join(parts) + status


def _machine(run: dict) -> str:
    """A run's machine in words: its GPU or CPU, cores, fits at once and threads per fit (the
    estimator's ``n_threads``, else its share of the cores, at most torch's thread count)."""
    m = run.get("machine") or {}
    words = (run.get("command") or "").split()
    jobs = int(words[words.index("--n-jobs") + 1]) if "--n-jobs" in words else 1
    share = max(1, (m.get("cpu_count") or 1) // jobs)
    threads = (run.get("settings") or {}).get("params", {}).get("n_threads") or min(
        share, m.get("torch_threads") or share)
    return (f"{m.get('gpu') or m.get('cpu')}, {m.get('cpu_count')} cores, {jobs} fit(s) at once, "
            f"{threads} thread(s) per fit")


_SHOWN = {"tsattn:softmax": "default", **FORECAST["peers"]}


# ---------------------------------------------------------------------- classification
def classification() -> str:
    """Per archive, the default's mean over its sets beside each peer's over the same sets (a peer
    missing some shows them apart, with the default's mean on its sets), W/T/L against the
    strongest peer run on every set, and the papers' numbers."""
    from tsattn.benchmarks.classify_report import published, summarise

    spec, peers = CLASSIFY, CLASSIFY["peers"]
    attention = spec["model"].split("[")[0]  # the papers' numbers are the attention's
    rows = pd.read_csv(RESULTS / spec["folder"] / "results.csv")
    table = summarise(rows[rows.model.isin([spec["model"], *peers])])
    body, against, ids = [], {}, {}
    for archive, seeds in spec["archives"].items():
        part = table[table.archive == archive]
        wide = part.pivot(index="dataset", columns="model", values="mean")
        wide = wide[wide[spec["model"]].notna()]  # the sets the default ran: the row's sets
        n = part.pivot(index="dataset", columns="model", values="n").reindex(wide.index)
        assert (n[wide.notna()].fillna(seeds) == seeds).all().all(), f"{archive}: not {seeds} seeds"
        ours = wide[spec["model"]]
        full = [p for p in peers if wide[p].notna().all()]
        best = max(full, key=lambda p: wide[p].mean())
        against[archive] = peers[best]
        means = {m: wide[m].mean() for m in [spec["model"], *full]}
        top = max(means, key=means.get)
        cells = []
        for m in [spec["model"], *peers]:
            have = wide[m].dropna()
            text = f"{have.mean():.2f}"
            if m == top:
                text = f"**{text}**"
            elif m != spec["model"] and m not in full:
                failed = set(rows[(rows.archive == archive) & (rows.model == m)
                                  & (rows.status != "ok")].dataset)  # fmt: skip
                why = ", ".join(f"{d} {'failed' if d in failed else 'not run'}"
                                for d in wide.index.difference(have.index))  # fmt: skip
                text += (f" ({len(have)} of {len(wide)} sets, {why}; tsattn "
                         f"{ours[have.index].mean():.2f}, {peers[best]} "
                         f"{wide.loc[have.index, best].mean():.2f} on these)")  # fmt: skip
            cells.append(text)
        diff = (ours - wide[best]).round(6)
        pubs = [(d, published(d, archive, attention)) for d in wide.index]
        pubs = [(d, p[0]) for d, p in pubs if p]
        papers = (f"at or above on {sum(ours[d] >= p for d, p in pubs)} of {len(pubs)} reported sets"
                  if pubs else "-")  # fmt: skip
        body.append(f"| {archive.upper()} | {len(wide)} | {' | '.join(cells)} | "
                    f"{(diff > 0).sum()} / {(diff == 0).sum()} / {(diff < 0).sum()} | {papers} |")
        ran = rows[(rows.archive == archive) & rows.dataset.isin(wide.index) & rows.run_id.notna()
                   & rows.model.isin([spec["model"], *peers])]  # the runs of the models shown
        ids[archive] = ran
    vs = ", ".join(f"{a.upper()}: {p}" for a, p in against.items())
    header = ["archive", "sets", "tsattn", *peers.values(),
              f"wins / ties / losses against the strongest peer run on every set ({vs})",
              "papers (BN+SH, selected on TEST)"]  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *body]
    names = {spec["model"]: "default", **peers}
    later = "; ".join(f"{a.upper()}: {_recorded(spec['folder'], set(r.run_id), r, names)}"
                      for a, r in ids.items() if len(r))  # fmt: skip
    recorded = [names[m] for m in names if m in set(pd.concat(ids.values()).model)]
    lines.append(f"\nRuns: `docs/results/{spec['folder']}/results.csv`, {spec['stated']}; "
                 f"{_and(recorded)} from later runs ({later}); UEA {spec['archives']['uea']} "
                 f"seeds, UCR {spec['archives']['ucr']}, every model.")  # fmt: skip
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
                    at = ran.groupby("horizon").agg(mse=("mse", "mean"), seeds=("seed", "nunique"))
                    notes.append(f"{shown} {label} in the same run (mean of its seeds) at "
                                 + ", ".join(f"h{h} {r.mse:.4f} ({int(r.seeds)} seed{'s' if r.seeds > 1 else ''})"
                                             for h, r in at.iterrows())
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
    """Each model's geometric-mean RMSE ratio to MiniRocket over the tasks it ran at every seed
    (fewer than all: said in the row, with the default's ratio on those tasks), its highest ratio
    and the tasks above 1.2."""
    from tsattn.benchmarks.regress_report import _gmean, ratio_table

    spec = REGRESS
    rows = pd.read_csv(RESULTS / spec["folder"] / "results.csv")
    rows = rows[(rows.fold == -1) & (rows.status == "ok")]
    seeds = sorted(rows.seed.unique())
    done = rows.groupby(["model", "dataset"]).seed.nunique()
    ratios = ratio_table(rows)
    lines = ["| model | RMSE / MiniRocket's (geometric mean over the tasks) | highest | tasks above 1.2 |",
             "|---|---|---|---|"]  # fmt: skip
    for model, shown in spec["models"].items():
        tasks = [t for t, k in done[model].items() if k == len(seeds)]
        r = ratios.loc[tasks, model]
        cell = f"{_gmean(r):.3f}"
        if len(tasks) < len(ratios):
            fits = f"{int(done[model].sum())} of {len(seeds) * len(ratios)} fits done"
            cell += (f" (the {len(tasks)} of {len(ratios)} tasks it ran at all {len(seeds)} seeds, "
                     f"{fits}; the default {_gmean(ratios.loc[tasks, spec['default']]):.3f} on "
                     f"them)")  # fmt: skip
        lines.append(f"| {shown} | {cell} | {r.max():.2f} | {(r > 1.2).sum()} of {len(r)} |")
    recorded = rows[rows.run_id.notna()]
    partial = [m for m in spec["models"] if (done[m] < len(seeds)).any()]
    seed0 = ratio_table(rows[rows.seed == seeds[0]])
    notes = "".join(f"; {spec['models'][m]} on seed {seeds[0]} alone, all {len(seed0)} tasks: "
                    f"{_gmean(seed0[m]):.3f} (the default {_gmean(seed0[spec['default']]):.3f})"
                    for m in partial if seed0[m].notna().all())  # fmt: skip
    lines.append(f"\nRuns: `docs/results/{spec['folder']}/results.csv`, {len(ratios)} tasks, seeds "
                 f"{', '.join(map(str, seeds))}, {spec['stated']}; "
                 f"{_and([spec['models'][m] for m in spec['models'] if m in set(recorded.model)])} "
                 f"from recorded runs: "
                 f"{_recorded(spec['folder'], set(recorded.run_id), recorded, spec['models'])}"
                 f"{notes}.")  # fmt: skip
    return "\n".join(lines)


def _and(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


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
