"""``tsattn bench``: benchmarks that write their results (CSV, markdown, plots).

Each benchmark is a sub-command registered by its own function below: ``epoch`` (seconds per
training epoch), ``forecast`` (long-horizon forecasting, :mod:`tsattn.benchmarks.forecast`),
``classify`` (classification/regression across archives against peers, or cross-validation on TRAIN
for choosing defaults, :mod:`tsattn.benchmarks.classify`), ``regress`` (``TSRegressor`` against the
Rocket regressors and a mean predictor on the regression tasks, :mod:`tsattn.benchmarks.regress`),
and the
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
    parse_params,
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
    _register_regress(sub)
    _register_fit_time(sub)
    _register_kernels(sub)
    _register_m4(sub)
    _register_epf(sub)
    from tsattn.benchmarks.ledger import add_arguments  # --purpose, --unpublishable: the TEST ledger

    add_arguments(sub)


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
        help="long-horizon forecasting: TSForecaster vs neuralforecast peers and baselines",
        description=(
            "Standard splits, train-only scaler, MSE/MAE on the scaled data over every window of "
            "the scored split, for TSForecaster (its defaults plus --param), neuralforecast's "
            "PatchTST, iTransformer, DLinear and NHITS (same steps; skipped when neuralforecast "
            "is absent) and naive, seasonal-naive and statsmodels AutoReg baselines. Rows are "
            "appended to OUT/results.csv as fits finish; rerun the same command to resume, or "
            "with more --seeds or --horizons to extend. --split val scores the validation split "
            "and reads no TEST data (for choosing defaults)."
        ),
    )
    p.add_argument("--datasets", "--dataset", nargs="+", required=True, metavar="NAME",
                   help="e.g. ETTh1 ETTh2 ETTm1 exchange_rate illness, or the path of a CSV file "
                   "in their format (a 'date' column, then the channels; 70/10/20 split)")
    p.add_argument("--horizons", type=positive_int, nargs="+",
                   help="default: the catalogue's (96 192 336 720; illness 24 36 48 60; a file's "
                   "96 192 336 720)")
    p.add_argument("--context-length", type=positive_int,
                   help="default: the catalogue's (96; illness 36)")
    p.add_argument("--attentions", nargs="*", help="TSForecaster attentions (default: its own; "
                   "all: every registered variant; none: --attentions, to run only the peers and "
                   "baselines)")
    p.add_argument("--heads", nargs="+", type=_head,
                   help="TSForecaster heads, registered ones (tsattn.nn.forecasting.list_heads()): "
                   "every attention with every head, named "
                   "tsattn:<attention>/<head> (default: the default head, names without it)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="TSForecaster parameter, VALUE as JSON (repeatable)")
    p.add_argument("--label", help="name of this TSForecaster setting (tsattn:<attention>[LABEL])")
    p.add_argument("--peers", nargs="*", default=["patchtst", "itransformer", "dlinear", "nhits"],
                   help="neuralforecast peers (default: all four; none: --peers)")
    p.add_argument("--baselines", nargs="*", default=["naive_last", "seasonal_naive", "ar"])
    p.add_argument("--seeds", type=nonnegative_int, nargs="+", default=[0])
    p.add_argument("--peer-seeds", type=nonnegative_int, nargs="+",
                   help="seeds of the peers (default: --seeds)")
    p.add_argument("--peer-steps", default="auto",
                   help="optimiser steps of each peer (default auto: TSForecaster's on the same data)")
    p.add_argument("--split", choices=["test", "val"], default="test")
    p.add_argument("--ar-lags", type=positive_int, default=24, help="lags of the AutoReg baseline")
    p.add_argument("--device", default="cpu")
    p.add_argument("--out", type=Path, default=Path("results/forecast"),
                   help="output folder, resumed if it holds results (default: %(default)s)")
    p.add_argument("--n-jobs", type=positive_int, default=1,
                   help="fits at once, each in its own process with its share of the cores' "
                   "threads (default 1)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_forecast)


def _head(name: str) -> str:
    """``--heads``: a registered forecasting head (the registry read when the option is given)."""
    from tsattn.nn.forecasting import get_head

    try:
        get_head(name)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return name


def _forecast(args: argparse.Namespace) -> int:
    import shlex

    from tsattn.benchmarks.forecast import ForecastBenchmark, run_forecast_benchmark
    from tsattn.estimators import TSForecaster

    if args.attentions == ["all"]:  # the zoo: every registered variant
        from tsattn import list_attention

        args.attentions = list_attention()
    if args.attentions:
        check_attentions(args.attentions)
    datasets = [d if d.lower().endswith(".csv") else  # a file: checked with the rest below
                resolve_dataset(d, ("forecasting",), "bench forecast")[1] for d in args.datasets]
    params = parse_params(args.param)
    check_estimator_params(TSForecaster, params)
    steps = args.peer_steps
    if steps != "auto":
        try:
            steps = positive_int(steps)
        except argparse.ArgumentTypeError as err:
            raise CommandError(f"--peer-steps: {err}") from None
    config = ForecastBenchmark(
        datasets=datasets, horizons=args.horizons, context_length=args.context_length,
        attentions=args.attentions, heads=args.heads, params=params, label=args.label,
        peers=args.peers,
        baselines=args.baselines, seeds=args.seeds, peer_seeds=args.peer_seeds, peer_steps=steps,
        split=args.split, ar_lags=args.ar_lags, device=args.device,
    )  # fmt: skip
    from tsattn.benchmarks.forecast import check_config

    try:
        check_config(config)  # every value a TSForecaster would refuse, before any work
    except ValueError as err:
        raise CommandError(str(err)) from None
    out = output_dir(args.out)
    command = "tsattn " + " ".join(shlex.quote(a) for a in getattr(args, "argv", []))
    results = run_forecast_benchmark(config, out, command=command, progress=not args.quiet,
                                     n_jobs=args.n_jobs)  # fmt: skip
    ok = results[results["status"] == "ok"]
    print(ok.groupby(["dataset", "horizon", "model"], sort=False)[["mse", "mae"]].mean().to_string())
    print(f"wrote {out / 'results.csv'} and {out / 'results.md'}")
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
    p.add_argument("--attentions", nargs="*", default=["bn_sh"], metavar="NAME",
                   help="tsattn attention variants (default: bn_sh); none: --attentions")
    p.add_argument("--peers", nargs="*", default=["minirocket"], metavar="NAME",
                   help="minirocket, multirocket, hydra-multirocket, rocket, quant, inceptiontime, "
                   "mvts-transformer, hivecote2 (default: minirocket); missing packages are skipped")
    p.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds (default: 0)")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="cap on each fit (tsattn models stop training and are scored; peers are "
                   "stopped, their row marked timeout)")
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
def _register_regress(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "regress",
        help="extrinsic regression: TSRegressor vs the Rocket regressors and a mean predictor",
        description=(
            "Fit TSRegressor (each --attentions, its defaults and --param) and aeon's MiniRocket, "
            "MultiRocket and Rocket regressors and the TRAIN mean on the TRAIN split of every task "
            "and seed, score once on TEST (RMSE, MAE, the RMSE ratio to MiniRocket; coverage of "
            "the split-conformal interval where TSRegressor has a validation split), or with --cv K "
            "on K folds of TRAIN (for choosing defaults). Rows are appended to OUT/results.csv as "
            "fits finish (rerun the same command to resume); OUT/results.md is the report."
        ),
    )
    p.add_argument("--datasets", nargs="+", default=["regression"], metavar="NAME",
                   help="'regression' (the catalogue's regression suite), derived task names "
                   "(e.g. ETTh1NextDayOT) and TSER set names (default: regression)")
    p.add_argument("--attentions", nargs="*", default=["softmax"], metavar="NAME",
                   help="TSRegressor attention variants (default: softmax, its default); none: "
                   "--attentions")
    p.add_argument("--peers", nargs="*", default=["minirocket", "multirocket", "rocket", "mean"],
                   metavar="NAME", help="minirocket, multirocket, rocket, quant, drcif, freshprince "
                   "(needs tsfresh), mean (default: minirocket multirocket rocket mean)")
    p.add_argument("--seeds", type=nonnegative_int, nargs="+", default=[0])
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="TSRegressor parameter, VALUE as JSON (repeatable)")
    p.add_argument("--label", default=None,
                   help="name of this TSRegressor setting (tsattn:<attention>[LABEL]); settings "
                   "are compared with the one labelled 'default'")
    p.add_argument("--cv", type=positive_int, default=None, metavar="K",
                   help="score on K folds of TRAIN instead of TEST")
    p.add_argument("--folds", type=nonnegative_int, nargs="+", default=None, metavar="I",
                   help="with --cv K: score only these folds (0 .. K-1) of the same K-fold split, "
                   "for a shorter run (default: all K)")
    p.add_argument("--coverage", type=float, default=0.9,
                   help="level of the prediction intervals scored (default 0.9)")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS")
    p.add_argument("--n-jobs", type=positive_int, default=1, help="parallel fits (default: 1)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--out", type=Path, default=Path("results/regress"))
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_regress)


def _regress(args: argparse.Namespace) -> int:
    import shlex

    from tsattn.benchmarks.regress import RegressBenchmark, run_regress_benchmark
    from tsattn.estimators import TSRegressor

    params = parse_params(args.param)
    check_estimator_params(TSRegressor, params)
    config = RegressBenchmark(
        datasets=args.datasets, attentions=args.attentions, peers=args.peers, seeds=args.seeds,
        params=params, label=args.label, cv=args.cv, cv_folds=args.folds, coverage=args.coverage,
        time_limit=args.time_limit, n_jobs=args.n_jobs, device=args.device,
    )  # fmt: skip
    out = output_dir(args.out)
    command = "tsattn " + " ".join(shlex.quote(a) for a in getattr(args, "argv", []))
    try:
        run_regress_benchmark(config, out, progress=not args.quiet, command=command)
    except ValueError as err:
        raise CommandError(str(err)) from None
    print(f"wrote {out / 'results.csv'} and {out / 'results.md'}")
    return 0


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
    from tsattn.commands.compare import _parse_params

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
        **_parse_params(args.param),
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
    import shlex

    from tsattn.benchmarks.fit_versions import compare_fit_times, summarise
    from tsattn.commands.compare import _parse_params

    if not args.datasets:
        raise CommandError("--baseline needs --datasets: the datasets are timed against the "
                           "baseline in the same run.")  # fmt: skip
    if args.repeats < 1 or args.horizon < 1 or (args.threads is not None and args.threads < 1):
        raise CommandError("--repeats, --horizon and --threads must be >= 1.")
    for name in args.datasets:
        resolve_dataset(name, ("uea", "ucr", "tser", "forecasting"), "bench fit-time")
    params = _parse_params(args.param)
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
    summary = {"command": "tsattn " + " ".join(shlex.quote(a) for a in getattr(args, "argv", [])),
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


def _panel_arguments(p: argparse.ArgumentParser, models: list[str], choices: str, out: str) -> None:
    """The options ``bench m4`` and ``bench epf`` share."""
    p.add_argument("--split", choices=["val", "test"], default="val")
    p.add_argument("--models", nargs="+", default=models,
                   help=f"{choices} (default: {' '.join(models)})")
    p.add_argument("--seeds", type=nonnegative_int, nargs="+", default=[0],
                   help="seeds of the networks (nf:*, tsattn)")
    p.add_argument("--max-steps", type=positive_int, default=1000,
                   help="optimiser steps of each neuralforecast peer (default %(default)s)")
    p.add_argument("--threads", type=positive_int, default=1, help="torch threads (default 1)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a TSForecaster parameter of the tsattn entry (repeatable), e.g. "
                   "context_length=336; the run records the command")
    p.add_argument("--out", type=Path, default=Path(out))
    p.add_argument("-q", "--quiet", action="store_true")


def _panel_setup(args: argparse.Namespace) -> tuple[Path, str]:
    """Torch's threads, the output folder (checked writable) and the recorded command."""
    import shlex

    import torch

    torch.set_num_threads(args.threads)
    out = output_dir(args.out)
    return out, "tsattn " + " ".join(shlex.quote(a) for a in getattr(args, "argv", []))


def _register_m4(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "m4",
        help="One M4 frequency under the competition's rules: TSForecaster vs statsforecast and "
        "neuralforecast peers",
        description=(
            "sMAPE, MASE and OWA against Naive2 (the M4 benchmarks, reproduced) of every --models "
            "on one M4 frequency (the competition's wide CSV files, e.g. Weekly-train.csv). The "
            "frequency is read from the series ids' first letter (H, D, W, M, Q, Y), which must "
            "agree with the file names where they name one; --frequency overrides. It sets the "
            "horizon and MASE's m (Yearly 6/1, Quarterly 8/4, Monthly 18/12, Weekly 13/1, Daily "
            "14/1, Hourly 48/24) and the peers' seasons and contexts. --split val holds out the "
            "last horizon steps of each training series and never opens the test file; --split "
            "test scores the test file. Rows are appended to OUT/results.csv as models finish; "
            "rerun the same command to resume; a model that raises gets a row with its error."
        ),
    )
    p.add_argument("--train", type=Path, required=True, help="the frequency's training file, e.g. Hourly-train.csv")
    p.add_argument("--test", type=Path, help="its test file, e.g. Hourly-test.csv (read with --split test only)")
    p.add_argument("--frequency", help="Yearly, Quarterly, Monthly, Weekly, Daily or Hourly (any case): "
                   "the competition's rules to apply (default: read from the series ids)")  # fmt: skip
    _panel_arguments(p, ["naive1", "snaive", "naive2"], "naive1 snaive naive2 sf:AutoETS "
                     "sf:AutoTheta sf:MSTL sf:SeasonalNaive nf:NHITS nf:PatchTST tsattn",
                     "results/bench/m4_<frequency>")  # fmt: skip
    p.add_argument("--input-size", type=positive_int,
                   help="context of the neuralforecast peers (default: 168 for Hourly, twice the "
                   "horizon otherwise)")  # fmt: skip
    p.set_defaults(func=_m4)


def _m4(args: argparse.Namespace) -> int:
    import pandas as pd

    from tsattn.benchmarks.m4 import M4Benchmark, run_m4
    from tsattn.benchmarks.m4_frequencies import frequency_of

    if args.split == "test" and args.test is None:
        raise CommandError("--split test needs --test (the frequency's test file, e.g. Weekly-test.csv)")
    if not args.train.is_file():
        raise CommandError(f"--train: no such file {args.train}")
    try:
        ids = pd.read_csv(args.train, usecols=[0]).iloc[:, 0]
        frequency = frequency_of(ids, [args.train, args.test if args.split == "test" else None],
                                 args.frequency)  # fmt: skip
    except ValueError as err:
        raise CommandError(str(err)) from None
    if args.out == Path("results/bench/m4_<frequency>"):
        args.out = Path(f"results/bench/m4_{frequency.lower()}")
    config = M4Benchmark(models=args.models, seeds=args.seeds, split=args.split, frequency=frequency,
                         input_size=args.input_size, max_steps=args.max_steps,
                         tsattn_params=parse_params(args.param))  # fmt: skip
    out, command = _panel_setup(args)
    run_m4(config, args.train, args.test, out, command=command, progress=not args.quiet)
    print((out / "results.md").read_text(encoding="utf-8"))
    return 0


def _register_epf(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "epf",
        help="EPF day-ahead prices under TimeXer's protocol, past-only and future-known covariates",
        description=(
            "70/10/20 split by rows, every column standardised with TRAIN statistics, context 168, "
            "horizon 24, every window of the scored split; MSE/MAE of the standardised price, in "
            "two settings: past (covariates' context only, TimeXer's) and future (the day-ahead "
            "covariates of the 24 target hours known too). Rows are appended to OUT/results.csv; "
            "rerun to resume; a model that raises gets a row with its error."
        ),
    )
    p.add_argument("--markets", nargs="+", type=Path, required=True, metavar="CSV",
                   help="EPF market files (date, covariates, OT), named by their stem: NP.csv ...")
    from tsattn.benchmarks.epf import SETTINGS  # no torch: pandas and the run record only

    p.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=["past", "future"],
                   help="past+calendar, future+calendar: with calendar columns known ahead")
    _panel_arguments(p, ["naive_day", "naive_week", "ridge"], "naive_day naive_week ridge lear nf:NHITS "
                     "nf:TiDE nf:PatchTST tsattn", "results/bench/epf")  # fmt: skip
    p.set_defaults(func=_epf)


def _epf(args: argparse.Namespace) -> int:
    from tsattn.benchmarks.epf import EPFBenchmark, run_epf

    missing = [str(m) for m in args.markets if not Path(m).is_file()]
    if missing:
        raise CommandError(f"--markets: no such file {missing}")
    config = EPFBenchmark(models=args.models, settings=args.settings, seeds=args.seeds,
                          split=args.split, max_steps=args.max_steps,
                          tsattn_params=parse_params(args.param))  # fmt: skip
    out, command = _panel_setup(args)
    run_epf(config, {Path(m).stem: m for m in args.markets}, out, command=command,
            progress=not args.quiet)  # fmt: skip
    print((out / "results.md").read_text(encoding="utf-8"))
    return 0
