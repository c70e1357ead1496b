"""What ``tsattn bench m4`` takes from the M4 frequency of its files.

- :func:`frequency_of`: the frequency, read from the series ids' first letter (``H1``, ``W17``: the
  catalogue's ``m4.frequencies`` prefixes) and checked against the file names where they name one
  (``Weekly-train.csv``); an explicit frequency overrides both.
- :data:`SETTINGS`: the per-frequency settings of the peers that are facts of the data, in one
  table. The competition's horizon and seasonal period ``m`` (MASE's, Naive2's and statsforecast's
  season length) are the catalogue's, :func:`tsattn.datasets.m4_info`, and are not repeated here.
- :data:`PUBLISHED`: the published results of each frequency, with where each number comes from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tsattn.datasets import m4_info
from tsattn.datasets.catalogue import catalogue

__all__ = ["PUBLISHED", "SETTINGS", "FrequencySettings", "frequency_of", "mstl_problem"]


@dataclass(frozen=True)
class FrequencySettings:
    """Settings of one M4 frequency that follow from its data (the files carry no dates).

    Attributes
    ----------
    mstl_seasons : tuple of int
        Seasons of statsforecast's MSTL: the cycles of the sampling rate (a day and a week of hours,
        a week of days, a year of weeks, months or quarters); ``()`` where the data has none
        (Yearly), and MSTL does not apply.
    input_size : int
        Context of the neuralforecast peers: 168 (a week) for Hourly, as its committed runs; else
        twice the horizon, the context of the Time-Series-Library's M4 protocol
        (``thuml/Time-Series-Library``, ``exp/exp_short_term_forecasting.py``: ``seq_len = 2 *
        pred_len``) and within the ``input_size_multiplier`` grids (horizon x 1..5 for NHITS,
        x 1..3 for PatchTST) of the auto models neuralforecast runs on M4 in its own evaluation
        (``Nixtla/neuralforecast``, ``experiments/nf_evaluation``).
    period : int
        ``period`` of the ``tsattn`` entry's TSForecaster (its seasonal anchors' cycle), which
        cannot read it from integer steps: Hourly 24, Daily 7, Weekly 52, Monthly 12, Quarterly 4,
        Yearly 1 (none). ``--param period=...`` overrides it.
    """

    mstl_seasons: tuple[int, ...]
    input_size: int
    period: int


#: One row per M4 frequency (see :class:`FrequencySettings`).
SETTINGS: dict[str, FrequencySettings] = {
    "Hourly": FrequencySettings(mstl_seasons=(24, 168), input_size=168, period=24),
    "Daily": FrequencySettings(mstl_seasons=(7,), input_size=2 * 14, period=7),
    "Weekly": FrequencySettings(mstl_seasons=(52,), input_size=2 * 13, period=52),
    "Monthly": FrequencySettings(mstl_seasons=(12,), input_size=2 * 18, period=12),
    "Quarterly": FrequencySettings(mstl_seasons=(4,), input_size=2 * 8, period=4),
    "Yearly": FrequencySettings(mstl_seasons=(), input_size=2 * 6, period=1),
}


def mstl_problem(frequency: str, seasons: tuple[int, ...], lengths: dict[str, int]) -> str | None:
    """Why statsforecast's MSTL cannot be run at ``seasons`` on series of these ``lengths``
    (``{series id: fitted values}``), or None when it can. statsforecast runs it anyway on series
    shorter than two of the longest season, with a seasonal component it cannot estimate; the
    benchmark records this message in the model's row instead."""
    if not seasons:
        return (f"M4 {frequency} has no season (m = 1 and no cycle in its sampling rate): MSTL does "
                "not apply; leave sf:MSTL out of --models for this frequency")  # fmt: skip
    need = 2 * max(seasons)
    short = {uid: n for uid, n in lengths.items() if n < need}
    if not short:
        return None
    uid = min(short, key=short.get)
    return (f"MSTL at seasons {seasons} needs two periods ({need} values) of every series; "
            f"{len(short)} of {len(lengths)} {frequency} series are shorter (the shortest, {uid}, "
            f"has {short[uid]}): leave sf:MSTL out of --models, or keep only the longer series")  # fmt: skip


def _by_prefix() -> dict[str, str]:
    return {entry["prefix"]: name for name, entry in catalogue()["m4"]["frequencies"].items()}


def _named(path: str | Path) -> str | None:
    """The frequency a file name spells before its first ``-`` (``Weekly-train.csv``), any case."""
    head = Path(path).name.split("-")[0].split(".")[0].lower()
    return {name.lower(): name for name in _by_prefix().values()}.get(head)


def frequency_of(ids: Iterable[str], paths: Iterable[str | Path | None] = (),
                 frequency: str | None = None) -> str:  # fmt: skip
    """The M4 frequency of a panel: ``frequency`` (any case) when given; else the one its series
    ``ids`` name by their first letter, checked against each of ``paths`` whose file name names a
    frequency. Raises ``ValueError`` for mixed or unknown letters or a disagreeing file name,
    saying what was found and how to choose (``--frequency`` / ``M4Benchmark(frequency=...)``)."""
    if frequency is not None:
        return m4_info(frequency).frequency
    prefixes = _by_prefix()
    known = ", ".join(f"{p} ({name})" for p, name in prefixes.items())
    found = Counter(str(uid)[:1] for uid in ids)
    if len(found) != 1 or next(iter(found)) not in prefixes:
        seen = ", ".join(f"{n} ids starting {p!r}" for p, n in found.most_common(6)) or "no series"
        raise ValueError(f"the series ids name no single M4 frequency: {seen}. M4 files hold one "
                         f"frequency each, their ids starting with {known}. Pass --frequency "
                         "(M4Benchmark(frequency=...)) to say which frequency's rules to use.")  # fmt: skip
    prefix = next(iter(found))
    inferred = prefixes[prefix]
    for path in paths:
        named = _named(path) if path is not None else None
        if named is not None and named != inferred:
            raise ValueError(f"{Path(path).name} is named for M4 {named}, but its series ids start "
                             f"with {prefix!r} (M4 {inferred}). Check that the right file was "
                             f"given, or pass --frequency {named} or --frequency {inferred} "
                             "(M4Benchmark(frequency=...)) to choose.")  # fmt: skip
    return inferred


#: Published results on each frequency's TEST split: ``(source, rows, note)``, each row ``(method,
#: sMAPE, MASE, OWA)``; ``note``: where they are from.
#:
#: From the competition's own evaluation: ``Evaluation and Ranks.xlsx`` in
#: ``Mcompetitions/M4-methods`` (commit 6c1067e, the commit the data files are pinned to), sheet
#: "Point Forecasts-Frequency": the benchmarks Naive (Naive1), sNaive and Naive2, user 118 (Smyl,
#: ES-RNN, first overall) and user 245 (Montero-Manso et al., FFORMA, second), and where neither
#: is the frequency's lowest OWA, the submission that is (sheet "Methods": Hourly user 238, Daily
#: 237, Weekly 235), rounded to three decimals. Its Hourly values are the M4 paper's (Makridakis, Spiliotis and Assimakopoulos, IJF
#: 36(1), 2020) and this benchmark reproduces its Naive1, sNaive and Naive2 rows to the third
#: decimal (tests/benchmarks/test_m4.py). On Weekly, Daily and Yearly (m = 1) the three benchmarks
#: coincide.
_NAIVE2 = "Naive2 (M4 benchmark)"
_SOURCE = "M4's own evaluation, {}"
_CITED = ("From the competition's evaluation file: Mcompetitions/M4-methods (commit 6c1067e), "
          "`Evaluation and Ranks.xlsx`, sheet Point Forecasts-Frequency (ES-RNN: user 118; "
          "FFORMA: user 245; the best on Hourly, Daily, Weekly: users 238, 237, 235).")
PUBLISHED: dict[str, tuple[str, list[tuple[str, float, float, float]], str]] = {
    "Hourly": (_SOURCE.format("Hourly"), [
        ("Naive1 (M4 benchmark)", 43.003, 11.608, 3.593),
        ("sNaive (M4 benchmark)", 13.912, 1.193, 0.627),
        (_NAIVE2, 18.383, 2.395, 1.000),
        ("Smyl ES-RNN (M4 winner)", 9.328, 0.893, 0.440),
        ("Montero-Manso et al. FFORMA (2nd)", 11.506, 0.819, 0.484),
        ("Doornik et al. (best on Hourly, 9th overall)", 8.913, 0.801, 0.410),
    ], _CITED),
    "Daily": (_SOURCE.format("Daily"), [
        ("Naive1 (M4 benchmark)", 3.045, 3.278, 1.000),
        ("sNaive (M4 benchmark)", 3.045, 3.278, 1.000),
        (_NAIVE2, 3.045, 3.278, 1.000),
        ("Smyl ES-RNN (M4 winner)", 3.170, 3.446, 1.046),
        ("Montero-Manso et al. FFORMA (2nd)", 3.097, 3.344, 1.019),
        ("Pawlikowski et al. (best on Daily, 3rd overall)", 2.452, 2.642, 0.806),
    ], _CITED),
    "Weekly": (_SOURCE.format("Weekly"), [
        ("Naive1 (M4 benchmark)", 9.161, 2.777, 1.000),
        ("sNaive (M4 benchmark)", 9.161, 2.777, 1.000),
        (_NAIVE2, 9.161, 2.777, 1.000),
        ("Smyl ES-RNN (M4 winner)", 7.817, 2.356, 0.851),
        ("Montero-Manso et al. FFORMA (2nd)", 7.625, 2.108, 0.796),
        ("Darin and Stellwagen (best on Weekly, 16th overall)", 6.582, 2.107, 0.739),
    ], _CITED),
    "Monthly": (_SOURCE.format("Monthly"), [
        ("Naive1 (M4 benchmark)", 15.256, 1.205, 1.096),
        ("sNaive (M4 benchmark)", 15.988, 1.260, 1.147),
        (_NAIVE2, 14.427, 1.063, 1.000),
        ("Smyl ES-RNN (M4 winner)", 12.126, 0.884, 0.836),
        ("Montero-Manso et al. FFORMA (2nd)", 12.639, 0.893, 0.858),
    ], _CITED),
    "Quarterly": (_SOURCE.format("Quarterly"), [
        ("Naive1 (M4 benchmark)", 11.610, 1.477, 1.066),
        ("sNaive (M4 benchmark)", 12.521, 1.602, 1.153),
        (_NAIVE2, 11.012, 1.371, 1.000),
        ("Smyl ES-RNN (M4 winner)", 9.679, 1.118, 0.847),
        ("Montero-Manso et al. FFORMA (2nd)", 9.733, 1.111, 0.847),
    ], _CITED),
    "Yearly": (_SOURCE.format("Yearly"), [
        ("Naive1 (M4 benchmark)", 16.342, 3.974, 1.000),
        ("sNaive (M4 benchmark)", 16.342, 3.974, 1.000),
        (_NAIVE2, 16.342, 3.974, 1.000),
        ("Smyl ES-RNN (M4 winner)", 13.176, 2.980, 0.778),
        ("Montero-Manso et al. FFORMA (2nd)", 13.528, 3.060, 0.799),
    ], _CITED),
}
