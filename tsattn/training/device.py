"""Where and in which precision training runs: devices, seeded torch RNGs, autocast."""

from __future__ import annotations

import contextlib
from typing import Any

import torch

__all__ = ["PRECISIONS", "autocast", "resolve_device", "seeded", "torch_threads"]

PRECISIONS = ("float32", "bf16-mixed")


def resolve_device(device: str | torch.device) -> torch.device:
    """``"auto"`` -> CUDA when available, else CPU; other values are checked."""
    if isinstance(device, torch.device):
        return device
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as err:
        raise ValueError(
            f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}."
        ) from err
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} but CUDA is not available on this machine; use device='auto' or 'cpu'."
        )
    return dev


class seeded:
    """Context manager: torch's global RNG (CPU and the device's CUDA RNG) seeded, then restored."""

    def __init__(self, seed: int, device: torch.device) -> None:
        self.seed = seed
        devices = [device.index or 0] if device.type == "cuda" else []
        self._fork = torch.random.fork_rng(devices=devices)

    def __enter__(self) -> None:
        self._fork.__enter__()
        torch.manual_seed(self.seed)

    def __exit__(self, *exc: Any) -> None:
        self._fork.__exit__(*exc)


def autocast(device: torch.device, precision: str = "float32"):
    """The forward pass's precision: ``"float32"``, or ``"bf16-mixed"`` (``torch.autocast`` to
    bfloat16: matrix products and attention in bfloat16, weights, optimiser and loss in float32)."""
    if precision == "float32":
        return contextlib.nullcontext()
    if precision == "bf16-mixed":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}.")


@contextlib.contextmanager
def torch_threads(n: int | None):
    """Torch's intra-op threads set to ``n`` inside the block and restored after (None: unchanged)."""
    if n is None or n == torch.get_num_threads():
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(int(n))
    try:
        yield
    finally:
        torch.set_num_threads(previous)
