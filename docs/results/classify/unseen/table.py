"""Write ``table.md`` from ``results.csv``: ``TSClassifier()`` and ``TSClassifier(attention="bn_sh")``
(the anchored default with the papers' attention in softmax's place), each where it ran, against each peer on the sets
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
#: ours, each shown as what ran (issue 78: never "the default" for a row that is not it)
OURS = {"tsattn:softmax": "TSClassifier()", "tsattn:bn_sh": 'TSClassifier(attention="bn_sh")'}
PEERS = ("minirocket", "hydra-multirocket", "quant")


def main() -> None:
    rows = pd.read_csv(HERE / "results.csv")
    rows = rows[rows["status"] == "ok"]
    acc = rows.pivot_table(index=["archive", "dataset"], columns="model", values="score",
                           aggfunc="mean") * 100
    fit = rows.pivot_table(index=["archive", "dataset"], columns="model", values="fit_s",
                           aggfunc="mean")
    seeds = rows.groupby("model")["seed"].nunique()
    ours = {m: shown for m, shown in OURS.items() if m in acc}
    out = [f"# {' and '.join(ours.values())} on sets no default was chosen on ({len(acc)} sets run)", ""]
    for archive, part in acc.groupby(level="archive"):
        done = part.dropna()
        out += [f"## {archive.upper()}: {len(done)} sets every model finished"
                + (f" (left out, a model failed: {', '.join(part.index[part.isna().any(axis=1)].get_level_values(1))})"
                   if len(done) < len(part) else ""), "",
                "| model | seeds | mean accuracy | W / T / L of " + ", ".join(ours.values())
                + " | Wilcoxon p | mean fit s |",
                "|---|---|---|---|---|---|"]
        for model in (*ours, *PEERS):
            if model not in done:
                continue
            mean, f = done[model].mean(), fit.loc[done.index, model].mean()
            if model in ours:
                out.append(f"| {ours[model]} | {seeds[model]} | **{mean:.2f}** | - | - | {f:.1f} |")
                continue
            cells = []
            for mine in ours:
                diff = (done[mine] - done[model]).round(6)
                w, t, losses = int((diff > 0).sum()), int((diff == 0).sum()), int((diff < 0).sum())
                p = wilcoxon(diff[diff != 0]).pvalue if (diff != 0).sum() > 0 else float("nan")
                cells.append((f"{w} / {t} / {losses}", f"{p:.3f}"))
            out.append(f"| {model} | {seeds[model]} | {mean:.2f} | "
                       + ", ".join(c[0] for c in cells) + " | " + ", ".join(c[1] for c in cells)
                       + f" | {f:.1f} |")
        out.append("")
    published = pd.read_csv(HERE / "bakeoff_redux.csv")
    pub = published.pivot_table(index="dataset", columns="model", values="mean_30")
    out += ["## Per set (mean over seeds; published: the bake-off's mean of 30 resamples)", "",
            "| set | " + " | ".join(ours.values()) + " | " + " | ".join(PEERS) + " | " + " | ".join(f"{m} published" for m in PEERS)
            + " |", "|---|" + "---|" * (len(ours) + 2 * len(PEERS))]
    for (_archive, name), r in acc.iterrows():
        cells = [f"{r.get(m, float('nan')):.2f}" for m in (*ours, *PEERS)]
        cells += [f"{pub.loc[name, m]:.2f}" if name in pub.index and m in pub and pd.notna(pub.loc[name, m])
                  else "-" for m in PEERS]
        out.append(f"| {name} | " + " | ".join(c.replace("nan", "-") for c in cells) + " |")
    (HERE / "table.md").write_text("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
