"""The variant table of issue 54 (item 3) from ``results.csv`` beside this script: every attention
variant of the default ``TSClassifier`` on the same sets and seeds, with its mean accuracy, mean
rank, wins / ties / losses and a Wilcoxon signed-rank test against softmax, its fit seconds and
(rows that recorded it) the memory a fit added at its highest;
writes ``table.md`` and the critical-difference plot ``critical_difference.png`` (aeon's).

    python3 docs/results/classify/variants/table.py            # rows tsattn:<variant>
    python3 docs/results/classify/variants/table.py anchored   # rows tsattn:<variant>[anchored]

With a label the files are ``table_<label>.md`` and ``critical_difference_<label>.png``. Only
(set, seed) pairs that every variant finished are compared.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import wilcoxon

HERE = Path(__file__).parent
LABEL = sys.argv[1] if len(sys.argv) > 1 else ""
SUFFIX = f"[{LABEL}]" if LABEL else ""
BASE = f"tsattn:softmax{SUFFIX}"
OUT = f"_{LABEL}" if LABEL else ""


def _name(model: str) -> str:
    return model.split(":")[1].split("[")[0]


def _mib(value) -> str:
    return "" if value is None or pd.isna(value) else f"{value:.0f}"


rows = pd.read_csv(HERE / "results.csv")
rows = rows[(rows["status"] == "ok") & rows["model"].str.startswith("tsattn:")]
rows = rows[rows["model"].str.endswith(SUFFIX) if LABEL else ~rows["model"].str.contains("[", regex=False)]
acc = rows.pivot_table(index=["dataset", "seed"], columns="model", values="score").dropna()
fit = rows.groupby("model")["fit_s"].median()
peak = rows.groupby("model")["peak_mb"].median() if "peak_mb" in rows else pd.Series(dtype=float)
ranks = acc.rank(axis=1, ascending=False).mean()
lines = [f"{len(acc)} (set, seed) pairs ({acc.index.get_level_values('dataset').nunique()} sets), "
         f"accuracy in %; against `{_name(BASE)}`: wins / ties / losses and the two-sided "
         "Wilcoxon signed-rank p (ties dropped); fit: median seconds per fit; memory: median MiB a "
         "fit and its prediction added at their highest.", "",
         "| variant | mean accuracy | mean rank | W / T / L | Wilcoxon p | fit s | memory MiB |",
         "|---|---|---|---|---|---|---|"]
for model in ranks.sort_values().index:
    diff = acc[model] - acc[BASE]
    wins, ties, losses = int((diff > 0).sum()), int((diff == 0).sum()), int((diff < 0).sum())
    p = "" if model == BASE or wins + losses == 0 else f"{wilcoxon(acc[model], acc[BASE]).pvalue:.3f}"
    wtl = "" if model == BASE else f"{wins} / {ties} / {losses}"
    lines.append(f"| {_name(model)} | {100 * acc[model].mean():.2f} | {ranks[model]:.2f} | "
                 f"{wtl} | {p} | {fit[model]:.0f} | {_mib(peak.get(model))} |")
(HERE / f"table{OUT}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
print("\n".join(lines))

try:
    from aeon.visualisation import plot_critical_difference
except ImportError:  # aeon is the bench extra's
    plot_critical_difference = None
if plot_critical_difference is not None and len(acc) > 1:
    fig, _ = plot_critical_difference(np.asarray(acc), [_name(m) for m in acc.columns])
    fig.savefig(HERE / f"critical_difference{OUT}.png", dpi=120, bbox_inches="tight")
