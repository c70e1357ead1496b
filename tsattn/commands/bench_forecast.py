"""``tsattn bench`` sub-commands of forecasting: ``forecast`` (long-horizon forecasting,
:mod:`tsattn.benchmarks.forecast`), ``m4`` (one M4 frequency under the competition's rules,
:mod:`tsattn.benchmarks.m4`) and ``epf`` (day-ahead electricity prices under TimeXer's protocol,
:mod:`tsattn.benchmarks.epf`), the last two with the options they share.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tsattn.commands import (
    CommandError,
    check_attentions,
    check_estimator_params,
    command_line,
    nonnegative_int,
    output_dir,
    parse_params,
    positive_int,
    resolve_dataset,
)


def register_forecast(sub: argparse._SubParsersAction) -> None:
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
    command = command_line(args)
    results = run_forecast_benchmark(config, out, command=command, progress=not args.quiet,
                                     n_jobs=args.n_jobs)  # fmt: skip
    ok = results[results["status"] == "ok"]
    print(ok.groupby(["dataset", "horizon", "model"], sort=False)[["mse", "mae"]].mean().to_string())
    print(f"wrote {out / 'results.csv'} and {out / 'results.md'}")
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
    import torch

    torch.set_num_threads(args.threads)
    out = output_dir(args.out)
    return out, command_line(args)


def register_m4(sub: argparse._SubParsersAction) -> None:
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


def register_epf(sub: argparse._SubParsersAction) -> None:
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
    from tsattn.benchmarks.epf_data import SETTINGS  # no torch: numpy and pandas only

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
