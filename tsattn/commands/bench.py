"""``tsattn bench``: benchmarks that write their results (CSV, markdown, plots).

Each benchmark is a sub-command registered by its own function below.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench", help="run a benchmark and write its results")
    sub = p.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    sub.required = True
    _register_epoch(sub)


def _register_epoch(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "epoch",
        help="seconds per training epoch: TSClassifier vs sktime's MVTSTransformerClassifier",
        description=(
            "Train TSClassifier (each --attentions) and sktime's MVTSTransformerClassifier with the "
            "same sizes on the same UEA dataset in one run and report seconds per epoch and the "
            "speed-up. Reads the dataset through tsattn.datasets (set TSATTN_DATA_DIR to a folder "
            "holding uea/<Name>_TRAIN.ts, e.g. ../shared/datasets)."
        ),
    )
    p.add_argument("--dataset", default="UWaveGestureLibrary")
    p.add_argument("--attentions", nargs="+", default=["softmax", "bn_sh"])
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--n-heads", type=int, default=8)
    p.add_argument("--n-layers", type=int, default=3)
    p.add_argument("--dim-feedforward", type=int, default=256)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--epochs", type=int, default=3, help="timed epochs per model (default 3)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--no-sktime", action="store_true", help="time tsattn only")
    p.add_argument("--out", type=Path, default=Path("results/bench/epoch"))
    p.set_defaults(func=_run_epoch)


def _run_epoch(args: argparse.Namespace) -> int:
    import json

    import torch

    from tsattn.benchmarks.epoch_time import epoch_time_vs_sktime
    from tsattn.datasets import load_uea

    X, y = load_uea(args.dataset, split="train")
    frame = epoch_time_vs_sktime(
        X, y, attentions=tuple(args.attentions), d_model=args.d_model, n_heads=args.n_heads,
        n_layers=args.n_layers, dim_feedforward=args.dim_feedforward, batch_size=args.batch_size,
        epochs=args.epochs, device=args.device, include_sktime=not args.no_sktime,
    )
    frame["dataset"] = args.dataset
    frame["torch_threads"] = torch.get_num_threads()
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / f"{args.dataset}.csv", index=False)
    (args.out / f"{args.dataset}.json").write_text(json.dumps(frame.to_dict("records"), indent=2))
    cols = [c for c in ("model", "seconds_per_epoch", "speedup_vs_sktime") if c in frame]
    print(frame[cols].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"wrote {args.out / (args.dataset + '.csv')}")
    return 0
