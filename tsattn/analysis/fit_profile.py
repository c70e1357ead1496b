"""Where a default fit spends its time (``tsattn profile fit``): the fit's phases, and each
training step cut into the parts of the network, the backward pass, the optimiser and Python.

Each estimator is fitted with its defaults on random data of a real set's shape (the time depends
on the shape, not on the values, and no data files are needed, so the same command runs on a lent
GPU machine): the classifier on ArticularyWordRecognition's (275 x 9 x 144, 25 classes), the
regressor on Covid3Month's (140 x 1 x 84), the forecaster on ETTh1's training and validation rows
(11520 x 7, horizon 96): :data:`~tsattn.analysis.fit_cases.CASES`. Three fits per estimator in one
process:

1. a short warm-up fit (one-time costs: imports, kernel selection, CUDA's start);
2. a default fit timed by phase (:func:`~tsattn.analysis.phase_timing.fit_phases`): set-up,
   training steps, validation rounds, epoch callbacks, the rest of the fit;
3. a fit of ``steps`` optimiser steps under ``torch.profiler``
   (:func:`~tsattn.analysis.step_profile.step_parts`): every op's own time is charged to the
   innermost part it ran in (the random-kernel features, the stem, the attention, the encoder's
   feed-forward and norms, the head, the loss, batching and augmentation, the optimiser);
   backward ops are charged to the part whose forward op created them (autograd's
   sequence numbers), and what no op covers is Python (the loop, module calls, autograd's engine).
   On CUDA each part also gets its device time, and kernel launches and host-device syncs get
   their own lines.

The profiler adds its own cost to every op, so the step table's milliseconds run above the
unprofiled step time (both are written); its shares are what it is for. This module runs the three
(:func:`profile_fits`), times AdamW's implementations (:func:`optimiser_variants`) and writes the
tables (:func:`write_tables`).
"""

from __future__ import annotations

import os
import platform
import time
from typing import Any

import numpy as np
import torch

from tsattn.analysis.fit_cases import CASES, FitCase, fit_on, new_estimator, random_fit_data, sync
from tsattn.analysis.phase_timing import fit_phases
from tsattn.analysis.step_profile import PARTS, step_parts

__all__ = ["CASES", "PARTS", "FitCase", "random_fit_data", "fit_phases", "step_parts",
           "optimiser_variants", "profile_fits", "write_tables"]


def optimiser_variants(case: FitCase, device: str = "cpu", rounds: int = 15, steps: int = 20
                       ) -> list[dict[str, Any]]:
    """Milliseconds per AdamW step on the parameters of the case's default network (random
    gradients) for the three implementations: the per-parameter loop (``foreach=False``),
    ``foreach=True`` and ``fused=True``; ``rounds`` rounds of ``steps`` steps, the variants
    interleaved in every round, the median round reported."""
    X, y = random_fit_data(case.task, case.n, case.channels, case.length, case.classes)
    est = fit_on(new_estimator(case, device=device, max_steps=1), X, y)
    dev = next(est.module_.parameters()).device
    variants = {"loop": dict(foreach=False), "foreach": dict(foreach=True), "fused": dict(fused=True)}
    optimisers = {}
    for name, kw in variants.items():
        params = [torch.nn.Parameter(p.detach().clone()) for p in est.module_.parameters()]
        for p in params:
            p.grad = torch.randn_like(p)
        optimisers[name] = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.05, **kw)
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, opt in optimisers.items():
            sync(dev)
            t0 = time.perf_counter()
            for _ in range(steps):
                opt.step()
            sync(dev)
            times[name].append((time.perf_counter() - t0) / steps * 1e3)
    n_params = sum(p.numel() for p in est.module_.parameters())
    n_tensors = len(list(est.module_.parameters()))
    return [{"variant": name, "ms_per_step": float(np.median(t)), "parameters": n_params,
             "tensors": n_tensors} for name, t in times.items()]  # fmt: skip


# --------------------------------------------------------------------------- all together
def profile_fits(cases: list[str], steps: int = 50, warmup_steps: int = 20, device: str = "cpu",
                 full_fit: bool = True, log=print) -> dict[str, Any]:
    """Warm-up, phases of a default fit (``full_fit``) and the step profile of each case in
    :data:`CASES`; returns a JSON-able record of everything, with the machine and its load."""
    record: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(), "device": device, "steps": steps,
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "cases": {},
    }  # fmt: skip
    if device == "cuda" and torch.cuda.is_available():
        record["gpu"] = torch.cuda.get_device_name()
    for name in cases:
        case = CASES[name]
        log(f"{name}: warm-up fit of {warmup_steps} steps")
        fit_phases(case, device=device, max_steps=warmup_steps)
        entry: dict[str, Any] = {"case": case.__dict__ | {"params": dict(case.params)}}
        if full_fit:
            log(f"{name}: default fit, timed by phase")
            entry["phases"] = fit_phases(case, device=device)
        log(f"{name}: {steps} steps under the profiler")
        entry["steps"] = step_parts(case, steps=steps, device=device)
        log(f"{name}: AdamW's three implementations")
        entry["optimiser"] = optimiser_variants(case, device=device)
        record["cases"][name] = entry
    record["load_average_at_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return record


def write_tables(record: dict[str, Any], out) -> str:
    """``phases.csv``, ``steps.csv``, ``top_ops.csv`` and ``tables.md`` (returned) in folder ``out``
    from a :func:`profile_fits` record."""
    from pathlib import Path

    import pandas as pd

    out = Path(out)
    phases, steps, tops, optimisers = [], [], [], []
    for name, entry in record["cases"].items():
        if "phases" in entry:
            phases.append({"estimator": name, **entry["phases"]})
        s = entry["steps"]
        for row in s["rows"]:
            steps.append({"estimator": name, **row})
        steps.append({"estimator": name, "part": "all (profiled)", "ms_per_step": s["profiled_ms_per_step"],
                      "share": 1.0})  # fmt: skip
        steps.append({"estimator": name, "part": "all (unprofiled)", "ms_per_step": s["unprofiled_ms_per_step"]})
        for key, value in s.get("cuda", {}).items():
            steps.append({"estimator": name, "part": key.removesuffix("_ms_per_step").replace("_", " "),
                          "ms_per_step": value})  # fmt: skip
        tops.extend({"estimator": name, **row} for row in s["top_ops"])
        optimisers.extend({"estimator": name, **row} for row in entry.get("optimiser", ()))
    frames = {"phases": pd.DataFrame(phases), "steps": pd.DataFrame(steps), "top_ops": pd.DataFrame(tops),
              "optimiser": pd.DataFrame(optimisers)}  # fmt: skip
    for key, frame in frames.items():
        frame.to_csv(out / f"{key}.csv", index=False, float_format="%.4g")
    where = record.get("gpu", record["machine"])
    lines = [f"Device: {record['device']} ({where}), torch {record['torch']}, "
             f"{record['torch_threads']} torch threads; load average at the start "
             f"{_load(record.get('load_average_at_start'))}, at the end "
             f"{_load(record.get('load_average_at_end'))}.", ""]  # fmt: skip
    if phases:
        lines += ["A default fit by phase (seconds):", "", _markdown(frames["phases"], "{:.2f}"), ""]
    for name, frame in frames["steps"].groupby("estimator", sort=False):
        lines += [f"{name}: a training step by part ({record['steps']} steps profiled, milliseconds per step; "
                  "share of the profiled step):", "",
                  _markdown(frame.drop(columns="estimator").dropna(axis=1, how="all"), "{:.3f}"), ""]
    if optimisers:
        lines += ["AdamW, milliseconds per step by implementation (interleaved rounds, median):", "",
                  _markdown(frames["optimiser"], "{:.3f}"), ""]
    text = "\n".join(lines)
    (out / "tables.md").write_text(text + "\n", encoding="utf-8")
    return text


def _markdown(frame, fmt: str) -> str:
    """A markdown table of ``frame`` (floats written with ``fmt``; NaN left empty)."""
    def cell(v):
        if isinstance(v, float):
            return "" if v != v else fmt.format(v)
        return str(v)

    rows = [list(frame.columns), ["---"] * len(frame.columns)]
    rows += [[cell(v) for v in row] for row in frame.itertuples(index=False)]
    return "\n".join("| " + " | ".join(r) + " |" for r in rows)


def _load(values) -> str:
    return "unknown" if not values else " / ".join(f"{v:.2f}" for v in values) + " (1 / 5 / 15 min)"
