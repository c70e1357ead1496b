"""Long-horizon forecasting benchmark (``tsattn bench forecast``), following ``protocols.md``.

For each horizon: the standard splits of :func:`tsattn.datasets.forecasting_splits` (scaler fitted
on train only), every stride-1 window of the test split (none dropped), MSE and MAE on the scaled
data. Models: :class:`tsattn.TSForecaster` for each requested attention and head (trained on the
scaled train split, early-stopped on the validation split), and two baselines that need no
training on test:

* ``naive_last`` repeats the last value of the context (a random walk; hard to beat on exchange
  rates) and ``seasonal_naive`` repeats the last season of the context (period per dataset, see
  :data:`SEASONAL_PERIODS`; when the period is longer than the context it falls back to the last
  value);
* ``ar`` (statsmodels): per channel, an ``AutoReg`` with a constant and ``ar_lags`` lags fitted once
  on the scaled train split; each test window is forecast recursively from its own context with
  those fixed coefficients (fit once, filter each window: cheap on long test sets).
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tsattn.benchmarks import BenchmarkInterrupted, raise_if_interrupted

__all__ = [
    "SEASONAL_PERIODS",
    "PAPER_SETTINGS",
    "ForecastBenchmark",
    "seasonal_naive",
    "fit_ar",
    "ar_forecast",
    "run_forecast_benchmark",
    "check_config",
    "RESULT_COLUMNS",
]

#: Columns of ``results.csv``, one row per (horizon, model, seed).
RESULT_COLUMNS = ("dataset", "horizon", "context_length", "n_test_windows", "model", "attention",
                  "head", "seed", "mse", "mae", "n_epochs", "best_epoch", "fit_s", "predict_s")

#: Seasonal period (in rows) of each set for the seasonal-naive baseline.
SEASONAL_PERIODS = {
    "ETTh1": 24, "ETTh2": 24, "ETTm1": 96, "ETTm2": 96, "electricity": 24, "traffic": 24,
    "weather": 144, "exchange_rate": 1, "illness": 52,
}  # fmt: skip

#: (context_length, horizons) used by the papers (Informer/Autoformer line; 002 Table 2).
PAPER_SETTINGS = {"illness": (36, (24, 36, 48, 60))}
_DEFAULT_SETTING = (96, (96, 192, 336, 720))


@dataclass
class ForecastBenchmark:
    """Settings of one benchmark run (recorded next to the results as ``config.json``)."""

    dataset: str
    horizons: Sequence[int] | None = None
    context_length: int | None = None
    attentions: Sequence[str] = ("softmax", "s3")
    heads: Sequence[str] = ("linear", "fourier")
    seeds: Sequence[int] = (0,)
    max_epochs: int = 30
    patience: int = 5
    max_train_windows: int | None = None
    patch_len: int = 16
    batch_size: int = 32
    lr: float = 1e-3
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    dim_feedforward: int = 64
    dropout: float = 0.1
    instance_norm_eps: float | None = None  # None: TSForecaster's default
    ar_lags: int = 24
    baselines: bool = True
    n_plot: int = 3
    device: str = "cpu"
    extra: dict = field(default_factory=dict)

    def resolved(self) -> tuple[int, tuple[int, ...]]:
        context, horizons = PAPER_SETTINGS.get(self.dataset, _DEFAULT_SETTING)
        return (
            self.context_length or context,
            tuple(self.horizons) if self.horizons else horizons,
        )


# ---------------------------------------------------------------------- baselines
def seasonal_naive(contexts: np.ndarray, horizon: int, period: int) -> np.ndarray:
    """Repeat the last ``period`` steps of each context: ``(n, L, C)`` -> ``(n, horizon, C)``.

    A period longer than the context falls back to 1 (repeat the last value).
    """
    length = contexts.shape[1]
    if period > length:
        period = 1
    idx = length - period + (np.arange(horizon) % period)
    return np.asarray(contexts[:, idx])


def fit_ar(train: np.ndarray, lags: int) -> np.ndarray:
    """Per-channel ``AutoReg(lags, trend="c")`` coefficients ``(C, 1 + lags)`` (constant first,
    then lag 1..lags) fitted on ``train (rows, C)`` with statsmodels."""
    try:
        from statsmodels.tsa.ar_model import AutoReg
    except ImportError as err:  # pragma: no cover - optional dependency
        raise ImportError(
            "the 'ar' baseline needs statsmodels: pip install 'tsattn[stats]'"
        ) from err
    return np.stack(
        [AutoReg(train[:, c], lags=lags, trend="c").fit().params for c in range(train.shape[1])]
    )


def ar_forecast(params: np.ndarray, contexts: np.ndarray, horizon: int) -> np.ndarray:
    """Recursive AR forecast of every window at once: ``(n, L, C)`` -> ``(n, horizon, C)``."""
    lags = params.shape[1] - 1
    if contexts.shape[1] < lags:
        raise ValueError(f"ar_lags={lags} exceeds the context length {contexts.shape[1]}")
    history = np.array(contexts[:, -lags:], dtype=np.float64)  # oldest first
    coef = params[:, 1:][:, ::-1].T  # (lags, C), oldest lag first
    out = np.empty((contexts.shape[0], horizon, contexts.shape[2]))
    for step in range(horizon):
        nxt = params[:, 0] + np.einsum("nlc,lc->nc", history, coef)
        out[:, step] = nxt
        history = np.concatenate([history[:, 1:], nxt[:, None]], axis=1)
    return out


def _errors(pred: np.ndarray, target: np.ndarray) -> tuple[float, float]:
    diff = pred - target
    return float(np.mean(diff**2)), float(np.mean(np.abs(diff)))


# ---------------------------------------------------------------------- the run
def run_forecast_benchmark(
    config: ForecastBenchmark,
    out: str | Path | None = None,
    frame: pd.DataFrame | None = None,
    log=print,
) -> pd.DataFrame:
    """Run the benchmark and write ``results.csv``, ``results.md``, ``config.json`` and one plot of
    sample forecasts per horizon into ``out`` (default ``results/forecast/<dataset>/``).

    ``frame`` replaces :func:`tsattn.datasets.load_forecasting` (for tests); it is split by the
    borders of ``config.dataset``. Returns one row per (horizon, model, seed).
    """

    from tsattn.datasets import forecasting_splits, load_forecasting
    from tsattn.estimators.forecasting import TSForecaster

    models = check_config(config, None if frame is None else len(frame))  # before any work
    context, horizons = config.resolved()
    eps = models[0].instance_norm_eps if models else TSForecaster().instance_norm_eps
    out = Path(out) if out is not None else Path("results") / "forecast" / config.dataset
    out.mkdir(parents=True, exist_ok=True)
    attentions = list(dict.fromkeys(config.attentions))
    df = frame if frame is not None else load_forecasting(config.dataset)
    splits = forecasting_splits(df, config.dataset, context)
    train, val = splits.scaled("train"), splits.scaled("val")
    period = SEASONAL_PERIODS.get(config.dataset, 1)
    ar_params = fit_ar(train, min(config.ar_lags, context)) if config.baselines else None
    rows, samples = [], {}
    for horizon in horizons:
        contexts, targets = splits.windows("test", horizon)
        contexts, targets = np.array(contexts), np.array(targets)
        base = dict(dataset=config.dataset, horizon=horizon, context_length=context,
                    n_test_windows=len(contexts))  # fmt: skip
        preds: dict[str, np.ndarray] = {}
        if config.baselines:
            for name in ("naive_last", "seasonal_naive", "ar"):
                t0 = time.perf_counter()
                if name == "ar":
                    pred = ar_forecast(ar_params, contexts, horizon)
                else:
                    pred = seasonal_naive(
                        contexts, horizon, period if name == "seasonal_naive" else 1
                    )
                predict_s = time.perf_counter() - t0
                mse, mae = _errors(pred, targets)
                rows.append({**base, "model": name, "attention": "", "head": "", "seed": "",
                             "mse": mse, "mae": mae, "n_epochs": 0, "best_epoch": 0,
                             "fit_s": 0.0, "predict_s": predict_s})  # fmt: skip
                preds[name] = pred
                log(f"{config.dataset} h={horizon} {name}: mse={mse:.4f} mae={mae:.4f}")
        for attention in attentions:
            for head in config.heads:
                for seed in config.seeds:
                    model = _model(config, horizon, context, attention, head, seed)
                    t0 = time.perf_counter()
                    try:
                        model.fit(train, y_val=val)
                        raise_if_interrupted(model)
                    except KeyboardInterrupt:
                        _write(out, pd.DataFrame(rows), config, context, horizons, eps,
                               attentions, period, interrupted=True)  # fmt: skip
                        raise BenchmarkInterrupted(
                            pd.DataFrame(rows),
                            f"interrupted during {attention}/{head} seed {seed}, horizon {horizon}; "
                            f"finished runs written to {out / 'results.csv'}",
                        ) from None
                    fit_s = time.perf_counter() - t0
                    t0 = time.perf_counter()
                    pred = model.predict(contexts)
                    predict_s = time.perf_counter() - t0
                    mse, mae = _errors(pred, targets)
                    name = f"{attention}/{head}"
                    rows.append({**base, "model": name, "attention": attention, "head": head,
                                 "seed": seed, "mse": mse, "mae": mae, "n_epochs": model.n_epochs_,
                                 "best_epoch": model.best_epoch_, "fit_s": fit_s,
                                 "predict_s": predict_s})  # fmt: skip
                    preds.setdefault(name, pred)
                    log(f"{config.dataset} h={horizon} {name} seed={seed}: mse={mse:.4f} "
                        f"mae={mae:.4f} epochs={model.n_epochs_} fit={fit_s:.0f}s")  # fmt: skip
        samples[horizon] = (contexts, targets, preds)
        _plot(out / f"forecast_h{horizon}.png", config.dataset, horizon, samples[horizon],
              config.n_plot, list(df.columns))  # fmt: skip
    results = pd.DataFrame(rows)
    _write(out, results, config, context, horizons, eps, attentions, period)
    return results


def _model(config: ForecastBenchmark, horizon: int, context: int, attention: str, head: str,
           seed: int):
    from tsattn.estimators.forecasting import TSForecaster

    eps = {} if config.instance_norm_eps is None else {"instance_norm_eps": config.instance_norm_eps}
    return TSForecaster(
        horizon, context, attention, head=head, max_epochs=config.max_epochs,
        patience=config.patience, max_train_windows=config.max_train_windows,
        batch_size=config.batch_size, lr=config.lr, d_model=config.d_model,
        n_heads=config.n_heads, n_layers=config.n_layers,
        dim_feedforward=config.dim_feedforward, dropout=config.dropout, patch_len=config.patch_len,
        device=config.device, random_state=seed, **eps, **config.extra,
    )  # fmt: skip


def check_config(config: ForecastBenchmark, n_rows: int | None = None) -> list:
    """Check every setting of ``config`` before any work; return one unfitted model per attention
    and head (at the first horizon and seed). Raises ``ValueError`` saying what to change.

    Unknown attention names (with close matches), an unknown dataset, empty lists, a run with
    nothing to measure, a context or horizon the splits cannot hold (``n_rows``: the frame's
    rows; default the catalogue's), and any value a :class:`tsattn.TSForecaster` would refuse at
    its first fit are caught here rather than after the first models have trained.
    """
    import difflib

    import tsattn
    from tsattn.datasets import forecasting_borders
    from tsattn.datasets.catalogue import catalogue, resolve_name
    from tsattn.training import resolve_device

    resolve_name(config.dataset, "forecasting")  # close matches for a misspelt name
    resolve_device(config.device)
    registered = tsattn.list_attention()
    unknown = [a for a in config.attentions if a not in registered]
    if unknown:
        hints = [a + (f" (did you mean {', '.join(m)}?)" if (m := difflib.get_close_matches(
            a, registered, 3)) else "") for a in unknown]  # fmt: skip
        raise ValueError(f"unknown attention(s): {', '.join(hints)}; valid: "
                         f"{', '.join(registered)}.")
    if list(config.attentions):
        for name, values in (("heads", config.heads), ("seeds", config.seeds)):
            if not list(values):
                raise ValueError(f"{name} is empty; give at least one to train the attentions.")
    elif not config.baselines:
        raise ValueError("nothing to run: no attentions and baselines=False.")
    context, horizons = config.resolved()
    if not horizons or any(isinstance(h, bool) or not isinstance(h, int) or h < 1
                           for h in horizons):  # fmt: skip
        raise ValueError(f"horizons must be integers >= 1; got {list(horizons)}.")
    if isinstance(config.ar_lags, bool) or not isinstance(config.ar_lags, int) or config.ar_lags < 1:
        raise ValueError(f"ar_lags must be an integer >= 1; got {config.ar_lags!r}.")
    name = resolve_name(config.dataset, "forecasting")
    if n_rows is None:
        n_rows = catalogue()["forecasting"][name]["shape"][0]
    borders = forecasting_borders(name, n_rows, context)
    for part, (start, end) in zip(("train", "validation", "test"), borders, strict=True):
        longest = end - start - context
        if max(horizons) > longest:
            raise ValueError(
                f"horizon {max(horizons)} leaves no {part} window: the {part} split of {name} "
                f"has {longest} rows after a context of {context}; use horizons <= {longest}."
            )
    models = []
    for attention in dict.fromkeys(config.attentions):
        for head in dict.fromkeys(config.heads):
            model = _model(config, horizons[0], context, attention, head, config.seeds[0])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # fit warns again where it matters
                model._validate()
            models.append(model)
    return models


def _write(out: Path, results: pd.DataFrame, config: ForecastBenchmark, context: int, horizons,
           eps: float, attentions: list[str], period: int, interrupted: bool = False) -> None:
    """``results.csv``, ``results.md`` and ``config.json`` (``interrupted``: Ctrl-C cut the run)."""
    import torch

    import tsattn

    if results.empty:  # the columns, so that the file can be read back
        results = pd.DataFrame(columns=RESULT_COLUMNS)
    results.to_csv(out / "results.csv", index=False)
    if len(results):
        (out / "results.md").write_text(_markdown(results, config, eps), encoding="utf-8")
    (out / "config.json").write_text(
        json.dumps(
            {
                **asdict(config),
                "context_length": context,
                "horizons": list(horizons),
                "instance_norm_eps": eps,
                "attentions_run": attentions,
                "seasonal_period": period,
                "torch_threads": torch.get_num_threads(),
                "tsattn_version": tsattn.__version__,
                "interrupted": interrupted,
            },
            indent=2,
            default=lambda o: list(o) if isinstance(o, (set, frozenset)) else repr(o),
        ),  # fmt: skip
        encoding="utf-8",
    )


def _markdown(results: pd.DataFrame, config: ForecastBenchmark, eps: float) -> str:
    grouped = results.groupby(["horizon", "model"], sort=False)
    table = grouped.agg(mse=("mse", "mean"), mse_std=("mse", "std"), mae=("mae", "mean"),
                        mae_std=("mae", "std"), n=("mse", "size"),
                        fit_s=("fit_s", "mean")).reset_index()  # fmt: skip
    lines = [
        f"# {config.dataset}: test MSE / MAE on the train-scaled data (every test window)",
        "",
        f"seeds {list(config.seeds)}, max_epochs {config.max_epochs}, max_train_windows "
        f"{config.max_train_windows}, instance_norm_eps {eps:g}; mean (± std over seeds). Baselines: naive_last repeats the "
        "last value, seasonal_naive the last season, ar is a per-channel statsmodels AutoReg "
        "fitted on train.",
        "",
        "| horizon | model | MSE | MAE | seeds | fit s |",
        "|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        sd = "" if pd.isna(r.mse_std) else f" ± {r.mse_std:.4f}"
        sda = "" if pd.isna(r.mae_std) else f" ± {r.mae_std:.4f}"
        lines.append(
            f"| {r.horizon} | {r.model} | {r.mse:.4f}{sd} | {r.mae:.4f}{sda} | {r.n} | {r.fit_s:.0f} |"
        )
    return "\n".join(lines) + "\n"


def _plot(path: Path, dataset: str, horizon: int, sample, n_plot: int, columns: list) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    contexts, targets, preds = sample
    if n_plot < 1 or not preds:
        return
    picks = np.linspace(0, len(contexts) - 1, n_plot).astype(int)
    channel = contexts.shape[2] - 1  # the target column (OT) is last in these files
    fig, axes = plt.subplots(n_plot, 1, figsize=(10, 2.6 * n_plot), squeeze=False)
    for ax, i in zip(axes[:, 0], picks, strict=True):
        L = contexts.shape[1]
        ax.plot(np.arange(L), contexts[i, :, channel], color="black", lw=1, label="context")
        steps = np.arange(L, L + horizon)
        ax.plot(steps, targets[i, :, channel], color="black", lw=1, ls="--", label="truth")
        for name, pred in preds.items():
            ax.plot(steps, pred[i, :, channel], lw=1, label=name)
        ax.set_title(f"{dataset} window {i}, channel {columns[channel]}, h={horizon}", fontsize=9)
    axes[0, 0].legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
