"""Efficiency of attention variants: FLOPs, wall time and memory as ratios to softmax (001 Fig. 1-4).

:func:`profile_attention` measures one attention layer per variant, length ``N`` and width ``D`` in
the same run, and divides by ``softmax`` (SDPA) measured alongside. ``"softmax_explicit"`` is an
extra baseline that materialises ``softmax(Q K^T / sqrt(d)) V`` (what the papers' vanilla
transformers do). :func:`growth_exponents` fits ``metric ~ N^p`` by log-log least squares.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tsattn.analysis.flops import count_flops
from tsattn.analysis.memory import peak_memory, saved_tensor_bytes
from tsattn.attention import attention_hyperparameters, build_attention
from tsattn.attention.softmax import SoftmaxAttention

__all__ = [
    "ExplicitSoftmaxAttention",
    "profile_attention",
    "growth_exponents",
    "plot_ratios",
    "METRICS",
]

METRICS = (
    "flops_fwd",
    "flops_train",
    "time_fwd_s",
    "time_train_s",
    "mem_fwd_bytes",
    "mem_train_bytes",
    "mem_saved_bytes",
)


class ExplicitSoftmaxAttention(SoftmaxAttention):
    """``softmax`` with the ``N x N`` attention matrix materialised (a profiling baseline only)."""

    name = "softmax_explicit"

    def kernel(self, q, k, v, mask):  # noqa: D102
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
        return torch.softmax(scores, dim=-1) @ v


def _hyper_for(name: str, hyper: Mapping[str, Any], n: int) -> dict[str, Any]:
    """Flat hyperparameters this variant takes, overridden by ``hyper[name]`` (a dict) if given."""
    if name == "softmax_explicit":
        return {}
    own = attention_hyperparameters(name)
    out = {k: v for k, v in hyper.items() if k in own and not isinstance(v, Mapping)}
    if isinstance(hyper.get(name), Mapping):
        out.update(hyper[name])
    if "max_len" in own and "max_len" not in out:
        out["max_len"] = n  # s3's Fourier filter covers exactly the profiled length
    return out


def _build(name: str, d_model: int, n_heads: int, hyper: dict[str, Any]) -> torch.nn.Module:
    if name == "softmax_explicit":
        return ExplicitSoftmaxAttention(d_model, n_heads)
    return build_attention(name, d_model, n_heads, **hyper)


def _median_time(fn, repeats: int, device: torch.device) -> float:
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda *a: None)
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def profile_attention(
    variants: Sequence[str],
    lengths: Sequence[int],
    d_models: Sequence[int],
    *,
    n_heads: int = 2,
    batch_size: int = 4,
    repeats: int = 3,
    device: str | torch.device = "cpu",
    hyper: Mapping[str, Any] | None = None,
    seed: int = 0,
):
    """Profile one attention layer per variant, length and width.

    Parameters
    ----------
    variants : registered names, plus ``"softmax_explicit"``. ``"softmax"`` is always measured (it is
        the denominator of every ratio).
    lengths, d_models : sequence lengths ``N`` and model widths ``D`` to sweep.
    n_heads, batch_size : layer heads and batch size.
    repeats : timed repetitions after one warm-up; the median is reported.
    device : where to run.
    hyper : flat hyperparameters (each variant takes those it uses, e.g. ``{"scales": (1, 2)}``),
        and/or per-variant dicts (``{"s3": {"r": 8}}``). ``s3``'s ``max_len`` defaults to ``N``.

    Returns
    -------
    pandas.DataFrame, one row per (variant, N, D): ``flops_fwd`` (inference forward),
    ``flops_train`` (forward + backward), ``time_fwd_s`` / ``time_train_s`` (median wall time),
    ``mem_fwd_bytes`` / ``mem_train_bytes`` (peak: CUDA allocator; CPU live-tensor tracking, see
    :mod:`tsattn.analysis.memory`), ``mem_saved_bytes`` (tensors saved for backward), and for each
    metric ``<metric>_ratio`` = value / softmax's value at the same ``N`` and ``D``.
    """
    import pandas as pd

    hyper = dict(hyper or {})
    device = torch.device(device)
    names = list(dict.fromkeys(["softmax", *variants]))
    rows = []
    for d_model in d_models:
        for n in lengths:
            for name in names:
                torch.manual_seed(seed)
                module = _build(name, d_model, n_heads, _hyper_for(name, hyper, n)).to(device)
                x = torch.randn(batch_size, n, d_model, device=device)

                def forward(module=module, x=x):
                    with torch.no_grad():
                        module.eval()(x)

                def train(module=module, x=x):
                    xg = x.detach().requires_grad_(True)
                    module.train()(xg).sum().backward()
                    module.zero_grad(set_to_none=True)

                def saved(module=module, x=x):
                    module.train()(x.detach().requires_grad_(True))

                rows.append(
                    {
                        "variant": name,
                        "N": n,
                        "D": d_model,
                        "flops_fwd": count_flops(forward),
                        "flops_train": count_flops(train),
                        "time_fwd_s": _median_time(forward, repeats, device),
                        "time_train_s": _median_time(train, repeats, device),
                        "mem_fwd_bytes": peak_memory(forward, device),
                        "mem_train_bytes": peak_memory(train, device),
                        "mem_saved_bytes": saved_tensor_bytes(saved),
                    }
                )
    df = pd.DataFrame(rows)
    base = df[df.variant == "softmax"].set_index(["N", "D"])
    for metric in METRICS:
        denom = base[metric].reindex(pd.MultiIndex.from_frame(df[["N", "D"]])).to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            df[f"{metric}_ratio"] = df[metric].to_numpy() / denom
    return df


def growth_exponents(df, metrics: Sequence[str] = ("time_train_s", "mem_train_bytes", "flops_train")):
    """Exponent ``p`` of ``metric ~ c * N^p`` per variant and ``D``, by log-log least squares.

    ``p`` near 1 is linear growth, near 2 quadratic. Rows with a non-positive value are skipped.
    Returns a DataFrame with columns ``variant, D, <metric>_exponent``.
    """
    import pandas as pd

    out = []
    for (variant, d_model), group in df.groupby(["variant", "D"], sort=False):
        row = {"variant": variant, "D": d_model}
        for metric in metrics:
            g = group[group[metric] > 0]
            if g["N"].nunique() < 2:
                row[f"{metric}_exponent"] = float("nan")
                continue
            slope, _ = np.polyfit(np.log(g["N"].to_numpy(float)), np.log(g[metric].to_numpy(float)), 1)
            row[f"{metric}_exponent"] = float(slope)
        out.append(row)
    return pd.DataFrame(out)


def plot_ratios(df, path: str | Path, metrics: Sequence[str] = ("flops_train", "mem_train_bytes", "time_train_s")) -> Path:
    """Ratio to softmax vs ``N``, one line per ``D``, one panel per (variant, metric), as in 001
    Fig. 1-4. Writes a PNG with matplotlib's Agg backend and returns its path."""
    from tsattn._plotting import pyplot

    plt = pyplot("plot_ratios")

    variants = [v for v in dict.fromkeys(df["variant"]) if v != "softmax"]
    if not variants:
        variants = ["softmax"]
    fig, axes = plt.subplots(
        len(variants), len(metrics), figsize=(4 * len(metrics), 2.8 * len(variants)), squeeze=False
    )
    for i, variant in enumerate(variants):
        sub = df[df.variant == variant]
        for j, metric in enumerate(metrics):
            ax = axes[i][j]
            for d_model, g in sub.groupby("D"):
                g = g.sort_values("N")
                ax.plot(g["N"], g[f"{metric}_ratio"], marker="o", label=f"D={d_model}")
            ax.axhline(1.0, color="grey", lw=0.8, ls="--")
            ax.set_xscale("log", base=2)
            ax.set_title(f"{variant}: {metric} / softmax", fontsize=9)
            ax.set_xlabel("N")
            ax.legend(fontsize=7)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
