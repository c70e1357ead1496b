"""``tsattn bench`` sub-commands of collections of series: ``classify`` (classification and
regression across archives against peers, or cross-validation on TRAIN for choosing defaults,
:mod:`tsattn.benchmarks.classify`) and ``regress`` (``TSRegressor`` against the Rocket regressors
and a mean predictor on the regression tasks, :mod:`tsattn.benchmarks.regress`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tsattn.commands import (
    CommandError,
    check_estimator_params,
    command_line,
    nonnegative_int,
    output_dir,
    parse_params,
    positive_int,
)


def register_classify(sub: argparse._SubParsersAction) -> None:
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
    from tsattn.benchmarks.classify import ClassifyBenchmark, run_classify_benchmark

    config = ClassifyBenchmark(
        datasets=args.datasets, attentions=args.attentions, peers=args.peers, seeds=args.seeds,
        time_limit=args.time_limit, n_jobs=args.n_jobs, scheduler=args.scheduler,
        cached_only=args.cached_only, retry_failed=args.retry_failed,
        params=parse_params(args.param), device=args.device, cv=args.cv, label=args.label,
    )  # fmt: skip
    try:
        command = command_line(args)
        run_classify_benchmark(config, args.out, progress=not args.quiet, command=command)
    except (ValueError, ImportError) as err:  # ImportError: --scheduler without tsattn[dask]
        print(f"tsattn bench classify: {err}")
        return 2
    print(f"wrote {args.out / 'results.csv'} and {args.out / 'results.md'}")
def register_regress(sub: argparse._SubParsersAction) -> None:
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
    command = command_line(args)
    try:
        run_regress_benchmark(config, out, progress=not args.quiet, command=command)
    except ValueError as err:
        raise CommandError(str(err)) from None
    print(f"wrote {out / 'results.csv'} and {out / 'results.md'}")
    return 0
