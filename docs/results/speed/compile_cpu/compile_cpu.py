"""Does ``torch.compile`` pay for a default training step on this CPU? (issue 38)

For each estimator, a default network (built by a 2-step fit on random data of a real set's shape:
the forecaster on ETTh1's 7 channels at horizon 96, the classifier on ArticularyWordRecognition's
9 x 144 with 25 classes), then training steps (forward, loss, backward, fused AdamW) on one fixed
random batch of the default size, eager and under ``torch.compile`` (default mode, inductor), each
in its own process, one thread. Writes ``results.json`` (ms per step after a warm-up, the first
step's seconds: the compile) beside this file.

    OMP_NUM_THREADS=1 python3 docs/results/speed/compile_cpu/compile_cpu.py
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEPS = {"forecaster": 200, "classifier": 100}


def one(estimator: str, mode: str) -> dict:
    import numpy as np
    import torch

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    if estimator == "forecaster":
        from tsattn import TSForecaster

        est = TSForecaster(96, 96, max_steps=2, random_state=0, n_threads=1)
        est.fit(rng.standard_normal((3000, 7)).cumsum(0) * 0.1)
        x, target = torch.randn(est.batch_size, 96, 1), torch.randn(est.batch_size, 96, 1)
        loss_fn = torch.nn.functional.mse_loss
    else:
        from tsattn import TSClassifier

        est = TSClassifier(max_steps=2, random_state=0, n_threads=1)
        est.fit(rng.standard_normal((275, 9, 144)).astype("float32"), rng.integers(0, 25, 275))
        n = int(est.batch_size_)  # batch_size='auto' resolved for this training set
        x, target = torch.randn(n, 144, 9), torch.randint(0, 25, (n,))
        loss_fn = torch.nn.functional.cross_entropy
    module = est.module_.train()
    optimizer = torch.optim.AdamW(module.parameters(), lr=1e-3, fused=True)
    forward = torch.compile(module) if mode == "compile" else module

    def step():
        loss = loss_fn(forward(x, None), target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    t0 = time.perf_counter()
    step()
    first = time.perf_counter() - t0
    for _ in range(10):
        step()
    t0 = time.perf_counter()
    for _ in range(STEPS[estimator]):
        step()
    ms = (time.perf_counter() - t0) / STEPS[estimator] * 1000
    return {"estimator": estimator, "mode": mode, "batch": int(x.shape[0]),
            "first_step_s": round(first, 2), "ms_per_step": round(ms, 2)}


def main() -> None:
    if len(sys.argv) == 3:
        print(json.dumps(one(sys.argv[1], sys.argv[2])))
        return
    rows = []
    for estimator in STEPS:
        for mode in ("eager", "compile"):
            out = subprocess.run([sys.executable, __file__, estimator, mode], check=True,
                                 capture_output=True, text=True).stdout
            rows.append(json.loads(out.strip().splitlines()[-1]))
            print(rows[-1], flush=True)
    import torch

    for estimator in STEPS:
        eager, comp = (next(r for r in rows if r["estimator"] == estimator and r["mode"] == m)
                       for m in ("eager", "compile"))  # fmt: skip
        comp["ratio_to_eager"] = round(comp["ms_per_step"] / eager["ms_per_step"], 2)
    info = {"torch": torch.__version__, "machine": platform.processor() or platform.machine(),
            "date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows}
    (HERE / "results.json").write_text(json.dumps(info, indent=1) + "\n")


if __name__ == "__main__":
    main()
