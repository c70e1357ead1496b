"""The optimiser every fit uses: AdamW, on its fused kernel where the device has one."""

from __future__ import annotations

from collections.abc import Iterable

import torch

__all__ = ["adamw"]


def adamw(params: Iterable[torch.nn.Parameter], lr: float, weight_decay: float) -> torch.optim.AdamW:
    """``torch.optim.AdamW(params, lr, weight_decay)``, fused (``fused=True``) when every parameter
    is a float32 tensor on the CPU or a CUDA device: one kernel updates every parameter instead of
    about ten ops per parameter tensor, the fastest of the three variants on the CPU
    (``tsattn profile fit`` times them, ``docs/results/speed/profile_fit/``). The same update, rounded
    differently (``foreach=True`` would round as the default loop)."""
    params = list(params)
    fused = bool(params) and all(p.device.type in ("cpu", "cuda") and p.dtype == torch.float32
                                 for p in params)  # fmt: skip
    return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay, fused=fused or None)
