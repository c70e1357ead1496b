"""neuralforecast's models as peers of ``tsattn bench forecast``: PatchTST, iTransformer, DLinear,
NHITS, trained and scored in the benchmark's process on the benchmark's arrays.

The series handed over is the benchmark's own: the rows up to the end of the scored split, already
standardised with the train-only scaler. neuralforecast's ``cross_validation`` (no refit, step 1)
trains each model on the windows whose targets lie before the validation split
(``val_size + test_size`` rows are held back from training) and forecasts every stride-1 window of
the scored split, so the peers see exactly the benchmark's test windows; :func:`peer_forecasts`
checks that the targets it gets back are the benchmark's to the last digit.

Settings: the library's defaults (sizes, learning rates, their MAE training loss, their window
scaling) except the budget and what the protocol fixes: ``input_size`` (the context) and ``h``,
``max_steps`` (the same number of optimiser steps as the ``TSForecaster`` it is compared with),
``windows_batch_size`` of the univariate models (PatchTST, DLinear, NHITS) set to
``TSForecaster``'s ``batch_size`` of univariate windows (their default 1024 is four times more
data per step), ``n_series`` of iTransformer, ``random_seed``, the device (the benchmark's
``device``), and validation never run during training (``val_check_steps`` past the budget: their
defaults do not early-stop, so it would only cost time). neuralforecast is an optional
dependency (``pip install 'tsattn[neuralforecast]'``).
"""

from __future__ import annotations

import logging
import os
import time
import warnings

import numpy as np
import pandas as pd

__all__ = ["PEERS", "memory_problem", "missing_peers", "peer_forecasts"]

#: Peer name -> neuralforecast model class.
PEERS = {"patchtst": "PatchTST", "itransformer": "iTransformer", "dlinear": "DLinear",
         "nhits": "NHITS"}  # fmt: skip
_MULTIVARIATE = {"itransformer"}


#: Bytes per forecast value at the peak of neuralforecast's ``cross_validation`` and of reading its
#: frame back (five 8-byte columns a value, then the sort and reshape copies): an estimate, which
#: put the NHITS fit of ETTm1 at h720 (54 million values) at 6.5 GB where it took 5.2 GB.
BYTES_PER_VALUE = 120


def memory_problem(n_windows: int, horizon: int, n_channels: int,
                   available: int | None = None) -> str | None:  # fmt: skip
    """Why a peer's forecasts of every window cannot be held here (None when they can, or when the
    machine's memory is unknown): neuralforecast returns them all at once, one frame row per value,
    so Traffic at h96 needs about 34 GB whatever the model. ``available``: bytes of memory (default:
    the machine's physical memory)."""
    if available is None:
        try:
            available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (AttributeError, ValueError, OSError):  # not a POSIX system: no check
            return None
    need = n_windows * horizon * n_channels * BYTES_PER_VALUE
    if need <= available:
        return None
    return (f"neuralforecast would hold all {n_windows} x {horizon} x {n_channels} forecast values "
            f"at once, about {need / 1e9:.0f} GB, on a machine with {available / 1e9:.0f} GB; run "
            "the peers on a larger machine (the rest of the run goes on, and a rerun there resumes "
            "it) or give --horizons or a shorter set.")  # fmt: skip


def missing_peers() -> str | None:
    """None when neuralforecast imports, else a one-line reason to print."""
    try:
        import neuralforecast  # noqa: F401
    except ImportError as err:
        return (f"neuralforecast is not installed ({err}); the peers {', '.join(PEERS)} are "
                "skipped: pip install 'tsattn[neuralforecast]'")  # fmt: skip
    return None


def peer_forecasts(
    name: str, series: np.ndarray, targets: np.ndarray, context_length: int, horizon: int,
    n_val: int, n_scored: int, seed: int, max_steps: int, batch_size: int, device: str = "cpu",
) -> tuple[np.ndarray, dict]:  # fmt: skip
    """Train peer ``name`` and forecast every window of the scored split.

    Parameters
    ----------
    series : (T, C) standardised rows from the start of training to the end of the scored split.
    targets : (n_windows, horizon, C) the benchmark's targets, to check the windows are the same.
    n_val : rows between the end of training and the scored split (0 when scoring validation).
    n_scored : rows of the scored split (without its context).
    device : the benchmark's device (``"cpu"``, ``"cuda"``, ``"auto"``): the peer trains there too.

    Returns
    -------
    forecasts ``(n_windows, horizon, C)`` and ``{"fit_s", "n_steps"}``.
    """
    os.environ.setdefault("PL_DISABLE_FORK", "1")
    for logger in ("pytorch_lightning", "lightning", "lightning.pytorch", "lightning_fabric"):
        logging.getLogger(logger).setLevel(logging.ERROR)
    from neuralforecast import NeuralForecast, models

    from tsattn.training import resolve_device

    # devices=1 always: given none, neuralforecast asks for every GPU (devices=-1) whenever CUDA is
    # present, which Lightning refuses on the CPU accelerator (found by the suite on an H100)
    accelerator = "gpu" if resolve_device(device).type == "cuda" else "cpu"

    n_rows, n_channels = series.shape
    frame = pd.DataFrame({
        "unique_id": np.repeat(np.arange(n_channels), n_rows),
        "ds": np.tile(np.arange(n_rows), n_channels),
        "y": series.T.ravel(),
    })  # fmt: skip
    kwargs = dict(h=horizon, input_size=context_length, max_steps=int(max_steps),
                  val_check_steps=int(max_steps) + 1, random_seed=int(seed),
                  accelerator=accelerator, devices=1,
                  enable_progress_bar=False, enable_model_summary=False, logger=False,
                  enable_checkpointing=False, num_sanity_val_steps=0)  # fmt: skip
    if name in _MULTIVARIATE:
        kwargs["n_series"] = n_channels
    else:
        kwargs["windows_batch_size"] = int(batch_size)
    model = getattr(models, PEERS[name])(**kwargs)
    forecaster = NeuralForecast(models=[model], freq=1)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cv = forecaster.cross_validation(df=frame, val_size=n_val, test_size=n_scored,
                                         n_windows=None, step_size=1)  # fmt: skip
    elapsed = time.perf_counter() - t0
    cv = cv.sort_values(["cutoff", "unique_id", "ds"])
    n_windows = n_scored - horizon + 1
    shape = (n_windows, n_channels, horizon)
    pred = cv[PEERS[name]].to_numpy(dtype=np.float64).reshape(shape).transpose(0, 2, 1)
    seen = cv["y"].to_numpy(dtype=np.float64).reshape(shape).transpose(0, 2, 1)
    if seen.shape != targets.shape or not np.allclose(seen, targets, rtol=0, atol=1e-9):
        raise RuntimeError(f"{name}: neuralforecast scored other windows than the benchmark's "
                           f"({seen.shape} against {targets.shape}).")
    steps = int(getattr(model, "global_step", 0) or max_steps)
    return pred, {"fit_s": elapsed, "n_steps": steps}
