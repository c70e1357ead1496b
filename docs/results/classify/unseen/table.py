"""Write ``table.md`` from ``results.csv``: ``TSClassifier(attention="bn_sh")`` (the anchored
default with the papers' attention in softmax's place; not ``TSClassifier()``) against each peer on the sets
of this folder (mean accuracy over seeds, then over the sets every model finished; wins / ties /
losses of ours; two-sided Wilcoxon signed-rank p over the sets, ties dropped; mean fit
seconds), then one row per set beside the bake-off's published accuracies (``bakeoff_redux.csv``)::

    python3 docs/results/classify/unseen/table.py
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
from scipy.stats import wilcoxon

HERE = Path(__file__).parent
DEFAULT = "tsattn:bn_sh"  # TSClassifier(attention="bn_sh"): issue 78, never "the default"
SHOWN = 'TSClassifier(attention="bn_sh")'
PEERS = ("minirocket", "hydra-multirocket", "quant")


def main() -> None:
    rows = pd.read_csv(HERE / "results.csv")
    rows = rows[rows["status"] == "ok"]
    acc = rows.pivot_table(index=["archive", "dataset"], columns="model", values="score",
                           aggfunc="mean") * 100
    fit = rows.pivot_table(index=["archive", "dataset"], columns="model", values="fit_s",
                           aggfunc="mean")
    seeds = rows.groupby("model")["seed"].nunique()
    out = [f"# {SHOWN} on sets no default was chosen on ({len(acc)} sets run)", ""]
    for archive, part in acc.groupby(level="archive"):
        done = part.dropna()
        out += [f"## {archive.upper()}: {len(done)} sets every model finished"
                + (f" (left out, a model failed: {', '.join(part.index[part.isna().any(axis=1)].get_level_values(1))})"
                   if len(done) < len(part) else ""), "",
                "| model | seeds | mean accuracy | its W / T / L | Wilcoxon p | mean fit s |",
                "|---|---|---|---|---|---|"]
        for model in (DEFAULT, *PEERS):
            if model not in done:
                continue
            mean, f = done[model].mean(), fit.loc[done.index, model].mean()
            if model == DEFAULT:
                out.append(f"| {SHOWN} | {seeds[model]} | **{mean:.2f}** | - | - | {f:.1f} |")
                continue
            diff = (done[DEFAULT] - done[model]).round(6)
            w, t, losses = int((diff > 0).sum()), int((diff == 0).sum()), int((diff < 0).sum())
            p = wilcoxon(diff[diff != 0]).pvalue if (diff != 0).sum() > 0 else float("nan")
            out.append(f"| {model} | {seeds[model]} | {mean:.2f} | {w} / {t} / {losses} | {p:.3f} | {f:.1f} |")
        out.append("")
    published = pd.read_csv(HERE / "bakeoff_redux.csv")
    pub = published.pivot_table(index="dataset", columns="model", values="mean_30")
    out += ["## Per set (mean over seeds; published: the bake-off's mean of 30 resamples)", "",
            f"| set | {SHOWN} | " + " | ".join(PEERS) + " | " + " | ".join(f"{m} published" for m in PEERS)
            + " |", "|---|" + "---|" * (1 + 2 * len(PEERS))]
    for (_archive, name), r in acc.iterrows():
        cells = [f"{r.get(m, float('nan')):.2f}" for m in (DEFAULT, *PEERS)]
        cells += [f"{pub.loc[name, m]:.2f}" if name in pub.index and m in pub and pd.notna(pub.loc[name, m])
                  else "-" for m in PEERS]
        out.append(f"| {name} | " + " | ".join(c.replace("nan", "-") for c in cells) + " |")
    (HERE / "table.md").write_text("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
