"""Variant-specific behaviour of the attention zoo that the shared tests do not cover."""

from __future__ import annotations

import pytest
import torch

from tsattn.attention import build_attention
from tsattn.attention import functional as F_attn

D_MODEL, N_HEADS = 16, 4


def _saved_numels(module, x, mask=None):
    sizes = []

    def pack(t):
        sizes.append(t.numel())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        module(x, mask).sum().backward()
    return sizes


@pytest.mark.parametrize(
    "name,cfg",
    [("linear", {}), ("mrs_linear", {}), ("long_short", {"window": 8, "rank": 4}),
     ("s3", {"max_len": 2048})],
)
def test_linear_complexity_variants_never_form_an_n_by_n_matrix(name, cfg):
    n = 2048  # large enough that O(N * (window + rank) * heads) stays far below N^2
    torch.manual_seed(0)
    module = build_attention(name, D_MODEL, N_HEADS, **cfg)
    x = torch.randn(1, n, D_MODEL, requires_grad=True)
    mask = torch.ones(1, n, dtype=torch.bool)
    mask[0, 1500:] = False
    biggest = max(_saved_numels(module, x, mask))
    assert biggest < n * n // 16, f"{name} saved a tensor of {biggest} elements at N={n}"


def test_softmax_saves_quadratic_tensors_so_the_check_above_can_fail():
    module = build_attention("sparse", D_MODEL, N_HEADS, block=4)
    x = torch.randn(1, 256, D_MODEL, requires_grad=True)
    assert max(_saved_numels(module, x)) >= 256 * 256


def test_sparse_pattern_is_built_once_and_matches_the_definition():
    a = F_attn.fixed_sparse_pattern(7, 7, 3)
    assert a is F_attn.fixed_sparse_pattern(7, 7, 3)
    expected = torch.tensor(
        [[i // 3 == j // 3 or j % 3 == 2 for j in range(7)] for i in range(7)]
    )
    assert torch.equal(a, expected)
    assert F_attn.default_block(16) == 4 and F_attn.default_block(17) == 5


def test_s3_training_mode_ignores_padding_in_batch_norm_statistics():
    torch.manual_seed(0)
    m1 = build_attention("s3", D_MODEL, N_HEADS, r=4, s1=3, s2=2, max_len=40).double()
    m2 = build_attention("s3", D_MODEL, N_HEADS, r=4, s1=3, s2=2, max_len=40).double()
    m2.load_state_dict(m1.state_dict())
    x = torch.randn(3, 11, D_MODEL, dtype=torch.float64)
    mask = torch.ones(3, 11, dtype=torch.bool)
    mask[1, 7:] = False
    mask[2, 3:] = False
    x_pad = torch.cat([x, 1e3 * torch.randn(3, 9, D_MODEL, dtype=torch.float64)], dim=1)
    mask_pad = torch.cat([mask, torch.zeros(3, 9, dtype=torch.bool)], dim=1)
    out = m1.train()(x, mask)
    out_pad = m2.train()(x_pad, mask_pad)
    torch.testing.assert_close(out_pad[:, :11][mask], out[mask])
    bn1, bn2 = m1.smoother.norm, m2.smoother.norm
    torch.testing.assert_close(bn1.running_mean, bn2.running_mean)
    torch.testing.assert_close(bn1.running_var, bn2.running_var)
    assert not torch.equal(bn1.running_mean, torch.zeros_like(bn1.running_mean))


def test_s3_index_sets_are_saved_with_the_model():
    torch.manual_seed(1)
    a = build_attention("s3", D_MODEL, N_HEADS, max_len=64).eval()
    torch.manual_seed(2)
    b = build_attention("s3", D_MODEL, N_HEADS, max_len=64).eval()
    assert not torch.equal(a.time_order, b.time_order)
    b.load_state_dict(a.state_dict())
    x = torch.randn(2, 20, D_MODEL)
    torch.testing.assert_close(a(x), b(x))


def test_s3_samples_only_real_steps_even_with_holes_in_the_mask():
    torch.manual_seed(0)
    m = build_attention("s3", D_MODEL, N_HEADS, s1=4, max_len=32)
    mask = torch.rand(5, 20) > 0.5
    mask[:, 0] = True
    positions, valid = m.sample_steps(mask, 5, 20, "cpu")
    valid = torch.ones_like(positions, dtype=torch.bool) if valid is None else valid
    for i in range(5):
        chosen = positions[i][valid[i]].tolist()
        assert len(chosen) == min(4, int(mask[i].sum())) == len(set(chosen))
        assert all(mask[i, p] for p in chosen)


def test_s3_rejects_series_longer_than_max_len():
    m = build_attention("s3", D_MODEL, N_HEADS, max_len=8)
    with pytest.raises(ValueError, match="max_len >= 9"):
        m(torch.randn(1, 9, D_MODEL))


@pytest.mark.parametrize(
    "name,hyper,match",
    [
        ("s3", {"r": 3}, "must divide d_model"),
        ("s3", {"s1": 0}, "s1 must be a positive integer"),
        ("s3", {"s2": 2.5}, "s2 must be a positive integer"),
        ("s3", {"max_len": -4}, "max_len must be a positive integer"),
        ("sparse", {"block": 0}, "block must be a positive integer"),
        ("sparse_bn_sh", {"block": True}, "block must be a positive integer"),
        ("long_short", {"window": -1}, "window must be a positive integer"),
        ("long_short", {"rank": 1.5}, "rank must be a positive integer"),
        ("conv1d", {"kernel_size": 0}, "kernel_size must be a positive integer"),
        ("mrs", {"key_scales": (1, 2)}, "key_scales has 2 entries"),
        ("mrs_linear", {"scales": (1, 0, 1, 1)}, "positive integers"),
    ],
)
def test_invalid_hyperparameters_raise_clear_errors(name, hyper, match):
    with pytest.raises(ValueError, match=match):
        build_attention(name, D_MODEL, N_HEADS, **hyper)


def test_hyperparameter_of_another_variant_warns():
    with pytest.warns(UserWarning, match="ignores window"):
        build_attention("s3", D_MODEL, N_HEADS, window=4)
