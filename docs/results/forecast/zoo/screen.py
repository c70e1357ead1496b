"""The attention zoo's screen: every (attention, head) setting's validation MSE relative to
softmax with the linear head at the same reduced budget (label ``screen``), per dataset and
horizon, their mean and mean rank; writes ``screen.md`` and ``screen.png`` beside this file.

    python3 docs/results/forecast/zoo/screen.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
BASE = "tsattn:softmax/linear[screen]"


def table(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Relative MSE per (dataset, horizon) pair that every setting completed, and a summary per
    setting (mean relative MSE, mean rank, median fit seconds), best first."""
    screen = rows[rows["model"].str.endswith("[screen]") & (rows["status"] == "ok")]
    mse = screen.pivot_table(index="model", columns=["dataset", "horizon"], values="mse")
    mse = mse.dropna(axis=1)  # pairs every setting completed
    rel = mse / mse.loc[BASE]
    summary = pd.DataFrame({
        "rel_mse": rel.mean(axis=1),
        "worst": rel.max(axis=1),
        "mean_rank": mse.rank(axis=0).mean(axis=1),
        "fit_s": screen.groupby("model")["fit_s"].median(),
    }).sort_values(["rel_mse", "mean_rank"])
    return rel.loc[summary.index], summary


def main() -> None:
    rows = pd.read_csv(HERE / "results.csv")
    rel, summary = table(rows)
    name = lambda m: m.removeprefix("tsattn:").removesuffix("[screen]")  # noqa: E731
    pairs = [f"{d} h{h}" for d, h in rel.columns]
    lines = ["| setting | " + " | ".join(pairs) + " | mean rel. MSE | worst | mean rank | fit s |",
             "|---" * (len(pairs) + 5) + "|"]  # fmt: skip
    for m in rel.index:
        s = summary.loc[m]
        lines.append(f"| {name(m)} | " + " | ".join(f"{v:.3f}" for v in rel.loc[m])
                     + f" | {s.rel_mse:.3f} | {s.worst:.3f} | {s.mean_rank:.1f} | {s.fit_s:.0f} |")  # fmt: skip
    (HERE / "screen.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.1 * len(pairs) + 4, 0.32 * len(rel) + 1.5))
    image = ax.imshow(np.log2(rel.to_numpy()), cmap="RdBu_r", vmin=-0.25, vmax=0.25, aspect="auto")
    ax.set_xticks(range(len(pairs)), pairs, rotation=30, ha="right")
    ax.set_yticks(range(len(rel)), [name(m) for m in rel.index])
    for i in range(len(rel)):
        for j in range(len(pairs)):
            ax.text(j, i, f"{rel.iat[i, j]:.2f}", ha="center", va="center", fontsize=7)
    fig.colorbar(image, label="log2 MSE relative to softmax/linear")
    ax.set_title("Validation MSE relative to softmax/linear, screen budget (1000 steps, seed 0)")
    fig.tight_layout()
    fig.savefig(HERE / "screen.png", dpi=110)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
