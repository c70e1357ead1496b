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

    def batch(self, idx: torch.Tensor, rows: np.ndarray | None = None
              ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Rows ``idx`` as ``(x (b, n_b, C), mask (b, n_b) | None)``; ``mask`` is None with no padding.

        Each batch is cut to its own longest series (``n_b``) unless ``fixed_len``, so short series
        do not pay for long ones. ``rows``: the same indices as a numpy array, when the caller has
        them: the lengths are then read on the host, so a GPU is not waited for.
        """
        if rows is None:
            lengths = self.lengths[idx]
            n_b = self.x.shape[1] if self.fixed_len else int(lengths.max())
            mask = torch.arange(n_b, device=self.x.device)[None, :] < lengths[:, None]
            return self.x[idx, :n_b], (None if bool(mask.all()) else mask)
        host = self.host_lengths()[rows]
        n_b = self.x.shape[1] if self.fixed_len else int(host.max())
        if int(host.min()) >= n_b:
            return self.x[idx, :n_b], None
        mask = torch.arange(n_b, device=self.x.device)[None, :] < self.lengths[idx][:, None]
        return self.x[idx, :n_b], mask

    def host_lengths(self) -> np.ndarray:
        """``lengths`` as a numpy array (copied from the device once)."""
        cached = self.__dict__.get("_host_lengths")
        if cached is None or cached[0] is not self.lengths:
            cached = self.__dict__["_host_lengths"] = (self.lengths, self.lengths.cpu().numpy())
        return cached[1]

    def subset(self, idx: np.ndarray) -> TensorData:
        """The rows ``idx``."""
        t = torch.as_tensor(idx, device=self.x.device)
        return TensorData(self.x[t], self.lengths[t], None if self.y is None else self.y[t],
                          self.fixed_len)  # fmt: skip
