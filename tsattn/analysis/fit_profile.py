"""Where a default fit spends its time (``tsattn profile fit``): the fit's phases, and each
training step cut into the parts of the network, the backward pass, the optimiser and Python.

Each estimator is fitted with its defaults on random data of a real set's shape (the time depends
on the shape, not on the values, and no data files are needed, so the same command runs on a lent
GPU machine): the classifier on ArticularyWordRecognition's (275 x 9 x 144, 25 classes), the
regressor on Covid3Month's (140 x 1 x 84), the forecaster on ETTh1's training and validation rows
(11520 x 7, horizon 96). Three fits per estimator in one process:

1. a short warm-up fit (one-time costs: imports, kernel selection, CUDA's start);
2. a default fit timed by phase (:func:`fit_phases`): set-up, training steps, validation rounds,
   epoch callbacks, the rest of the fit;
3. a fit of ``steps`` optimiser steps under ``torch.profiler`` (:func:`step_parts`): every op's
   own time is charged to the innermost part it ran in (the random-kernel features, the stem, the
   attention, the encoder's feed-forward and norms, the head, the loss, batching and augmentation,
   the optimiser); backward ops are charged to the part whose forward op created them (autograd's
   sequence numbers), and what no op covers is Python (the loop, module calls, autograd's engine).
   On CUDA each part also gets its device time, and kernel launches and host-device syncs get
   their own lines.

The profiler adds its own cost to every op, so the step table's milliseconds run above the
unprofiled step time (both are written); its shares are what it is for.
"""

from __future__ import annotations

import contextlib
import os
import platform
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

__all__ = ["CASES", "FitCase", "random_fit_data", "fit_phases", "step_parts", "optimiser_variants",
           "profile_fits", "write_tables"]


@dataclass(frozen=True)
class FitCase:
    """A default fit to profile: the estimator, and the shape of the random data it is fitted on."""

    estimator: str
    task: str
    n: int
    channels: int
    length: int
    classes: int = 2
    shape_of: str = ""
    params: tuple[tuple[str, Any], ...] = ()


CASES = {
    "classifier": FitCase("TSClassifier", "classification", 275, 9, 144, 25,
                          "ArticularyWordRecognition"),
    "regressor": FitCase("TSRegressor", "regression", 140, 1, 84, shape_of="Covid3Month"),
    "forecaster": FitCase("TSForecaster", "forecasting", 1, 7, 11520,
                          shape_of="ETTh1 train + validation rows, horizon 96"),
}  # fmt: skip

#: A part's label -> the line it is reported on, in the order of the table.
PARTS = ("random-kernel features", "stem", "attention", "feed-forward and norms", "head",
         "loss", "batching and augmentation", "optimiser", "Python and autograd engine")  # fmt: skip


def random_fit_data(task: str, n: int, channels: int, length: int, classes: int = 2,
                    seed: int = 0) -> tuple[np.ndarray, np.ndarray | None]:
    """Standard-normal series ``(n, channels, length)`` with balanced labels (classification) or a
    normal target (regression); for ``"forecasting"`` one random walk ``(length, channels)``."""
    rng = np.random.default_rng(seed)
    if task == "forecasting":
        return np.cumsum(rng.normal(size=(length, channels)), axis=0), None
    X = rng.normal(size=(n, channels, length))
    return X, (np.arange(n) % classes if task == "classification" else rng.normal(size=n))


def _estimator(case: FitCase, **params: Any):
    import tsattn

    return getattr(tsattn, case.estimator)(random_state=0, **{**dict(case.params), **params})


def _fit(est, X, y):
    return est.fit(X) if y is None else est.fit(X, y)


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@contextlib.contextmanager
def _patched(obj: Any, name: str, wrap) -> Iterator[None]:
    """``obj.name`` replaced by ``wrap(original)`` inside the block."""
    original = obj.__dict__[name] if isinstance(obj, type) else getattr(obj, name)
    setattr(obj, name, wrap(getattr(obj, name)))
    try:
        yield
    finally:
        setattr(obj, name, original)


# --------------------------------------------------------------------------- the fit's phases
def fit_phases(case: FitCase, device: str = "cpu", **params: Any) -> dict[str, float]:
    """Seconds of one default fit by phase: ``set-up`` (data, network, optimiser, before the first
    step), ``training steps``, ``validation rounds``, ``epoch callbacks`` (best weights, NaN guard,
    schedule), ``after training`` (the forecaster's calibration), and ``fit`` in all; plus
    ``n_steps``."""
    from tsattn.estimators import base
    from tsattn.training import loop

    X, y = random_fit_data(case.task, case.n, case.channels, case.length, case.classes)
    est = _estimator(case, device=device, **params)
    dev = torch.device("cuda" if device in ("cuda", "auto") and torch.cuda.is_available() else device)
    spent: dict[str, float] = defaultdict(float)
    marks: dict[str, float] = {}

    def timed(label):
        def wrap(fn):
            def inner(*a, **k):
                _sync(dev)
                t0 = time.perf_counter()
                try:
                    return fn(*a, **k)
                finally:
                    _sync(dev)
                    spent[label] += time.perf_counter() - t0
            return inner
        return wrap

    def train_wrap(fn):
        def inner(*a, **k):
            _sync(dev)
            marks["train_start"] = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                _sync(dev)
                marks["train_end"] = time.perf_counter()
        return inner

    callback_classes = _callback_classes()
    with contextlib.ExitStack() as stack:
        stack.enter_context(_patched(base, "train", train_wrap))
        stack.enter_context(_patched(loop, "_train_round", timed("training steps")))
        stack.enter_context(_patched(loop, "predict", timed("validation rounds")))
        for cls in callback_classes:
            stack.enter_context(_patched(cls, "on_epoch_end", timed("epoch callbacks")))
        t0 = time.perf_counter()
        _fit(est, X, y)
        _sync(dev)
        t1 = time.perf_counter()
    train_s = marks["train_end"] - marks["train_start"]
    return {
        "set-up": marks["train_start"] - t0,
        "training steps": spent["training steps"],
        "validation rounds": spent["validation rounds"],
        "epoch callbacks": spent["epoch callbacks"],
        "rest of the loop": train_s - sum(spent.values()),
        "after training": t1 - marks["train_end"],
        "fit": t1 - t0,
        "n_steps": int(est.n_steps_),
    }


def _callback_classes() -> list[type]:
    from tsattn.training import callbacks

    return [c for c in vars(callbacks).values()
            if isinstance(c, type) and issubclass(c, callbacks.Callback) and "on_epoch_end" in c.__dict__]  # fmt: skip


# --------------------------------------------------------------------------- the step's parts
_PREFIX = "part:"


def _label_hooks(module: torch.nn.Module) -> list:
    """Forward hooks that open a ``record_function`` named after each part of the network."""
    from tsattn.nn.encoder import EncoderLayer

    labels: dict[torch.nn.Module, str] = {}
    for name, sub in module.named_modules():
        if name in ("tokenizer", "positions"):
            labels[sub] = "stem"
        elif isinstance(sub, EncoderLayer):
            labels[sub] = "feed-forward and norms"
            labels[sub.attention] = "attention"
        elif name == "head":
            labels[sub] = "head"
    # what the network does around its parts (the forecaster's instance norm and anchor) counts
    # with the head
    labels[module] = "head"
    handles, open_scopes = [], {}

    def pre(mod, _inputs):
        scope = torch.profiler.record_function(_PREFIX + labels[mod])
        scope.__enter__()
        open_scopes.setdefault(mod, []).append(scope)

    def post(mod, _inputs, _output):
        open_scopes[mod].pop().__exit__(None, None, None)

    for mod in labels:
        handles.append(mod.register_forward_pre_hook(pre))
        handles.append(mod.register_forward_hook(post))
    return handles


def _scoped(label: str):
    def wrap(fn):
        def inner(*a, **k):
            with torch.profiler.record_function(_PREFIX + label):
                return fn(*a, **k)
        return inner
    return wrap


def step_parts(case: FitCase, steps: int = 50, device: str = "cpu", **params: Any) -> dict[str, Any]:
    """Milliseconds per optimiser step of each part (:data:`PARTS`) over a fit of ``steps`` steps
    under ``torch.profiler``, with the same fit's unprofiled step time, the ops taking most time
    and, on CUDA, device time, kernel launches and syncs. See the module's docstring."""
    from tsattn.nn.tokenizers import RocketTokenizer
    from tsattn.training import TensorData, WindowData, loop

    X, y = random_fit_data(case.task, case.n, case.channels, case.length, case.classes)
    dev = torch.device("cuda" if device in ("cuda", "auto") and torch.cuda.is_available() else device)
    # the same fit unprofiled first: the step time the profiler's overhead inflates
    plain = fit_phases(case, device=device, max_steps=steps, **params)
    est = _estimator(case, device=device, max_steps=steps, **params)
    handles: list = []
    build = est._build_network

    def build_labelled():
        network = build()
        handles.extend(_label_hooks(network))
        return network

    est._build_network = build_labelled
    est._loss = _scoped("loss")(est._loss)
    augmentation = est._augmentation

    def labelled_augmentation():
        transform = augmentation()
        return None if transform is None else _scoped("batching and augmentation")(transform)

    est._augmentation = labelled_augmentation
    activities = [torch.profiler.ProfilerActivity.CPU]
    if dev.type == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with contextlib.ExitStack() as stack:
        stack.enter_context(_patched(loop, "_train_round", _scoped("steps")))
        stack.enter_context(_patched(RocketTokenizer, "fixed_features",
                                            _scoped("random-kernel features")))
        for cls in (TensorData, WindowData):
            stack.enter_context(_patched(cls, "batch", _scoped("batching and augmentation")))
        prof = stack.enter_context(torch.profiler.profile(activities=activities))
        _fit(est, X, y)
        _sync(dev)
    for h in handles:
        h.remove()
    return {**_charge(prof.events(), int(est.n_steps_), dev),
            "unprofiled_ms_per_step": 1e3 * plain["training steps"] / plain["n_steps"]}  # fmt: skip


def _part_of(event, seq_part: dict[int, str]) -> str | None:
    """The innermost part an event ran in; None outside the training steps (validation, callbacks)."""
    part, e = None, event
    while e is not None:
        name = e.name
        if name == _PREFIX + "steps":
            return part or "Python and autograd engine"
        if part is None:
            if name.startswith(_PREFIX):
                part = name[len(_PREFIX):]
            elif name.startswith("Optimizer."):
                part = "optimiser"
            elif name.startswith("autograd::engine::evaluate_function"):
                part = seq_part.get(e.sequence_nr, "Python and autograd engine")
        e = e.cpu_parent
    return None


def _charge(events, n_steps: int, dev: torch.device) -> dict[str, Any]:
    """Per-part own time of the profiled events; see :func:`step_parts`."""
    seq_part: dict[int, str] = {}
    for e in events:  # each forward op's autograd sequence number -> its part
        if e.sequence_nr >= 0 and not e.name.startswith("autograd::"):
            part = _part_of(e, {})
            if part is not None and part != "Python and autograd engine":
                seq_part.setdefault(e.sequence_nr, part)
    own: dict[str, float] = defaultdict(float)  # microseconds
    ops: dict[str, float] = defaultdict(float)
    device_us: dict[str, float] = defaultdict(float)
    by_op: dict[str, float] = defaultdict(float)
    launches = syncs = 0.0
    wall = 0.0
    for e in events:
        if e.name == _PREFIX + "steps":
            wall += e.cpu_time_total
        part = _part_of(e, seq_part)
        if part is None:
            continue
        is_op = not (e.name.startswith(_PREFIX) or e.name.startswith("Optimizer.")
                     or e.name.startswith("autograd::engine"))  # fmt: skip
        if e.device_type == torch.autograd.DeviceType.CPU:
            own[part] += e.self_cpu_time_total
            if is_op:
                ops[part] += e.self_cpu_time_total
                by_op[e.name] += e.self_cpu_time_total
        device_us[part] += e.self_device_time_total
        if e.name in ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel"):
            launches += e.self_cpu_time_total
        if "Synchronize" in e.name or e.name.startswith("cudaMemcpy"):
            syncs += e.self_cpu_time_total
    # time inside the steps that no event of a part covers: the loop's own Python
    own["Python and autograd engine"] += wall - sum(own.values())
    per = 1e-3 / max(n_steps, 1)
    rows = [{"part": p, "ms_per_step": own.get(p, 0.0) * per, "ops_ms_per_step": ops.get(p, 0.0) * per,
             "share": own.get(p, 0.0) / wall if wall else float("nan"),
             **({"device_ms_per_step": device_us.get(p, 0.0) * per} if dev.type == "cuda" else {})}
            for p in PARTS]  # fmt: skip
    top = sorted(by_op.items(), key=lambda kv: -kv[1])[:25]
    out: dict[str, Any] = {
        "rows": rows, "profiled_ms_per_step": wall * per, "n_steps": n_steps,
        "top_ops": [{"op": k, "ms_per_step": v * per, "share": v / wall} for k, v in top],
    }  # fmt: skip
    if dev.type == "cuda":
        out["cuda"] = {"kernel_launch_ms_per_step": launches * per, "sync_ms_per_step": syncs * per,
                       "device_busy_ms_per_step": sum(device_us.values()) * per}  # fmt: skip
    return out


# --------------------------------------------------------------------------- the optimiser
def optimiser_variants(case: FitCase, device: str = "cpu", rounds: int = 15, steps: int = 20
                       ) -> list[dict[str, Any]]:
    """Milliseconds per AdamW step on the parameters of the case's default network (random
    gradients) for the three implementations: the per-parameter loop (``foreach=False``),
    ``foreach=True`` and ``fused=True``; ``rounds`` rounds of ``steps`` steps, the variants
    interleaved in every round, the median round reported."""
    X, y = random_fit_data(case.task, case.n, case.channels, case.length, case.classes)
    est = _fit(_estimator(case, device=device, max_steps=1), X, y)
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
            _sync(dev)
            t0 = time.perf_counter()
            for _ in range(steps):
                opt.step()
            _sync(dev)
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
