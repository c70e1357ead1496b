"""Cost of the CPU dropout mask: one random byte per value drawn per byte vs eight per 64-bit draw.

Usage: ``python3 scripts/bench_dropout_mask.py --threads 2 --out docs/results/dropout_mask``. Times
``torch.randint(0, 256, dtype=uint8)`` (the mask before commit 642ef26), :func:`tsattn.layers.dropout.random_bytes`
(after) and ``torch.bernoulli`` (``F.dropout``'s path) for the largest mask of the UEA-sized encoder,
``(32, 315, 256)``, and writes ``summary.json`` with the median milliseconds of each.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch

from tsattn.layers.dropout import random_bytes


def _median_ms(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--out", type=Path, default=Path("results/dropout_mask"))
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    shape = (32, 315, 256)
    summary = {
        "shape": list(shape), "threads": args.threads, "repeats": args.repeats,
        "randint_uint8_ms": _median_ms(
            lambda: torch.randint(0, 256, shape, dtype=torch.uint8), args.repeats),
        "random_bytes_ms": _median_ms(lambda: random_bytes(shape), args.repeats),
        "bernoulli_float_ms": _median_ms(
            lambda: torch.empty(shape).bernoulli_(0.8), args.repeats),
    }  # fmt: skip
    summary["randint_over_random_bytes"] = summary["randint_uint8_ms"] / summary["random_bytes_ms"]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
