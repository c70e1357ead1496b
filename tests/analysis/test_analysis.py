"""Profiling and head-diversity tools (tiny sizes; timings are never asserted)."""

from __future__ import annotations

import argparse
import math

import pytest
import torch
from torch import nn

from tsattn.analysis import (
    count_flops,
    growth_exponents,
    head_diversity,
    peak_memory,
    profile_attention,
)
from tsattn.analysis.diversity import attention_maps
from tsattn.attention import build_attention


def _explicit(q, k, v):
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v


def test_cpu_sdpa_flops_match_an_explicit_matmul_attention():
    q, k, v = (torch.randn(2, 3, 64, 8, requires_grad=True) for _ in range(3))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    fused_fwd = count_flops(lambda: sdpa(q, k, v))
    explicit_fwd = count_flops(lambda: _explicit(q, k, v))
    assert fused_fwd == explicit_fwd == 2 * (2 * 2 * 3 * 64 * 64 * 8) > 0  # two products, 2 FLOPs per MAC
    fused_all = count_flops(lambda: sdpa(q, k, v).sum().backward())
    explicit_all = count_flops(lambda: _explicit(q, k, v).sum().backward())
    # The fused backward recomputes the scores once more than the explicit one (as PyTorch counts
    # its CUDA kernels): one extra Q K^T product.
    assert fused_all == explicit_all + 2 * (2 * 3 * 64 * 64 * 8)


def test_flops_of_head_padded_training_count_the_real_head_dimension():
    from tsattn.attention.functional import PAD_HEAD_DIM, pads_head_dim, sdpa

    q, k, v = (torch.randn(1, 2, 160, 8, requires_grad=True) for _ in range(3))
    assert pads_head_dim(q, k, v)  # a call sdpa() pads to 16 when it runs
    counted = count_flops(lambda: sdpa(q, k, v).sum().backward())
    real = count_flops(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v).sum().backward())
    assert counted == real
    widened = [t.detach().new_zeros(1, 2, 160, PAD_HEAD_DIM).requires_grad_() for t in (q, k, v)]
    assert counted < count_flops(
        lambda: torch.nn.functional.scaled_dot_product_attention(*widened).sum().backward()
    )
    assert pads_head_dim(q, k, v)  # the counting switched padding off only while counting


def test_peak_memory_sees_the_materialised_attention_matrix():
    q = torch.randn(1, 2, 256, 8)
    explicit = peak_memory(lambda: _explicit(q, q, q), "cpu")
    fused = peak_memory(lambda: torch.nn.functional.scaled_dot_product_attention(q, q, q), "cpu")
    assert explicit >= 2 * 256 * 256 * 4 > fused


def test_profile_attention_reports_ratios_to_softmax():
    df = profile_attention(
        ["bn_sh", "softmax_explicit", "s3", "linear"], [32, 64], [16], n_heads=2, batch_size=2,
        repeats=1, hyper={"scales": (1, 2), "s3": {"s1": 4}},
    )
    assert set(df.variant) == {"softmax", "bn_sh", "softmax_explicit", "s3", "linear"}
    soft = df[df.variant == "softmax"]
    assert (soft.flops_train_ratio == 1).all() and (soft.mem_train_bytes_ratio == 1).all()
    sh = df[(df.variant == "bn_sh") & (df.N == 64)].iloc[0]
    assert 0 < sh.flops_fwd_ratio < 1  # half of the heads attend to half of the keys
    assert (df.flops_fwd > 0).all() and (df.time_train_s > 0).all() and (df.mem_train_bytes > 0).all()
    growth = growth_exponents(df)
    assert set(growth.variant) == set(df.variant)
    lin = growth[growth.variant == "linear"].iloc[0]
    assert lin.flops_train_exponent == pytest.approx(1.0, abs=0.05)


def test_profile_command_writes_csv_and_plot(tmp_path, capsys):
    from tsattn.commands import profile

    parser = argparse.ArgumentParser()
    profile.register(parser.add_subparsers())
    args = parser.parse_args(
        ["profile", "--variants", "mrs", "--lengths", "16", "32", "--d-models", "8", "--repeats", "1",
         "--batch-size", "1", "--hyper", "scales=1,2", "--out", str(tmp_path)]
    )
    assert args.func(args) == 0
    for name in ("profile.csv", "growth.csv", "profile.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert profile.parse_hyper(["scales=1,2", "s3.r=4", "beta=0.5"]) == {
        "scales": (1, 2), "s3": {"r": 4}, "beta": 0.5,
    }


class _TwoLayers(nn.Module):
    def __init__(self, first, second):
        super().__init__()
        self.layers = nn.ModuleList([first, second])

    def forward(self, x, mask=None):
        for layer in self.layers:
            x = x + layer(x, mask=mask)
        return x


def test_attention_maps_match_the_module_output():
    torch.manual_seed(0)
    for name, cfg in [("softmax", {}), ("bn", {"beta": 0.7}), ("sh", {"scales": (1, 3)}),
                      ("bn_sh", {"scales": (2, 3), "beta": 0.4})]:
        m = build_attention(name, 8, 2, **cfg).double().eval()
        x = torch.randn(2, 7, 8, dtype=torch.float64)
        mask = torch.ones(2, 7, dtype=torch.bool)
        mask[1, 5:] = False
        maps = attention_maps(m, x, mask)  # (B, H, N, N) on the original steps
        v = m.project_heads(m.v_proj, x)
        out = m.out_proj(m.merge_heads(maps @ v))
        torch.testing.assert_close(out[mask], m(x, mask)[mask])
        torch.testing.assert_close(maps.sum(-1)[:, :, mask[1]][1], torch.ones(2, 5, dtype=torch.float64))


def test_head_diversity_over_layers():
    torch.manual_seed(0)
    model = _TwoLayers(build_attention("bn_sh", 8, 4, scales=(1, 1, 2, 2)),
                       build_attention("softmax", 8, 4)).eval()
    x = torch.randn(3, 9, 8)
    mask = torch.ones(3, 9, dtype=torch.bool)
    mask[2, 4:] = False
    res = head_diversity(model, x, mask=mask)
    assert [layer["name"] for layer in res["per_layer"]] == ["layers.0", "layers.1"]
    assert res["mean"] > 0 and res["std"] >= 0
    # identical heads have distance zero
    same = build_attention("softmax", 8, 2)
    with torch.no_grad():
        for proj in (same.q_proj, same.k_proj):
            proj.weight[4:] = proj.weight[:4]
            proj.bias[4:] = proj.bias[:4]
    assert head_diversity(_TwoLayers(same, same), x)["mean"] == pytest.approx(0, abs=1e-6)
    with pytest.raises(ValueError, match="no supported attention"):
        head_diversity(nn.Linear(8, 8), x)
