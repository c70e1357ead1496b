"""Cross-validation on TRAIN only: how a TSClassifier setting does as training goes on.

Usage (JapaneseVowels from aeon's bundled data, no network)::

    OMP_NUM_THREADS=1 python3 scripts/cv_train_epochs.py --attentions softmax sh --max-epochs 200 \
        --label plateau --out docs/results/cv_train_epochs
    OMP_NUM_THREADS=1 python3 scripts/cv_train_epochs.py --attentions softmax sh --max-epochs 100 \
        --param lr_schedule=cosine --label cosine --out docs/results/cv_train_epochs

Stratified 5-fold CV of the TRAIN split (TEST is never read). In each fold a ``TSClassifier`` with the
given parameters (``random_state`` = fold) trains on four fifths, and after every epoch a callback
scores the current weights on the held-out fifth (validation log-loss and errors; the callback uses
no random numbers, so the training path is the one without it). Because the default learning-rate
schedule does not depend on ``max_epochs``, one run of ``--max-epochs 200`` also shows what any
shorter limit ``M`` gives: the estimator keeps the last epoch up to ``M`` marked ``best`` (lowest
training loss); a schedule tied to ``max_epochs`` (``lr_schedule=cosine``) is summarised at its
own ``max_epochs`` only. Writes ``traces_<label>_<attention>.csv`` (one row per fold and epoch) and
recomputes ``summary.csv`` (and ``summary.png``) from every trace in ``--out``: per label, attention and cut-off ``M``
(``--cutoffs``, default every 25 epochs), the mean validation log-loss over folds and the
validation errors out of all TRAIN series.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from tsattn import TSClassifier
from tsattn.commands.compare import _parse_params
from tsattn.datasets import load_uea
from tsattn.training import Callback


class ValidationTrace(Callback):
    """Scores the training weights on held-out series after every epoch."""

    def __init__(self, X_val, y_val) -> None:
        self.X_val, self.y_val, self.rows = X_val, y_val, []

    def on_epoch_end(self, estimator, record) -> None:
        was_training = estimator.module_.training
        proba = estimator.predict_proba(self.X_val)
        estimator.module_.train(was_training)
        errors = int((estimator.classes_[proba.argmax(axis=1)] != self.y_val).sum())
        self.rows.append({
            "epoch": record["epoch"], "train_loss": record["train_loss"], "best": bool(record["best"]),
            "val_logloss": log_loss(self.y_val, proba, labels=estimator.classes_), "val_errors": errors,
        })  # fmt: skip


def summarise(out: Path, cutoffs: list[int] | None) -> pd.DataFrame:
    rows = []
    for path in sorted(out.glob("traces_*.csv")):
        trace = pd.read_csv(path)
        label, attention = trace["label"].iloc[0], trace["attention"].iloc[0]
        last = int(trace["epoch"].max())
        # A schedule tied to max_epochs (cosine) is only what it is at its own max_epochs.
        anneals = json.loads(trace["params"].iloc[0]).get("lr_schedule") == "cosine"
        for m in cutoffs or [e for e in range(25, last + 1, 25)]:
            if m > last or (anneals and m != last):
                continue
            picked = (
                trace[(trace.epoch <= m) & trace.best].sort_values("epoch").groupby("fold").tail(1)
            )
            rows.append({
                "label": label, "attention": attention, "max_epochs": m, "folds": len(picked),
                "val_logloss": picked["val_logloss"].mean(), "val_errors": int(picked["val_errors"].sum()),
                "n_series": int(trace.groupby("fold")["n_val"].first().sum()),
                "fold_logloss": " ".join(f"{v:.4f}" for v in picked.sort_values("fold")["val_logloss"]),
            })  # fmt: skip
    summary = pd.DataFrame(rows)
    summary.to_csv(out / "summary.csv", index=False)
    _plot(summary, out / "summary.png")
    return summary


def _plot(summary: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # One panel per attention and one line per setting, so settings compare within a panel.
    attentions = sorted(summary["attention"].unique())
    fig, axes = plt.subplots(1, len(attentions), figsize=(3.2 * len(attentions), 3.6), sharey=True,
                             squeeze=False)  # fmt: skip
    for ax, attention in zip(axes[0], attentions, strict=True):
        for label, part in summary[summary["attention"] == attention].groupby("label"):
            ax.plot(part["max_epochs"], part["val_logloss"], marker="o", label=label)
        ax.set_title(attention)
        ax.set_xlabel("max_epochs")
    axes[0][0].set_ylabel("CV validation log-loss (TRAIN only)")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle("checkpoint: lowest training loss up to max_epochs", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="JapaneseVowels")
    p.add_argument("--attentions", nargs="+", default=["softmax", "bn", "sh", "bn_sh"])
    p.add_argument("--max-epochs", type=int, default=200)
    p.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="another TSClassifier parameter, e.g. lr_schedule=cosine")
    p.add_argument("--label", default="default", help="names this setting in the output files")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--cutoffs", type=int, nargs="*", default=None)
    p.add_argument("--out", type=Path, default=Path("results/cv_train_epochs"))
    p.add_argument("--summary-only", action="store_true",
                   help="only recompute summary.csv from the traces already in --out")
    args = p.parse_args()
    if args.summary_only:
        print(summarise(args.out, args.cutoffs).to_string(index=False))
        return
    params = _parse_params(args.param)
    X, y = load_uea(args.dataset, split="train")
    X = list(X)
    args.out.mkdir(parents=True, exist_ok=True)
    folds = StratifiedKFold(args.folds, shuffle=True, random_state=0)
    for attention in args.attentions:
        rows = []
        for fold, (train, val) in enumerate(folds.split(np.zeros(len(y)), y)):
            trace = ValidationTrace([X[i] for i in val], y[val])
            TSClassifier(
                attention=attention, random_state=fold, max_epochs=args.max_epochs,
                callbacks=[trace], **params,
            ).fit([X[i] for i in train], y[train])  # fmt: skip
            for row in trace.rows:
                rows.append({"label": args.label, "attention": attention, "fold": fold,
                             "n_val": len(val), "params": json.dumps(params), **row})
            print(f"{args.label} {attention} fold {fold}: last val log-loss "
                  f"{trace.rows[-1]['val_logloss']:.4f}", flush=True)
        pd.DataFrame(rows).to_csv(args.out / f"traces_{args.label}_{attention}.csv", index=False)
    print(summarise(args.out, args.cutoffs).to_string(index=False))


if __name__ == "__main__":
    main()
