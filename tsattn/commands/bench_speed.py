"""``tsattn bench`` sub-commands that time the code: ``epoch`` (seconds per training epoch against
sktime's MVTS transformer, :mod:`tsattn.benchmarks.epoch_time`), ``fit-time`` (a default fit on
random data of a shape, or on datasets against an earlier commit: :mod:`tsattn.benchmarks.fit_time`,
:mod:`tsattn.benchmarks.fit_versions`), and the two kernel measurements behind code rules,
``sdpa-padding`` (:mod:`tsattn.benchmarks.sdpa_padding`) and ``dropout-mask``
(:mod:`tsattn.benchmarks.dropout_mask`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tsattn.commands import (
    CommandError,
    check_attentions,
    check_estimator_params,
    command_line,
    output_dir,
    parse_params,
    positive_int,
    resolve_dataset,
)


def register_epoch(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "epoch",
        help="seconds per training epoch: TSClassifier vs sktime's MVTSTransformerClassifier",
        description=(
            "Train TSClassifier (each --attentions) and sktime's MVTSTransformerClassifier with the "
            "same sizes on the same UEA dataset in one run and report seconds per epoch and the "
            "speed-up. Reads the dataset through tsattn.datasets (from its cache, TSATTN_DATA_DIR, "
            "which may hold a local copy of the archives as uea/<Name>_TRAIN.ts)."
        ),
    )
    p.add_argument("--dataset", default="UWaveGestureLibrary")
    p.add_argument("--attentions", nargs="+", default=["softmax", "bn_sh"])
    p.add_argument("--d-model", type=positive_int, default=64)
    p.add_argument("--n-heads", type=positive_int, default=8)
    p.add_argument("--n-layers", type=positive_int, default=3)
    p.add_argument("--dim-feedforward", type=positive_int, default=256)
    p.add_argument("--batch-size", type=positive_int, default=32)
    p.add_argument("--epochs", type=positive_int, default=3,
                   help="timed epochs per model (default 3)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--no-sktime", action="store_true", help="time tsattn only")
    p.add_argument(
        "--precisions", nargs="+", default=["float32"], choices=["float32", "bf16-mixed"],
        help="TSClassifier precisions to time (default: float32, sktime's own)",
    )
    p.add_argument(
        "--no-sdpa-profile", action="store_true",
        help="skip the profiled epoch that measures the attention kernels' share "
        "(sdpa_seconds_per_epoch, speedup_ceiling_vs_sktime)",
    )
    p.add_argument("--out", type=Path, default=Path("results/bench/epoch"))
    p.set_defaults(func=_run_epoch)


def _run_epoch(args: argparse.Namespace) -> int:
    import json

    import torch

    from tsattn.benchmarks.epoch_time import epoch_time_vs_sktime
    from tsattn.datasets import load_uea
    from tsattn.training import resolve_device

    check_attentions(args.attentions)
    _, dataset = resolve_dataset(args.dataset, ("uea",), "bench epoch")
    try:
        resolve_device(args.device)
    except ValueError as err:
        raise CommandError(f"--device: {err}") from None
    from tsattn import TSClassifier

    for attention in args.attentions:
        check_estimator_params(TSClassifier, dict(
            attention=attention, d_model=args.d_model, n_heads=args.n_heads,
            n_layers=args.n_layers, dim_feedforward=args.dim_feedforward,
            batch_size=args.batch_size), option="arguments")  # fmt: skip
    out = output_dir(args.out)
    X, y = load_uea(dataset, split="train")
    frame = epoch_time_vs_sktime(
        X, y, attentions=tuple(args.attentions), d_model=args.d_model, n_heads=args.n_heads,
        n_layers=args.n_layers, dim_feedforward=args.dim_feedforward, batch_size=args.batch_size,
        epochs=args.epochs, device=args.device, include_sktime=not args.no_sktime,
        profile_sdpa=not args.no_sdpa_profile, precisions=tuple(args.precisions),
    )
    frame["dataset"] = dataset
    frame["torch_threads"] = torch.get_num_threads()
    frame.to_csv(out / f"{dataset}.csv", index=False)
    (out / f"{dataset}.json").write_text(json.dumps(frame.to_dict("records"), indent=2))
    cols = [
        c for c in ("model", "seconds_per_epoch", "speedup_vs_sktime", "sdpa_seconds_per_epoch",
                    "speedup_ceiling_vs_sktime") if c in frame
    ]  # fmt: skip
    print(frame[cols].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"wrote {out / (dataset + '.csv')}")
    return 0


def register_kernels(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sdpa-padding",
        help="CPU SDPA with heads of 2-12 dims, plain vs zero-padded to 16 (the padding rule)",
        description="Time tsattn.attention.functional.sdpa with and without zero-padding the "
        "head dimension, training and inference, over head dimensions and lengths; writes "
        "results.csv, summary.json and ratio.png.",
    )
    p.add_argument("--threads", type=int, default=2, help="torch threads (default: 2)")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--out", type=Path, default=Path("results/sdpa_head_padding"))
    p.set_defaults(func=_sdpa_padding)
    p = sub.add_parser(
        "dropout-mask",
        help="cost of the CPU dropout mask: a byte per draw vs eight per 64-bit draw",
        description="Median milliseconds of the dropout mask of the UEA-sized encoder drawn three "
        "ways; writes summary.json.",
    )
    p.add_argument("--threads", type=int, default=2, help="torch threads (default: 2)")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--out", type=Path, default=Path("results/dropout_mask"))
    p.set_defaults(func=_dropout_mask)


def _sdpa_padding(args: argparse.Namespace) -> int:
    import torch

    from tsattn.benchmarks.sdpa_padding import sdpa_padding_benchmark

    torch.set_num_threads(args.threads)
    sdpa_padding_benchmark(args.out, repeats=args.repeats, log=lambda row: print(row, flush=True))
    print(f"wrote {args.out / 'results.csv'}, summary.json and ratio.png")
    return 0


def _dropout_mask(args: argparse.Namespace) -> int:
    import json

    import torch

    from tsattn.benchmarks.dropout_mask import dropout_mask_times

    torch.set_num_threads(args.threads)
    summary = dropout_mask_times(repeats=args.repeats)
    args.out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(summary, indent=2)
    (args.out / "summary.json").write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


def register_fit_time(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fit-time",
        help="seconds per default fit on random data of a given shape, or on datasets against an "
        "earlier commit",
        description="Time default TSClassifier (or TSRegressor) fits on random data of shape "
        "(n, channels, length) and write OUT/n{n}_c{channels}_l{length}.json: how long a fit takes on data shaped like yours. "
        "--forecast: a default TSForecaster on one random walk of length x channels, with the peak memory. "
        "--datasets: the default fit of each dataset (UEA/UCR/TSER: TRAIN; "
        "forecasting sets: their training split validated on their validation split) timed with "
        "this code (and, with --baseline REF, with commit or folder REF in the same run, "
        "interleaved), --repeats "
        "rounds; writes OUT/fit_time.csv (every fit), summary.csv and summary.json (median "
        "seconds and ratios). --beside-load also times each fit beside one CPU-bound process.",
    )
    p.add_argument("--n", type=int, default=1, help="number of series (default 1)")
    p.add_argument("--channels", type=int, default=1)
    p.add_argument("--length", type=int)
    p.add_argument("--classes", type=int, default=2)
    p.add_argument("--regression", action="store_true")
    p.add_argument("--forecast", action="store_true", help="one series of --length rows")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--datasets", nargs="+", metavar="NAME",
                   help="time these local datasets instead of random data")
    p.add_argument("--baseline", metavar="REF",
                   help="a commit of this repository (checked out as a temporary git worktree) or "
                   "a folder holding an earlier checkout, timed in the same run")
    p.add_argument("--horizon", type=int, default=96, help="forecasting sets' horizon (default 96)")
    p.add_argument("--threads", type=int, default=None,
                   help="torch threads of every version's worker (OMP_NUM_THREADS; default: each "
                   "version's own choice)")
    p.add_argument("--beside-load", action="store_true",
                   help="also time every fit beside one CPU-bound process (numpy matrix products "
                   "on two BLAS threads)")
    p.add_argument("--out", type=Path, default=Path("results/fit_time"))
    p.set_defaults(func=_fit_time)


def _fit_time(args: argparse.Namespace) -> int:
    import json

    from tsattn.benchmarks.fit_time import time_default_fit

    if args.datasets or args.baseline:
        return _fit_time_versions(args)
    if args.length is None:
        print("tsattn bench fit-time: give --length (random data) or --datasets")
        return 2
    for name in ("n", "channels", "length", "classes", "repeats"):
        if getattr(args, name) < 1:
            print(f"tsattn bench fit-time: --{name} must be >= 1, got {getattr(args, name)}")
            return 2
    record = time_default_fit(
        args.n, args.channels, args.length, args.classes, args.repeats,
        task="forecasting" if args.forecast else "regression" if args.regression else "classification",
        **parse_params(args.param),
    )  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"n{args.n}_c{args.channels}_l{args.length}.json"
    (args.out / name).write_text(json.dumps(record, indent=2, default=repr))
    print(json.dumps(record, default=repr))
    return 0


def _fit_time_versions(args: argparse.Namespace) -> int:
    import json
    import os
    import platform

    from tsattn.benchmarks.fit_versions import compare_fit_times, summarise

    if not args.datasets:
        raise CommandError("--baseline needs --datasets: the datasets are timed against the "
                           "baseline in the same run.")  # fmt: skip
    if args.repeats < 1 or args.horizon < 1 or (args.threads is not None and args.threads < 1):
        raise CommandError("--repeats, --horizon and --threads must be >= 1.")
    for name in args.datasets:
        resolve_dataset(name, ("uea", "ucr", "tser", "forecasting"), "bench fit-time")
    params = parse_params(args.param)
    out = output_dir(args.out)
    start_load = os.getloadavg() if hasattr(os, "getloadavg") else None
    try:
        rows = compare_fit_times(args.datasets, args.baseline, out, repeats=args.repeats,
                                 params=params, horizon=args.horizon, beside=args.beside_load,
                                 threads=args.threads, log=lambda m: print(m, flush=True))  # fmt: skip
    except ValueError as err:
        raise CommandError(str(err)) from None
    table, totals = summarise(rows)
    table.to_csv(out / "summary.csv", index=False, float_format="%.4g")
    summary = {"command": command_line(args),
               "baseline": args.baseline, "repeats": args.repeats, "params": params,
               "threads": args.threads,
               "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
               "load_average_at_start": list(start_load) if start_load else None,
               "load_average_at_end": list(os.getloadavg()) if start_load else None, **totals}  # fmt: skip
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(json.dumps(totals, indent=2))
    print(f"wrote {out / 'fit_time.csv'}, summary.csv and summary.json")
    return 0
