"""The report of ``tsattn bench forecast``: ``results.md`` (ours beside the peers, the baselines and
the published numbers of the catalogue) and plots of sample forecasts, rebuilt from everything
recorded in the output folder, so a resumed or extended run reports all of its rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["plot_samples", "published", "save_samples", "write_report", "zoo_table"]

#: The setting every other ``TSForecaster`` setting of a zoo is compared with, when it ran.
ZOO_BASELINE = "tsattn:softmax/linear"


def _order(models) -> list[str]:
    from tsattn.benchmarks.forecast_baselines import BASELINES
    from tsattn.benchmarks.forecast_peers import PEERS

    rank = {m: i for i, m in enumerate([*PEERS, *BASELINES])}
    return sorted(models, key=lambda m: (not m.startswith("tsattn"), rank.get(m, -1), m))


def published(dataset: str) -> list[tuple[str, str, pd.DataFrame]]:
    """The catalogue's published forecasting tables for ``dataset``: ``(source, metric, table)``
    with a row per horizon (``h=96``...) or ``avg`` and a column per model."""
    from tsattn.datasets.catalogue import published_tables

    tables = []
    for pub in published_tables("forecasting"):
        rows = {}
        for key, values in pub["rows"].items():
            name, _, what = key.partition(" ")
            if name == dataset:
                rows[what or "avg"] = values
        if rows:
            tables.append((pub["source"], pub["metric"],
                           pd.DataFrame.from_dict(rows, orient="index", columns=pub["columns"])))
    return tables


def _cell(mean: float, std: float, best: bool) -> str:
    text = f"{mean:.4f}" + ("" if std != std else f" ± {std:.4f}")
    return f"**{text}**" if best else text


def _metric_table(frame: pd.DataFrame, metric: str, horizons: list[int]) -> list[str]:
    stats = frame.groupby(["model", "horizon"])[metric].agg(["mean", "std", "size"])
    models = _order(frame["model"].unique())
    best = {h: stats.xs(h, level="horizon")["mean"].min() for h in horizons
            if h in stats.index.get_level_values("horizon")}  # fmt: skip
    lines = ["| model | " + " | ".join(f"h={h}" for h in horizons) + " | mean | seeds |",
             "|---" * (len(horizons) + 3) + "|"]  # fmt: skip
    for m in models:
        cells, means = [], []
        for h in horizons:
            if (m, h) in stats.index:
                s = stats.loc[(m, h)]
                cells.append(_cell(s["mean"], s["std"], np.isclose(s["mean"], best[h])))
                means.append(s["mean"])
            else:
                cells.append("-")
        avg = f"{np.mean(means):.4f}" + ("" if len(means) == len(horizons) else " (partial)")
        n = stats.loc[m]["size"].max() if m in stats.index.get_level_values(0) else 0
        lines.append(f"| {m} | " + " | ".join(cells) + f" | {avg if means else '-'} | {n} |")
    return lines


def _summary(frame: pd.DataFrame) -> list[str]:
    from tsattn.benchmarks.forecast_peers import PEERS

    lines = ["| dataset | model | mean MSE over horizons | best peer (mean MSE) | horizons below "
             "every peer | horizons at or below min(naive_last, ar) |", "|---|---|---|---|---|---|"]
    for dataset, part in frame.groupby("dataset", sort=False):
        means = part.groupby(["model", "horizon"])["mse"].mean().unstack()
        horizons = list(means.columns)
        peers = [p for p in PEERS if p in means.index and means.loc[p].notna().all()]
        best_peer = min(peers, key=lambda p: means.loc[p].mean()) if peers else None
        trivial = means.loc[[m for m in ("naive_last", "ar") if m in means.index]].min()
        # the lowest peer at each horizon among those that ran there, a partial peer too (NaN
        # where none ran); ``best peer`` ranks the complete ones
        lowest_peer = means.loc[[p for p in PEERS if p in means.index]].min()
        for model in [m for m in _order(means.index) if m.startswith("tsattn")]:
            row = means.loc[model]
            below = [h for h in horizons if row[h] < lowest_peer.get(h, np.nan)]
            at_trivial = [h for h in horizons if len(trivial) and row[h] <= trivial[h]]
            peer_text = f"{best_peer} ({means.loc[best_peer].mean():.4f})" if best_peer else "-"
            lines.append(f"| {dataset} | {model} | {row.mean():.4f} | {peer_text} | "
                         f"{len(below)}/{len(horizons)} | {len(at_trivial)}/{len(horizons)} |")
    return lines


def zoo_baseline(ok: pd.DataFrame) -> str:
    """The setting :func:`zoo_table` compares the others with by default: :data:`ZOO_BASELINE`
    when it ran, else the first ``TSForecaster`` setting of the rows."""
    models = list(dict.fromkeys(ok.loc[ok["model"].str.startswith("tsattn"), "model"]))
    return ZOO_BASELINE if ZOO_BASELINE in models else models[0]


def zoo_table(ok: pd.DataFrame, baseline: str | None = None) -> pd.DataFrame:
    """Every ``TSForecaster`` setting of one split against ``baseline`` (default
    :data:`ZOO_BASELINE`, else the first setting): a row per setting with, per dataset, the
    geometric mean over horizons of its MSE relative to the baseline's (means over seeds), the
    mean of those over datasets (``rel_mse``), the mean rank of its average MSE over the datasets
    it completed (``mean_rank``, 1 = lowest), seeds, median fit seconds and the mean blend."""
    ours = ok[ok["model"].str.startswith("tsattn")]
    models = list(dict.fromkeys(ours["model"]))
    if baseline is None:
        baseline = zoo_baseline(ok)
    means = ours.groupby(["dataset", "model", "horizon"])["mse"].mean()
    rows = {m: {} for m in models}
    ranks = {m: [] for m in models}
    for dataset in dict.fromkeys(ours["dataset"]):
        table = means.loc[dataset].unstack("horizon")
        complete = table.dropna()
        for m in complete.index:
            if baseline in complete.index:
                rel = np.exp(np.mean(np.log(complete.loc[m] / complete.loc[baseline])))
                rows[m][dataset] = rel
        for m, r in complete.mean(axis=1).rank().items():
            ranks[m].append(r)
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame["rel_mse"] = frame.mean(axis=1)
    frame["mean_rank"] = pd.Series({m: np.mean(r) if r else np.nan for m, r in ranks.items()})
    stats = ours.groupby("model").agg(seeds=("seed", "nunique"), fit_s=("fit_s", "median"),
                                      blend=("blend", "mean"))  # fmt: skip
    return frame.join(stats).sort_values(["mean_rank", "rel_mse"])


def _zoo(ok: pd.DataFrame, out: Path) -> list[str]:
    """The zoo section (and ``plots/zoo.png``) when one split holds several settings."""
    lines = []
    for split, part in ok.groupby("split", sort=False):
        ours = part[part["model"].str.startswith("tsattn")]
        if ours["model"].nunique() < 2:
            continue
        base = zoo_baseline(part)  # the one the ratios are relative to, not the best ranked
        table = zoo_table(part, base)
        datasets = [c for c in table.columns if c not in ("rel_mse", "mean_rank", "seeds", "fit_s", "blend")]
        lines += [f"## Settings compared ({split} split)", "",
                  f"MSE relative to `{base}` per dataset (geometric mean over horizons of the "
                  "seed-mean MSE ratio), their mean, the mean rank of each setting's average MSE "
                  "over the datasets it completed, seeds, median fit seconds and mean blend.", "",
                  "| setting | " + " | ".join(datasets) + " | mean rel. MSE | mean rank | seeds | fit s | blend |",
                  "|---" * (len(datasets) + 6) + "|"]  # fmt: skip
        for m, r in table.iterrows():
            cells = ["-" if r[d] != r[d] else f"{r[d]:.3f}" for d in datasets]
            lines.append(f"| {m} | " + " | ".join(cells) + f" | {r.rel_mse:.3f} | {r.mean_rank:.2f} | "
                         f"{r.seeds:.0f} | {r.fit_s:.0f} | {r.blend:.2f} |")  # fmt: skip
        lines.append("")
        _plot_zoo(table[datasets], out / "plots" / f"zoo_{split}.png", base)
        lines += [f"![settings]( plots/zoo_{split}.png)".replace("( ", "("), ""]
    return lines


def _plot_zoo(rel: pd.DataFrame, path: Path, base: str) -> None:
    from tsattn._plotting import pyplot

    plt = pyplot("the forecast benchmark's settings plot")

    fig, ax = plt.subplots(figsize=(8, 0.28 * len(rel) + 1.5))
    y = np.arange(len(rel))
    for k, d in enumerate(rel.columns):
        ax.scatter(rel[d], y, s=14, label=d, marker="os^vD<>"[k % 7])
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_yticks(y, [m.removeprefix("tsattn:") for m in rel.index], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"MSE relative to {base.removeprefix('tsattn:')} (geometric mean over horizons)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(exist_ok=True)
    fig.savefig(path, dpi=80)
    plt.close(fig)


def write_report(out: Path, results: pd.DataFrame) -> None:
    """Write ``out/results.md`` from every row of ``results``."""
    ok = results[results["status"] == "ok"].copy()
    failed = results[results["status"] != "ok"]
    lines = [
        "# Long-horizon forecasting: MSE / MAE on the train-scaled data, every window of the "
        "scored split", "",
        "Mean ± standard deviation over seeds; **bold**: the lowest mean of the column. "
        "`tsattn:*` is `TSForecaster` with its defaults (and the run's `params`); peers are "
        "neuralforecast's models with their defaults and the same optimiser steps "
        "(`tsattn.benchmarks.forecast_peers`); `naive_last` repeats the last value, "
        "`seasonal_naive` the last season, `ar` is a per-channel statsmodels AutoReg fitted on "
        "train. Coverage: the share of target values inside `TSForecaster`'s 80% / 95% intervals.",
        "",
    ]
    if len(ok):
        lines += ["## Summary", "", *_summary(ok), ""]
        lines += _zoo(ok, out)
    for (dataset, split), part in ok.groupby(["dataset", "split"], sort=False):
        horizons = sorted(part["horizon"].unique())
        context = part["context_length"].iloc[0]
        lines += [f"## {dataset} ({split} split, context {context}, "
                  f"{part['n_windows'].max()} windows at h={horizons[0]})", ""]
        for metric in ("mse", "mae"):
            lines += [f"{metric.upper()}:", "", *_metric_table(part, metric, horizons), ""]
        ours = part[part["model"].str.startswith("tsattn")]
        if len(ours):
            cols = ["cov80", "cov95", "width80", "pinball80", "pinball95", "blend", "mse_network",
                    "mse_anchor"]  # fmt: skip
            ours = ours.reindex(columns=[*ours.columns, *[c for c in cols if c not in ours]])
            cov = ours.groupby(["model", "horizon"])[cols].mean()
            anchors = ours.groupby(["model", "horizon"])["anchor"].agg(
                lambda a: "/".join(sorted({str(x) for x in a if x == x and x != ""})) or "-")
            lines += ["What the forecast is made of and its intervals, mean over seeds "
                      "(`blend_`: the network's share; `anchor_`: the anchor chosen, per seed; "
                      "the network and the anchor alone; 80% / 95% interval coverage, width of "
                      "the 80% one, pinball loss of the bounds):", "",
                      "| model | horizon | blend | anchor | MSE network | MSE anchor | cov. 80% "
                      "| cov. 95% | width 80% | pinball 80% | pinball 95% |",
                      "|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
            lines += [f"| {m} | {h} | {r.blend:.2f} | {anchors[(m, h)]} | {r.mse_network:.4f} | "
                      f"{r.mse_anchor:.4f} | {r.cov80:.3f} | {r.cov95:.3f} | {r.width80:.3f} | "
                      f"{r.pinball80:.4f} | {r.pinball95:.4f} |"
                      for (m, h), r in cov.iterrows()]  # fmt: skip
            lines.append("")
        cost = part.groupby(["model", "horizon"])[["fit_s", "n_steps"]].mean().unstack("horizon")
        lines += ["Seconds per fit (steps), mean over seeds:", "",
                  "| model | " + " | ".join(f"h={h}" for h in horizons) + " |",
                  "|---" * (len(horizons) + 1) + "|"]  # fmt: skip
        for m in _order(cost.index):
            cells = [f"{cost.loc[m, ('fit_s', h)]:.0f}" + (
                f" ({cost.loc[m, ('n_steps', h)]:.0f})" if cost.loc[m, ("n_steps", h)] == cost.loc[
                    m, ("n_steps", h)] else "") if ("fit_s", h) in cost.columns else "-"
                     for h in horizons]  # fmt: skip
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        lines.append("")
        for source, metric, table in published(dataset):
            lines += [f"Published ({source}; {metric}):", "",
                      "| | " + " | ".join(table.columns) + " |", "|---" * (len(table.columns) + 1) + "|"]
            lines += [f"| {idx} | " + " | ".join(map(str, row)) + " |" for idx, row in table.iterrows()]
            lines.append("")
    if len(failed):
        lines += ["## Failed fits", "", "| dataset | horizon | model | seed | error |", "|---|---|---|---|---|"]
        lines += [f"| {r.dataset} | {r.horizon} | {r.model} | {r.seed} | {r.error} |"
                  for r in failed.itertuples()]  # fmt: skip
    (out / "results.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _samples_path(out: Path, dataset: str, split: str, horizon: int) -> Path:
    return out / "samples" / f"{dataset}_{split}_h{horizon}.npz"


def save_samples(out: Path, data, horizon: int, model: str, contexts: np.ndarray,
                 targets: np.ndarray, scores, seed: int = 0) -> None:  # fmt: skip
    """Keep the last channel of the windows ``scores.picks`` (evenly spread; see
    :class:`~tsattn.benchmarks.forecast_scores.Scores`) for the plots: one forecast per model,
    its lowest seed's (a later run of more seeds does not replace the plotted one, a rerun of the
    same seed does; a forecast kept without its seed, as before seeds were recorded, gives way to
    seed 0 only)."""
    picks = scores.picks
    if len(picks) < 1:
        return
    path = _samples_path(out, data.name, data.part, horizon)
    path.parent.mkdir(exist_ok=True)
    arrays = dict(np.load(path)) if path.is_file() else {}
    if f"pred:{model}" in arrays:
        stored = arrays.get(f"seed:{model}")
        if (seed != 0) if stored is None else (seed > int(stored)):
            return
    arrays[f"seed:{model}"] = np.asarray(seed)
    arrays.setdefault("context", np.asarray(contexts[picks, :, -1], dtype=np.float32))
    arrays.setdefault("truth", np.asarray(targets[picks, :, -1], dtype=np.float32))
    arrays["picks"] = picks
    arrays[f"pred:{model}"] = scores.sample("pred")
    if scores.sample("lo") is not None:
        arrays[f"lo:{model}"] = scores.sample("lo")
        arrays[f"hi:{model}"] = scores.sample("hi")
    np.savez_compressed(path, **arrays)


def plot_samples(out: Path, data, horizon: int) -> None:
    """``out/plots/<dataset>_<split>_h<horizon>.png`` from the kept samples, each model labelled
    with the seed its forecast comes from where it was recorded."""
    path = _samples_path(out, data.name, data.part, horizon)
    if not path.is_file():
        return
    from tsattn._plotting import pyplot

    plt = pyplot("the forecast benchmark's sample plots")

    arrays = dict(np.load(path))
    models = _order([k.split(":", 1)[1] for k in arrays if k.startswith("pred:")])
    n_plot, length = arrays["context"].shape
    fig, axes = plt.subplots(n_plot, 1, figsize=(10, 2.4 * n_plot), squeeze=False)
    steps = np.arange(length, length + horizon)
    for i, ax in enumerate(axes[:, 0]):
        ax.plot(np.arange(length), arrays["context"][i], color="black", lw=1, label="context")
        ax.plot(steps, arrays["truth"][i], color="black", lw=1, ls="--", label="truth")
        for m in models:
            seed = f" (seed {int(arrays[f'seed:{m}'])})" if f"seed:{m}" in arrays else ""
            line, = ax.plot(steps, arrays[f"pred:{m}"][i], lw=1.2 if m.startswith("tsattn") else 0.8,
                            label=m + seed)  # fmt: skip
            if f"lo:{m}" in arrays:
                ax.fill_between(steps, arrays[f"lo:{m}"][i], arrays[f"hi:{m}"][i],
                                color=line.get_color(), alpha=0.2, label=f"{m} 80%")  # fmt: skip
        ax.set_title(f"{data.name} ({data.part}) window {arrays['picks'][i]}, channel "
                     f"{data.columns[-1]}, h={horizon}", fontsize=9)  # fmt: skip
    axes[0, 0].legend(fontsize=6, ncol=5)
    fig.tight_layout()
    (out / "plots").mkdir(exist_ok=True)
    fig.savefig(out / "plots" / f"{data.name}_{data.part}_h{horizon}.png", dpi=70)
    plt.close(fig)
