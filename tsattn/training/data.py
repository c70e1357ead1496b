"""Training data as padded tensors on the device, cut into batches."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

__all__ = ["TensorData"]


@dataclass
class TensorData:
    """Padded series on a device: ``x (n, N, C)`` float, ``lengths (n,)`` long, targets ``y (n, ...)``.

    ``fixed_len``: every batch keeps all ``N`` steps (a network whose head needs the training
    length); otherwise each batch is cut to its own longest series.
    """

    x: torch.Tensor
    lengths: torch.Tensor
    y: torch.Tensor | None = None
    fixed_len: bool = False

    def __len__(self) -> int:
        return self.x.shape[0]

    def batch(self, idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Rows ``idx`` as ``(x (b, n_b, C), mask (b, n_b) | None)``; ``mask`` is None with no padding.

        Each batch is cut to its own longest series (``n_b``) unless ``fixed_len``, so short series
        do not pay for long ones.
        """
        lengths = self.lengths[idx]
        n_b = self.x.shape[1] if self.fixed_len else int(lengths.max())
        x = self.x[idx, :n_b]
        mask = torch.arange(n_b, device=x.device)[None, :] < lengths[:, None]
        return x, (None if bool(mask.all()) else mask)

    def subset(self, idx: np.ndarray) -> TensorData:
        """The rows ``idx``."""
        t = torch.as_tensor(idx, device=self.x.device)
        return TensorData(self.x[t], self.lengths[t], None if self.y is None else self.y[t],
                          self.fixed_len)  # fmt: skip
