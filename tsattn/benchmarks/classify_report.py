"""Report of ``tsattn bench classify``: markdown tables beside the published numbers, and plots.

``results.md`` holds, per archive, the mean (± std over seeds) of every model on every dataset, the
published numbers for the same model where a paper gives one (and our difference to it), and a
summary: mean score, mean rank and wins/ties/losses against MiniRocket. Plots: each tsattn model's
per-dataset accuracy against MiniRocket's (``vs_minirocket.png``, the diagonal drawn) and the mean
ranks (``mean_ranks.png``).
"""

from __future__ import annotations

import platform
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["summarise", "published", "write_report", "PUBLISHED_COLUMNS"]

#: Model name -> column of the catalogue's published tables holding that model's number.
PUBLISHED_COLUMNS = {
    "tsattn:softmax": "softmax",
    "tsattn:bn": "Attention-BN",
    "tsattn:sh": "Attention-SH",
    "tsattn:bn_sh": "Attention-BN+SH",
    "tsattn:mrs": "MrsFormer",
    "minirocket": "MiniRocket",
}


def published(dataset: str, archive: str, model: str) -> tuple[float, str] | None:
    """``(number, source)`` published for ``model`` on ``dataset``, or None (first table wins)."""
    from tsattn.datasets.catalogue import published_tables

    column = PUBLISHED_COLUMNS.get(model)
    if column is None:
        return None
    for table in published_tables(archive):
        if column not in table["columns"]:
            continue
        row = table["rows"].get(dataset)
        if row is None:
            continue
        text = str(row[table["columns"].index(column)]).split("±")[0].strip()
        try:
            return float(text), table["source"]
        except ValueError:
            continue
    return None


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (archive, dataset, model): mean and std of the score over seeds (accuracy in %),
    the number of successful seeds, mean fit seconds, and the failures."""
    ok = rows[rows.status == "ok"].copy()
    ok["value"] = np.where(ok.metric == "accuracy", 100 * ok.score.astype(float), ok.score.astype(float))
    if "log_loss" not in ok:
        ok["log_loss"] = np.nan
    # CV rows: a seed's score is the mean over its folds; the spread is over seeds
    per_seed = ok.groupby(["archive", "dataset", "model", "metric", "seed"], sort=False).agg(
        value=("value", "mean"), log_loss=("log_loss", "mean"), fit_s=("fit_s", "mean")).reset_index()
    grouped = per_seed.groupby(["archive", "dataset", "model", "metric"], sort=False)
    table = grouped.agg(mean=("value", "mean"), std=("value", "std"), n=("value", "size"),
                        log_loss=("log_loss", "mean"), fit_s=("fit_s", "mean")).reset_index()  # fmt: skip
    failed = rows[rows.status != "ok"].groupby(["dataset", "model"]).size().rename("failed")
    return table.merge(failed.reset_index(), on=["dataset", "model"], how="left").fillna({"failed": 0})


def _common(part: pd.DataFrame) -> pd.DataFrame:
    """Means of one archive, ``(dataset, model)``, for the models run on the most datasets (a
    model run on a few sets only, e.g. extra attentions on one dataset, or one whose fits failed
    somewhere, is left out), on the datasets where all of them have a result."""
    wide = part.pivot(index="dataset", columns="model", values="mean")
    counts = wide.notna().sum()
    return wide.loc[:, counts == counts.max()].dropna()


def _ranks(table: pd.DataFrame) -> pd.DataFrame:
    """Mean rank per (archive, model) over :func:`_common` (rank 1 = best; ties share the mean
    rank)."""
    out = []
    for archive, part in table.groupby("archive"):
        wide = _common(part)
        if wide.empty:
            continue
        higher = part.metric.iloc[0] == "accuracy"
        ranks = wide.rank(axis=1, ascending=not higher).mean()
        for model, rank in ranks.items():
            out.append({"archive": archive, "model": model, "mean_rank": rank, "datasets": len(wide)})
    return pd.DataFrame(out)


def _fmt(mean: float, std: float, n: int) -> str:
    spread = f" ± {std:.2f}" if abs(mean) >= 1 else f" ± {std:.2g}"
    spread = spread if n > 1 and np.isfinite(std) else ""
    return f"{_num(mean)}{spread}"


def _num(value: float) -> str:
    """Accuracies in % with 2 decimals; errors (RMSE, often well below 1) with 4 significant digits."""
    return f"{value:.2f}" if abs(value) >= 1 else f"{value:.4g}"


def _archive_section(archive: str, part: pd.DataFrame, models: list[str], cv: bool) -> list[str]:
    metric = part.metric.iloc[0]
    where = "cross-validated accuracy on TRAIN" if cv else "test accuracy"
    unit = f"% {where}" if metric == "accuracy" else ("CV RMSE on TRAIN" if cv else "test RMSE")
    papers = [] if cv else [m for m in models if any(published(d, archive, m) for d in part.dataset.unique())]
    header = ["dataset", *models, *[f"published {m}" for m in papers], *[f"Δ {m}" for m in papers]]
    lines = [f"## {archive.upper()} ({unit}, mean ± std over seeds)", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]  # fmt: skip
    sources = set()
    for dataset, rows in part.groupby("dataset", sort=True):
        by_model = {r.model: r for r in rows.itertuples()}
        cells = [dataset]
        for m in models:
            r = by_model.get(m)
            cells.append(_fmt(r.mean, r.std, r.n) + (f" ({r.failed:.0f} failed)" if r.failed else "") if r else "-")
        pubs, diffs = [], []
        for m in papers:
            pub = published(dataset, archive, m)
            r = by_model.get(m)
            pubs.append(_num(pub[0]) if pub else "-")
            diffs.append(f"{r.mean - pub[0]:+.2f}" if pub and r else "-")
            if pub:
                sources.add(pub[1])
        lines.append("| " + " | ".join(cells + pubs + diffs) + " |")
    if sources:
        lines += ["", "Published numbers: " + "; ".join(sorted(sources)) + ". The papers' transformer "
                  "numbers keep the epoch with the best TEST accuracy, so they are an upper reference."]
    return lines + [""]


def _summary_section(table: pd.DataFrame) -> list[str]:
    ranks = _ranks(table)
    lines = ["## Summary", "",
             "Mean over the datasets where every model run on the most datasets has a result (a "
             "model run on fewer has its own row, beside MiniRocket on the same sets); wins/ties/losses count datasets "
             "where the model's mean is above/equal to/below MiniRocket's; log-loss on held-out "
             "folds (CV runs only).", "",
             "| archive | model | datasets | mean | mean rank | vs MiniRocket (W/T/L) | log-loss | mean fit s |",
             "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for archive, part in table.groupby("archive"):
        wide = _common(part)
        fit = part.pivot(index="dataset", columns="model", values="fit_s").reindex(wide.index)
        loss = part.pivot(index="dataset", columns="model", values="log_loss").reindex(wide.index)
        higher = part.metric.iloc[0] == "accuracy"
        for model in wide.columns:
            wtl = "-"
            if "minirocket" in wide and model != "minirocket":
                diff = (wide[model] - wide["minirocket"]).round(6) * (1 if higher else -1)
                wtl = f"{(diff > 0).sum()}/{(diff == 0).sum()}/{(diff < 0).sum()}"
            rank = ranks[(ranks.archive == archive) & (ranks.model == model)].mean_rank
            ll = loss[model].mean()
            lines.append(f"| {archive} | {model} | {len(wide)} | {_num(wide[model].mean())} | "
                         f"{rank.iloc[0]:.2f} | {wtl} | {'-' if np.isnan(ll) else f'{ll:.3f}'} | "
                         f"{fit[model].mean():.1f} |")  # fmt: skip
        lines += _partial_rows(archive, part, list(wide.columns), higher)
    return lines + [""]


def _partial_rows(archive: str, part: pd.DataFrame, core: list[str], higher: bool) -> list[str]:
    """Summary rows of the models left out of :func:`_common`, each on its own datasets, with
    MiniRocket's mean on the same ones."""
    wide = part.pivot(index="dataset", columns="model", values="mean")
    fit = part.pivot(index="dataset", columns="model", values="fit_s")
    lines = []
    for model in [m for m in wide.columns if m not in core]:
        own = wide[model].dropna()
        mine = _num(own.mean())
        wtl = "-"
        if "minirocket" in wide:
            ref = wide.loc[own.index, "minirocket"]
            mine += f" (MiniRocket {_num(ref.mean())})"
            diff = ((own - ref).round(6) * (1 if higher else -1)).dropna()
            wtl = f"{(diff > 0).sum()}/{(diff == 0).sum()}/{(diff < 0).sum()}"
        lines.append(f"| {archive} | {model} (own sets only) | {len(own)} | {mine} | - | {wtl} | - | "
                     f"{fit.loc[own.index, model].mean():.1f} |")  # fmt: skip
    return lines


def _plots(table: pd.DataFrame, out: Path) -> list[str]:
    from tsattn._plotting import pyplot

    plt = pyplot("the classification report's plots")

    written = []
    acc = table[table.metric == "accuracy"]
    ours = sorted(m for m in acc.model.unique() if m.startswith("tsattn:"))
    if "minirocket" in set(acc.model) and ours:
        wide = acc.pivot(index=["archive", "dataset"], columns="model", values="mean")
        fig, axes = plt.subplots(1, len(ours), figsize=(4.2 * len(ours), 4.2), squeeze=False)
        for ax, model in zip(axes[0], ours, strict=True):
            pair = wide[["minirocket", model]].dropna()
            for archive, marker in (("uea", "o"), ("ucr", "s")):
                sel = pair[pair.index.get_level_values(0) == archive]
                ax.scatter(sel["minirocket"], sel[model], marker=marker, s=22, alpha=0.8, label=archive.upper())
            lo = float(np.nanmin(pair.values)) - 2 if len(pair) else 0
            ax.plot([lo, 100], [lo, 100], color="grey", lw=1)
            wins = int((pair[model] > pair["minirocket"]).sum())
            ax.set(xlabel="MiniRocket accuracy (%)", ylabel=f"{model} accuracy (%)",
                   title=f"{model}: above the diagonal on {wins} of {len(pair)}")  # fmt: skip
            ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "vs_minirocket.png", dpi=90)
        plt.close(fig)
        written.append("vs_minirocket.png")
    ranks = _ranks(table)
    if len(ranks):
        fig, ax = plt.subplots(figsize=(6, 0.5 + 0.35 * len(ranks)))
        labels = [f"{r.archive.upper()} {r.model}" for r in ranks.itertuples()]
        ax.barh(labels, ranks.mean_rank)
        ax.invert_yaxis()
        ax.set_xlabel("mean rank (1 = best)")
        fig.tight_layout()
        fig.savefig(out / "mean_ranks.png", dpi=90)
        plt.close(fig)
        written.append("mean_ranks.png")
    return written


def write_report(rows: pd.DataFrame, out: str | Path) -> str:
    """Write ``results.md`` and the plots for ``rows`` (``results.csv``) into ``out``; returns the
    markdown."""
    import json
    import os

    out = Path(out)
    if rows.empty:
        return ""
    table = summarise(rows)
    config = json.loads((out / "config.json").read_text()) if (out / "config.json").is_file() else {}
    # the last invocation's models first, then those of earlier invocations on the same folder
    models = list(dict.fromkeys([*(config.get("models") or []), *sorted(table.model.unique())]))
    failures = rows[rows.status != "ok"]
    wall = [i["wall_seconds"] for i in config.get("invocations", [])]
    cv = bool(config.get("cv")) or bool((rows.get("fold", pd.Series([-1])) >= 0).any())
    title = (f"Cross-validation on TRAIN ({config.get('cv')} folds; TEST never read)" if cv
             else "Classification / regression benchmark (TRAIN fit, one TEST score per fit)")
    lines = [
        f"# {title}", "",
        f"Written {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {platform.node() or 'this machine'} "
        f"({os.cpu_count()} CPUs, torch threads per fit: {', '.join(map(str, sorted(rows.threads.dropna().unique())))}). "
        f"{len(rows)} fits ({len(failures)} failed or timed out); fit time summed over fits "
        f"{rows.fit_s.fillna(0).sum() / 3600:.2f} h; wall time over {len(wall)} invocation(s) "
        f"{sum(wall) / 3600:.2f} h.", "",
        "Commands (each appends to the same results.csv; a rerun resumes):", "",
        *[f"    {c}" for c in config.get("commands") or ["run_classify_benchmark(...)"]], "",
        f"Settings: `{json.dumps({k: config.get(k) for k in ('seeds', 'time_limit', 'params') if k in config})}`.",
        "",
    ]  # fmt: skip
    lines += _summary_section(table)
    for archive, part in table.groupby("archive"):
        present = [m for m in models if m in set(part.model)]
        lines += _archive_section(archive, part, present, cv)
    if len(failures):
        lines += ["## Failed fits", "", "| dataset | model | seed | status | error |", "|---|---|---|---|---|"]
        for r in failures.itertuples():
            lines.append(f"| {r.dataset} | {r.model} | {r.seed} | {r.status} | {str(r.error)[:120]} |")
        lines.append("")
    plots = _plots(table, out)
    lines += [f"![{p}]({p})" for p in plots]
    text = "\n".join(lines) + "\n"
    (out / "results.md").write_text(text, encoding="utf-8")
    return text
