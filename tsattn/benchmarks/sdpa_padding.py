"""SDPA on the CPU with narrow heads: the plain call against heads zero-padded to 16
(``tsattn bench sdpa-padding``), the evidence behind :func:`tsattn.attention.functional.sdpa`'s
padding rule (``PAD_HEAD_DIM``, ``PAD_MAX_HEAD_DIM``, ``PAD_MIN_SCORES``).

For each head dimension ``d`` and query/key length, times
:func:`tsattn.attention.functional.sdpa` with ``pad_head_dim=False`` (the plain
``scaled_dot_product_attention``) and ``pad_head_dim=True`` (q, k, v zero-padded to 16, the same
computation), forward and backward ("train") and forward under ``no_grad`` ("inference"), 8 heads
and about 10,000 query rows per call (the UEA-sized encoder: batch 32 of 315 steps). The two are
timed alternately, repeat by repeat, so drift in the machine's speed hits both alike. Writes
``results.csv`` (median milliseconds, ``plain_over_padded``, and ``auto_pads``: whether ``sdpa``'s
rule pads that case), ``summary.json`` and ``ratio.png``.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import pandas as pd
import torch

from tsattn.attention import functional as F_attn

__all__ = ["sdpa_padding_benchmark"]

HEAD_DIMS = (2, 4, 8, 12)
LENGTHS = ((32, 32), (64, 64), (96, 96), (128, 128), (315, 40), (315, 80), (315, 315), (1024, 1024))
N_HEADS = 8
ROWS = 10_080  # 32 x 315


def _call(q, k, v, pad: bool, train: bool, bf16: bool) -> None:
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        if train:
            F_attn.sdpa(q, k, v, pad_head_dim=pad).sum().backward()
        else:
            with torch.no_grad():
                F_attn.sdpa(q, k, v, pad_head_dim=pad)


def _case(d, n_q, n_k, train, bf16, repeats):
    b = max(1, ROWS // n_q)
    g = torch.Generator().manual_seed(0)
    q = torch.randn(b, N_HEADS, n_q, d, generator=g).requires_grad_(train)
    k = torch.randn(b, N_HEADS, n_k, d, generator=g).requires_grad_(train)
    v = torch.randn(b, N_HEADS, n_k, d, generator=g).requires_grad_(train)
    times = {False: [], True: []}
    for _ in range(repeats + 1):  # the first round warms up
        for pad in (False, True):
            t0 = time.perf_counter()
            _call(q, k, v, pad, train, bf16)
            times[pad].append((time.perf_counter() - t0) * 1e3)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16), torch.set_grad_enabled(train):
        auto = F_attn.pads_head_dim(q, k, v)
    plain, padded = statistics.median(times[False][1:]), statistics.median(times[True][1:])
    return {
        "mode": "train" if train else "inference", "precision": "bf16-mixed" if bf16 else "float32",
        "head_dim": d, "n_q": n_q, "n_k": n_k, "batch": b, "n_heads": N_HEADS,
        "scores": n_q * n_k, "plain_ms": plain, "padded_ms": padded,
        "plain_over_padded": plain / padded, "auto_pads": auto,
    }  # fmt: skip


def _plot(df: pd.DataFrame, path: Path) -> None:
    from tsattn._plotting import pyplot

    plt = pyplot("the SDPA padding benchmark's plot")

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, mode in zip(axes, ("train", "inference"), strict=True):
        part = df[(df["mode"] == mode) & (df["precision"] == "float32")]
        for d, rows in part.groupby("head_dim"):
            rows = rows.sort_values("scores")
            ax.plot(rows["scores"], rows["plain_over_padded"], marker="o", label=f"d = {d}")
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.axvline(F_attn.PAD_MIN_SCORES, color="grey", ls="--", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("scores per head (Nq x Nk)")
        ax.set_title(f"{mode}, float32")
    axes[0].set_ylabel("plain time / padded time")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def sdpa_padding_benchmark(out: Path, repeats: int = 7, log=print) -> pd.DataFrame:
    """Run every case, write ``results.csv``, ``summary.json`` and ``ratio.png`` into ``out``."""
    rows = []
    for train in (True, False):
        for d in HEAD_DIMS:
            for n_q, n_k in LENGTHS:
                rows.append(_case(d, n_q, n_k, train, False, repeats))
                log(rows[-1])
    for train in (True, False):  # bfloat16 autocast: only the encoder's own case
        rows.append(_case(8, 315, 315, train, True, repeats))
        log(rows[-1])
    df = pd.DataFrame(rows)
    out.mkdir(parents=True, exist_ok=True)
    df.to_csv(out / "results.csv", index=False)
    _plot(df, out / "ratio.png")
    uea = df[(df.head_dim == 8) & (df.n_q == 315) & (df.n_k == 315) & (df.precision == "float32")]
    summary = {
        "threads": torch.get_num_threads(), "repeats": repeats, "torch": torch.__version__,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "pad_head_dim": F_attn.PAD_HEAD_DIM, "pad_min_scores": F_attn.PAD_MIN_SCORES,
        "uea_case_plain_over_padded": dict(zip(uea["mode"], uea["plain_over_padded"], strict=True)),
        "auto_padded_cases_min_ratio": float(df[df.auto_pads]["plain_over_padded"].min()),
        "unpadded_float32_train_cases_max_ratio": float(
            df[~df.auto_pads & (df["mode"] == "train") & (df.precision == "float32")][
                "plain_over_padded"].max()),
    }  # fmt: skip
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return df
