"""Memory of one attention call, measured the same way on every device.

CUDA: the allocator's own counter (``torch.cuda.max_memory_allocated`` after a reset). CPU: the
allocator exposes no counter and ``tracemalloc`` does not see torch's allocations, so
:class:`LiveTensorBytes` follows every tensor produced by an ATen op while it runs (a
``TorchDispatchMode``, deduplicated by storage, freed when the tensor dies) and records the peak of
their total size. It sees what the op-level code allocates (activations, attention matrices,
gradients) but not the scratch buffers inside a fused kernel (CPU flash attention keeps only
``O(block)`` of them) nor inputs and parameters that existed before the call.
:func:`saved_tensor_bytes` sums the tensors autograd keeps for the backward pass, the part of
training memory that grows with ``N``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

__all__ = ["LiveTensorBytes", "peak_memory", "saved_tensor_bytes"]


class LiveTensorBytes(TorchDispatchMode):
    """Peak total bytes of live tensors created by ATen ops inside the mode."""

    def __init__(self) -> None:
        super().__init__()
        self._live: dict[int, list[int]] = {}
        self.current = 0
        self.peak = 0

    def _release(self, ptr: int) -> None:
        entry = self._live.get(ptr)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            self.current -= entry[0]
            del self._live[ptr]

    def _track(self, t: torch.Tensor) -> None:
        storage = t.untyped_storage()
        ptr, nbytes = storage.data_ptr(), storage.nbytes()
        if nbytes == 0:
            return
        if ptr in self._live:
            self._live[ptr][1] += 1
        else:
            self._live[ptr] = [nbytes, 1]
            self.current += nbytes
            self.peak = max(self.peak, self.current)
        weakref.finalize(t, self._release, ptr)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor) and t.device.type != "meta":
                self._track(t)
        return out


def peak_memory(fn: Callable[[], object], device: torch.device | str) -> int:
    """Peak bytes allocated while running ``fn()`` (see the module docstring for the method)."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        base = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        fn()
        torch.cuda.synchronize(device)
        return int(torch.cuda.max_memory_allocated(device) - base)
    with LiveTensorBytes() as mode:
        fn()
    return int(mode.peak)


def saved_tensor_bytes(fn: Callable[[], torch.Tensor]) -> int:
    """Bytes of the distinct storages autograd saves for backward while running ``fn()``."""
    storages: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        s = t.untyped_storage()
        storages[s.data_ptr()] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn()
    return int(sum(storages.values()))
