"""What the command line shows: ``--version`` and help text without reST markup."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import pytest

import tsattn
from tsattn.cli import build_parser, main
from tsattn.commands import plain_text

MARKUP = re.compile(r"``|:[a-z]+:`")


def _parsers(parser: argparse.ArgumentParser, name: str = "tsattn"):
    """``(name, parser)`` of the command line and of every sub-command, at any depth."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from _parsers(child, f"{name} {sub}")


def test_no_help_text_shows_rest_markup():
    shown = {name: parser.format_help() for name, parser in _parsers(build_parser())}
    assert len(shown) > 8  # the commands and their sub-commands
    bad = {name: MARKUP.findall(text) for name, text in shown.items() if MARKUP.search(text)}
    assert not bad, f"reST markup in --help: {bad}"


def test_plain_text_drops_roles_and_literals_the_check_would_catch():
    doc = "Writes ``a.csv`` (:mod:`tsattn.analysis.fit_profile`; :func:`~tsattn.x.run`; :ref:`why <w>`)."
    assert MARKUP.search(doc)
    assert plain_text(doc) == "Writes a.csv (tsattn.analysis.fit_profile; run; why)."


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"tsattn {tsattn.__version__}"
    out = subprocess.run([sys.executable, "-m", "tsattn", "--version"], capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    assert out.strip() == f"tsattn {tsattn.__version__}"


def test_dir_of_the_package_lists_the_api_only():
    names = dir(tsattn)
    assert {"TSClassifier", "TSRegressor", "TSForecaster", "list_attention", "__version__"} <= set(names)
    assert not {"TYPE_CHECKING", "annotations", "importlib"} & set(names)
    assert all(not n.startswith("_") or n == "__version__" for n in names)
