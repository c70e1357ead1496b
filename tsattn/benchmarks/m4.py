"""One M4 frequency under the competition's rules, with peers in the same run (``tsattn bench m4``).

The frequency is read from the data (the series ids' first letter, checked against the file names;
:mod:`tsattn.benchmarks.m4_frequencies`), or given. It sets the horizon and the seasonal period
``m`` (:func:`tsattn.datasets.m4_info`: Yearly 6/1, Quarterly 8/4, Monthly 18/12, Weekly 13/1,
Daily 14/1, Hourly 48/24) and the peers' settings of :data:`~tsattn.benchmarks.m4_frequencies.SETTINGS`.
Scores (:mod:`tsattn.benchmarks.m4_scores`): sMAPE, MASE (lag ``m``), OWA against Naive2 of the
same split. Splits: ``val`` holds out the last ``horizon`` steps of every training series and reads
no test file (for choices); ``test`` fits on the whole training series and scores the test file.
Models: ``naive1``, ``snaive``, ``naive2`` (the M4 benchmarks, :mod:`~tsattn.benchmarks.m4_scores`),
``sf:AutoETS``, ``sf:AutoTheta``, ``sf:MSTL``, ``sf:SeasonalNaive`` (statsforecast, local),
``nf:NHITS``, ``nf:PatchTST`` (neuralforecast, one global network over the panel, ``max_steps``
optimiser steps) and ``tsattn`` (``TSForecaster(horizon=h, period=...).fit(long_frame).predict()``).
Each finished (split, model, seed) appends a row to ``results.csv``; a rerun skips the rows done.
The ``tsattn`` rows also record what the model did (:class:`~tsattn.benchmarks.panel_run.Parts`:
``blend``, ``anchor``, the network's and the anchor's scores alone), and its errors per horizon
step go to ``horizon/<split>_tsattn_<seed>.csv``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from tsattn.benchmarks import m4_scores as sc
from tsattn.benchmarks.m4_frequencies import PUBLISHED, SETTINGS, frequency_of, mstl_problem
from tsattn.benchmarks.panel_run import (
    BOUNDS,
    Parts,
    anchor_names,
    coverage,
    done_keys,
    failures,
    markdown_table,
    part_columns,
    parts_section,
    recorded_run,
    scored_row,
    write_row,
)
from tsattn.datasets import m4_info

__all__ = ["M4Benchmark", "PUBLISHED", "read_m4", "run_m4", "score_forecasts", "write_m4_report"]

METRICS = ["smape", "mase"]
COLUMNS = ["split", "model", "seed", "smape", "mase", "n_series", "seconds", "status", "cov80",
           "cov95", "msis", *part_columns(METRICS)]  # fmt: skip


@dataclass
class M4Benchmark:
    """What one ``tsattn bench m4`` run fits: ``models`` (names above), ``seeds`` of the seeded
    models (networks), the M4 ``frequency`` and what follows from it, and the networks' budget.

    Left None, ``frequency`` is read from the data, and the rest from the frequency
    (:meth:`resolve`): ``horizon`` and ``season`` (MASE's ``m``, Naive2's and statsforecast's
    season length) the competition's; ``mstl_seasons``, ``input_size`` (neuralforecast's context)
    and the ``tsattn`` entry's ``period`` from :data:`~tsattn.benchmarks.m4_frequencies.SETTINGS`.
    """

    models: list[str] = field(default_factory=lambda: ["naive1", "snaive", "naive2"])
    seeds: list[int] = field(default_factory=lambda: [0])
    split: str = "val"
    frequency: str | None = None
    horizon: int | None = None
    season: int | None = None
    mstl_seasons: tuple[int, ...] | None = None
    input_size: int | None = None
    max_steps: int = 1000
    #: TSForecaster parameters of the ``tsattn`` entry (its defaults, and the frequency's
    #: ``period``, otherwise).
    tsattn_params: dict = field(default_factory=dict)

    def resolve(self, frequency: str) -> M4Benchmark:
        """A copy with ``frequency`` (any case) and every setting left None filled from it."""
        info = m4_info(frequency)
        row = SETTINGS[info.frequency]
        defaults = {"horizon": info.horizon, "season": info.seasonal_period,
                    "mstl_seasons": row.mstl_seasons, "input_size": row.input_size}  # fmt: skip
        filled = {k: v if getattr(self, k) is None else getattr(self, k) for k, v in defaults.items()}
        filled["mstl_seasons"] = tuple(filled["mstl_seasons"])
        return replace(self, frequency=info.frequency, **filled,
                       tsattn_params={"period": row.period, **self.tsattn_params})  # fmt: skip


def read_m4(train_path: str | Path, test_path: str | Path | None = None
            ) -> tuple[pd.DataFrame, pd.DataFrame | None]:  # fmt: skip
    """The M4 competition's wide CSV files (one series a row: its id, then its values, padded
    with empty cells) as long frames ``unique_id, ds, y`` with ``ds`` the step 1, 2, ... of each
    series (the test rows continue their series' steps). Returns ``(train, test or None)``."""
    wide = pd.read_csv(train_path, index_col=0)
    train = _long(wide, start=None)
    if test_path is None:
        return train, None
    wide_test = pd.read_csv(test_path, index_col=0)
    missing = set(wide_test.index) ^ set(wide.index)
    if missing:
        raise ValueError(f"{test_path} and {train_path} hold different series, e.g. {sorted(missing)[:3]}")
    lengths = train.groupby("unique_id", sort=False).size()
    return train, _long(wide_test, start=lengths)


def _long(wide: pd.DataFrame, start: pd.Series | None) -> pd.DataFrame:
    rows = []
    for uid, values in wide.iterrows():
        y = values.dropna().to_numpy(float)
        offset = 0 if start is None else int(start[uid])
        rows.append(pd.DataFrame({"unique_id": uid, "ds": np.arange(1, len(y) + 1) + offset, "y": y}))
    return pd.concat(rows, ignore_index=True)


def split_panel(train: pd.DataFrame, test: pd.DataFrame | None, split: str, horizon: int
                ) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """``(fit, target)`` long frames: ``val`` cuts the last ``horizon`` rows of every training
    series off as the target; ``test`` fits on the training series and targets the test rows."""
    if split == "val":
        last = train.groupby("unique_id", sort=False)["ds"].transform("max")
        held = train["ds"] > last - horizon
        return train[~held].reset_index(drop=True), train[held].reset_index(drop=True)
    if split == "test":
        if test is None:
            raise ValueError("split='test' needs the test file (test_path)")
        return train, test
    raise ValueError(f"split must be 'val' or 'test'; got {split!r}")


def _scales(fit: pd.DataFrame, season: int) -> pd.Series:
    """Each series' MASE divisor: the mean absolute seasonal difference of its ``fit`` rows."""
    return fit.groupby("unique_id", sort=False)["y"].apply(lambda s: sc.mase_scale(s.to_numpy(), season))


def _errors(scale: pd.Series, target: pd.DataFrame, pred: pd.DataFrame) -> pd.DataFrame:
    """``target`` with ``pred``'s columns (``y`` as ``f``), each series' MASE ``scale``
    (:func:`_scales`) and each row's ``smape`` and ``mase`` error."""
    merged = target.merge(pred.rename(columns={"y": "f"}), on=["unique_id", "ds"], how="left")
    if merged["f"].isna().any():
        bad = merged.loc[merged["f"].isna(), "unique_id"].unique()
        raise ValueError(f"no (finite) forecast for {len(bad)} series' target rows, e.g. {list(bad[:3])}")
    merged["scale"] = merged["unique_id"].map(scale)
    merged["smape"] = sc.smape(merged["y"], merged["f"])
    merged["mase"] = np.abs(merged["y"] - merged["f"]) / merged["scale"]
    return merged


def _summary(merged: pd.DataFrame) -> dict[str, float]:
    """:func:`score_forecasts` of :func:`_errors`' frame."""
    out = {"smape": float(merged["smape"].mean()), "mase": float(merged["mase"].mean()),
           "n_series": int(merged["unique_id"].nunique())}  # fmt: skip
    if set(BOUNDS) <= set(merged.columns):
        y = merged["y"]
        for c in ("80", "95"):
            out[f"cov{c}"] = coverage(y, merged[f"lo{c}"], merged[f"hi{c}"])
        out["msis"] = float(sc.msis(y, merged["lo95"], merged["hi95"], merged["scale"]).mean())
    return out


def _per_step(merged: pd.DataFrame) -> pd.DataFrame:
    """:func:`errors_per_step` of :func:`_errors`' frame."""
    step = merged.groupby("unique_id", sort=False)["ds"].rank(method="first").astype(int)
    return merged.groupby(step.rename("step"))[METRICS].mean()


def score_forecasts(fit: pd.DataFrame, target: pd.DataFrame, pred: pd.DataFrame, season: int
                    ) -> dict[str, float]:  # fmt: skip
    """Mean sMAPE and MASE of ``pred`` (long ``unique_id, ds, y``) against ``target`` over every
    series and step; MASE scaled by each series' in-sample (``fit``) seasonal differences. Where
    ``pred`` has the :data:`BOUNDS` columns, also the share of targets inside its 80% and 95%
    intervals (``cov80``, ``cov95``) and the competition's MSIS of the 95% interval."""
    return _summary(_errors(_scales(fit, season), target, pred))


def errors_per_step(fit: pd.DataFrame, target: pd.DataFrame, pred: pd.DataFrame, season: int
                    ) -> pd.DataFrame:  # fmt: skip
    """sMAPE and MASE of ``pred`` at each horizon step (1: each series' first target row),
    averaged over series: a frame indexed by step. Where every series has the same number of
    target rows (the M4 splits: the horizon), their mean over steps is :func:`score_forecasts`'."""
    return _per_step(_errors(_scales(fit, season), target, pred))


def _local(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[pd.DataFrame, int], pd.DataFrame]:
    def forecast(fit: pd.DataFrame, horizon: int) -> pd.DataFrame:
        out = []
        for uid, g in fit.groupby("unique_id", sort=False):
            out.append(pd.DataFrame({"unique_id": uid, "ds": g["ds"].iloc[-1] + np.arange(1, horizon + 1),
                                     "y": fn(g["y"].to_numpy(float))}))  # fmt: skip
        return pd.concat(out, ignore_index=True)

    return forecast


def _forecaster(config: M4Benchmark, model: str, seed: int) -> Callable[[pd.DataFrame], pd.DataFrame]:
    h, m = config.horizon, config.season
    if model == "naive1":
        return lambda fit: _local(lambda x: sc.naive1(x, h))(fit, h)
    if model == "snaive":
        return lambda fit: _local(lambda x: sc.seasonal_naive(x, h, m))(fit, h)
    if model == "naive2":
        return lambda fit: _local(lambda x: sc.naive2(x, h, m))(fit, h)
    if model.startswith("sf:"):
        from tsattn.benchmarks.panel_peers import statsforecast_forecast

        def statsforecast(fit: pd.DataFrame) -> pd.DataFrame:
            if model == "sf:MSTL":
                _check_mstl(config, fit)
            return statsforecast_forecast(model[3:], fit, h, m, config.mstl_seasons)

        return statsforecast
    if model.startswith("nf:"):
        from tsattn.benchmarks.panel_peers import nf_fit_predict, nf_model

        extra = {"scaler_type": "standard"}
        if model == "nf:PatchTST":
            extra["windows_batch_size"] = 256
        return lambda fit: nf_fit_predict(
            nf_model(model[3:], h, config.input_size, config.max_steps, seed, **extra), fit)
    raise ValueError(f"unknown model {model!r}: naive1, snaive, naive2, sf:<statsforecast model>, "
                     "nf:NHITS, nf:PatchTST or tsattn")  # fmt: skip


def _check_mstl(config: M4Benchmark, fit: pd.DataFrame) -> None:
    """Raise the reason MSTL at ``config.mstl_seasons`` cannot apply to the series of ``fit``."""
    lengths = fit.groupby("unique_id", sort=False).size().to_dict()
    problem = mstl_problem(config.frequency, config.mstl_seasons, lengths)
    if problem:
        raise ValueError(problem)


def _fit_predict(config: M4Benchmark, model: str, seed: int, fit: pd.DataFrame
                 ) -> tuple[pd.DataFrame, Parts | None]:  # fmt: skip
    """``(forecast, parts)``: ``model``'s long-frame forecast of every series of ``fit``, and for
    ``tsattn`` what its model did (None for the others)."""
    if model == "tsattn":
        return _tsattn(fit, config.horizon, seed, config.tsattn_params)
    return _forecaster(config, model, seed)(fit), None


def _tsattn(fit: pd.DataFrame, horizon: int, seed: int, params: dict) -> tuple[pd.DataFrame, Parts]:
    """Our forecaster on the long frame, one global model (the API of issue 51): its forecast
    with the :data:`BOUNDS` columns, and its :class:`Parts` (the point forecast is theirs)."""
    from tsattn.estimators import TSForecaster

    f = TSForecaster(horizon=horizon, random_state=seed, **params)
    f.fit(fit[["unique_id", "ds", "y"]])
    parts = Parts.of(f)
    pred = parts.forecast[["unique_id", "ds", "y"]].copy()
    bounds = f.predict_quantiles(alpha=tuple(BOUNDS.values()))
    for name, level in BOUNDS.items():
        pred[name] = bounds[level].to_numpy()
    return pred, parts


def _score(fit: pd.DataFrame, target: pd.DataFrame, pred: pd.DataFrame, parts: Parts | None,
           season: int, horizon_csv: Path, key: dict) -> dict[str, float]:  # fmt: skip
    """:func:`score_forecasts` of ``pred``; with ``parts``, also their :meth:`Parts.scores` and
    the errors per step in ``horizon_csv`` (with the row's ``key``)."""
    scale = _scales(fit, season)  # once for the forecast and its parts
    scored = _summary(_errors(scale, target, pred))
    if parts is not None:
        scored.update(parts.scores(lambda p: _summary(_errors(scale, target, p)), METRICS))
        parts.write_horizon(horizon_csv, lambda p: _per_step(_errors(scale, target, p)), key)
    return scored


def _seeded(model: str) -> bool:
    return model.startswith("nf:") or model == "tsattn"


def run_m4(config: M4Benchmark, train_path: str | Path, test_path: str | Path | None, out: Path,
           command: str = "", progress: bool = True) -> pd.DataFrame:  # fmt: skip
    """Run every (model, seed) of ``config`` not yet in ``out/results.csv`` on its split, appending
    a row each (a model that raises gets a row with its error), then write the report. The test
    file is read only for ``split='test'``. Returns the results."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with recorded_run(out, command, asdict(config)) as record:
        test_path = test_path if config.split == "test" else None
        train, test = read_m4(train_path, test_path)
        config = config.resolve(frequency_of(train["unique_id"].unique(), [train_path, test_path],
                                             config.frequency))  # fmt: skip
        record.entry["config"] = asdict(config)
        earlier = _folder_frequency(out, before_last=True)
        if earlier not in (None, config.frequency):
            raise ValueError(f"{out} holds results of M4 {earlier}; give this {config.frequency} "
                             "run its own --out folder")  # fmt: skip
        fit, target = split_panel(train, test, config.split, config.horizon)
        done = done_keys(out / "results.csv", ["split", "model", "seed"], COLUMNS)
        for model in config.models:
            for seed in (config.seeds if _seeded(model) else [0]):
                if (config.split, model, str(seed)) in done:
                    continue
                key = {"split": config.split, "model": model, "seed": seed}
                name = f"{config.split}_{model.replace(':', '-')}_{seed}"
                row, result = scored_row(key, partial(_fit_predict, config, model, seed, fit), partial(
                    _score, fit, target, season=config.season, horizon_csv=out / "horizon" / f"{name}.csv",
                    key=key))  # fmt: skip
                if result is not None and row["status"] == "ok":
                    (out / "forecasts").mkdir(exist_ok=True)
                    result[0].to_csv(out / "forecasts" / f"{name}.csv.gz", index=False)
                write_row(out / "results.csv", row, COLUMNS, progress)
    write_m4_report(out)
    return pd.read_csv(out / "results.csv")


def _folder_frequency(out: Path, before_last: bool = False) -> str | None:
    """The M4 frequency of the latest run recorded in ``out/run.json`` that knew its frequency
    (``before_last``: not counting the latest run): Hourly for runs from before the benchmark took
    other frequencies (their configs have no ``frequency``); None without such runs."""
    path = Path(out) / "run.json"
    runs = json.loads(path.read_text(encoding="utf-8"))["runs"] if path.is_file() else []
    configs = [r.get("config", {}) for r in (runs[:-1] if before_last else runs)]
    named = [c["frequency"] if "frequency" in c else "Hourly" for c in configs]
    named = [f for f in named if f]  # None: a run that failed before reading its data
    return named[-1] if named else None


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    """Per (split, model): seeds, mean sMAPE and MASE (± their standard deviation over seeds), OWA
    against Naive2 of the same split, mean seconds, the intervals' scores; for models with
    :class:`Parts` (``tsattn``), what they did: mean ``blend``, the ``anchor`` names, and the
    network's and the anchor's sMAPE, MASE and OWA alone. Errors listed apart."""
    ok = results[results["status"] == "ok"]
    rows = []
    for (split, model), g in ok.groupby(["split", "model"], sort=False):
        base = ok[(ok["split"] == split) & (ok["model"] == "naive2")]
        n2s, n2m = (base["smape"].mean(), base["mase"].mean()) if len(base) else (np.nan, np.nan)
        owas = [sc.owa(s, m, n2s, n2m) for s, m in zip(g["smape"], g["mase"], strict=True)]
        rows.append({"split": split, "model": model, "seeds": len(g),
                     "sMAPE": g["smape"].mean(), "sMAPE_sd": g["smape"].std(),
                     "MASE": g["mase"].mean(), "MASE_sd": g["mase"].std(),
                     "OWA": float(np.mean(owas)), "OWA_sd": float(np.std(owas, ddof=1)) if len(g) > 1 else np.nan,
                     "seconds": g["seconds"].mean(),
                     **{c: g[c].mean() for c in ("cov80", "cov95", "msis") if c in g and g[c].notna().any()},
                     **_parts_summary(g, n2s, n2m)})  # fmt: skip
    return pd.DataFrame(rows)


def _parts_summary(g: pd.DataFrame, n2s: float, n2m: float) -> dict:
    """Mean ``blend``, the ``anchor`` names, the network's and the anchor's mean sMAPE, MASE and
    OWA (against Naive2's ``n2s``, ``n2m``) over ``g``'s seeds; empty without them."""
    if "blend" not in g or not g["blend"].notna().any():
        return {}
    out = {"blend": g["blend"].mean(), "anchor": anchor_names(g["anchor"])}
    for column in ("log_blend", "switched", "logged"):
        if column in g and g[column].notna().any():
            out[column] = g[column].mean()
    for p in ("net", "anchor"):
        smape, mase = g[f"{p}_smape"], g[f"{p}_mase"]
        owas = [sc.owa(s, m, n2s, n2m) for s, m in zip(smape, mase, strict=True)]
        out.update({f"{p}_sMAPE": smape.mean(), f"{p}_MASE": mase.mean(), f"{p}_OWA": float(np.mean(owas))})
    return out


#: The report's columns of what the ``tsattn`` models did (beside ``blend`` and ``anchor``).
PART_TABLE = ["sMAPE", "net_sMAPE", "anchor_sMAPE", "MASE", "net_MASE", "anchor_MASE", "OWA", "net_OWA",
              "anchor_OWA"]  # fmt: skip


def write_m4_report(out: Path, frequency: str | None = None) -> None:
    """``results.md`` and ``summary.json`` of ``out/results.csv``, with the published rows of its
    M4 ``frequency`` (default: the one its ``run.json`` records)."""
    out = Path(out)
    info = m4_info(frequency or _folder_frequency(out) or "Hourly")
    results = pd.read_csv(out / "results.csv")
    table = summarise(results)
    table.to_json(out / "summary.json", orient="records", indent=2)
    ok = results.loc[results["status"] == "ok", "n_series"]
    n_series = int(ok.max()) if len(ok) else info.n_series
    lines = [f"# M4 {info.frequency} ({n_series} series, horizon {info.horizon}, m = {info.seasonal_period})\n",
             "sMAPE and MASE averaged over every series and step; OWA against Naive2 of the same "
             "split and run; _sd: the standard deviation over seeds (networks only; - for one seed).\n"]  # fmt: skip
    for split in table["split"].unique() if len(table) else []:
        t = table[table["split"] == split].sort_values("OWA")
        main = t.drop(columns=["blend", "log_blend", "anchor", "switched", "logged",
                               *(c for c in PART_TABLE if c.startswith(("net_", "anchor_")))],
                      errors="ignore")  # fmt: skip
        lines += [f"\n## split: {split}\n\n", markdown_table(main)]
        lines += parts_section(t, ["split", "model"], ["log_blend", "switched", "logged", *PART_TABLE])
    source, rows, note = PUBLISHED[info.frequency]
    pub = pd.DataFrame(rows, columns=[f"published ({source})", "sMAPE", "MASE", "OWA"])
    lines += ["\n## published, test split (not run here)\n\n", markdown_table(pub)]
    lines += [f"\n{note}\n"] if note else []
    lines += failures(results, ["split", "model", "seed"])
    (out / "results.md").write_text("".join(lines), encoding="utf-8")
