"""The ``tsattn`` sub-commands, one module each, and what they share to check their arguments.

Arguments are checked before any work: ``argparse`` types for numbers (:func:`positive_int`, ...),
and :func:`output_dir`, :func:`check_attentions` and :func:`resolve_dataset` for the rest, which
raise :class:`CommandError`; ``tsattn.cli.main`` prints its message (what was received, what is
allowed, the likely fix) without a traceback and exits with status 2.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tsattn._validation import close_matches, did_you_mean

__all__ = [
    "CommandError",
    "positive_int",
    "nonnegative_int",
    "positive_float",
    "fraction",
    "output_dir",
    "writable_file",
    "check_attentions",
    "resolve_dataset",
    "parse_params",
    "check_estimator_params",
    "command_line",
    "plain_text",
]


_ROLE = re.compile(r":[a-z]+:`~?([^`<]*?)\s*(?:<[^`>]*>)?`")


def plain_text(doc: str | None) -> str:
    """A docstring as a terminal shows it, without reST markup: a role becomes the name it shows
    (the last part of a ``~`` target; the text of a ``text <target>`` one) and literals lose their
    double backticks.

    >>> plain_text("Writes ``a.csv`` (:mod:`tsattn.analysis.fit_profile`, :func:`~tsattn.x.run`).")
    'Writes a.csv (tsattn.analysis.fit_profile, run).'
    """

    def shown(match: re.Match) -> str:
        text = match.group(1)
        return text.rsplit(".", 1)[-1] if match.group(0).split("`", 1)[1].startswith("~") else text

    return _ROLE.sub(shown, doc or "").replace("``", "")


class CommandError(Exception):
    """Invalid command-line input, found before any work; ``main`` prints it and exits with 2."""


def _number(text: str, kind: type, what: str, ok, allowed: str):
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _number(text, int, "an integer", lambda v: v >= 1, "an integer >= 1")


def nonnegative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return _number(text, int, "an integer", lambda v: v >= 0, "an integer >= 0")


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    return _number(text, float, "a number", lambda v: math.isfinite(v) and v > 0,
                   "a finite number > 0")  # fmt: skip


def fraction(text: str) -> float:
    """argparse type: a number strictly between 0 and 1."""
    return _number(text, float, "a number", lambda v: 0 < v < 1, "a number in (0, 1)")


def _unwritable(folder: Path) -> OSError | None:
    """Create ``folder`` and write a file there; the error if that fails."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".tsattn-write-test-"):
            pass
    except OSError as err:
        return err
    return None


def output_dir(path: str | os.PathLike, option: str = "--out") -> Path:
    """Create ``path`` and prove it writable by writing a file there, before any work is done.

    Raises :class:`CommandError` naming the option, the folder and the operating system's reason.
    """
    path = Path(path).expanduser()
    err = _unwritable(path)
    if err is not None:
        raise CommandError(
            f"{option} {str(path)!r} cannot be written ({err.strerror or err}); the results "
            f"would be lost after the work. Give {option} a folder you can write to."
        )
    return path


def writable_file(path: str | os.PathLike, option: str) -> Path:
    """Check that the file ``path`` can be created or written (its folder is created)."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise CommandError(f"{option} {str(path)!r} is a folder; give a file name, e.g. "
                           f"{str(path / 'study.db')!r}.")  # fmt: skip
    err = _unwritable(path.parent)
    if err is None and path.exists() and not os.access(path, os.W_OK):
        err = PermissionError("permission denied")
    if err is not None:
        raise CommandError(
            f"{option} {str(path)!r} cannot be written ({getattr(err, 'strerror', None) or err} "
            f"in {str(path.parent)!r}). Give {option} a file in a folder you can write to."
        )
    return path


def check_attentions(names: Sequence[str], option: str = "--attentions",
                     extra: Sequence[str] = ()) -> None:  # fmt: skip
    """Raise :class:`CommandError` unless every name is a registered attention variant (or one
    of ``extra``)."""
    from tsattn import list_attention

    valid = [*list_attention(), *extra]
    unknown = [a for a in names if a not in valid]
    if unknown:
        raise CommandError(
            f"unknown attention {unknown[0]!r} for {option}.{did_you_mean(unknown[0], valid)} "
            f"Valid: {', '.join(valid)}."
        )


_ARCHIVE_USE = {
    "uea": "a UEA classification set",
    "ucr": "a UCR classification set",
    "tser": "a TSER regression set",
    "forecasting": "a forecasting set",
}
_COMMAND_FOR = {
    "uea": "`tsattn compare --dataset {name}` or `tsattn tune --dataset {name}`",
    "ucr": "`tsattn compare --dataset {name}` or `tsattn tune --dataset {name}`",
    "tser": "`tsattn tune --dataset {name}`",
    "forecasting": "`tsattn bench forecast --dataset {name}`",
}


def _takes(archives: Sequence[str]) -> str:
    if set(archives) == {"uea", "ucr"}:
        return "a UEA or UCR classification set"
    if set(archives) == {"uea", "ucr", "tser"}:
        return "a UEA or UCR classification set or a TSER regression set"
    return " or ".join(_ARCHIVE_USE[a] for a in archives)


def resolve_dataset(name: str, archives: Sequence[str], command: str,
                    hint: str = "") -> tuple[str, str]:  # fmt: skip
    """``(archive, catalogue spelling)`` of ``name`` among ``archives`` (case-insensitive).

    A name found only in another archive, or in none, raises :class:`CommandError` saying which
    command takes it, or listing close matches (then ``hint``).
    """
    from tsattn.datasets.catalogue import ARCHIVES, FORECASTING, archive_names

    every = (*ARCHIVES, FORECASTING)
    found = {}
    for archive in every:
        for spelling in archive_names(archive):
            if spelling.lower() == str(name).lower():
                found.setdefault(archive, spelling)
    for archive in archives:
        if archive in found:
            return archive, found[archive]
    if found:
        other, spelling = next(iter(found.items()))
        raise CommandError(
            f"{name!r} is {_ARCHIVE_USE[other]}, but `tsattn {command}` takes "
            f"{_takes(archives)}; use "
            f"{_COMMAND_FOR[other].format(name=spelling)}."
        )
    names = [n for a in archives for n in archive_names(a)]
    close_hint = did_you_mean(name, names, 5, quote=False)
    elsewhere = [f"{n} ({a})" for a in every if a not in archives
                 for n in close_matches(name, archive_names(a), 3)]  # fmt: skip
    if elsewhere:
        close_hint += f" Close names in other archives: {', '.join(elsewhere)}."
    raise CommandError(
        f"unknown dataset {name!r} for `tsattn {command}` (it takes {_takes(archives)}).{close_hint} "
        f"`tsattn datasets list` prints every name.{hint}"
    )


def parse_params(items: Sequence[str], option: str = "--param") -> dict:
    """``["beta=0.6", "scales=[1,2]"]`` -> ``{"beta": 0.6, "scales": (1, 2)}`` (values as JSON,
    else as strings; lists become tuples)."""
    import json

    params = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise CommandError(f"{option} needs NAME=VALUE (e.g. {option} beta=0.6), got {item!r}.")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        params[key.strip()] = tuple(value) if isinstance(value, list) else value
    return params


def check_estimator_params(estimator_cls: type, params: dict, option: str = "--param"):
    """Build ``estimator_cls(**params)`` and check its parameters before any data is loaded.

    Returns the estimator. Unknown names (with close matches) and invalid values raise
    :class:`CommandError`.
    """
    valid = estimator_cls().get_params()
    if "callbacks" in params:
        raise CommandError(f"{option} callbacks=...: callbacks are Python objects and cannot be "
                           "given on the command line; use the Python API for them.")
    for name in params:
        if name not in valid:
            raise CommandError(
                f"{option} {name}=...: {estimator_cls.__name__} has no parameter {name!r}."
                f"{did_you_mean(name, valid)} Valid: {', '.join(sorted(valid))}."
            )
    if "device" in params:
        from tsattn.training import resolve_device

        try:
            resolve_device(params["device"])
        except (ValueError, RuntimeError, TypeError) as err:
            raise CommandError(f"--device {params['device']!r}: {err}") from None
    estimator = estimator_cls(**params)
    validate = getattr(estimator, "_validate", None)  # the estimators' own checks
    if validate is not None:
        import warnings

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # fit warns again, once, where it matters
                validate()
        except (ValueError, TypeError) as err:
            raise CommandError(f"{option}: {err}") from None
    return estimator


def command_line(args: argparse.Namespace) -> str:
    """The command a benchmark records: ``tsattn`` and the arguments ``tsattn.cli.main`` parsed
    (``args.argv``, paths made portable), quoted as a shell needs them."""
    import shlex

    return "tsattn " + " ".join(shlex.quote(a) for a in getattr(args, "argv", []))
