"""``tsattn profile``: FLOPs, time and memory of attention variants as ratios to softmax.

Writes ``profile.csv`` (one row per variant, N, D), ``growth.csv`` (fitted exponents of time, memory
and FLOPs vs N) and ``profile.png`` (ratios vs N, one line per D, as 001 Fig. 1-4) to ``--out``.

``tsattn profile fit``: where a default fit of each estimator spends its time
(:mod:`tsattn.analysis.fit_profile`): ``phases.csv`` (the fit's phases), ``steps.csv`` (a training
step's parts), ``top_ops.csv``, ``optimiser.csv`` (AdamW's implementations), ``tables.md`` and
``profile_fit.json`` in ``--out``.
"""

from __future__ import annotations

import argparse
import ast
from typing import Any

from tsattn.commands import nonnegative_int, plain_text, positive_int

__all__ = ["register", "run", "parse_hyper"]


def parse_hyper(items: list[str] | None) -> dict[str, Any]:
    """``["scales=1,2", "r=8", "s3.s1=16"]`` -> ``{"scales": (1, 2), "r": 8, "s3": {"s1": 16}}``."""
    out: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--hyper expects KEY=VALUE (e.g. scales=1,2), got {item!r}.")
        key, raw = item.split("=", 1)
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = raw
        if isinstance(value, list):
            value = tuple(value)
        if "." in key:
            variant, key = key.split(".", 1)
            out.setdefault(variant, {})[key] = value
        else:
            out[key] = value
    return out


def check_layers(variants, d_models, n_heads: int, hyper: dict, length: int) -> None:
    """Build each variant's layer once, so that a size or hyperparameter it refuses, or a
    ``--hyper`` name no profiled variant takes, fails before the first measurement."""
    from tsattn.analysis.profile import _build, _hyper_for
    from tsattn.attention import attention_hyperparameters

    names = [v for v in dict.fromkeys(["softmax", *variants])]
    takes = {n: set() if n == "softmax_explicit" else set(attention_hyperparameters(n))
             for n in names}  # fmt: skip
    for key, value in hyper.items():
        if isinstance(value, dict):
            if key not in takes:
                raise ValueError(f"--hyper {key}.*: {key!r} is not among --variants {names}.")
            unknown = set(value) - takes[key]
        else:
            unknown = {key} - set().union(*takes.values())
        if unknown:
            raise ValueError(
                f"--hyper {', '.join(sorted(unknown))}: no profiled variant takes it "
                f"({'; '.join(f'{n}: {sorted(t) or None}' for n, t in takes.items())})."
            )
    for d_model in d_models:
        for name in names:
            _build(name, d_model, n_heads, _hyper_for(name, hyper, length))


def run(args: argparse.Namespace) -> int:
    if args.what == "fit":
        return run_fit(args)
    import torch

    from tsattn.analysis import growth_exponents, plot_ratios, profile_attention
    from tsattn.commands import CommandError, check_attentions, output_dir
    from tsattn.training import resolve_device

    # Every argument is checked before the first measurement.
    check_attentions(args.variants, "--variants", extra=("softmax_explicit",))
    try:
        hyper = parse_hyper(args.hyper)
        device = resolve_device(args.device)
        check_layers(args.variants, args.d_models, args.n_heads, hyper, min(args.lengths))
    except ValueError as err:
        raise CommandError(str(err)) from None
    out = output_dir(args.out)
    if args.threads:
        torch.set_num_threads(args.threads)
    df = profile_attention(
        args.variants,
        args.lengths,
        args.d_models,
        n_heads=args.n_heads,
        batch_size=args.batch_size,
        repeats=args.repeats,
        device=device,
        hyper=hyper,
    )
    df.to_csv(out / "profile.csv", index=False)
    growth = growth_exponents(df)
    growth.to_csv(out / "growth.csv", index=False)
    plot_ratios(df, out / "profile.png")
    cols = ["variant", "N", "D", "flops_train_ratio", "time_train_s_ratio", "time_fwd_s_ratio",
            "mem_train_bytes_ratio", "mem_fwd_bytes_ratio"]
    print(df[cols].to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print()
    print(growth.to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    print(f"\nwrote {out / 'profile.csv'}, {out / 'growth.csv'}, {out / 'profile.png'}")
    return 0


def run_fit(args: argparse.Namespace) -> int:
    """``tsattn profile fit``: the tables of :func:`tsattn.analysis.fit_profile.profile_fits`."""
    import json

    import torch

    from tsattn.analysis.fit_cases import CASES
    from tsattn.analysis.fit_profile import profile_fits, write_tables
    from tsattn.commands import CommandError, output_dir
    from tsattn.training import resolve_device

    unknown = sorted(set(args.estimators) - set(CASES))
    if unknown:
        raise CommandError(f"--estimators: unknown {unknown}; choose among {sorted(CASES)}.")
    try:
        device = resolve_device(args.device)
    except ValueError as err:
        raise CommandError(f"--device: {err}") from None
    out = output_dir(args.out)
    if args.threads:
        torch.set_num_threads(args.threads)
    record = profile_fits(args.estimators, steps=args.steps, warmup_steps=args.warmup_steps,
                          device=device.type if device.index is None else str(device),
                          full_fit=not args.no_full_fit, log=lambda m: print(m, flush=True))  # fmt: skip
    (out / "profile_fit.json").write_text(json.dumps(record, indent=2, default=repr) + "\n")
    text = write_tables(record, out)
    print(text)
    print(f"wrote {out / 'tables.md'}, phases.csv, steps.csv, top_ops.csv, optimiser.csv and "
          "profile_fit.json")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "profile",
        help="FLOPs, time and memory of attention variants relative to softmax; 'profile fit': "
        "where a default fit spends its time",
        description=plain_text(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("what", nargs="?", choices=["attention", "fit"], default="attention",
                   help="attention (default): attention layers against softmax; fit: a default fit "
                   "of each estimator, by phase and by part of a training step")
    p.add_argument("--variants", nargs="+", default=["bn_sh", "s3", "linear", "mrs", "long_short",
                                                       "softmax_explicit"])
    p.add_argument("--lengths", nargs="+", type=positive_int, default=[512, 1024, 2048, 4096])
    p.add_argument("--d-models", nargs="+", type=positive_int, default=[64])
    p.add_argument("--n-heads", type=positive_int, default=2)
    p.add_argument("--batch-size", type=positive_int, default=4)
    p.add_argument("--repeats", type=positive_int, default=3)
    p.add_argument("--device", default="cpu")
    p.add_argument("--threads", type=nonnegative_int, default=0,
                   help="torch threads (0: leave as is)")
    p.add_argument("--hyper", nargs="*", metavar="KEY=VALUE",
                   help="hyperparameters, e.g. scales=1,2 r=8 (or VARIANT.KEY=VALUE for one variant)")
    p.add_argument("--out", default="profile_results")
    fit = p.add_argument_group("profile fit")
    fit.add_argument("--estimators", nargs="+", default=["classifier", "regressor", "forecaster"],
                     help="default fits to profile (classifier, regressor, forecaster)")
    fit.add_argument("--steps", type=positive_int, default=100,
                     help="optimiser steps under the profiler (default: %(default)s)")
    fit.add_argument("--warmup-steps", type=positive_int, default=150,
                     help="steps of the warm-up fit before any measurement (default: %(default)s)")
    fit.add_argument("--no-full-fit", action="store_true",
                     help="skip the default fit timed by phase")
    p.set_defaults(func=run)
