"""Peers of the panel benchmarks: statsforecast's local models and neuralforecast's global networks
on long frames (``unique_id``, ``ds``, ``y`` [+ covariates]; integer ``ds``, ``freq=1``).

Both libraries are optional (the ``bench`` and ``neuralforecast`` extras) and imported lazily; a
missing one raises ``ImportError`` naming the extra, which the benchmark records in the model's row.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["NF_MODELS", "SF_MODELS", "nf_fit_predict", "nf_model", "statsforecast_forecast"]

#: statsforecast models of the M4 run, by name: season lengths come from the benchmark
SF_MODELS = ("AutoETS", "AutoTheta", "MSTL", "SeasonalNaive")
#: neuralforecast networks the benchmarks run
NF_MODELS = ("NHITS", "PatchTST", "TiDE")


def _import(module: str, extra: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(f"{module} is needed for this peer: pip install 'tsattn[{extra}]' ({err})") from err


def statsforecast_forecast(name: str, frame: pd.DataFrame, horizon: int, season: int,
                           seasons: tuple[int, ...] = ()) -> pd.DataFrame:  # fmt: skip
    """Forecast every series of the long ``frame`` ``horizon`` steps with statsforecast's model
    ``name`` (one of :data:`SF_MODELS`; MSTL decomposes at ``seasons``, default ``(season,)``, and
    forecasts its trend with AutoETS). Returns the long frame ``unique_id, ds, y``."""
    models = _import("statsforecast.models", "statsforecast")
    core = _import("statsforecast", "statsforecast")
    if name == "MSTL":
        model = models.MSTL(season_length=list(seasons or (season,)),
                            trend_forecaster=models.AutoETS(model="ZZN"))  # fmt: skip
    elif name in SF_MODELS:
        model = getattr(models, name)(season_length=season)
    else:
        raise ValueError(f"unknown statsforecast model {name!r}; choose from {SF_MODELS}")
    sf = core.StatsForecast(models=[model], freq=1, n_jobs=1)
    pred = sf.forecast(df=frame[["unique_id", "ds", "y"]], h=horizon)
    pred = pred.reset_index() if "unique_id" not in pred.columns else pred
    return pred.rename(columns={repr(model): "y"})[["unique_id", "ds", "y"]]


def nf_model(name: str, horizon: int, input_size: int, max_steps: int, seed: int,
             hist_exog: list[str] | None = None, futr_exog: list[str] | None = None,
             **kwargs: Any) -> Any:  # fmt: skip
    """A neuralforecast network ``name`` (one of :data:`NF_MODELS`) with ``max_steps`` optimiser
    steps, its seed, and its covariates (past-only ``hist_exog``, future-known ``futr_exog``;
    PatchTST reads none). ``kwargs`` override the library's defaults."""
    models = _import("neuralforecast.models", "neuralforecast")
    if name not in NF_MODELS:
        raise ValueError(f"unknown neuralforecast model {name!r}; choose from {NF_MODELS}")
    opts: dict[str, Any] = dict(h=horizon, input_size=input_size, max_steps=max_steps,
                                random_seed=seed, enable_progress_bar=False,
                                enable_model_summary=False, logger=False,
                                enable_checkpointing=False, accelerator="cpu")  # fmt: skip
    if name != "PatchTST":
        opts.update(hist_exog_list=hist_exog or None, futr_exog_list=futr_exog or None)
    elif hist_exog or futr_exog:
        raise ValueError("the PatchTST peer reads no covariates")
    opts.update(kwargs)
    return getattr(models, name)(**opts)


def nf_fit_predict(model: Any, train: pd.DataFrame, predict_df: pd.DataFrame | None = None,
                   futr_df: pd.DataFrame | None = None) -> pd.DataFrame:
    """Fit ``model`` (global) on the long frame ``train``; forecast the series of ``predict_df``
    (default: those of ``train``) from their last rows, with ``futr_df`` the horizon's future-known
    covariates. Returns the long frame ``unique_id, ds, y``."""
    core = _import("neuralforecast", "neuralforecast")
    nf = core.NeuralForecast(models=[model], freq=1)
    nf.fit(df=train)
    pred = nf.predict(df=predict_df, futr_df=futr_df)
    pred = pred.reset_index() if "unique_id" not in pred.columns else pred
    name = [c for c in pred.columns if c not in ("unique_id", "ds")][0]
    return pred.rename(columns={name: "y"})[["unique_id", "ds", "y"]]
