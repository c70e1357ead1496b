"""``tsattn compare``: train attention variants on a UEA/UCR dataset and print a comparison table."""

from __future__ import annotations

import argparse
from pathlib import Path

from tsattn.commands import (
    check_attentions,
    check_estimator_params,
    output_dir,
    parse_params,
    positive_int,
    resolve_dataset,
)

DEFAULT_ATTENTIONS = ("softmax", "bn", "sh", "bn_sh")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "compare",
        help="train attention variants on a classification dataset and compare them",
        description=(
            "Fit TSClassifier once per attention and seed on the TRAIN split (the model is chosen "
            "on TRAIN alone: on the training loss, or on a validation part of TRAIN with --param "
            "validation_fraction=...), score each once on TEST, and print accuracy, fit time, parameters, "
            "attention FLOPs per sample and the paper's number. JapaneseVowels ships with aeon, "
            "so the default run needs no network."
        ),
    )
    p.add_argument("--dataset", default="JapaneseVowels", help="UEA or UCR name (default: %(default)s)")
    p.add_argument("--attentions", nargs="+", default=list(DEFAULT_ATTENTIONS), metavar="NAME",
                   help="attention variants (default: %(default)s); see `tsattn compare --list`")
    p.add_argument("--seeds", type=positive_int, default=1,
                   help="number of seeds 0..N-1 (default: 1)")
    p.add_argument("--max-epochs", type=positive_int, default=None,
                   help="override TSClassifier.max_epochs")
    p.add_argument("--device", default="auto", help="auto, cpu, cuda (default: auto)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="extra TSClassifier parameter, VALUE parsed as JSON (repeatable), e.g. --param beta=0.6")
    p.add_argument("--out", type=Path, default=None,
                   help="folder for runs.csv and summary.csv (default: results/compare/<dataset>)")
    p.add_argument("--test-selected", action="store_true",
                   help="also report the best TEST accuracy over epochs: the checkpoint selection "
                   "of the command published with Zerveas et al.'s code (--val_pattern TEST), which "
                   "the papers' numbers follow; optimistic, for like-for-like comparison only")
    p.add_argument("--list", action="store_true", help="list the attention variants and exit")
    p.add_argument("-q", "--quiet", action="store_true", help="no per-run lines or progress bars")
    p.set_defaults(func=run)


_parse_params = parse_params  # the name scripts/cv_train_epochs.py imports


def _load(dataset: str):
    """``X, y, X_test, y_test`` of a UEA or UCR dataset (an unknown name raises CommandError)."""
    from tsattn.datasets import load_ucr, load_uea

    archive, name = resolve_dataset(dataset, ("uea", "ucr"), "compare")
    loader = load_uea if archive == "uea" else load_ucr
    X, y = loader(name, split="train")
    Xt, yt = loader(name, split="test")
    return X, y, Xt, yt


def _mean_spread(means, stds) -> list[str]:
    """``"98.92 ± 0.31"``, or the mean alone where no spread was measured (one seed: NaN)."""
    return [f"{m:.2f}" if s != s else f"{m:.2f} ± {s:.2f}" for m, s in zip(means, stds, strict=True)]


def run(args: argparse.Namespace) -> int:
    from tsattn import list_attention
    from tsattn.benchmarks import BenchmarkInterrupted
    from tsattn.benchmarks.compare import compare_attentions

    if args.list:
        print("\n".join(list_attention()))
        return 0
    # Every argument is checked before the first fit: a mistake costs seconds, not the run.
    check_attentions(args.attentions)
    _, dataset = resolve_dataset(args.dataset, ("uea", "ucr"), "compare")
    params = {"device": args.device, **parse_params(args.param)}
    if args.max_epochs is not None:
        params["max_epochs"] = args.max_epochs
    if not args.quiet:
        params.setdefault("verbose", 1)
    from tsattn import TSClassifier

    for attention in args.attentions:  # a value one of them refuses fails now, not after others
        check_estimator_params(TSClassifier, {"attention": attention, **params})
    out = output_dir(args.out or Path("results") / "compare" / dataset)
    X, y, Xt, yt = _load(dataset)
    print(f"{dataset}: {len(X)} train / {len(Xt)} test series; attentions {args.attentions}; "
          f"seeds 0..{args.seeds - 1}")
    try:
        runs, summary = compare_attentions(
            X, y, Xt, yt, args.attentions, dataset=dataset, seeds=range(args.seeds),
            estimator_params=params, verbose=0 if args.quiet else 1,
            test_selected=args.test_selected,
        )
    except BenchmarkInterrupted as stop:
        stop.partial.to_csv(out / "runs.csv", index=False)  # header only when no run finished
        raise BenchmarkInterrupted(
            stop.partial, f"{stop}; the {len(stop.partial)} finished runs are in {out / 'runs.csv'}"
        ) from None
    runs.to_csv(out / "runs.csv", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    table = summary.assign(
        accuracy=_mean_spread(summary.accuracy_mean, summary.accuracy_std),
        fit_s=summary.fit_seconds.map(lambda v: f"{v:.1f}"),
        attn_MFLOPs=summary.attention_flops_per_sample.map(lambda v: f"{v / 1e6:.3f}"),
        paper=summary.paper_accuracy.fillna("-"),
    )
    columns = ["attention", "accuracy", "fit_s", "parameters", "attn_MFLOPs", "paper"]
    if args.test_selected:
        table["test_selected"] = _mean_spread(summary.test_selected_mean, summary.test_selected_std)
        columns.insert(-1, "test_selected")
    table = table[columns]
    print()
    print(table.to_string(index=False))
    print(f"\nwrote {out / 'runs.csv'} and {out / 'summary.csv'}")
    return 0
