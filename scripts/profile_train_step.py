"""Where a training step of the UEA-sized encoder spends its time (torch.profiler, CPU).

Usage: ``TSATTN_DATA_DIR=../shared/datasets python3 scripts/profile_train_step.py --threads 1
--out docs/results/step_profile``. Builds the default ``TSClassifier`` network for UWaveGestureLibrary
(d_model 64, 8 heads, 3 layers, length 315), times forward+backward+AdamW steps on a batch of 32, and
writes ``ops.csv`` (self CPU time per operator) and ``summary.json`` (step milliseconds and the share
of SDPA's fused kernels, forward and backward).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pandas as pd
import torch
from torch.profiler import ProfilerActivity, profile

from tsattn import TSClassifier
from tsattn.datasets import load_uea


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--attention", default="softmax")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--out", type=Path, default=Path("results/step_profile"))
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    X, y = load_uea("UWaveGestureLibrary", "train")
    clf = TSClassifier(attention=args.attention, max_epochs=1, device="cpu", random_state=0).fit(X, y)
    net = clf.module_.train()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(32, 315, clf.n_channels_, generator=g)
    target = torch.randint(0, len(clf.classes_), (32,), generator=g)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)

    def step() -> None:
        loss = torch.nn.functional.cross_entropy(net(x, None), target)
        opt.zero_grad()
        loss.backward()
        opt.step()

    for _ in range(2):
        step()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        step()
    step_ms = (time.perf_counter() - t0) / args.steps * 1e3
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(args.steps):
            step()
    rows = [
        {"op": e.key, "self_cpu_ms_per_step": e.self_cpu_time_total / 1e3 / args.steps,
         "calls_per_step": e.count / args.steps}
        for e in prof.key_averages()
    ]  # fmt: skip
    ops = pd.DataFrame(rows).sort_values("self_cpu_ms_per_step", ascending=False)
    total = ops.self_cpu_ms_per_step.sum()
    ops["share"] = ops.self_cpu_ms_per_step / total
    sdpa = ops[ops.op.str.contains("scaled_dot_product")]
    args.out.mkdir(parents=True, exist_ok=True)
    ops.to_csv(args.out / "ops.csv", index=False)
    summary = {
        "attention": args.attention, "threads": args.threads, "batch": 32, "length": 315,
        "step_ms_unprofiled": step_ms, "profiled_self_cpu_ms_per_step": total,
        "sdpa_share": float(sdpa.share.sum()),
        "sdpa_ms_per_step": {r.op: r.self_cpu_ms_per_step for r in sdpa.itertuples()},
    }  # fmt: skip
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
