"""``functional.sdpa``: the zero-padded head dimension is the same computation as the plain call.

On the CPU, training with heads narrower than 16 goes through SDPA with the heads zero-padded to
16 (``functional.pads_head_dim``), a faster path of PyTorch's fused kernel
(``tsattn bench sdpa-padding``). These tests check the result and the gradients against
the explicit formula and against the unpadded call, and that the padding applies exactly where
documented.
"""

from __future__ import annotations

import math

import pytest
import torch

from tests.helpers.reference_attention import SOFTMAX_FAMILY
from tsattn.attention import build_attention
from tsattn.attention import functional as F_attn


@pytest.fixture
def sdpa_widths(monkeypatch):
    """Record the last dimension of every query SDPA receives."""
    widths: list[int] = []
    real = torch.nn.functional.scaled_dot_product_attention

    def spy(q, *args, **kwargs):
        widths.append(q.shape[-1])
        return real(q, *args, **kwargs)

    monkeypatch.setattr(F_attn.F, "scaled_dot_product_attention", spy)
    return widths


def _qkv(n_q=150, n_k=140, d=8, dv=8, dtype=torch.float32, seed=0, grad=True):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(2, 3, n_q, d, generator=g, dtype=dtype).requires_grad_(grad)
    k = torch.randn(2, 3, n_k, d, generator=g, dtype=dtype).requires_grad_(grad)
    v = torch.randn(2, 3, n_k, dv, generator=g, dtype=dtype).requires_grad_(grad)
    return q, k, v


def _explicit(q, k, v, attn_mask, scale):
    """softmax(q k^T * scale) v in float64, masked keys excluded."""
    s = (q.double() @ k.double().transpose(-2, -1)) * scale
    if attn_mask is not None:
        s = s.masked_fill(~attn_mask, float("-inf"))
    return torch.softmax(s, dim=-1) @ v.double()


@pytest.mark.parametrize("d,dv,scale", [(8, 8, None), (4, 8, None), (8, 5, 0.3), (2, 2, None)])
@pytest.mark.parametrize("masked", [False, True])
def test_padded_sdpa_matches_the_formula_and_its_gradients(sdpa_widths, d, dv, scale, masked):
    q, k, v = _qkv(d=d, dv=dv)
    key_real = torch.ones(2, 140, dtype=torch.bool)
    key_real[1, 90:] = False
    attn_mask = F_attn.sdpa_mask(key_real) if masked else None
    assert F_attn.pads_head_dim(q, k, v)

    out = F_attn.sdpa(q, k, v, attn_mask=attn_mask, scale=scale)
    assert sdpa_widths == [F_attn.PAD_HEAD_DIM]
    assert out.shape == (2, 3, 150, dv) and out.dtype == torch.float32

    qd, kd, vd = (t.detach().double().requires_grad_(True) for t in (q, k, v))
    ref = _explicit(qd, kd, vd, attn_mask, scale if scale is not None else 1 / math.sqrt(d))
    torch.testing.assert_close(out.double(), ref, rtol=1e-5, atol=1e-5)

    g = torch.randn(out.shape, generator=torch.Generator().manual_seed(3))
    grads = torch.autograd.grad(out, (q, k, v), g)
    ref_grads = torch.autograd.grad(ref, (qd, kd, vd), g.double())
    for got, want in zip(grads, ref_grads, strict=True):
        assert got.shape == want.shape
        torch.testing.assert_close(got.double(), want, rtol=1e-4, atol=1e-5)


def test_plain_call_everywhere_else(sdpa_widths):
    q, k, v = _qkv()
    with torch.no_grad():  # inference
        F_attn.sdpa(q, k, v)
    F_attn.sdpa(*_qkv(grad=False))  # nothing to differentiate
    F_attn.sdpa(*_qkv(n_q=100, n_k=100))  # too few scores: 100 * 100 < 128 * 128
    F_attn.sdpa(*_qkv(d=12, dv=12))  # wider than PAD_MAX_HEAD_DIM
    F_attn.sdpa(*_qkv(d=8, dv=16))  # values wider
    F_attn.sdpa(*_qkv(dtype=torch.float64))  # float32 only (measured there)
    F_attn.sdpa(q, k, v, dropout_p=0.1)  # dropout leaves the fused kernel anyway
    with torch.autocast("cpu", dtype=torch.bfloat16):  # bfloat16 measured no faster padded
        F_attn.sdpa(q, k, v)
    with F_attn.head_padding(False):  # switched off by the user
        F_attn.sdpa(q, k, v)
    assert sdpa_widths == [8, 8, 8, 12, 8, 8, 8, 8, 8]
    F_attn.sdpa(q, k, v)
    assert sdpa_widths[-1] == F_attn.PAD_HEAD_DIM  # and the padded path is reachable


def test_forced_padding_and_widths():
    q, k, v = _qkv(n_q=10, n_k=12, d=20, dv=6, dtype=torch.float64)
    plain = F_attn.sdpa(q, k, v, pad_head_dim=False)
    padded = F_attn.sdpa(q, k, v, pad_head_dim=True)  # pads to the widest input, here 20
    torch.testing.assert_close(padded, plain, rtol=1e-12, atol=1e-12)


# Hyperparameters that give every variant an SDPA call of at least PAD_MIN_SCORES scores at N=150:
# long_short's windows and s3's sampled steps are short by default.
WIDE = {"long_short": {"window": 128}, "s3": {"s1": 128}}


@pytest.mark.parametrize("name", SOFTMAX_FAMILY)
def test_variants_train_the_same_with_and_without_padding(name, sdpa_widths, monkeypatch):
    """Every softmax-family module: same output and gradients whether or not SDPA pads its heads."""
    torch.manual_seed(0)
    module = build_attention(name, 16, 2, **WIDE.get(name, {}))  # head dimension 8
    x = torch.randn(2, 150, 16, generator=torch.Generator().manual_seed(1))
    mask = torch.ones(2, 150, dtype=torch.bool)
    mask[1, 110:] = False

    def run():
        xr = x.clone().requires_grad_(True)
        module.zero_grad()
        out = module(xr, mask)
        out[mask].pow(2).sum().backward()
        return out.detach(), xr.grad, [p.grad.clone() for p in module.parameters()]

    padded = run()
    assert F_attn.PAD_HEAD_DIM in sdpa_widths, f"{name}: no SDPA call took the padded path"
    monkeypatch.setattr(F_attn, "pads_head_dim", lambda *args: False)
    sdpa_widths.clear()
    plain = run()
    assert F_attn.PAD_HEAD_DIM not in sdpa_widths
    torch.testing.assert_close(padded[0][mask], plain[0][mask], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(padded[1], plain[1], rtol=1e-4, atol=1e-5)
    # float32 rounding relative to the largest gradient: some biases (s3's convolution before its
    # BatchNorm) have a gradient that is zero up to rounding, so a plain rtol cannot apply to them
    scale = max(want.abs().max().item() for want in plain[2])
    for got, want in zip(padded[2], plain[2], strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-6 * scale)
