"""``tsattn datasets``: list, fetch and render the dataset catalogue."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_ARCHIVES = ("uea", "ucr", "tser", "forecasting", "epf", "m4")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "datasets", help="list, download or document the benchmark datasets",
        description="Benchmark datasets (UEA, UCR, TSER, long-horizon forecasting, the EPF "
                    "markets, M4). The cache is "
                    "TSATTN_DATA_DIR (default ~/.cache/tsattn).")
    sub = parser.add_subparsers(dest="datasets_command", metavar="ACTION")
    sub.required = True

    p_list = sub.add_parser("list", help="print dataset names per archive")
    p_list.add_argument("--archive", choices=_ARCHIVES, help="only this archive")
    p_list.set_defaults(func=_list)

    p_fetch = sub.add_parser("fetch", help="download datasets into the cache (TRAIN and TEST; "
                                           "an EPF market's default distribution)")
    p_fetch.add_argument("names", nargs="+", metavar="NAME")
    p_fetch.add_argument("--archive", choices=_ARCHIVES,
                         help="archive of the names (default: looked up in the catalogue)")
    p_fetch.set_defaults(func=_fetch)

    p_cat = sub.add_parser("catalogue", help="print or write datasets/README.md from the catalogue")
    group = p_cat.add_mutually_exclusive_group()
    group.add_argument("--write", type=Path, metavar="PATH", help="write the README to PATH")
    group.add_argument("--check", type=Path, metavar="PATH",
                       help="exit 1 if PATH differs from the generated README")
    p_cat.set_defaults(func=_catalogue)


def _list(args: argparse.Namespace) -> int:
    from tsattn.datasets import data_dir, list_datasets

    for archive, names in list_datasets(args.archive).items():
        print(f"{archive} ({len(names)}): {' '.join(names)}")
    print(f"cache: {data_dir()}")
    return 0


def _archive_of(name: str) -> str:
    from tsattn._validation import did_you_mean
    from tsattn.datasets.catalogue import archive_names

    lowered = name.lower()
    for archive in _ARCHIVES:
        if lowered in (n.lower() for n in archive_names(archive)):
            return archive
    hint = did_you_mean(name, [n for a in _ARCHIVES for n in archive_names(a)], 5, quote=False)
    raise ValueError(
        f"{name!r} is in no archive of the catalogue.{hint} See `tsattn datasets list`. A TSER "
        "set outside the catalogue (e.g. Tecator) is fetched by its name with --archive tser."
    )


def _fetch(args: argparse.Namespace) -> int:
    from tsattn.datasets import DatasetNotAvailableError, archive_file, load_forecasting

    status = 0
    for name in args.names:
        try:
            archive = args.archive or _archive_of(name)
            if archive == "forecasting":
                frame = load_forecasting(name)
                print(f"{name}: {frame.shape[0]} rows x {frame.shape[1]} channels")
            elif archive in ("epf", "m4"):
                _fetch_panel(archive, name)
            else:
                for split in ("TRAIN", "TEST"):
                    print(f"{name} {split}: {archive_file(archive, name, split)}")
        except (ValueError, DatasetNotAvailableError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
    return status


def _fetch_panel(archive: str, name: str) -> None:
    """Fetch an EPF market (TimeXer's file) or an M4 frequency (train and test) and say so."""
    from tsattn.datasets import load_epf, load_m4

    if archive == "epf":
        frame = load_epf(name)
        print(f"{name}: {len(frame)} hours x {frame.shape[1] - 3} covariates "
              f"({', '.join(frame.columns[3:])})")
        return
    for split in ("train", "test"):
        frame = load_m4(name, split)
        print(f"{name} {split}: {frame['unique_id'].nunique()} series, {len(frame)} values")


def _catalogue(args: argparse.Namespace) -> int:
    from tsattn.commands import writable_file
    from tsattn.datasets import render_readme

    text = render_readme()
    if args.write:
        writable_file(args.write, "--write")
        args.write.write_text(text, encoding="utf-8")
        print(f"wrote {args.write}")
    elif args.check:
        if not args.check.is_file() or args.check.read_text(encoding="utf-8") != text:
            print(f"{args.check} is out of date; run `tsattn datasets catalogue --write "
                  f"{args.check}`", file=sys.stderr)
            return 1
        print(f"{args.check} is up to date")
    else:
        sys.stdout.write(text)
    return 0
