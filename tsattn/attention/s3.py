"""``s3``: S3Attention, smoothed skeleton sketching attention (002 Sec. 3, Algorithms 1-2).

A whole attention block on the tokens ``X`` ``(B, N, D)``:

1. Smoother (Sec. 3.2, Eq. 3-4, Algorithm 2). Average ``X`` over ``r`` contiguous segments of the
   hidden dimension (``XS``: column ``c`` holds the mean of segment ``c // (D / r)``, Eq. 4), take the
   rFFT along time, multiply by a learnable complex filter ``L`` ``(max_len // 2 + 1, D)``
   (Kaiming-normal, exactly Algorithm 2's ``kaiming_normal_(mode='fan_in', nonlinearity='relu')`` on
   its real/imaginary tensor), inverse rFFT; concatenate with ``X``, ``Conv1d(2D -> D, 3, 'same')``,
   BatchNorm over the ``D`` channels, ReLU, dropout.
2. Skeleton attention (Sec. 3.1, Eq. 1, Algorithm 1) on ``Q, K, V`` projected from the smoothed tokens:
   ``V1 = softmax(Q K[idx1]^T / sqrt(d)) V[idx1]`` over ``s1`` sampled time steps and
   ``V2 = V[:, idx2] softmax(K[:, idx2]^T Q / sqrt(N))`` over ``s2`` sampled feature columns of each
   head (softmax over the sampled columns), output ``out_proj((LN1(V1) + LN2(V2)) / 2)``. Both
   products go through ``scaled_dot_product_attention`` (the column attention with the roles of
   time and features swapped). The output projection is the ``W_O`` of the surrounding attention
   layer in 002's code base; Algorithm 1 itself returns the LayerNorm average.

Length. ``L`` has one row per frequency, so it needs a length at construction: ``max_len``
(:data:`MAX_LEN`). A series with ``N <= max_len`` steps is zero-padded to ``max_len`` before the rFFT and the
result is truncated back to ``N``, exactly as Algorithm 2's ``rfft(u, n=seq_len)``; ``N > max_len``
raises. The estimators set ``max_len`` from the training data (see ``TSClassifier``).

Index sets. Drawn once at construction from a generator seeded from torch's global RNG and kept as
persistent buffers (saved in the state dict): ``time_order``, a random permutation of
``range(max_len)``, and ``feature_index``, ``s2`` sorted columns of ``range(head_dim)`` (all of them
when ``s2 >= head_dim``). A sample with ``n`` real steps uses as ``idx1`` the first ``s1`` entries of
``time_order`` that are ``< n`` (a uniform ``s1``-subset of ``range(n)``; all of it when
``s1 >= n``), read as ranks among its real steps, so sampled steps are always real steps of that
sample and do not move when padding is appended.

Masks: what is guaranteed. Padded steps are zeroed before the segment average/FFT and before the
stem convolution (so they add nothing to any Fourier or convolution sum; they keep their place in
time, so padding *inside* a series acts as zeros there); BatchNorm statistics in training are
computed over real steps only; padded steps are never sampled; the column attention sums over real
steps and scales by ``sqrt(n)`` with ``n`` the sample's real length. Hence appending padded steps
changes nothing at real steps, in training and in evaluation. (Through the batch statistics of
BatchNorm, in training mode one sample's output depends on the other real samples of the batch, as
with any BatchNorm.)

``dropout`` is used for the smoother's dropout and on both attention weight matrices.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from tsattn._validation import POSITIVE_INT
from tsattn.attention.base import MultiHeadProjections
from tsattn.attention.functional import sdpa
from tsattn.attention.hyperparameters import Choice, HyperParameter
from tsattn.attention.registry import register_attention
from tsattn.layers import Dropout, MaskedBatchNorm1d

R = HyperParameter(
    "r",
    default=8,
    type="int",
    doc="Number of segment averages over the hidden dimension in the smoother (must divide "
    "``d_model``; 8: 002 Table 8).",
    constraint=(POSITIVE_INT,),
    space=Choice((4, 8, 16)),  # 002 Table 6a: best at 8 or 16
)
S1 = HyperParameter(
    "s1",
    default=8,
    type="int",
    doc="Number of sampled time steps (token sampling); ``s1 >= n`` uses every real step.",
    constraint=(POSITIVE_INT,),
    space=Choice((4, 8, 16, 32)),
)
S2 = HyperParameter(
    "s2",
    default=8,
    type="int",
    doc="Number of sampled feature columns per head; ``s2 >= head_dim`` uses every column.",
    constraint=(POSITIVE_INT,),
    space=Choice((4, 8, 16)),
)
MAX_LEN = HyperParameter(
    "max_len",
    default=None,
    type="int",
    doc="Most tokens ``s3`` is built for (its Fourier filter has ``max_len // 2 + 1`` rows; "
    "shorter sequences are zero-padded to it). None: the network sets it to the tokens of the "
    "longest series it is built for (the classifier's longest training series, or 512 steps for "
    "unequal-length data if longer; the forecaster's window), so the filter spans them exactly "
    "as Algorithm 2's ``rfft(n=seq_len)``; a layer built alone takes :data:`STANDALONE_LEN`.",
    constraint=(POSITIVE_INT,),
    sized=True,
)
#: ``max_len`` of an ``s3`` layer built outside a network with none given.
STANDALONE_LEN = 512


class Smoother(nn.Module):
    """The smoother of 002 (Algorithm 2): Fourier convolution plus convolution stem.

    Shapes: ``forward(x (B, N, D), mask (B, N) | None) -> (B, N, D)``, ``N <= max_len``.
    """

    def __init__(self, d_model: int, r: int, max_len: int, dropout: float) -> None:
        super().__init__()
        self.r = r
        self.max_len = max_len
        self.filter = nn.Parameter(torch.empty(max_len // 2 + 1, d_model, 2))
        nn.init.kaiming_normal_(self.filter, mode="fan_in", nonlinearity="relu")
        self.conv = nn.Conv1d(2 * d_model, d_model, kernel_size=3, padding=1)
        self.norm = MaskedBatchNorm1d(d_model)
        self.dropout = Dropout(dropout)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> torch.Tensor:
        if need_weights:
            raise self.weights_unavailable()
        b, n, d = x.shape
        if n > self.max_len:
            raise ValueError(
                f"s3 was built with max_len={self.max_len} but got a series of {n} steps: its "
                f"Fourier filter has max_len // 2 + 1 frequencies. Build it with max_len >= {n}."
            )
        keep = None if mask is None else mask.to(x.dtype)[..., None]
        if keep is not None:
            x = x * keep
        u = x.reshape(b, n, self.r, d // self.r).mean(dim=-1)  # (B, N, r) segment averages
        spec = torch.fft.rfft(u, n=self.max_len, dim=1).repeat_interleave(d // self.r, dim=-1)
        smooth = torch.fft.irfft(spec * torch.view_as_complex(self.filter), n=self.max_len, dim=1)
        h = torch.cat([smooth[:, :n], x], dim=-1)
        if keep is not None:
            h = h * keep
        h = self.conv(h.transpose(1, 2)).transpose(1, 2)
        return self.dropout(F.relu(self.norm(h, mask)))


@register_attention("s3")
class S3Attention(MultiHeadProjections):
    """S3Attention: smoother, then skeleton (sampled rows and columns) attention.

    Parameters
    ----------
    r, s1, s2, max_len : see :data:`R`, :data:`S1`, :data:`S2`, :data:`MAX_LEN`.

    Shapes: ``forward(x (B, N, d_model), mask (B, N) | None) -> (B, N, d_model)``.
    """

    hyperparameters = (R, S1, S2, MAX_LEN)
    no_weights_reason = "its output averages two LayerNorm-ed branches (sampled steps and sampled feature columns)"
    summary = "S3Attention: Fourier smoother, then sampled rows and columns (002 Algorithms 1-2)"
    helps = ("O(N): 0.08 of softmax's attention time at N = 8192 (memory 1.9 times). Led the "
             "forecaster's screen (0.908; ILI -20%), but at the full budget only Exchange kept a"
             " gain (-6%; ILI +10%, mean 1.010): try it on random-walk-like series; [42] 91.93 "
             "(13 / 12 / 17, p 0.39), [C] 96.63 / 97.20.")

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        dropout: float = 0.0,
        r: int = R.default,
        s1: int = S1.default,
        s2: int = S2.default,
        max_len: int | None = MAX_LEN.default,
    ) -> None:
        super().__init__(d_model, n_heads, dropout)
        self.r = R.check(r)
        if d_model % self.r:
            divisors = [c for c in range(1, d_model + 1) if d_model % c == 0]
            raise ValueError(
                f"r={r} must divide d_model={d_model} (the hidden dimension is cut into r equal "
                f"segments). Choose one of {divisors}."
            )
        self.s1 = S1.check(s1)
        self.s2 = S2.check(s2)
        self.max_len = MAX_LEN.check(STANDALONE_LEN if max_len is None else max_len)
        self.smoother = Smoother(d_model, self.r, self.max_len, self.dropout)
        self.ln1 = nn.LayerNorm(d_model)
        self.ln2 = nn.LayerNorm(d_model)
        seed = int(torch.randint(0, 2**62, (1,)).item())
        gen = torch.Generator().manual_seed(seed)
        self.register_buffer("time_order", torch.randperm(self.max_len, generator=gen))
        cols = torch.randperm(self.head_dim, generator=gen)[: self.s2]
        self.register_buffer("feature_index", torch.sort(cols).values)

    def sample_steps(self, mask: torch.Tensor | None, b: int, n: int, device) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Sampled time steps ``(B, min(s1, max_len))`` and their validity (``None``: all valid)."""
        real = torch.ones(b, n, dtype=torch.bool, device=device) if mask is None else mask
        counts = real.sum(dim=1, keepdim=True)
        order = self.time_order.to(device)
        usable = order[None, :] < counts  # (B, max_len)
        keep = usable & (usable.cumsum(dim=1) <= self.s1)
        slots = torch.argsort((~keep).to(torch.int8), dim=1, stable=True)[:, : self.s1]
        ranks = order[slots]
        valid = keep.gather(1, slots)
        real_positions = torch.argsort((~real).to(torch.int8), dim=1, stable=True)
        positions = real_positions.gather(1, ranks.clamp(max=n - 1))
        return positions, None if bool(valid.all()) else valid

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, need_weights: bool = False
    ) -> torch.Tensor:
        if need_weights:
            raise self.weights_unavailable()
        b, n, _ = x.shape
        h = self.smoother(x, mask)
        q = self.project_heads(self.q_proj, h)
        k = self.project_heads(self.k_proj, h)
        v = self.project_heads(self.v_proj, h)
        d = self.head_dim

        # Token sampling: every query attends to the s1 sampled (real) steps.
        positions, valid = self.sample_steps(mask, b, n, x.device)
        gather = positions[:, None, :, None].expand(-1, self.n_heads, -1, d)
        v1 = sdpa(
            q, k.gather(2, gather), v.gather(2, gather),
            attn_mask=None if valid is None else valid[:, None, None, :],
            dropout_p=self.dropout_p,
        )

        # Feature sampling: the d columns of Q attend to the s2 sampled columns of K over time.
        idx = self.feature_index
        if mask is not None:
            keep = mask.to(q.dtype)[:, None, :, None]
            q, k = q * keep, k * keep
            length = mask.sum(dim=1).to(q.dtype)
        else:
            length = torch.full((b,), float(n), dtype=q.dtype, device=x.device)
        q_cols = (q / length.sqrt()[:, None, None, None]).transpose(-2, -1)  # (B, H, d, N)
        k_cols = k[..., idx].transpose(-2, -1)  # (B, H, s2, N)
        v_cols = v[..., idx].transpose(-2, -1)  # (B, H, s2, N)
        v2 = sdpa(
            q_cols, k_cols, v_cols, dropout_p=self.dropout_p, scale=1.0
        ).transpose(-2, -1)  # (B, H, N, d)

        out = (self.ln1(self.merge_heads(v1)) + self.ln2(self.merge_heads(v2))) / 2
        return self.out_proj(out)
