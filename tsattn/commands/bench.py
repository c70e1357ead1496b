"""``tsattn bench``: benchmarks that write their results (CSV, markdown, plots).

Each benchmark is a sub-command registered by its own function below: ``epoch`` (seconds per
training epoch), ``forecast`` (long-horizon forecasting, :mod:`tsattn.benchmarks.forecast`),
``classify`` (classification/regression across archives against peers, or cross-validation on TRAIN
for choosing defaults, :mod:`tsattn.benchmarks.classify`), and the
two kernel measurements behind code rules, ``sdpa-padding`` (:mod:`tsattn.benchmarks.sdpa_padding`)
and ``dropout-mask`` (:mod:`tsattn.benchmarks.dropout_mask`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tsattn.commands import (
    CommandError,
    check_attentions,
    check_estimator_params,
    nonnegative_int,
    output_dir,
    positive_float,
    positive_int,
    resolve_dataset,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench", help="run a benchmark and write its results")
    sub = p.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    sub.required = True
    _register_epoch(sub)
    _register_forecast(sub)
    _register_classify(sub)
    _register_fit_time(sub)
    _register_kernels(sub)


def _register_epoch(sub: argparse._SubParsersAction) -> None:
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


def _register_forecast(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "forecast",
        help="long-horizon forecasting: TSForecaster per attention and head vs baselines",
        description=(
            "Standard splits, train-only scaler, MSE/MAE on the scaled data over every test "
            "window, against naive, seasonal-naive and statsmodels AutoReg baselines. On a "
            "2-core CPU the defaults (softmax and s3, both heads, up to 30 epochs, patience 5, "
            "every training window) take about 2-4 minutes per model and horizon on ETTh1; "
            "--max-train-windows 2000 --max-epochs 10 gives a quick run."
        ),
    )
    p.add_argument(
        "--dataset", required=True, help="e.g. ETTh1, ETTh2, ETTm1, exchange_rate, illness"
    )
    p.add_argument("--horizons", type=positive_int, nargs="+",
                   help="default 96 192 336 720 (illness: 24 36 48 60)")  # fmt: skip
    p.add_argument("--context-length", type=positive_int, help="default 96 (illness: 36)")
    p.add_argument("--attentions", nargs="+", default=["softmax", "s3"],
                   help="registered attention names (default: %(default)s)")  # fmt: skip
    p.add_argument(
        "--heads", nargs="+", default=["linear", "fourier"], choices=["linear", "fourier"]
    )
    p.add_argument("--seeds", type=nonnegative_int, nargs="+", default=[0])
    p.add_argument("--max-epochs", type=positive_int, default=30)
    p.add_argument("--patience", type=positive_int, default=5)
    p.add_argument("--patch-len", type=positive_int, default=16, help="time steps per token")
    p.add_argument("--max-train-windows", type=nonnegative_int, default=0,
                   help="random subset of training windows per fit (fixed by the seed); 0 = all")  # fmt: skip
    p.add_argument("--batch-size", type=positive_int, default=32)
    p.add_argument("--lr", type=positive_float, default=1e-3)
    p.add_argument("--d-model", type=positive_int, default=32)
    p.add_argument("--n-heads", type=positive_int, default=4)
    p.add_argument("--n-layers", type=positive_int, default=2)
    p.add_argument("--dim-feedforward", type=positive_int, default=64)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--instance-norm-eps", type=positive_float,
                   help="added to each window's variance (default: TSForecaster's; 1 = 002's "
                   "Algorithm 3, 1e-5 = RevIN)")  # fmt: skip
    p.add_argument("--ar-lags", type=positive_int, default=24, help="lags of the AutoReg baseline")
    p.add_argument("--no-baselines", action="store_true")
    p.add_argument("--device", default="cpu")
    p.add_argument("--out", help="output folder (default results/forecast/<dataset>/)")
    p.set_defaults(func=_forecast)


def _forecast(args: argparse.Namespace) -> int:
    from tsattn.benchmarks.forecast import ForecastBenchmark, check_config, run_forecast_benchmark

    check_attentions(args.attentions)
    _, dataset = resolve_dataset(args.dataset, ("forecasting",), "bench forecast")
    config = ForecastBenchmark(
        dataset=dataset, horizons=args.horizons, context_length=args.context_length,
        attentions=args.attentions, heads=args.heads, seeds=args.seeds,
        max_epochs=args.max_epochs, patience=args.patience, patch_len=args.patch_len,
        max_train_windows=args.max_train_windows or None, batch_size=args.batch_size, lr=args.lr,
        d_model=args.d_model, n_heads=args.n_heads, n_layers=args.n_layers,
        dim_feedforward=args.dim_feedforward, dropout=args.dropout, ar_lags=args.ar_lags,
        instance_norm_eps=args.instance_norm_eps,
        baselines=not args.no_baselines, device=args.device,
    )  # fmt: skip
    try:
        check_config(config)  # every value a TSForecaster would refuse, before any work
    except ValueError as err:
        raise CommandError(str(err)) from None
    out = output_dir(args.out or Path("results") / "forecast" / dataset)
    results = run_forecast_benchmark(config, out)
    print(results.groupby(["horizon", "model"], sort=False)[["mse", "mae"]].mean().to_string())
    return 0


def _register_classify(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "classify",
        help="classification / extrinsic regression across archives: tsattn vs peers",
        description=(
            "Fit each tsattn attention (with its defaults) and each peer on the TRAIN split of "
            "every dataset and seed, score once on TEST (accuracy; RMSE for TSER), and write "
            "results.csv (a row per fit, appended as it finishes: rerun the same command to "
            "resume), results.md (tables beside the published numbers) and plots."
        ),
    )
    p.add_argument("--datasets", nargs="+", default=["uea"], metavar="NAME",
                   help="suites (uea, ucr, tser) and/or dataset names (default: uea)")
    p.add_argument("--attentions", nargs="+", default=["bn_sh"], metavar="NAME",
                   help="tsattn attention variants (default: bn_sh); none: --attentions")
    p.add_argument("--peers", nargs="*", default=["minirocket"], metavar="NAME",
                   help="minirocket, multirocket, hydra-multirocket, rocket, inceptiontime, "
                   "mvts-transformer (default: minirocket); missing packages are skipped")
    p.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds (default: 0)")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="cap on each fit (tsattn models stop training and are scored)")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel fits (default: 1)")
    p.add_argument("--scheduler", default=None,
                   help="run fits on Dask: 'local' (a LocalCluster of --n-jobs workers) or a "
                   "scheduler address such as tcp://host:8786 (needs tsattn[dask])")
    p.add_argument("--cached-only", action="store_true",
                   help="skip datasets whose files are not already local (no downloads)")
    p.add_argument("--retry-failed", action="store_true",
                   help="rerun fits recorded as failed or timed out")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="extra tsattn estimator parameter, VALUE as JSON (repeatable)")
    p.add_argument("--cv", type=int, default=None, metavar="K",
                   help="score on K folds of TRAIN instead of TEST (for choosing defaults)")
    p.add_argument("--label", default=None,
                   help="name of this tsattn configuration in the results (tsattn:<attention>[LABEL])")
    p.add_argument("--device", default="cpu")
    p.add_argument("--out", type=Path, default=Path("results/classify"))
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_classify)


def _classify(args: argparse.Namespace) -> int:
    import shlex

    from tsattn.benchmarks.classify import ClassifyBenchmark, run_classify_benchmark
    from tsattn.commands.compare import _parse_params

    config = ClassifyBenchmark(
        datasets=args.datasets, attentions=args.attentions, peers=args.peers, seeds=args.seeds,
        time_limit=args.time_limit, n_jobs=args.n_jobs, scheduler=args.scheduler,
        cached_only=args.cached_only, retry_failed=args.retry_failed,
        params=_parse_params(args.param), device=args.device, cv=args.cv, label=args.label,
    )  # fmt: skip
    try:
        command = "tsattn " + " ".join(shlex.quote(a) for a in args.argv)
        run_classify_benchmark(config, args.out, progress=not args.quiet, command=command)
    except (ValueError, ImportError) as err:  # ImportError: --scheduler without tsattn[dask]
        print(f"tsattn bench classify: {err}")
        return 2
    print(f"wrote {args.out / 'results.csv'} and {args.out / 'results.md'}")
def _register_kernels(sub: argparse._SubParsersAction) -> None:
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


def _register_fit_time(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fit-time",
        help="seconds per default fit on random data of a given shape",
        description="Time default TSClassifier (or TSRegressor) fits on random data of shape "
        "(n, channels, length) and write fit_time.json: how long a fit takes on data shaped like yours.",
    )
    p.add_argument("--n", type=int, required=True, help="number of series")
    p.add_argument("--channels", type=int, default=1)
    p.add_argument("--length", type=int, required=True)
    p.add_argument("--classes", type=int, default=2)
    p.add_argument("--regression", action="store_true")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--out", type=Path, default=Path("results/fit_time"))
    p.set_defaults(func=_fit_time)


def _fit_time(args: argparse.Namespace) -> int:
    import json

    from tsattn.benchmarks.fit_time import time_default_fit
    from tsattn.commands.compare import _parse_params

    for name in ("n", "channels", "length", "classes", "repeats"):
        if getattr(args, name) < 1:
            print(f"tsattn bench fit-time: --{name} must be >= 1, got {getattr(args, name)}")
            return 2
    record = time_default_fit(
        args.n, args.channels, args.length, args.classes, args.repeats,
        task="regression" if args.regression else "classification", **_parse_params(args.param),
    )  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"n{args.n}_c{args.channels}_l{args.length}.json"
    (args.out / name).write_text(json.dumps(record, indent=2, default=repr))
    print(json.dumps(record, default=repr))
    return 0
