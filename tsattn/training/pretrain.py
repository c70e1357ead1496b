"""Self-supervised pretraining of an encoder trunk by masked reconstruction.

Before the supervised fit, the trunk (tokeniser, positions, encoder layers) learns to rebuild hidden
stretches of the training series from the rest, as in Zerveas et al. 2021 (masked values, MSE on the
hidden ones) with PatchTST's unit of masking (whole tokens, Nie et al. 2023): in every batch each
series' tokens are hidden with probability ``ratio`` by zeroing the steps they cover (zero is the
channel mean after standardisation), and a linear map of each encoded token predicts its steps.
The loss is the mean squared error over the hidden real steps. The reconstruction map is thrown away
afterwards; the trunk keeps what it learned and the supervised fit starts from it.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import torch
from torch import nn

from tsattn.training.callbacks import TrainingDivergedError, warmup_cosine
from tsattn.training.data import TensorData
from tsattn.training.device import autocast
from tsattn.training.loop import _Batches, _has_batchnorm
from tsattn.training.optim import adamw

__all__ = ["MaskedReconstruction", "pretrain"]


class MaskedReconstruction(nn.Module):
    """A trunk and a linear map from each token back to the ``token_steps`` steps it covers.

    Parameters
    ----------
    trunk : an :class:`~tsattn.nn.trunk.EncoderTrunk` (or a network built on one): its ``encode``
        maps ``x (B, N, C)`` to tokens ``(B, ceil(N / token_steps), d_model)``.
    n_channels : input channels ``C``.
    token_steps : input steps per token (the stem's ``2**n_down``, the patch length, or 1).
    ratio : probability that a token's steps are hidden.

    A tokeniser with a ``pad(n)`` method (the patch tokeniser) left-pads a series of ``n`` steps
    by that many to whole tokens; otherwise token ``i`` covers steps ``i * token_steps`` onwards.
    """

    def __init__(
        self, trunk: nn.Module, n_channels: int, token_steps: int, ratio: float = 0.4
    ) -> None:
        super().__init__()
        if not 0 < ratio < 1:
            raise ValueError(f"ratio must lie strictly between 0 and 1, got {ratio}.")
        self.trunk = trunk
        self.token_steps, self.ratio = int(token_steps), float(ratio)
        self.reconstruct = nn.Linear(trunk.d_model, self.token_steps * int(n_channels))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """``x (B, N, C)`` standardised series, ``mask (B, N)`` True = real or None -> the scalar
        loss: mean squared error over the hidden real steps (0 when none is hidden)."""
        b, n, c = x.shape
        s = self.token_steps
        p = -(-n // s)
        pad = self.trunk.tokenizer.pad(n) if hasattr(self.trunk.tokenizer, "pad") else 0
        hidden_tokens = torch.rand(b, p, device=x.device) < self.ratio
        hidden = hidden_tokens.repeat_interleave(s, dim=1)[:, pad : pad + n]  # (B, N)
        if mask is not None:
            hidden = hidden & mask
        h, _, _ = self.trunk.encode(x.masked_fill(hidden[..., None], 0.0), mask)
        rebuilt = self.reconstruct(h).reshape(b, p * s, c)[:, pad : pad + n]
        weight = hidden.to(rebuilt.dtype)
        error = ((rebuilt.float() - x.float()) ** 2).mean(dim=2)
        return (error * weight).sum() / weight.sum().clamp_min(1.0)


def pretrain(
    model: MaskedReconstruction,
    data: TensorData,
    *,
    steps: int,
    batch_size: int,
    rng: np.random.Generator,
    lr: float = 1e-3,
    weight_decay: float = 0.0,
    warmup: float = 0.1,
    precision: str = "float32",
) -> list[float]:
    """Train ``model`` for ``steps`` AdamW steps over shuffled batches of ``data`` (``rng``) with a
    linear warm-up and cosine decay of the rate (:func:`~tsattn.training.callbacks.warmup_cosine`);
    returns the loss of every step. Raises :class:`~tsattn.training.TrainingDivergedError` on a
    non-finite loss. Batches of one series are skipped when the model has BatchNorm layers, as in
    :func:`~tsattn.training.train`; a ``batch_size`` that leaves no other batch is refused."""
    optimizer = adamw(model.parameters(), lr=lr, weight_decay=weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, partial(warmup_cosine, total=int(steps), warmup=warmup)
    )
    model.train()
    skip_singletons = len(data) > 1 and _has_batchnorm(model)
    losses: list[float] = []
    while len(losses) < steps:
        batches = _Batches(len(data), batch_size, rng, None).next_round()
        batches = [i for i in batches if len(i) > 1 or not skip_singletons]
        if not batches:
            raise ValueError(
                f"batch_size={batch_size} gives batches of one series, which BatchNorm cannot "
                "normalise; use batch_size=2 or more to pretrain."
            )
        for idx_np in batches:
            x, mask = data.batch(torch.as_tensor(idx_np, device=data.x.device))
            with autocast(data.x.device, precision):
                loss = model(x, mask).float()
            value = float(loss.detach())
            if not math.isfinite(value):
                raise TrainingDivergedError(
                    f"the pretraining loss became {value} at step {len(losses) + 1}; "
                    f"try a lower lr (now {lr}) or pretrain_steps=0."
                )
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()
            losses.append(value)
            if len(losses) >= steps:
                break
    return losses
