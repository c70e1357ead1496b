"""Day-ahead electricity prices (EPF: NP, PJM, BE) under TimeXer's protocol, with peers in the
same run (``tsattn bench epf``).

Protocol (Wang et al., TimeXer, NeurIPS 2024, short-term forecasting with exogenous variables):
rows split 70/10/20 in time (``train = int(0.7 n)``, ``test = int(0.2 n)``, validation the rest);
every column standardised with TRAIN statistics; context 168, horizon 24; every window of the scored
split at stride 1, the first starting 168 rows before the split; MSE and MAE of the standardised
price. Two settings: ``past`` (the covariates' context rows only, TimeXer's) and ``future`` (the
day-ahead load/generation forecasts also known for the 24 target hours, the market's own setting).
``past+calendar`` and ``future+calendar`` add the calendar of every row (:func:`tsattn.io.add_calendar`:
the hour of the day and the day of the week as sine/cosine pairs, a weekend flag), known for the
horizon in both, to every model that reads covariates (the horizon's calendar follows from the
context's stamps: nothing of the future is read). TimeXer itself reads the context's time stamps
beside the covariates (``x_mark_enc`` joins its exogenous variate tokens in Time-Series-Library's
``models/TimeXer.py``), so its published rows are shown beside ``past`` and ``past+calendar``.
Models that read no covariates run once, under setting ``none``.

Models: ``naive_day`` (the previous day's 24 prices), ``naive_week`` (the same hours a week
before), ``ridge`` (a LEAR-style linear model: ridge regression of the 24 prices on the context's
prices and covariates, plus the covariates' horizon rows in the ``future`` setting, its penalty
chosen on the validation windows), ``lear`` (the same ridge on LEAR's scale, Lago et al. 2021:
the price and the covariates, not the calendar, centred on their TRAIN median over their MAD
and through ``asinh``, the forecast ``sinh()`` back), ``nf:NHITS`` and ``nf:TiDE`` (covariates through
``hist_exog_list`` / ``futr_exog_list``), ``nf:PatchTST`` (none) and ``tsattn``. The ``tsattn``
rows also record what the model did (:class:`~tsattn.benchmarks.panel_run.Parts`: ``blend``,
``anchor``, the network's and the anchor's MSE and MAE alone), and its errors per horizon step go
to ``horizon/<market>_<split>_<setting>_tsattn_<seed>.csv``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from tsattn.benchmarks.epf_data import SETTINGS, EPFData, read_epf
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

__all__ = ["EPFBenchmark", "EPFData", "PUBLISHED", "read_epf", "run_epf", "write_epf_report"]

METRICS = ["mse", "mae"]
COLUMNS = ["market", "split", "setting", "model", "seed", "mse", "mae", "n_windows", "seconds", "status",
           "cov80", "cov95", *part_columns(METRICS)]  # fmt: skip
COVARIATE_FREE = ("naive_day", "naive_week", "nf:PatchTST")

#: TimeXer (Wang et al., NeurIPS 2024), Table 2 (short-term EPF, past-only covariates), as in its
#: repository's figure ``Result_EPF.png``: (market, model, MSE, MAE); FR and DE TimeXer's own rows.
PUBLISHED = [
    ("NP", "TimeXer", 0.236, 0.268), ("NP", "iTransformer", 0.265, 0.300),
    ("NP", "PatchTST", 0.267, 0.284), ("NP", "DLinear", 0.309, 0.321),
    ("PJM", "TimeXer", 0.093, 0.192), ("PJM", "iTransformer", 0.097, 0.197),
    ("PJM", "PatchTST", 0.106, 0.209), ("PJM", "DLinear", 0.108, 0.215),
    ("BE", "TimeXer", 0.379, 0.243), ("BE", "iTransformer", 0.394, 0.270),
    ("BE", "PatchTST", 0.400, 0.262), ("BE", "DLinear", 0.463, 0.313),
    ("FR", "TimeXer", 0.385, 0.208), ("DE", "TimeXer", 0.440, 0.415),
]


@dataclass
class EPFBenchmark:
    """What one ``tsattn bench epf`` run fits."""

    models: list[str] = field(default_factory=lambda: ["naive_day", "naive_week", "ridge"])
    settings: list[str] = field(default_factory=lambda: ["past", "future"])
    seeds: list[int] = field(default_factory=lambda: [0])
    split: str = "val"
    context: int = 168
    horizon: int = 24
    max_steps: int = 1000
    ridge_alphas: tuple[float, ...] = (0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0)
    #: TSForecaster parameters of the ``tsattn`` entry (its defaults otherwise).
    tsattn_params: dict = field(default_factory=dict)


def _ridge_features(data: EPFData, split: str, setting: str) -> tuple[np.ndarray, np.ndarray]:
    """The context's prices and covariates, then the future-known covariates' horizon rows."""
    y_ctx, x_win, y_true = data.windows(split)
    w, c = len(y_ctx), data.context
    known = [data.covariates.index(name) for name in data.future(setting)]
    fut = x_win[:, c:][:, :, known]
    return np.concatenate([y_ctx, x_win[:, :c].reshape(w, -1), fut.reshape(w, -1)], axis=1), y_true


def _ridge(data: EPFData, setting: str, split: str, alphas: tuple[float, ...],
           lear: bool = False) -> np.ndarray:  # fmt: skip
    """Fit on TRAIN windows; the penalty with the lowest validation MSE (of the standardised
    price); forecast ``split``. ``lear``: on LEAR's scale (:func:`_lear_scale`)."""
    from sklearn.linear_model import Ridge

    inverse = lambda p: p  # noqa: E731
    if lear:
        data, inverse = _lear_scale(data)
    xt, yt = _ridge_features(data, "train", setting)
    xv, yv = _ridge_features(data, "val", setting)
    yv = inverse(yv)
    best, best_mse = None, np.inf
    for alpha in alphas:
        model = Ridge(alpha=alpha).fit(xt, yt)
        mse = float(np.mean((inverse(model.predict(xv)) - yv) ** 2))
        if mse < best_mse:
            best, best_mse = model, mse
    xs, _ = _ridge_features(data, split, setting)
    return inverse(best.predict(xs))


def _lear_scale(data: EPFData):
    """``(a copy of data on LEAR's scale, its inverse for the price)``: the covariates and the
    price (not the calendar) on the forecaster's own LEAR scale
    (:class:`tsattn.estimators.forecaster.scales.AsinhScale`: ``asinh((v - median) / (1.4826 MAD))``),
    fitted on TRAIN."""
    import copy

    from tsattn.estimators.forecaster.scales import AsinhScale

    n_cov = len(data.covariates) - len(data.calendar)
    cols = [data.values.shape[1] - 1, *range(n_cov)]  # the price first, as the scale's target
    scale = AsinhScale().fit([data.values[: data.n_train, cols]], 1)
    out = copy.copy(data)
    out.values = data.values.copy()
    out.values[:, cols] = scale.forward(data.values[:, cols], 1)
    return out, lambda p: scale.inverse(np.asarray(p)[..., None])[..., 0]


def _nf_frames(data: EPFData, split: str, setting: str, model: str):
    """Long frames for neuralforecast: TRAIN as one series; each window of ``split`` as a series
    of its ``context`` rows (``ds`` 0..context-1) and, for future-known covariates, ``futr_df``."""
    cov = data.covariates
    names = [f"x{i}" for i in range(len(cov))]
    reads = model != "nf:PatchTST"
    n = data.n_train
    train = pd.DataFrame({"unique_id": "train", "ds": np.arange(n), "y": data.values[:n, -1]})
    if reads:
        train[names] = data.values[:n, :-1]
    y_ctx, x_win, _ = data.windows(split)
    w, c, h = len(y_ctx), data.context, data.horizon
    ids = np.repeat(np.arange(w), c)
    df = pd.DataFrame({"unique_id": ids, "ds": np.tile(np.arange(c), w), "y": y_ctx.reshape(-1)})
    futr = None
    known = [cov.index(name) for name in data.future(setting)] if reads else []  # PatchTST: 'none'
    futr_names = [names[i] for i in known]
    if reads:
        df[names] = x_win[:, :c].reshape(-1, len(cov))
        if known:
            futr = pd.DataFrame({"unique_id": np.repeat(np.arange(w), h), "ds": np.tile(np.arange(c, c + h), w)})
            futr[futr_names] = x_win[:, c:][:, :, known].reshape(-1, len(known))
    exog = {"futr_exog": futr_names, "hist_exog": [n for n in names if n not in futr_names]}
    return train, df, futr, (exog if reads else {})


def _neural(data: EPFData, setting: str, split: str, model: str, seed: int, max_steps: int) -> np.ndarray:
    from tsattn.benchmarks.panel_peers import nf_fit_predict, nf_model

    train, df, futr, exog = _nf_frames(data, split, setting, model)
    extra = {"windows_batch_size": 256} if model == "nf:PatchTST" else {}
    net = nf_model(model[3:], data.horizon, data.context, max_steps, seed, **exog, **extra)
    pred = nf_fit_predict(net, train, predict_df=df, futr_df=futr)
    pred = pred.assign(unique_id=pred["unique_id"].astype(int)).sort_values(["unique_id", "ds"])
    if not np.array_equal(pred["unique_id"].to_numpy()[:: data.horizon], np.arange(len(df) // data.context)):
        raise ValueError("neuralforecast did not return one forecast of every window")
    return pred["y"].to_numpy(float).reshape(-1, data.horizon)


def _tsattn(data: EPFData, setting: str, split: str, seed: int, params: dict) -> tuple[np.ndarray, Parts]:
    """Our forecaster through the batch API of issue 51: fit on TRAIN, predict every window.
    Returns ``(windows, horizon, 5)``: the point forecast, then the quantiles ``BOUNDS`` (the
    80% and 95% intervals' bounds); and its :class:`Parts`, each ``(windows, horizon)`` (the
    point forecast is theirs)."""
    from tsattn.estimators import TSForecaster

    n = data.n_train
    x_train = pd.DataFrame(data.values[:n, :-1], columns=data.covariates)
    future = data.future(setting)
    g = TSForecaster(horizon=data.horizon, context_length=data.context, future_covariates=future,
                     random_state=seed, **params).fit(data.values[:n, -1], x_train)  # fmt: skip
    y_ctx, x_win, _ = data.windows(split)
    y_ctx, x_win = np.ascontiguousarray(y_ctx), np.ascontiguousarray(x_win)
    parts = Parts.of(g, y_ctx, X=x_win).map(lambda a: np.asarray(a)[..., 0])  # (windows, horizon): the price
    bounds = np.asarray(g.predict_quantiles(y_ctx, alpha=tuple(BOUNDS.values()), X=x_win))[:, :, 0, :]
    return np.concatenate([parts.forecast[..., None], bounds], axis=-1), parts


def forecast(data: EPFData, config: EPFBenchmark, model: str, setting: str, seed: int) -> np.ndarray:
    """``(windows, horizon)`` standardised price forecasts of ``model`` on ``config.split``; for
    ``tsattn`` ``(windows, horizon, 5)``: the point forecast, then the :data:`BOUNDS` quantiles."""
    split = config.split
    if model == "naive_day":
        return data.windows(split)[0][:, -data.horizon:].copy()
    if model == "naive_week":
        return data.windows(split)[0][:, : data.horizon].copy()
    if model in ("ridge", "lear"):
        return _ridge(data, setting, split, config.ridge_alphas, lear=model == "lear")
    if model.startswith("nf:"):
        return _neural(data, setting, split, model, seed, config.max_steps)
    if model == "tsattn":
        return _tsattn(data, setting, split, seed, config.tsattn_params)[0]
    raise ValueError(f"unknown model {model!r}: naive_day, naive_week, ridge, lear, nf:NHITS, nf:TiDE, "
                     "nf:PatchTST or tsattn")  # fmt: skip


def _fit_forecast(data: EPFData, config: EPFBenchmark, model: str, setting: str, seed: int
                  ) -> tuple[np.ndarray, Parts | None]:  # fmt: skip
    """``(forecast, parts)``: :func:`forecast`'s, and for ``tsattn`` what its model did (one fit;
    None for the others)."""
    if model == "tsattn":
        return _tsattn(data, setting, config.split, seed, config.tsattn_params)
    return forecast(data, config, model, setting, seed), None


def _seeded(model: str) -> bool:
    return model.startswith("nf:") or model == "tsattn"


def _score(data: EPFData, split: str, pred: np.ndarray) -> dict[str, float]:
    """MSE and MAE of the ``(windows, horizon)`` forecasts; given ``(windows, horizon, 5)`` (the
    point forecast and the :data:`BOUNDS` quantiles), also the share of prices inside the 80%
    and 95% intervals."""
    y_true = data.windows(split)[2]
    pred = np.asarray(pred, dtype=float)
    bounds = pred[..., 1:] if pred.ndim == 3 else None
    pred = (pred[..., 0] if pred.ndim == 3 else pred).reshape(y_true.shape)
    if not np.all(np.isfinite(pred)):
        raise ValueError("forecasts hold NaN or inf")
    err = pred - y_true
    out = {"mse": float(np.mean(err**2)), "mae": float(np.mean(np.abs(err))), "n_windows": len(y_true)}
    if bounds is not None:
        for k, c in enumerate(("95", "80")):  # BOUNDS' order: lo95, lo80, hi80, hi95
            out[f"cov{c}"] = coverage(y_true, bounds[..., k], bounds[..., -1 - k])
    return out


def errors_per_step(data: EPFData, split: str, pred: np.ndarray) -> pd.DataFrame:
    """MSE and MAE of the ``(windows, horizon)`` forecasts at each horizon step, over the windows:
    a frame indexed by step (1 .. horizon); their mean over steps is :func:`_score`'s."""
    y_true = data.windows(split)[2]
    err = np.asarray(pred, dtype=float).reshape(y_true.shape) - y_true
    steps = pd.RangeIndex(1, y_true.shape[1] + 1, name="step")
    return pd.DataFrame({"mse": np.mean(err**2, axis=0), "mae": np.mean(np.abs(err), axis=0)}, index=steps)


def _score_row(data: EPFData, split: str, pred: np.ndarray, parts: Parts | None, horizon_csv: Path,
               key: dict) -> dict[str, float]:  # fmt: skip
    """:func:`_score` of ``pred``; with ``parts``, also their :meth:`Parts.scores` and the errors
    per step in ``horizon_csv`` (with the row's ``key``)."""
    scored = _score(data, split, pred)
    if parts is not None:
        scored.update(parts.scores(partial(_score, data, split), METRICS))
        parts.write_horizon(horizon_csv, partial(errors_per_step, data, split), key)
    return scored


def run_epf(config: EPFBenchmark, paths: dict[str, str | Path], out: Path, command: str = "",
            progress: bool = True) -> pd.DataFrame:  # fmt: skip
    """Run every (market, setting, model, seed) not yet in ``out/results.csv`` (``paths``: market
    name -> CSV file), a row each; a model that raises gets its error in the row. Then the report."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with recorded_run(out, command, {**asdict(config), "markets": sorted(paths)}):
        done = done_keys(out / "results.csv", COLUMNS[:5], COLUMNS)
        for market, path in paths.items():
            frame = read_epf(path)
            data = EPFData(frame, config.context, config.horizon)
            with_calendar = None  # built on the first setting that needs it
            for model in config.models:
                settings = ["none"] if model in COVARIATE_FREE else config.settings
                for setting in settings:
                    if setting.endswith("+calendar") and with_calendar is None:
                        with_calendar = EPFData(frame, config.context, config.horizon, calendar=True)
                    on = with_calendar if setting.endswith("+calendar") else data
                    for seed in (config.seeds if _seeded(model) else [0]):
                        key = (market, config.split, setting, model, str(seed))
                        if key in done:
                            continue
                        columns = {**dict(zip(COLUMNS[:5], key, strict=True)), "seed": seed}
                        name = "_".join(key).replace(":", "-")
                        row, _ = scored_row(columns, partial(_fit_forecast, on, config, model, setting, seed),
                                            partial(_score_row, on, config.split, horizon_csv=out / "horizon"
                                                    / f"{name}.csv", key=columns))  # fmt: skip
                        write_row(out / "results.csv", row, COLUMNS, progress)
    write_epf_report(out)
    return pd.read_csv(out / "results.csv")


def write_epf_report(out: Path) -> None:
    """``results.md`` and ``summary.json``: per market and split, each setting's models (with the
    covariate-free ones) by MSE, mean and standard deviation over seeds; what the ``tsattn``
    models did (mean ``blend``, the ``anchor`` names, the network's and the anchor's MSE and MAE
    alone); TimeXer's published rows."""
    out = Path(out)
    results = pd.read_csv(out / "results.csv")
    ok = results[results["status"] == "ok"]
    parts = {}
    if "blend" in ok and ok["blend"].notna().any():
        parts = {"blend": ("blend", "mean"), "anchor": ("anchor", anchor_names),
                 **{f"{p}_{m.upper()}": (f"{p}_{m}", "mean") for p in ("net", "anchor") for m in METRICS}}  # fmt: skip
    summary = (ok.groupby(["market", "split", "setting", "model"], sort=False)
               .agg(seeds=("seed", "size"), MSE=("mse", "mean"), MSE_sd=("mse", "std"),
                    MAE=("mae", "mean"), MAE_sd=("mae", "std"), seconds=("seconds", "mean"),
                    **{c: (c, "mean") for c in ("cov80", "cov95") if c in ok}, **parts)
               .reset_index())  # fmt: skip
    summary.to_json(out / "summary.json", orient="records", indent=2)
    lines = ["# EPF day-ahead prices, TimeXer's protocol (context 168, horizon 24, every window)\n",
             "MSE and MAE of the standardised price; _sd over seeds (networks; - for one seed). "
             "`none`: models that read no covariates, shown in both settings.\n"]  # fmt: skip
    for (market, split), g in summary.drop(columns=list(parts)).groupby(["market", "split"], sort=False):
        for setting in SETTINGS:
            t = g[g["setting"].isin([setting, "none"])]
            if split == "test" and setting in ("past", "past+calendar"):  # TimeXer read the context's
                # time stamps too (its x_mark_enc): its table beside both
                pub = [{"market": market, "split": split, "setting": "published", "model": f"{m} (TimeXer Table 2)",
                        "MSE": mse, "MAE": mae} for mk, m, mse, mae in PUBLISHED if mk == market]  # fmt: skip
                t = pd.concat([t, pd.DataFrame(pub, columns=t.columns)], ignore_index=True)
                t["seeds"] = t["seeds"].astype("Int64")
            t = t.sort_values("MSE")
            if (t["setting"] == setting).any():
                lines += [f"\n## {market}, split {split}, covariates {setting}\n\n", markdown_table(t)]
    lines += parts_section(summary, COLUMNS[:4], ["MSE", "net_MSE", "anchor_MSE", "MAE", "net_MAE", "anchor_MAE"])
    pub = pd.DataFrame(PUBLISHED, columns=["market", "published (TimeXer, NeurIPS 2024, Table 2)", "MSE", "MAE"])
    lines += ["\n## published, test split, past-only covariates (not run here)\n\n", markdown_table(pub)]
    lines += failures(results, COLUMNS[:5])
    (out / "results.md").write_text("".join(lines), encoding="utf-8")
