"""The ``tsattn`` command line.

Each sub-command lives in its own module under :mod:`tsattn.commands` and exposes
``register(subparsers)``, which adds an ``argparse`` parser whose ``func`` default is called
with the parsed namespace and returns an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from tsattn._version import __version__

# Explicit list (no discovery by listing a folder): one line per sub-command module.
_COMMAND_MODULES = (
    "tsattn.commands.compare",
    "tsattn.commands.datasets",
    "tsattn.commands.bench",
    "tsattn.commands.profile",
    "tsattn.commands.tune",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tsattn",
        description="Time-series transformers with a choice of attention mechanism.",
    )
    parser.add_argument("--version", action="version", version=f"tsattn {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    from tsattn.benchmarks.ledger import DirtyTestRun
    from tsattn.commands import CommandError
    from tsattn.datasets.cache import DatasetNotAvailableError, SettingError

    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    from tsattn.benchmarks import portable_paths

    args.argv = portable_paths(argv)  # the command line, for benchmarks that record their command
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt as exc:
        print(f"interrupted: {exc}" if str(exc) else "interrupted", file=sys.stderr)
        return 130
    except CommandError as exc:  # bad input found before any work: the message says it all
        print(f"{_prog(args)}: error: {exc}", file=sys.stderr)
        return 2
    except DirtyTestRun as exc:  # a TEST run from a dirty tree: refused before any work
        print(f"{_prog(args)}: error: {exc}", file=sys.stderr)
        return 2
    except (DatasetNotAvailableError, SettingError) as exc:
        print(f"{_prog(args)}: error: {exc}", file=sys.stderr)
        return 1


def _prog(args: argparse.Namespace) -> str:
    """``tsattn bench forecast``: the command and sub-command that ran."""
    words = [args.command, getattr(args, "benchmark", None), getattr(args, "datasets_command", None)]
    return " ".join(["tsattn", *filter(None, words)])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
