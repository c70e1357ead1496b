"""A training step cut into the parts of the network, the backward pass, the optimiser and Python
(:func:`step_parts`, for ``tsattn profile fit``, :mod:`tsattn.analysis.fit_profile`).

A fit of ``steps`` optimiser steps runs under ``torch.profiler``: every op's own time is charged to
the innermost part it ran in (:data:`PARTS`); backward ops are charged to the part whose forward op
created them (autograd's sequence numbers), and what no op covers is Python (the loop, module
calls, autograd's engine). On CUDA each part also gets its device time, and kernel launches and
host-device syncs get their own lines.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from typing import Any

import torch

from tsattn.analysis.fit_cases import (
    FitCase,
    fit_on,
    new_estimator,
    patched,
    random_fit_data,
    sync,
    torch_device,
)
from tsattn.analysis.phase_timing import fit_phases

__all__ = ["PARTS", "step_parts"]

#: A part's label -> the line it is reported on, in the order of the table.
PARTS = ("random-kernel features", "stem", "attention", "feed-forward and norms", "head",
         "loss", "batching and augmentation", "optimiser", "Python and autograd engine")  # fmt: skip

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
    dev = torch_device(device)
    # the same fit unprofiled first: the step time the profiler's overhead inflates
    plain = fit_phases(case, device=device, max_steps=steps, **params)
    est = new_estimator(case, device=device, max_steps=steps, **params)
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
        stack.enter_context(patched(loop, "_train_round", _scoped("steps")))
        stack.enter_context(patched(RocketTokenizer, "fixed_features",
                                            _scoped("random-kernel features")))
        for cls in (TensorData, WindowData):
            stack.enter_context(patched(cls, "batch", _scoped("batching and augmentation")))
        prof = stack.enter_context(torch.profiler.profile(activities=activities))
        fit_on(est, X, y)
        sync(dev)
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
