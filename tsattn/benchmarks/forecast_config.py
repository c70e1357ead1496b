"""The settings of a ``tsattn bench forecast`` run (:mod:`tsattn.benchmarks.forecast`):
:class:`ForecastBenchmark` (recorded in ``config.json``), :func:`model_setting` (the
``TSForecaster`` parameters a model's name fixes) and :func:`check_settings` (every setting checked
before any work).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tsattn._validation import did_you_mean
from tsattn.benchmarks.forecast_baselines import BASELINES
from tsattn.benchmarks.forecast_peers import PEERS

__all__ = ["ForecastBenchmark", "check_settings", "model_setting"]


@dataclass
class ForecastBenchmark:
    """Settings of one run (recorded in ``config.json``).

    ``horizons``/``context_length`` None: the catalogue's protocol for each dataset. ``attentions``
    None: ``TSForecaster``'s default attention. ``heads`` None: the default head (or the one in
    ``params``), model names without it; else every attention with every head, named
    ``tsattn:<attention>/<head>``. ``peer_seeds`` None: ``seeds``. ``peer_steps``
    ``"auto"``: the optimiser steps of the ``TSForecaster`` of the same dataset and horizon.
    """

    datasets: Sequence[str] = ("ETTh1",)
    horizons: Sequence[int] | None = None
    context_length: int | None = None
    attentions: Sequence[str] | None = None
    heads: Sequence[str] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    label: str | None = None
    peers: Sequence[str] = tuple(PEERS)
    baselines: Sequence[str] = BASELINES
    seeds: Sequence[int] = (0,)
    peer_seeds: Sequence[int] | None = None
    peer_steps: int | str = "auto"
    split: str = "test"
    ar_lags: int = 24
    device: str = "cpu"
    n_plot: int = 2

    def setting(self, dataset: str) -> tuple[int, tuple[int, ...]]:
        """``(context_length, horizons)`` of ``dataset``: the options, else its catalogue entry
        (a CSV file's: 96 and 96/192/336/720)."""
        from tsattn.datasets import forecasting_entry

        entry = forecasting_entry(dataset)[1]
        context = self.context_length or int(entry.get("context_length", 96))
        horizons = self.horizons or entry.get("horizons", (96, 192, 336, 720))
        return context, tuple(int(h) for h in horizons)

    def model_names(self) -> list[str]:
        from tsattn.estimators.forecasting import TSForecaster

        suffix = f"[{self.label}]" if self.label else ""
        attentions = self.attentions
        if attentions is None:
            attentions = [self.params.get("attention", TSForecaster().attention)]
        if self.heads is None:
            return [f"tsattn:{a}{suffix}" for a in dict.fromkeys(attentions)]
        return [f"tsattn:{a}/{h}{suffix}" for a in dict.fromkeys(attentions)
                for h in dict.fromkeys(self.heads)]  # fmt: skip


def model_setting(model: str) -> dict[str, str]:
    """The ``TSForecaster`` parameters a model name fixes: ``{"attention": ...}`` and, for
    ``tsattn:<attention>/<head>[label]``, ``"head"``."""
    name = model.split(":", 1)[1].split("[", 1)[0]
    attention, _, head = name.partition("/")
    return {"attention": attention, **({"head": head} if head else {})}


def check_settings(config: ForecastBenchmark, n_rows: dict[str, int] | None = None) -> None:
    """Check every setting of ``config`` before any work, as ``TSForecaster`` and the datasets
    will (``n_rows``: the rows of datasets not yet read); a ``ValueError`` says what to change."""
    import tsattn
    from tsattn.datasets import forecasting_borders, forecasting_entry, load_forecasting
    from tsattn.estimators.forecasting import TSForecaster
    from tsattn.training import resolve_device

    if config.split not in ("test", "val"):
        raise ValueError(f"split must be 'test' or 'val'; got {config.split!r}.")
    resolve_device(config.device)
    for what, names, valid in (("peer", config.peers, PEERS), ("baseline", config.baselines, BASELINES)):
        bad = [n for n in names if n not in valid]
        if bad:
            raise ValueError(f"unknown {what}(s) {bad}.{did_you_mean(bad[0], valid, 1, quote=False)} "
                             f"Valid: {', '.join(valid)}.")  # fmt: skip
    registered = tsattn.list_attention()
    unknown = [a for a in (config.attentions or []) if a not in registered]
    if unknown:
        raise ValueError(f"unknown attention(s) {unknown}; valid: {', '.join(registered)}.")
    from tsattn.nn.forecasting import list_heads

    bad_heads = [h for h in (config.heads or []) if h not in list_heads()]
    if bad_heads or (config.heads is not None and not config.heads):
        raise ValueError(f"heads must be some of {', '.join(list_heads())}; got "
                         f"{list(config.heads)}.")  # fmt: skip
    if not (config.model_names() or config.peers or config.baselines):
        raise ValueError("nothing to run: no attentions, peers or baselines.")
    if not config.seeds or (config.peer_seeds is not None and not config.peer_seeds):
        raise ValueError("seeds is empty; give at least one.")
    if config.peer_steps != "auto" and (isinstance(config.peer_steps, bool) or not isinstance(
            config.peer_steps, int) or config.peer_steps < 1):  # fmt: skip
        raise ValueError(f"peer_steps must be 'auto' or an integer >= 1; got {config.peer_steps!r}.")
    if isinstance(config.ar_lags, bool) or not isinstance(config.ar_lags, int) or config.ar_lags < 1:
        raise ValueError(f"ar_lags must be an integer >= 1; got {config.ar_lags!r}.")
    for dataset in config.datasets:
        name, entry = forecasting_entry(dataset)  # a file is read here: bad contents fail first
        context, horizons = config.setting(dataset)
        if not horizons or any(isinstance(h, bool) or h < 1 for h in horizons):
            raise ValueError(f"horizons must be integers >= 1; got {list(horizons)}.")
        rows = (n_rows or {}).get(dataset) or (entry["shape"][0] if "shape" in entry
                                               else len(load_forecasting(dataset)))  # fmt: skip
        borders = forecasting_borders(dataset, rows, context)
        for part, (start, end) in zip(("train", "validation", "test"), borders, strict=True):
            longest = end - start - context
            if max(horizons) > longest:
                raise ValueError(
                    f"horizon {max(horizons)} leaves no {part} window: the {part} split of {name} "
                    f"has {longest} rows after a context of {context}; use horizons <= {longest}."
                )
        for model in config.model_names():
            est = TSForecaster(horizons[0], context, **{**config.params, **model_setting(model)},
                               device=config.device)  # fmt: skip
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # fit warns again where it matters
                est.validate()
