"""``tsattn tune``: an Optuna study of one attention variant's hyperparameters on a UEA/UCR dataset."""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path

from tsattn.commands import (
    CommandError,
    check_attentions,
    check_estimator_params,
    fraction,
    output_dir,
    parse_params,
    positive_float,
    positive_int,
    resolve_dataset,
    writable_file,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "tune",
        help="tune an attention variant's hyperparameters with Optuna (resumable, shareable)",
        description=(
            "Run an Optuna study of the hyperparameters (the variant's own, e.g. beta or scales, plus "
            "lr, dropout and weight_decay) of TSClassifier on a UEA/UCR dataset, or TSRegressor on "
            "a TSER dataset, on a validation part of the TRAIN split, "
            "with pruning. With --storage the study is kept on disk: rerunning the command resumes "
            "it, and several processes or machines given the same storage share its trials. "
            "With --cv each trial is scored by K-fold cross-validation of TRAIN instead (folds "
            "in parallel with --n-jobs, on Dask with --scheduler). "
            "Writes trials.csv, best_params.json and history.png; --evaluate also fits the best "
            "parameters on all of TRAIN and scores TEST once (accuracy, or RMSE for regression)."
        ),
    )
    p.add_argument("--dataset", default="JapaneseVowels",
                   help="UEA or UCR name (classification) or TSER name (regression, e.g. "
                   "Covid3Month); default: %(default)s")
    p.add_argument("--archive", choices=("uea", "ucr", "tser"), default=None,
                   help="archive of --dataset (default: looked up in the catalogue); with tser, "
                   "a TSER set outside the catalogue is fetched by its name")
    p.add_argument("--attention", default="bn",
                   help="attention variant, or 'auto' to search over every variant and the chosen "
                   "one's own hyperparameters (default: %(default)s)")
    p.add_argument("--trials", type=positive_int, default=20,
                   help="finished (complete or pruned) trials in the study, shared by every "
                   "worker on --storage; failed ones do not count (default: 20)")
    p.add_argument("--timeout", type=positive_float, default=None,
                   help="stop after this many seconds")
    p.add_argument("--storage", default=None,
                   help="a .db file (SQLite), another file (Optuna journal, for machines sharing a "
                   "file system) or a database URL; default: in memory, nothing kept")
    p.add_argument("--study-name", default=None,
                   help="study name in the storage (default: tsattn-<dataset>-<attention>-<metric>)")
    p.add_argument("--validation-fraction", type=fraction, default=0.2,
                   help="part of TRAIN held out to score trials, without --cv (default: 0.2)")
    p.add_argument("--cv", type=positive_int, default=None, metavar="K",
                   help="score each trial by K-fold cross-validation of TRAIN (stratified), the "
                   "model fitted as it will be at the end, instead of one validation part")
    p.add_argument("--n-jobs", type=positive_int, default=1,
                   help="folds of --cv fitted at once (default: 1)")
    p.add_argument("--scheduler", default=None,
                   help="fit the folds on Dask: 'local' (a LocalCluster of --n-jobs workers) or "
                   "a scheduler address such as tcp://host:8786 (needs tsattn[dask])")
    p.add_argument("--metric", choices=("loss", "score"), default="loss",
                   help="minimise the validation loss (default: cross-entropy, or MSE for "
                   "regression) or maximise the validation accuracy (classification only; ties at "
                   "1.0 on small validation parts)")
    p.add_argument("--max-epochs", type=positive_int, default=None, help="override max_epochs")
    p.add_argument("--no-training-params", action="store_true",
                   help="tune only the attention's own hyperparameters, not lr/dropout/weight_decay")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="fixed estimator parameter, VALUE parsed as JSON (repeatable)")
    p.add_argument("--device", default="auto", help="auto, cpu, cuda (default: auto)")
    p.add_argument("--seed", type=int, default=0, help="seeds the sampler and the models (default: 0)")
    p.add_argument("--evaluate", action="store_true",
                   help="fit the best parameters on all of TRAIN and report TEST accuracy")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default: results/tune/<dataset>-<attention>)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar and no Optuna log line per trial")
    p.set_defaults(func=run)


def _resolve(dataset: str, archive: str | None) -> tuple[str, str]:
    """``(archive, name)``; a name outside the catalogue only with ``--archive tser``."""
    from tsattn.datasets.archives import OPEN_ARCHIVES, resolve_archive_name

    if archive is None:
        return resolve_dataset(dataset, ("uea", "ucr", "tser"), "tune", hint=(
            " A TSER set outside the catalogue (e.g. Tecator) is fetched by its name with "
            "--archive tser."))  # fmt: skip
    try:
        return archive, resolve_archive_name(archive, dataset)[0]
    except ValueError as err:
        extra = "" if archive in OPEN_ARCHIVES else " (only --archive tser takes names outside it)"
        raise CommandError(f"--dataset {dataset!r}: {err}{extra}") from None


def _open_storage(storage: str | None):
    """The Optuna storage of ``--storage``, opened now so that a wrong path, URL or missing
    database driver shows before the data is loaded."""
    if not storage:
        return None
    import optuna

    from tsattn.tuning import resolve_storage

    if "://" not in storage:
        writable_file(storage, "--storage")
    try:
        opened = resolve_storage(storage)
        return optuna.storages.get_storage(opened) if isinstance(opened, str) else opened
    except ValueError as err:  # resolve_storage's own message says what is wrong and the fix
        raise CommandError(f"--{err}") from None
    except Exception as err:  # noqa: BLE001 - e.g. a file that is no SQLite database
        raise CommandError(f"--storage {storage!r} cannot be opened ({type(err).__name__}: {err}).") from None


def _load_any(archive: str, dataset: str):
    """``X, y, X_test, y_test`` of a UEA/UCR (classification) or TSER (regression) dataset."""
    from tsattn.datasets import load_tser, load_ucr, load_uea

    loader = {"uea": load_uea, "ucr": load_ucr, "tser": load_tser}[archive]
    return (*loader(dataset, split="train"), *loader(dataset, split="test"))


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from tsattn import TSClassifier, TSRegressor
    from tsattn._parallel import parallel_backend
    from tsattn.attention import all_hyperparameters
    from tsattn.tuning import best_params, search_space, tune

    # Every argument is checked before the first trial: a mistake costs seconds, not the study.
    search_all = args.attention == "auto"
    if not search_all:
        check_attentions([args.attention], "--attention")
    if args.scheduler and not args.cv:
        raise CommandError("--scheduler runs the folds of --cv on Dask; give --cv K as well.")
    archive, dataset = _resolve(args.dataset, args.archive)
    regression = archive == "tser"
    if regression and args.metric == "score":
        raise CommandError(f"{dataset} is a regression dataset: use --metric loss (the validation "
                           "MSE); --metric score is the accuracy of a classifier.")
    Estimator = TSRegressor if regression else TSClassifier
    fixed = parse_params(args.param)
    params = {"attention": "softmax" if search_all else args.attention, "device": args.device,
              "random_state": args.seed, **fixed}
    if args.max_epochs is not None:
        params["max_epochs"] = args.max_epochs
    estimator = check_estimator_params(Estimator, params)
    space = search_space(args.attention, n_heads=estimator.n_heads,
                         training=not args.no_training_params)
    if search_all and set(fixed) & set(all_hyperparameters()):
        raise CommandError("--attention auto searches every variant's own hyperparameters; fix "
                           "them with --param only for a single --attention.")
    for name in set(space) & set(fixed):
        del space[name]  # a value given with --param is not tuned
    if not space or (search_all and len(space) == 1 and len(space["attention"].choices) < 2):
        raise CommandError(f"nothing to tune: {args.attention!r} has no tunable hyperparameters "
                           "and --no-training-params was given (or --param fixed them all).")
    storage = _open_storage(args.storage)
    out = output_dir(args.out or Path("results") / "tune" / f"{dataset}-{args.attention}")
    if args.quiet:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)  # no line per trial either
    with contextlib.ExitStack() as stack:
        try:  # a missing Dask or an unreachable scheduler shows before the data is loaded
            n_workers = stack.enter_context(parallel_backend(args.n_jobs, args.scheduler))
        except (ImportError, ValueError) as err:
            raise CommandError(str(err)) from None
        X, y, Xt, yt = _load_any(archive, dataset)
        name = args.study_name or f"tsattn-{dataset}-{args.attention}-{args.metric}"
        print(f"{dataset}: {len(X)} train series "
              f"({'regression' if regression else 'classification'}); tuning {', '.join(space)} "
              f"of {args.attention!r} over {args.trials} trials"
              + (f", {args.cv}-fold cross-validation" if args.cv else "")
              + (f"; storage {args.storage}" if args.storage else ""))  # fmt: skip
        try:
            study = tune(
                estimator, X, y, space=space, n_trials=args.trials, timeout=args.timeout,
                cv=args.cv, n_jobs=n_workers, validation_fraction=args.validation_fraction,
                metric=args.metric, storage=storage, study_name=name, random_state=args.seed,
                show_progress_bar=not args.quiet,
            )  # fmt: skip
        except ValueError as err:  # refused before the first trial (trials' own errors fail them)
            raise CommandError(str(err)) from None
    study.trials_dataframe().to_csv(out / "trials.csv", index=False)
    gave_way = ("study_full", "duplicate_of")  # never trained: not failures
    states = [t.state.name for t in study.trials if not any(k in t.user_attrs for k in gave_way)]
    what = "loss" if args.metric == "loss" else "accuracy"
    report = {
        "dataset": dataset, "task": "regression" if regression else "classification",
        "estimator": Estimator.__name__, "attention": args.attention, "study_name": name,
        "finished_trials": states.count("COMPLETE") + states.count("PRUNED"),
        "complete_trials": states.count("COMPLETE"), "pruned_trials": states.count("PRUNED"),
        "failed_trials": states.count("FAIL"),
        "fixed_params": {k: v for k, v in params.items() if k != "attention"},
        "validation_fraction": None if args.cv else args.validation_fraction, "cv": args.cv,
    }
    if not report["complete_trials"]:
        (out / "best_params.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
        print(f"no trial completed ({report['pruned_trials']} pruned, {report['failed_trials']} "
              f"failed): no best parameters. Wrote {out / 'trials.csv'} and "
              f"{out / 'best_params.json'}; see their states.")
        return 1
    best = best_params(study)
    key = f"best_cv_{what}" if args.cv else f"best_validation_{what}"
    report.update({key: study.best_value, "best_params": best})
    if args.evaluate:
        model = Estimator(**{**params, **best}).fit(X, y)
        pred = model.predict(Xt)
        if regression:
            report["test_rmse"] = float(np.sqrt(np.mean((pred - np.asarray(yt, float)) ** 2)))
        else:
            report["test_accuracy"] = float(np.mean(pred == np.asarray(yt)))
    (out / "best_params.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    wrote = f"{out / 'trials.csv'}, {out / 'best_params.json'} and {out / 'history.png'}"
    try:
        _plot_history(study, out / "history.png")
    except ImportError as err:  # matplotlib is the bench extra; the study's results stand without it
        print(f"history.png not drawn: {err}")
        wrote = f"{out / 'trials.csv'} and {out / 'best_params.json'}"
    print(f"best {'cross-validated' if args.cv else 'validation'} {what} {study.best_value:.4f} "
          f"with {best}")
    for key in ("test_accuracy", "test_rmse"):
        if key in report:
            print(f"{key.replace('_', ' ')} with the best parameters, fitted on all of TRAIN: "
                  f"{report[key]:.4f}")
    print(f"wrote {wrote}")
    return 0


def _plot_history(study, path: Path) -> None:
    import warnings

    from tsattn._plotting import pyplot

    plt = pyplot("tsattn tune's history plot")
    from optuna.visualization.matplotlib import plot_optimization_history

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # optuna marks its matplotlib plots experimental
        ax = plot_optimization_history(study)
    ax.figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(ax.figure)
