"""``tsattn bench``: benchmarks that write their results (CSV, markdown, plots).

Each benchmark is a sub-command registered by its own function: ``epoch``, ``fit-time`` and the two
kernel measurements behind code rules, ``sdpa-padding`` and ``dropout-mask``
(:mod:`tsattn.commands.bench_speed`); ``classify`` and ``regress`` (collections of series against
peers, :mod:`tsattn.commands.bench_collection`); ``forecast``, ``m4`` and ``epf`` (forecasting,
:mod:`tsattn.commands.bench_forecast`).
"""

from __future__ import annotations

import argparse

from tsattn.commands.bench_collection import register_classify, register_regress
from tsattn.commands.bench_forecast import register_epf, register_forecast, register_m4
from tsattn.commands.bench_speed import register_epoch, register_fit_time, register_kernels


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("bench", help="run a benchmark and write its results")
    sub = p.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    sub.required = True
    for add in (register_epoch, register_forecast, register_classify, register_regress,
                register_fit_time, register_kernels, register_m4, register_epf):  # --help's order
        add(sub)
    # --purpose and --unpublishable on the benches that score TEST: the TEST ledger
    from tsattn.benchmarks.ledger import add_arguments

    add_arguments(sub)
