"""``results.md`` of ``tsattn bench regress``: RMSE, MAE and the RMSE ratio to MiniRocket per task,
their geometric mean over tasks, interval coverage, fit times; and, for cross-validation rows, every
``TSRegressor`` setting against the reference setting (``REFERENCE``) task by task.

A ratio is a model's mean RMSE over seeds (and folds) divided by MiniRocket's over the same seeds
(and folds); below 1 is better than MiniRocket. The spread of the geometric mean is over seeds:
the geometric mean over tasks of each seed's ratios, then their mean and standard deviation.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["REFERENCE", "ratio_table", "write_report"]

#: The label whose rows the other cross-validated settings are compared with.
REFERENCE = "default"
#: Ratios within this relative distance of 1 count as ties.
TIE = 0.01
PEER = "minirocket"


def _ok(rows: pd.DataFrame) -> pd.DataFrame:
    rows = rows[rows["status"] == "ok"].copy()
    for c in ("rmse", "mae", "coverage", "width", "fit_s", "seed", "fold"):
        rows[c] = pd.to_numeric(rows[c], errors="coerce") if c in rows else np.nan
    return rows


def _gmean(values) -> float:
    values = np.asarray(values, dtype=float)
    return float(np.exp(np.mean(np.log(values)))) if len(values) else float("nan")


def ratio_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Task x model: mean RMSE over seeds and folds divided by MiniRocket's on the same seeds and
    folds (rows with status ok; NaN where MiniRocket has no row)."""
    rows = _ok(rows)
    keys = ["dataset", "seed", "fold"]
    peer = rows[rows.model == PEER].set_index(keys)["rmse"]
    out = {}
    for model, part in rows.groupby("model", sort=False):
        part = part.set_index(keys)
        common = part.index.intersection(peer.index)
        if not len(common):
            continue
        mine = part.loc[common, "rmse"].groupby(level="dataset").mean()
        theirs = peer.loc[common].groupby(level="dataset").mean()
        out[model] = mine / theirs
    return pd.DataFrame(out)


def _seed_gmeans(rows: pd.DataFrame, model: str) -> list[float]:
    """The geometric mean over tasks of ``model``'s ratio to MiniRocket, one value per seed (tasks
    where both have that seed)."""
    out = []
    for _, part in rows.groupby("seed"):
        ratio = ratio_table(part)
        if model in ratio:
            out.append(_gmean(ratio[model].dropna()))
    return out


def _fmt(x: float, digits: int = 3) -> str:
    if x is None or not np.isfinite(x):
        return "-"
    return f"{x:.{digits}g}" if abs(x) < 1e-2 or abs(x) >= 1e4 else f"{x:.{digits}f}"


def _table(header: list[str], body: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(r) + " |" for r in body)]  # fmt: skip


def _test_section(rows: pd.DataFrame) -> list[str]:
    ok = _ok(rows)
    models = list(dict.fromkeys(ok.model))
    tasks = list(dict.fromkeys(ok.dataset))
    ratio = ratio_table(ok)
    stats = ok.groupby(["dataset", "model"])
    rmse_mean, rmse_std = stats["rmse"].mean(), stats["rmse"].std()
    mae_mean, n_seeds = stats["mae"].mean(), stats["rmse"].count()
    lines = ["## TEST: fitted on TRAIN, scored once on TEST", "",
             "RMSE, mean ± standard deviation over seeds (number of seeds in brackets where not all):", ""]  # fmt: skip
    most = int(n_seeds.max()) if len(n_seeds) else 0

    def cell(task, model, fmt):
        if (task, model) not in rmse_mean.index:
            return "-"
        seeds = int(n_seeds[(task, model)])
        return fmt(task, model) + (f" [{seeds}]" if seeds < most else "")

    lines += _table(["task", *models], [[t, *(cell(t, m, lambda t, m: (
        f"{_fmt(rmse_mean[(t, m)])} ± {_fmt(rmse_std[(t, m)], 2)}")) for m in models)] for t in tasks])
    lines += ["", "MAE, mean over seeds:", ""]
    lines += _table(["task", *models], [[t, *(cell(t, m, lambda t, m: _fmt(mae_mean[(t, m)]))
                                              for m in models)] for t in tasks])  # fmt: skip
    if not ratio.empty:
        lines += ["", "RMSE ratio to MiniRocket (below 1: better); the geometric mean over tasks, and "
                  "over seeds the mean ± standard deviation of each seed's geometric mean:", ""]
        body = [[t, *(_fmt(ratio.at[t, m]) if m in ratio and t in ratio.index else "-"
                      for m in models)] for t in tasks]  # fmt: skip
        gm, spread, above = [], [], []
        for m in models:
            col = ratio[m].dropna() if m in ratio else pd.Series(dtype=float)
            seeds = _seed_gmeans(ok, m)
            gm.append(_fmt(_gmean(col)) if len(col) else "-")
            spread.append(f"{_fmt(np.mean(seeds))} ± {_fmt(np.std(seeds, ddof=1), 2)}"
                          if len(seeds) > 1 else "-")
            above.append(f"{int((col > 1.2).sum())}/{len(col)}" if len(col) else "-")
        body += [["**geometric mean**", *gm], ["per seed", *spread], ["tasks above 1.2", *above]]
        lines += _table(["task", *models], body)
    cov = ok[ok.coverage.notna()]
    if len(cov):
        lines += ["", "Split-conformal intervals of the `TSRegressor` settings fitted with a validation "
                  "split: share of TEST targets inside (mean over seeds) and mean width:", ""]
        g = cov.groupby(["dataset", "model"])[["coverage", "width"]].mean()
        lines += _table(["task", "model", "coverage", "width"],
                        [[t, m, f"{g.at[(t, m), 'coverage']:.3f}", _fmt(g.at[(t, m), "width"])]
                         for t, m in g.index])  # fmt: skip
        lines += ["", f"Mean coverage over tasks: {g.coverage.mean():.3f}."]
    return lines + ["", *_time_lines(ok)]


def _time_lines(ok: pd.DataFrame) -> list[str]:
    t = ok.groupby("model", sort=False)["fit_s"]
    lines = ["Fit seconds (loaded timings; mean, max):", ""]
    lines += _table(["model", "mean", "max"],
                    [[m, f"{t.mean()[m]:.1f}", f"{t.max()[m]:.1f}"] for m in t.mean().index])
    return lines


def _cv_section(rows: pd.DataFrame) -> list[str]:
    ok = _ok(rows)
    ratio = ratio_table(ok)
    tasks = list(dict.fromkeys(ok.dataset))
    lines = ["## Cross-validation on TRAIN (no TEST row read)", "",
             "Mean RMSE over folds (and seeds) divided by MiniRocket's on the same folds; `n` tasks "
             "with rows; columns in the order the tasks ran:", ""]  # fmt: skip
    body = []
    for m in ratio.columns:
        col = ratio[m].dropna()
        body.append([m, str(len(col)), _fmt(_gmean(col)), _fmt(col.max()),
                     *(_fmt(ratio.at[t, m]) if t in ratio.index else "-" for t in tasks)])
    lines += _table(["model", "n", "geo. mean", "max", *tasks], body)
    ref = next((m for m in ratio.columns if m.endswith(f"[{REFERENCE}]")), None)
    if ref is not None:
        means = ok.groupby(["model", "dataset"])["rmse"].mean()
        lines += ["", f"Each setting against `{ref}` (RMSE ratio per task on the tasks both ran; "
                  f"wins/ties/losses with ties within {TIE:.0%}):", ""]
        body = []
        for m in ratio.columns:
            if m == ref or not m.startswith("tsattn:"):
                continue
            common = [t for t in tasks if (m, t) in means.index and (ref, t) in means.index]
            r = np.array([means[(m, t)] / means[(ref, t)] for t in common])
            if not len(r):
                continue
            wtl = f"{int((r < 1 - TIE).sum())}/{int((abs(r - 1) <= TIE).sum())}/{int((r > 1 + TIE).sum())}"
            body.append([m, str(len(r)), _fmt(_gmean(r)), wtl,
                         ", ".join(f"{t} {x:.2f}" for t, x in zip(common, r, strict=True))])
        lines += _table(["setting", "tasks", "geo. mean vs reference", "W/T/L", "per task"], body)
    return lines + ["", *_time_lines(ok)]


def write_report(rows: pd.DataFrame, out: str | Path) -> Path:
    """Write ``out/results.md`` from the rows of ``results.csv``; returns its path."""
    out = Path(out)
    rows = rows.copy()
    rows["fold"] = pd.to_numeric(rows["fold"], errors="coerce").fillna(-1)
    lines = ["# Extrinsic regression: `TSRegressor` beside the Rocket regressors", "",
             "Written by `tsattn bench regress` (`tsattn.benchmarks.regress_report`); the commands "
             "are in `config.json`.", ""]  # fmt: skip
    test, cv = rows[rows.fold < 0], rows[rows.fold >= 0]
    if len(test):
        lines += _test_section(test) + [""]
    if len(cv):
        lines += _cv_section(cv) + [""]
    failed = rows[rows.status != "ok"]
    if len(failed):
        lines += ["## Failed fits", ""]
        lines += _table(["task", "model", "seed", "fold", "status", "error"],
                        [[r.dataset, r.model, str(r.seed), str(int(r.fold)), r.status,
                          str(r.error)[:120]] for r in failed.itertuples()])  # fmt: skip
    path = out / "results.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
