"""Train several attention variants on one classification dataset and tabulate them side by side.

This is the main job of the ``tsattn compare`` command: test accuracy (mean and std over seeds), fit
seconds, trainable parameters, attention FLOPs per sample, and the paper's accuracy for the same
dataset and variant where one is published.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch

from tsattn.benchmarks import BenchmarkInterrupted, raise_if_interrupted
from tsattn.training import Callback

__all__ = [
    "compare_attentions",
    "attention_flops_per_sample",
    "paper_accuracy",
    "PAPER_COLUMNS",
    "TestAccuracyPerEpoch",
    "RUN_COLUMNS",
]

#: Catalogue column holding each variant's published accuracy (001 Tables 1/9, 004 Table 1).
PAPER_COLUMNS = {
    "softmax": "softmax",
    "bn": "Attention-BN",
    "sh": "Attention-SH",
    "bn_sh": "Attention-BN+SH",
    "mrs": "MrsFormer",
}


def paper_accuracy(dataset: str, attention: str) -> str | None:
    """The published test accuracy (%) of ``attention`` on UEA ``dataset``, as printed, or None."""
    from tsattn.datasets.catalogue import published_tables

    column = PAPER_COLUMNS.get(attention)
    if column is None:
        return None
    for table in published_tables("uea"):
        if column not in table["columns"]:
            continue
        row = table["rows"].get(dataset)
        if row is not None:
            return f"{row[table['columns'].index(column)]} ({table['source'].split(' (')[0]})"
    return None


def attention_flops_per_sample(module: torch.nn.Module, length: int, n_channels: int) -> int:
    """FLOPs spent inside the attention modules for one series of ``length`` steps (forward).

    Counted with :class:`torch.utils.flop_counter.FlopCounterMode` (projections, score and value
    products); importing :mod:`tsattn.analysis` registers the formula that counts SDPA on CPU.
    """
    try:  # registers FLOP formulas for SDPA kernels that torch does not count on CPU
        import tsattn.analysis  # noqa: F401
    except ImportError:  # pragma: no cover - analysis is part of the package
        pass
    from torch.utils.flop_counter import FlopCounterMode

    device = next(module.parameters()).device
    x = torch.zeros(1, length, n_channels, device=device)
    names = {name for name, _ in module.named_modules() if name.endswith("attention")}
    counter = FlopCounterMode(display=False)
    module.eval()
    with torch.no_grad(), counter:
        module(x, None)
    counts = counter.get_flop_counts()
    total = 0
    for key, per_op in counts.items():
        if key.split(".", 1)[-1] in names:
            total += sum(per_op.values())
    return int(total)


class TestAccuracyPerEpoch(Callback):
    """Callback recording the TEST accuracy after every epoch (``accuracies``), for
    ``compare_attentions(test_selected=True)``.

    It only reads the model (evaluation mode, no gradients, no random numbers), so training and the
    selected model are the same as without it.
    """

    def __init__(self, X_test: Any, y_test: Any) -> None:
        self.X_test, self.y_test = X_test, np.asarray(y_test)
        self.accuracies: list[float] = []

    def on_train_begin(self, estimator: Any) -> None:
        self.accuracies = []

    def on_epoch_end(self, estimator: Any, record: dict) -> None:
        self.accuracies.append(float(np.mean(estimator.predict(self.X_test) == self.y_test)))


def compare_attentions(
    X_train: Any,
    y_train: Any,
    X_test: Any,
    y_test: Any,
    attentions: Sequence[str],
    *,
    dataset: str | None = None,
    seeds: Sequence[int] = (0,),
    estimator_params: dict[str, Any] | None = None,
    verbose: int = 0,
    test_selected: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fit a :class:`tsattn.TSClassifier` per attention and seed; score it on the test split once.

    ``test_selected=True`` also records the best TEST accuracy over the epochs of each fit
    (``test_selected_accuracy``, ``test_selected_epoch``): the checkpoint selection of the command
    published with Zerveas et al.'s code (``--val_pattern TEST --key_metric accuracy``), which the
    papers' UEA numbers follow. It is optimistic by construction, never a valid estimate, and is
    only there to compare with published numbers like for like; ``accuracy`` is unchanged by it.

    Ctrl-C stops the comparison with :class:`tsattn.benchmarks.BenchmarkInterrupted`, whose
    ``partial`` holds the finished runs; the interrupted fit is not recorded.

    Returns
    -------
    runs : one row per (attention, seed): accuracy, fit seconds, epochs (:data:`RUN_COLUMNS`).
    summary : one row per attention: mean/std accuracy (%) over seeds (std NaN for one seed: no
        spread was measured), mean fit seconds, parameters, attention FLOPs per sample (at the
        longest training length), and the paper's accuracy.
    """
    from tsattn import TSClassifier
    from tsattn.attention import get_attention_class

    seeds, attentions = list(seeds), list(attentions)
    if not seeds or not attentions:
        raise ValueError(
            f"compare_attentions needs at least one seed and one attention; got seeds={seeds}, "
            f"attentions={attentions}."
        )
    for attention in attentions:
        get_attention_class(attention)  # an unknown name fails before the first fit
    columns = [*RUN_COLUMNS, *(TEST_SELECTED_COLUMNS if test_selected else ())]

    def runs_frame(rows):  # with its columns even when empty, so that the CSV can be read back
        return pd.DataFrame(rows, columns=columns)

    rows = []
    summary = []
    for attention in attentions:
        clf = None
        for seed in seeds:
            params = {"attention": attention, "random_state": seed, **(estimator_params or {})}
            probe = TestAccuracyPerEpoch(X_test, y_test) if test_selected else None
            if probe is not None:
                params["callbacks"] = [*(params.get("callbacks") or ()), probe]
            clf = TSClassifier(**params)
            t0 = time.perf_counter()
            try:
                clf.fit(X_train, y_train)
                raise_if_interrupted(clf)
            except KeyboardInterrupt:
                raise BenchmarkInterrupted(
                    runs_frame(rows), f"interrupted during {attention} seed {seed}"
                ) from None
            fit_s = time.perf_counter() - t0
            acc = float(np.mean(clf.predict(X_test) == np.asarray(y_test)))
            rows.append(
                {"attention": attention, "seed": seed, "accuracy": acc, "fit_seconds": fit_s,
                 "epochs": clf.n_epochs_, "best_epoch": clf.best_epoch_}
            )
            if probe is not None:
                rows[-1]["test_selected_accuracy"] = max(probe.accuracies)
                rows[-1]["test_selected_epoch"] = int(np.argmax(probe.accuracies)) + 1
            if verbose:
                print(f"{attention:>10s} seed {seed}: accuracy {100 * acc:.2f}%, fit {fit_s:.1f} s")
        accs = np.array([r["accuracy"] for r in rows if r["attention"] == attention])
        fits = np.array([r["fit_seconds"] for r in rows if r["attention"] == attention])
        summary.append(
            {
                "attention": attention,
                "accuracy_mean": 100 * accs.mean(),
                "accuracy_std": _spread(accs),
                "fit_seconds": fits.mean(),
                "parameters": sum(p.numel() for p in clf.module_.parameters() if p.requires_grad),
                "attention_flops_per_sample": attention_flops_per_sample(
                    clf.module_, clf.series_length_, clf.n_channels_
                ),
                "paper_accuracy": paper_accuracy(dataset, attention) if dataset else None,
            }
        )
        if test_selected:
            sel = np.array(
                [r["test_selected_accuracy"] for r in rows if r["attention"] == attention]
            )
            summary[-1]["test_selected_mean"] = 100 * sel.mean()
            summary[-1]["test_selected_std"] = _spread(sel)
    return runs_frame(rows), pd.DataFrame(summary)


#: Columns of ``compare_attentions``' runs table; ``test_selected=True`` adds the second tuple.
RUN_COLUMNS = ("attention", "seed", "accuracy", "fit_seconds", "epochs", "best_epoch")
TEST_SELECTED_COLUMNS = ("test_selected_accuracy", "test_selected_epoch")


def _spread(accuracies: np.ndarray) -> float:
    """Standard deviation over seeds in %, NaN for a single seed (no spread was measured)."""
    return 100 * float(accuracies.std()) if len(accuracies) > 1 else float("nan")
