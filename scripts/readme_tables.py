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

CLASSIFY = {"folder": "classify", "model": "tsattn:softmax",
            #: ours, as shown: TSClassifier() itself, and the rows that ran the papers' attention in
            #: its place (issue 78: never called "the default")
            "ours": {"tsattn:softmax": "`TSClassifier()`",
                     "tsattn:bn_sh[hmr0]": '`TSClassifier(attention="bn_sh")`'},
            #: the strongest peers run on the archives; each shown over the row's sets
            "peers": {"minirocket": "MiniRocket", "hydra-multirocket": "MultiRocket-Hydra",
                      "quant": "QUANT"},
            "archives": {"uea": 5, "ucr": 3},
            "stated": "`TSClassifier()` rows: the classifier as it is (softmax attention, the "
                      "MultiRocket-Hydra anchor), no `--param`; `TSClassifier(attention=\"bn_sh\")` "
                      "rows: `--attentions bn_sh --label hmr0`, the anchored default with the papers' "
                      "attention in softmax's place (called the default until issue 78)"}  # fmt: skip
#: classify_cv's rows behind the default: the anchored default with the papers' attention (the run
#: that chose the anchor), with softmax (the default's own), and the network alone before it
CLASSIFY_CV = {"folder": "classify_cv", "chosen": "tsattn:bn_sh[hmr0]", "default": "tsattn:softmax[hmr0]",
               "before": "tsattn:bn_sh[now]"}  # fmt: skip
#: the sets no default was chosen on: only TSClassifier(attention="bn_sh") ran there (issue 78 left
#: TSClassifier()'s run undone)
UNSEEN = {"folder": "classify/unseen",
          #: ours as run there, each shown as what ran (TSClassifier() from issue 78's rerun on)
          "ours": {"tsattn:softmax": "`TSClassifier()`",
                   "tsattn:bn_sh": '`TSClassifier(attention="bn_sh")`'}}  # fmt: skip
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
           "stated": "the default: code of f70ca55 plus the anchor (as its README states); its runs, "
                     "those of the rows above QUANT, are older than the run records: their entries "
                     "in `config.json` are backfilled from its commands list (command and the commit "
                     "before it; its date and machine not recorded)"}  # fmt: skip

def _config_runs(folder: str) -> list[dict]:
    path = RESULTS / folder / "config.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get("runs", []) if isinstance(data, dict) else []


def _recorded(folder: str, run_ids, rows: pd.DataFrame | None = None,
              names: dict | None = None, per_run: bool = False) -> str:
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
    groups: dict[tuple[str, ...], list[dict]] = {}
    for run in runs:  # per commit and machine, or per run
        key = ((run.get("commit") or run["source_commit"])[:7], _machine(run))
        groups.setdefault(key + ((run["id"],) if per_run else ()), []).append(run)
    parts = []
    for (commit, machine, *_), group in groups.items():
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
    """Per archive and per model of ours (``TSClassifier()`` and ``TSClassifier(attention="bn_sh")``),
    its mean over the sets it ran beside each peer's over the same sets (a peer missing some shows
    them apart, with ours on its sets), W/T/L against the strongest peer run on every one of those
    sets, and the papers' numbers for its attention. A row over fewer sets than the archive's (an
    interrupted run) says so."""
    from tsattn.benchmarks.classify_report import PUBLISHED_COLUMNS, published, summarise

    spec, peers, ours_names = CLASSIFY, CLASSIFY["peers"], CLASSIFY["ours"]
    rows = pd.read_csv(RESULTS / spec["folder"] / "results.csv")
    table = summarise(rows[rows.model.isin([*ours_names, *peers])])
    body, ids = [], {}
    for archive, seeds in spec["archives"].items():
        part = table[table.archive == archive]
        every = part.pivot(index="dataset", columns="model", values="mean")
        n_sets = int(every[list(ours_names)].notna().sum().max())  # the archive's sets
        for model, shown in ours_names.items():
            if model not in every:
                continue
            wide = every[every[model].notna()]  # the sets this model ran: the row's sets
            n = part.pivot(index="dataset", columns="model", values="n").reindex(wide.index)
            assert (n[model] == seeds).all(), f"{archive} {model}: not {seeds} seeds"
            ours = wide[model]
            full = [q for q in peers if wide[q].notna().all()]
            best = max(full, key=lambda q: wide[q].mean())
            means = {m: wide[m].mean() for m in [model, *full]}
            top = max(means, key=means.get)
            cells = []
            for m in [model, *peers]:
                have = wide[m].dropna()
                text = f"{have.mean():.2f}"
                if m == top:
                    text = f"**{text}**"
                elif m != model and m not in full:
                    failed = set(rows[(rows.archive == archive) & (rows.model == m)
                                      & (rows.status != "ok")].dataset)  # fmt: skip
                    why = ", ".join(f"{d} {'failed' if d in failed else 'not run'}"
                                    for d in wide.index.difference(have.index))  # fmt: skip
                    text += (f" ({len(have)} of {len(wide)} sets, {why}; ours "
                             f"{ours[have.index].mean():.2f}, {peers[best]} "
                             f"{wide.loc[have.index, best].mean():.2f} on these)")  # fmt: skip
                cells.append(text)
            diff = (ours - wide[best]).round(6)
            attention = model.split("[")[0]  # the papers' numbers are the attention's
            pubs = [(d, published(d, archive, attention)) for d in wide.index]
            pubs = [(d, q[0]) for d, q in pubs if q]
            papers = (f"{PUBLISHED_COLUMNS[attention]}: at or above on "
                      f"{sum(ours[d] >= q for d, q in pubs)} of {len(pubs)} reported sets"
                      if pubs else "-")  # fmt: skip
            ran = rows[(rows.archive == archive) & rows.dataset.isin(wide.index) & (rows.model == model)]
            runs = [r for r in _config_runs(spec["folder"]) if r["id"] in set(ran.run_id)]
            sets = f"{len(wide)}"
            if len(wide) < n_sets:
                stopped = [r["id"] for r in runs if r["status"] == "interrupted"]
                sets += (f" of {n_sets}, partial (its run {', '.join(stopped)} interrupted)"
                         if stopped else f" of {n_sets}, partial")  # fmt: skip
            body.append(f"| {archive.upper()} | {shown} | {sets} | {' | '.join(cells)} | "
                        f"{(diff > 0).sum()} / {(diff == 0).sum()} / {(diff < 0).sum()} against "
                        f"{peers[best]} | {papers} |")  # fmt: skip
            ids.setdefault(archive, []).append(
                rows[(rows.archive == archive) & rows.dataset.isin(wide.index)
                     & rows.model.isin([model, *peers])])  # the runs of the models shown
    header = ["archive", "ours", "sets", "ours' mean", *peers.values(),
              "ours' wins / ties / losses against the strongest peer run on every set of the row",
              "papers (the attention's published numbers, selected on TEST)"]  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *body]
    names = {**ours_names, **peers}
    runs = "; ".join(
        f"{a.upper()}: {_recorded(spec['folder'], set(r.run_id), r, names, per_run=True)}"
        for a, r in ((a, pd.concat(parts).drop_duplicates()) for a, parts in ids.items()) if len(r))  # fmt: skip
    lines.append(f"\nRuns: `docs/results/{spec['folder']}/results.csv`, {spec['stated']}; one run "
                 f"per parenthesis, only the models it names ran in the same run ({runs}); UEA "
                 f"{spec['archives']['uea']} seeds, UCR {spec['archives']['ucr']}, every model. "
                 f"{_unseen()}")  # fmt: skip
    return _classification_lead() + "\n\n" + "\n".join(lines)


def _cv_mean(rows: pd.DataFrame, model: str) -> tuple[float, int]:
    """A configuration's mean CV accuracy (%): over its folds per set, then over the sets."""
    per_set = rows[(rows.model == model) & (rows.status == "ok")].groupby("dataset").score.mean()
    return 100 * float(per_set.mean()), len(per_set)


def _classification_lead() -> str:
    """The sentence above the table: what the default is and the CV on TRAIN behind it."""
    from scipy.stats import wilcoxon

    spec = CLASSIFY_CV
    rows = pd.read_csv(RESULTS / spec["folder"] / "results.csv")
    chosen, n = _cv_mean(rows, spec["chosen"])
    default, _ = _cv_mean(rows, spec["default"])
    before, _ = _cv_mean(rows, spec["before"])
    wide = rows[rows.status == "ok"].pivot_table(index="dataset", columns="model", values="score")
    diff = (wide[spec["default"]] - wide[spec["chosen"]]).round(6)
    p = wilcoxon(diff[diff != 0]).pvalue
    return (f"**Classification** (TEST accuracy %, the default `TSClassifier()`: softmax attention in "
            f"a network that corrects a MultiRocket-Hydra ridge; the anchor was chosen by CV on TRAIN "
            f"of {n} sets with the papers' `bn_sh` attention ({chosen:.2f} against {before:.2f} for "
            f"the network alone), where softmax, the default's own, scored {default:.2f} (level: "
            f"{(diff > 0).sum()} / {(diff == 0).sum()} / {(diff < 0).sum()}, p {p:.2f}); means over "
            f"the seeds, each peer's over the row's sets; [report](docs/results/classify/README.md), "
            f"defaults from [cross-validation on TRAIN](docs/results/classify_cv/README.md)):")  # fmt: skip


def _unseen() -> str:
    """The sentence on the sets no default was chosen on: each of ours run there (``UNSEEN``)
    against each peer, and which of ours has not run."""
    from scipy.stats import wilcoxon

    spec = UNSEEN
    rows = pd.read_csv(RESULTS / spec["folder"] / "results.csv")
    rows = rows[rows.status == "ok"]
    ucr = rows[rows.archive == "ucr"].pivot_table(index="dataset", columns="model", values="score") * 100
    ran = {m: shown for m, shown in spec["ours"].items() if m in ucr}
    said = []
    for model, shown in ran.items():
        parts = []
        for peer, peer_shown in CLASSIFY["peers"].items():
            diff = (ucr[model] - ucr[peer]).round(6)
            p = wilcoxon(diff[diff != 0]).pvalue
            parts.append(f"{peer_shown} {ucr[peer].mean():.2f} ({(diff > 0).sum()} / "
                         f"{(diff == 0).sum()} / {(diff < 0).sum()}, p {p:.3f})")  # fmt: skip
        said.append(f"{shown} {ucr[model].mean():.2f} on the UCR sets against, with its W / T / L "
                    f"and Wilcoxon p, {_and(parts)}")  # fmt: skip
    missing = [shown for m, shown in spec["ours"].items() if m not in ran]
    names = {**ran, **CLASSIFY["peers"]}
    runs = _recorded(spec["folder"], set(rows.run_id), rows, names, per_run=True)
    seeds = rows[rows.model.isin(list(ran))].seed.nunique()
    not_run = f" ({_and(missing)} has not run there)" if missing else ""
    return (f"On {rows.dataset.nunique()} sets no default was chosen on ({len(ucr)} UCR sets and "
            f"ERing, {seeds} seeds; [unseen](docs/results/classify/unseen/README.md)){not_run}: "
            f"{'; '.join(said)} ({runs}).")  # fmt: skip


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
    recorded = rows[rows.run_id.notna() & ~rows.run_id.astype(str).str.startswith("backfill-")]
    partial = [m for m in spec["models"] if (done[m] < len(seeds)).any()]
    seed0 = ratio_table(rows[rows.seed == seeds[0]])
    notes = "".join(f"; {spec['models'][m]} on seed {seeds[0]} alone, all {len(seed0)} tasks: "
                    f"{_gmean(seed0[m]):.3f} (the default {_gmean(seed0[spec['default']]):.3f})"
                    for m in partial if seed0[m].notna().all())  # fmt: skip
    lines.append(f"\nRuns: `docs/results/{spec['folder']}/results.csv`, {len(ratios)} tasks, seeds "
                 f"{', '.join(map(str, seeds))}, {spec['stated']}; "
                 f"{_and([spec['models'][m] for m in spec['models'] if m in set(recorded.model)])} "
                 f"from recorded runs, one run per parenthesis (only the models it names ran in the same run): "
                 f"{_recorded(spec['folder'], set(recorded.run_id), recorded, {**spec['models'], 'minirocket': 'MiniRocket'}, per_run=True)}"
                 f"{notes}.")  # fmt: skip
    return "\n".join(lines)


# ---------------------------------------------------------------------- panels (M4, EPF)
PANELS = {"m4": {"Hourly": "panels/m4_hourly", "Weekly": "panels/m4_weekly"}, "final": "tsattn_final",
          "epf": "panels/epf_asinh/test", "markets": ["NP", "PJM", "BE", "FR", "DE"],
          #: the ledger's folders (and script) that scored each panel's TEST, moved or removed since
          "looks": {"Hourly": ["panels/m4_hourly", "panels/intervals/m4_hourly"],
                    "Weekly": ["panels/m4_weekly"],
                    "epf": ["panels/epf", "panels/epf_calendar", "panels/epf_decoder", "panels/epf_unseen",
                            "panels/epf_asinh", "panels/intervals/epf"]}}  # fmt: skip


def _ledger() -> pd.DataFrame:
    return pd.read_csv(RESULTS / "test_ledger.csv", keep_default_na=False, dtype=str)


def looks(prefixes, market: str | None = None) -> pd.DataFrame:
    """The ledger's rows that scored TEST into one of the folders ``prefixes`` (or below them),
    those of ``market``'s file alone when given."""
    led = _ledger()
    hit = led.benchmark.map(lambda b: any(b == p or b.startswith(p + "/") for p in prefixes))
    if market:
        hit &= led.command.str.contains(f"/{market}.csv", regex=False)
    return led[hit]


def _span(rows: pd.DataFrame) -> str:
    days = sorted(d[:10] for d in rows.date if d)
    if not days:
        return f"{len(rows)} run" + ("s" if len(rows) != 1 else "")
    runs = f"{len(rows)} run" + ("s" if len(rows) != 1 else "")
    return f"{runs}, " + (days[0] if days[0] == days[-1] else f"{days[0]} to {days[-1]}")


def _run_json(folder: str) -> list[dict]:
    path = RESULTS / folder / "run.json"
    return json.loads(path.read_text(encoding="utf-8"))["runs"] if path.is_file() else []


def _panel_machine(runs: list[dict]) -> str:
    """Commits, days and machines of panel runs, from their ``run.json`` entries."""
    for run in runs:
        if run.get("dirty") or run.get("status") != "finished":
            raise SystemExit(f"a panel run ({run.get('command', '')[:60]}) is dirty or unfinished: "
                             "it cannot feed the README")  # fmt: skip
    commits = ", ".join(dict.fromkeys(r["commit"][:7] for r in runs))
    days = ", ".join(sorted({r["started"][:10] for r in runs}))
    cpus = ", ".join(dict.fromkeys(f"{r['cpu']}, {r['cores']} cores, {r['torch_threads']} thread(s) "
                                   f"per fit" for r in runs))  # fmt: skip
    return f"commit {commits}, {days}, {cpus}"


def _m4(frequency: str) -> dict:
    from tsattn.benchmarks.m4_frequencies import PUBLISHED

    folder = PANELS["m4"][frequency]
    final = {r["model"]: r for r in json.loads((RESULTS / folder / PANELS["final"] / "summary.json")
                                               .read_text(encoding="utf-8")) if r["split"] == "test"}  # fmt: skip
    peers = {r["model"]: r for r in json.loads((RESULTS / folder / "summary.json").read_text(encoding="utf-8"))
             if r["split"] == "test" and r["model"].startswith("sf:")}  # fmt: skip
    published = PUBLISHED[frequency][1]
    return {"ours": final["tsattn"], "nhits": final["nf:NHITS"], "sf": min(peers.values(), key=lambda r: r["OWA"]),
            "winner": next(r for r in published if "winner" in r[0]), "best": min(published, key=lambda r: r[3]),
            "runs": _run_json(f"{folder}/{PANELS['final']}"), "looks": looks(PANELS["looks"][frequency])}  # fmt: skip


def _epf() -> dict:
    """Per market: ours (mean over seeds), the ridge and lear in each setting; TimeXer's MSE."""
    from tsattn.benchmarks.epf import PUBLISHED

    root = RESULTS / PANELS["epf"]
    rows = pd.concat([pd.read_csv(p) for p in sorted(root.glob("*/results.csv"))])
    rows = rows[(rows.status == "ok") & (rows.split == "test")]
    mse = rows.groupby(["market", "setting", "model"]).mse.mean()
    runs = {p.parent.name: _run_json(str(p.parent.relative_to(RESULTS))) for p in sorted(root.glob("*/run.json"))}
    return {"mse": mse, "timexer": {m: v for m, model, v, _ in PUBLISHED if model == "TimeXer"},
            "runs": runs}


def panels() -> str:
    """The README's paragraph on the panels: M4 Hourly and Weekly with the defaults beside NHITS in
    the same run, and EPF against the ridge on LEAR's scale and the plain one; each with how often
    its TEST was scored (the ledger)."""
    h, w = _m4("Hourly"), _m4("Weekly")

    def owa(r):
        return f"{r['OWA']:.3f} ± {r['OWA_sd']:.3f}"

    epf = _epf()
    mse, markets = epf["mse"], PANELS["markets"]
    future = {m: (mse[(m, "future", "tsattn")], mse[(m, "future", "lear")], mse[(m, "future", "ridge")])
              for m in markets}  # fmt: skip
    vs_lear = [100 * (1 - o / lr) for o, lr, _ in future.values()]
    vs_ridge = [100 * (1 - o / r) for o, _, r in future.values()]
    past = {m: (mse[(m, "past+calendar", "tsattn")], epf["timexer"][m]) for m in markets}
    below = [m for m, (o, t) in past.items() if o < t]
    ours = [r for name in ("a", "b") for r in epf["runs"][name]]
    peers = epf["runs"]["peers"]
    dirty = [name for name, runs in epf["runs"].items() if any(r.get("dirty") for r in runs)]
    old = looks(PANELS["looks"]["epf"], "NP")
    new = looks(PANELS["looks"]["epf"], "FR")
    fr = future["FR"]
    return (
        f"Many series and covariates ([panels](docs/results/panels/README.md)). M4 Hourly with the "
        f"defaults: OWA {owa(h['ours'])} over {h['ours']['seeds']} seeds, against the competition "
        f"winner's published {h['winner'][3]:.3f} and NHITS's {owa(h['nhits'])} in the same run; "
        f"Weekly {owa(w['ours'])} against NHITS's {owa(w['nhits'])} in the same run and the best "
        f"Weekly entry's published {w['best'][3]:.3f} (`m4_hourly/tsattn_final/`, "
        f"`m4_weekly/tsattn_final/`: {_panel_machine(h['runs'] + w['runs'])}; the statsforecast "
        f"peers, from earlier runs, at best {h['sf']['OWA']:.3f} and {w['sf']['OWA']:.3f}). Not a "
        f"held-out estimate: M4 Hourly's TEST was scored in {_span(h['looks'])} (Weekly's in "
        f"{_span(w['looks'])}), the defaults' rules revised between them, some from ideas that reading "
        f"TEST forecasts gave ([the count](docs/results/panels/m4.md)). EPF, the five markets with the "
        f"covariates on LEAR's scale (`epf_asinh/test/`, separate runs of one harness: ours "
        f"{_panel_machine(ours)}; the ridges {_panel_machine(peers)}): future-known covariates "
        f"{min(vs_lear):.1f}-{max(vs_lear):.1f}% below the ridge on LEAR's scale (`lear`) on every "
        f"market (FR {fr[0]:.3f} against {fr[1]:.3f}), {min(vs_ridge):.1f}-{max(vs_ridge):.1f}% below "
        f"the plain ridge beside it (FR {fr[2]:.3f}); past-only with the calendar below TimeXer's "
        f"published MSE on {len(below)} of {len(markets)} markets (FR {past['FR'][0]:.3f} against "
        f"{past['FR'][1]:.3f}, DE {past['DE'][0]:.3f} against {past['DE'][1]:.3f}). No market is "
        f"unseen: NP's TEST was scored in {_span(old)}, FR's in {_span(new)}, and FR and DE informed "
        f"the choice of LEAR's scale ([the count](docs/results/panels/epf.md)); the NHITS rows of "
        f"{', '.join(f'`{d}/`' for d in dirty)} ran from a dirty tree and are not shown.")  # fmt: skip


def _and(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


# ---------------------------------------------------------------------- classify/README.md's table
#: the models of classify/README.md's table, as shown
CLASSIFY_PAGE = {"tsattn:softmax": "`TSClassifier()` (softmax)",
                 "tsattn:bn_sh[hmr0]": '`TSClassifier(attention="bn_sh")`',
                 "minirocket": "MiniRocket", "hydra-multirocket": "MultiRocket-Hydra", "quant": "QUANT",
                 "hivecote2": "HIVE-COTE 2 (seed 0, 300 s per fit)"}  # fmt: skip


def classify_page() -> str:
    """Per archive and per model of ours (each a block): every model's mean over the sets it shares
    with ours (ours on those sets beside it where fewer), ours' W / T / L and Wilcoxon p, fit
    seconds, and the runs that wrote the rows."""
    from scipy.stats import wilcoxon

    from tsattn.benchmarks.classify_report import summarise

    rows = pd.read_csv(RESULTS / "classify" / "results.csv")
    table = summarise(rows[rows.model.isin(CLASSIFY_PAGE)])
    runs = {r["id"]: r for r in _config_runs("classify")}
    lines = ["| archive | ours (the block's) | model | sets | seeds | mean accuracy | ours on these sets "
             "| ours' W / T / L, p | mean fit s | run (commit, date) |",
             "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for archive in ("uea", "ucr"):
        part = table[table.archive == archive]
        every = part.pivot(index="dataset", columns="model", values="mean")
        fit = part.pivot(index="dataset", columns="model", values="fit_s")
        for base in CLASSIFY["ours"]:
            if base not in every:
                continue
            wide = every[every[base].notna()]
            for model, shown in CLASSIFY_PAGE.items():
                if model not in wide or wide[model].isna().all():
                    continue
                have = wide[list(dict.fromkeys([base, model]))].dropna()
                ran = rows[(rows.archive == archive) & (rows.model == model) & rows.dataset.isin(have.index)]
                ids = sorted(set(ran.run_id.dropna()))
                where = "; ".join(f"{runs[i]['commit'][:7]}, {runs[i]['started'][:10]}"
                                  + (", interrupted" if runs[i]["status"] == "interrupted" else "")
                                  for i in ids if i in runs)  # fmt: skip
                fits = f"{fit.loc[have.index, model].mean():.1f}"
                if model == base:
                    cells = [f"**{have[model].mean():.2f}**", "-", "-"]
                else:
                    diff = (have[base] - have[model]).round(6)
                    p = wilcoxon(diff[diff != 0]).pvalue if (diff != 0).any() else float("nan")
                    cells = [f"{have[model].mean():.2f}", f"{have[base].mean():.2f}",
                             f"{(diff > 0).sum()} / {(diff == 0).sum()} / {(diff < 0).sum()}, {p:.3f}"]  # fmt: skip
                lines.append(f"| {archive.upper()} | {CLASSIFY['ours'][base]} | {shown} | {len(have)} | "
                             f"{ran.seed.nunique()} | {' | '.join(cells)} | {fits} | {where} |")  # fmt: skip
    return "\n".join(lines)


# ---------------------------------------------------------------------- the rule, the index, the counts
def rule() -> str:
    """The README's sentence on TEST, with the ledger's size."""
    led = _ledger()
    clean = (led.dirty == "false").sum()
    return (f"Every number below is rendered from committed result files by `python3 "
            f"scripts/readme_tables.py --write` (a test fails on drift). "
            f"The rule: every choice is made on validation data or by cross-validation on TRAIN, and "
            f"TEST is scored once per decision, after it (reading TEST forecasts for ideas counts as a "
            f"look); the [TEST ledger](docs/results/test_ledger.csv) has a row for each of the "
            f"{len(led)} TEST runs on record ({clean} from a clean commit, the rest older than the "
            f"record or marked), and each benchmark's README says how often its TEST was scored.")  # fmt: skip


#: Each benchmark folder: the ledger's folders that scored its TEST, and what never informed a
#: decision there (a statement of the folder's record, not a number).
NOTES = {
    "classify": (["classify"], "No choice was made on these TEST rows: the defaults come from CV on "
                 "TRAIN (`../classify_cv/`)."),
    "classify/unseen": (["classify/unseen"], "None of these 29 sets has informed a decision: no "
                        "default was chosen on their TRAIN or TEST."),
    "classify/variants": (["classify/variants"], "No variant was chosen from these rows: the "
                          "default's attention stays `TSClassifier()`'s own (softmax)."),
    "forecast": (["forecast"], "`patch_len` was once chosen on these TEST rows (19215e8; redone on "
                 "validation, `../forecast_defaults/`); no other choice was."),
    "forecast_unseen": (["forecast_unseen"], "Neither series has informed a decision."),
    "regress": (["regress"], "No choice was made on these TEST rows: the defaults come from CV on "
                "TRAIN (`cv/`)."),
}  # fmt: skip


def test_note(folder: str) -> str:
    """A benchmark README's line on how often its TEST was scored (from the ledger)."""
    prefixes, never = NOTES[folder]
    rows = looks(prefixes)
    own = rows[rows.benchmark == folder]
    unrecorded = (rows.commit == "").sum()
    sub = f" ({len(own)} into this folder itself)" if len(own) != len(rows) else ""
    return (f"**TEST scored**: in {_span(rows)}{sub}, by the [TEST ledger](../"
            + "../" * folder.count("/") + "test_ledger.csv)"
            + (f", {unrecorded} of them older than the run records (a command, not its code)"
               if unrecorded else "") + f". {never}")  # fmt: skip


def _history(rows: pd.DataFrame) -> str:
    """The ledger's ``rows`` as a table: when, which code, which folder, what for."""
    lines = ["| date | commit | folder | what (the ledger's purpose) |", "|---|---|---|---|"]
    for r in rows.sort_values("date").itertuples():
        what = r.purpose.split("): ", 1)[-1] if r.purpose.startswith("backfilled") else r.purpose
        lines.append(f"| {r.date[:16]} | {r.commit[:7] or '-'} | `{r.benchmark.removeprefix('panels/')}` | {what} |")
    return "\n".join(lines)


def panel_note(kind: str) -> str:
    """The M4 or EPF page's count of TEST looks (the ledger), per frequency or market, and the
    runs themselves."""
    if kind == "m4":
        rows = looks(PANELS["looks"]["Hourly"] + PANELS["looks"]["Weekly"])
        return _panel_count("m4") + "\n\n" + _history(rows)
    rows = looks(PANELS["looks"]["epf"])
    return _panel_count("epf") + "\n\n" + _history(rows)


def _panel_count(kind: str) -> str:
    if kind == "m4":
        parts = [f"{f} in {_span(looks(PANELS['looks'][f]))}" for f in ("Hourly", "Weekly")]
        return (f"**TEST scored**: M4 {' and '.join(parts)}, by the [TEST ledger](../test_ledger.csv), "
                "each rule of the default adopted on validation between them; both frequencies "
                "informed decisions (the validation rows and, through the looks, the TEST ones): "
                "neither is unseen.")  # fmt: skip
    parts = [f"{m} in {_span(looks(PANELS['looks']['epf'], m))}" for m in PANELS["markets"]]
    return (f"**TEST scored**: {'; '.join(parts)}, by the [TEST ledger](../test_ledger.csv). FR and DE "
            "were unseen until their TEST shortfall motivated LEAR's scale, chosen on the validation "
            "rows of all five: no market is unseen now.")  # fmt: skip


#: docs/results/README.md's rows: folder, question, and the answer (a function of the files, or a
#: statement without numbers)
INDEX = [
    ("classify", "How does `TSClassifier()` do on TEST beside MiniRocket, MultiRocket-Hydra, QUANT "
     "and the papers? (`unseen/`: 29 sets no default was chosen on; `variants/`: every attention)", "classify"),
    ("classify_cv", "Which classifier defaults, by 3-fold CV on TRAIN of 42 sets?", "classify_cv"),
    ("compare", "How do the attention variants compare on JapaneseVowels (`tsattn compare`, which "
     "scores TEST outside the ledger)?", "the four primal-dual attentions 98.6-99.1% TEST accuracy, 5 seeds"),
    ("tune", "What does tuning beta (and `lr`, `dropout`) on validation give (`tsattn tune`, outside "
     "the ledger)?", "one study per subfolder, its best parameters' TEST accuracy beside the defaults'"),
    ("speed", "What do the attentions and whole fits cost in time and memory?", "per subfolder (ratios within one run)"),
    ("forecast", "How does `TSForecaster()` do on TEST beside the peers and the papers?", "forecast"),
    ("forecast_defaults", "Which forecaster defaults, on the validation split (no TEST)?",
     "the decision table; the choices that looked at TEST are listed there"),
    ("forecast_unseen", "Do the forecaster's defaults hold on series no default was chosen on?",
     "lowest of every model on El Nino, second to PatchTST on CO2 (3 seeds, one run each)"),
    ("regress", "How does `TSRegressor()` do on TEST beside the Rocket regressors and the TSER leaders?", "regress"),
    ("panels", "Many series and covariates: M4 Hourly and Weekly under the competition's rules, the "
     "EPF markets under TimeXer's protocol, and the validation choices behind the defaults", "panels"),
]  # fmt: skip


def _answer(key: str) -> str:
    """A folder's current answer, computed from its files."""
    if key == "classify":
        from tsattn.benchmarks.classify_report import summarise

        rows = pd.read_csv(RESULTS / "classify" / "results.csv")
        table = summarise(rows[rows.model.isin([*CLASSIFY["ours"], *CLASSIFY["peers"]])])
        parts = []
        for archive, peer in (("uea", "minirocket"), ("ucr", "hydra-multirocket")):
            every = table[table.archive == archive].pivot(index="dataset", columns="model", values="mean")
            for model, shown in CLASSIFY["ours"].items():
                wide = every[every[model].notna()].dropna(axis=0, subset=[peer])
                most = max(every[m].notna().sum() for m in CLASSIFY["ours"] if m in every)
                partial = ", partial" if every[model].notna().sum() < most else ""
                parts.append(f"{archive.upper()} {shown} {wide[model].mean():.2f} against "
                             f"{CLASSIFY['peers'][peer]} {wide[peer].mean():.2f} ({len(wide)} "
                             f"sets{partial})")  # fmt: skip
        return "; ".join(parts)
    if key == "classify_cv":
        rows = pd.read_csv(RESULTS / "classify_cv" / "results.csv")
        (a, n), (b, _), (c, _) = (_cv_mean(rows, CLASSIFY_CV[k]) for k in ("chosen", "default", "before"))
        return (f"the MultiRocket-Hydra anchor: {a:.2f} with `bn_sh` against the network alone's "
                f"{c:.2f} (mean CV accuracy, {n} sets); softmax, the default's own attention, {b:.2f} "
                f"in it")  # fmt: skip
    if key == "forecast":
        return "the README's forecasting table, rendered from this folder and `side_by_side/`"
    if key == "regress":
        from tsattn.benchmarks.regress_report import _gmean, ratio_table

        rows = pd.read_csv(RESULTS / "regress" / "results.csv")
        rows = rows[(rows.fold == -1) & (rows.status == "ok")]
        ratios = ratio_table(rows)
        return (f"geometric mean RMSE {_gmean(ratios[REGRESS['default']]):.3f} of MiniRocket's "
                f"({len(ratios)} tasks, {rows.seed.nunique()} seeds)")  # fmt: skip
    if key == "panels":
        h, w = _m4("Hourly"), _m4("Weekly")
        epf = _epf()["mse"]
        vs = [100 * (1 - epf[(m, "future", "tsattn")] / epf[(m, "future", "lear")]) for m in PANELS["markets"]]
        return (f"M4 OWA Hourly {h['ours']['OWA']:.3f}, Weekly {w['ours']['OWA']:.3f} (NHITS "
                f"{h['nhits']['OWA']:.3f}, {w['nhits']['OWA']:.3f}, same runs; TEST scored "
                f"{len(h['looks'])} and {len(w['looks'])} times); EPF future-known "
                f"{min(vs):.1f}-{max(vs):.1f}% below the ridge on LEAR's scale on all five markets")  # fmt: skip
    return key


def index() -> str:
    """docs/results/README.md's table: each folder's question, current answer and TEST count."""
    lines = ["| folder | question | current answer (from its files) | TEST scored (ledger) |",
             "|---|---|---|---|"]
    for folder, question, answer in INDEX:
        n = len(looks([folder]))
        lines.append(f"| [`{folder}/`]({folder}/README.md) | {question} | {_answer(answer)} | "
                     f"{n or 'never' if folder not in ('compare', 'tune') else 'outside the ledger'} |")  # fmt: skip
    return "\n".join(lines)


def ledger_summary() -> str:
    """docs/results/README.md's count of the ledger's rows, per top folder."""
    led = _ledger()
    top = led.benchmark.map(lambda b: b.split("/")[0] if not b.startswith("panels/") else "/".join(b.split("/")[:2]))
    counts = top.value_counts().sort_index()
    return (f"{len(led)} rows: " + ", ".join(f"`{k}` {v}" for k, v in counts.items())
            + f"; {(led.dirty == 'false').sum()} from a clean commit, {(led.dirty == 'true').sum()} "
            f"from a dirty tree, {(led.dirty == 'unknown').sum()} with the tree's state not recorded.")  # fmt: skip


TABLES = {"rule": rule, "classification": classification, "forecasting": forecasting, "panels": panels,
          "regression": regression}
#: The generated blocks of the other pages: file -> {name: function}
PAGES = {
    "docs/results/README.md": {"index": index, "ledger": ledger_summary},
    **{f"docs/results/{folder}/README.md": {"test-ledger": (lambda f=folder: test_note(f))} for folder in NOTES},
    "docs/results/classify/README.md": {"test-ledger": lambda: test_note("classify"), "table": classify_page},
    "docs/results/panels/m4.md": {"test-ledger": lambda: panel_note("m4")},
    "docs/results/panels/epf.md": {"test-ledger": lambda: panel_note("epf")},
}


def render() -> dict[str, str]:
    """Every README.md block, by name, as it belongs there."""
    return {name: make() for name, make in TABLES.items()}


def render_pages() -> dict[tuple[str, str], str]:
    """Every block of the other pages, by (file, name)."""
    return {(path, name): make() for path, blocks in PAGES.items() for name, make in blocks.items()}


def _put(text: str, name: str, block: str) -> str:
    """``text`` with the block between ``<!-- tables:name -->`` and ``<!-- /tables:name -->``
    replaced by ``block``."""
    start, end = f"<!-- tables:{name} -->", f"<!-- /tables:{name} -->"
    if start not in text or end not in text:
        raise SystemExit(f"no {start} ... {end} markers: add them where the block goes")
    head, rest = text.split(start, 1)
    return head + start + "\n" + block + "\n" + end + rest.split(end, 1)[1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--write", action="store_true", help="replace the generated blocks")
    p.add_argument("--check", action="store_true", help="exit 1 when a page differs")
    args = p.parse_args(argv)
    pages: dict[str, dict[str, str]] = {"README.md": render()}
    for (path, name), block in render_pages().items():
        pages.setdefault(path, {})[name] = block
    stale = []
    for path, blocks in pages.items():
        text = (ROOT / path).read_text(encoding="utf-8")
        new = text
        for name, block in blocks.items():
            new = _put(new, name, block)
        if new != text:
            stale.append(path)
            if args.write:
                (ROOT / path).write_text(new, encoding="utf-8")
        elif not args.write and not args.check:
            pass
    if args.check and stale:
        print(f"{', '.join(stale)}: generated blocks differ from the result files: run "
              "python3 scripts/readme_tables.py --write")  # fmt: skip
        return 1
    if not args.write and not args.check:
        print("\n\n".join(block for blocks in pages.values() for block in blocks.values()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
