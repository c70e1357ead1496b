"""Tokeniser sizing (the arguments ``tokenizer_sizes`` gives fit the longest series into the
budget), the multi-scale patch tokens against pooling by hand and the circular token embedding
against its sum."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tsattn.nn.tokenizers import (
    TOKENIZERS,
    CircularPatchTokenizer,
    MultiScalePatchTokenizer,
    OverlappingPatchTokenizer,
    PatchTokenizer,
    token_steps,
    tokenizer_factory,
    tokenizer_sizes,
)

STEM = {"min_width": 4, "input_blocks": 0, "diff": False}


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
@pytest.mark.parametrize("length", [5, 32, 33, 100, 257])
def test_sizes_fit_the_longest_series_into_max_tokens(name, length):
    sizes = tokenizer_sizes(name, length, 32, STEM)
    tokenizer = tokenizer_factory(name, 2, sizes)(8)
    expected = length if name == "step" else min(length, 32)
    assert tokenizer.n_tokens(length) <= expected
    assert token_steps(sizes) * tokenizer.n_tokens(length) >= length  # every step in a token


def test_only_the_stem_tokenizers_take_the_stem_and_a_bad_name_is_refused():
    assert tokenizer_sizes("conv", 100, 32, STEM) == {"n_down": 2, **STEM}
    assert tokenizer_sizes("rocket", 100, 32, STEM) == {"n_down": 2, "max_len": 100}
    assert tokenizer_sizes("patch", 100, 32, STEM) == {"patch_len": 4}
    assert tokenizer_sizes("step", 100, 32, STEM) == {} and token_steps({}) == 1
    with pytest.raises(ValueError, match="tokenizer must be one of"):
        tokenizer_sizes("conv2", 100, 32)


def _pooled(x, s):
    """Reference pooling: left-pad by repeating the first step to a multiple of ``s``, then the
    mean of each run of ``s`` steps (numpy, float64)."""
    pad = -x.shape[1] % s
    x = np.concatenate([np.repeat(x[:, :1], pad, axis=1), x], axis=1)
    return x.reshape(x.shape[0], -1, s, x.shape[2]).mean(axis=2)


@pytest.mark.parametrize("length", [16, 21, 36, 96])
def test_multiscale_patches_are_patches_of_the_pooled_window(length):
    """Each scale's tokens are a plain PatchTokenizer's on the pooled window, plus its scale
    embedding; the count is ``n_tokens``; scale 1 alone is the PatchTokenizer."""
    torch.manual_seed(0)
    tok = MultiScalePatchTokenizer(2, 8, patch_len=4, scales=(1, 2, 4))
    with torch.no_grad():
        tok.scale_embedding.normal_()
    x = torch.randn(3, length, 2, dtype=torch.float64)
    tok = tok.double()
    tokens, mask = tok(x)
    assert mask is None and tokens.shape == (3, tok.n_tokens(length), 8)
    start = 0
    for k, s in enumerate((1, 2, 4)):
        ref, _ = tok.patches[k](torch.from_numpy(_pooled(x.numpy(), s)))
        ref = ref + tok.scale_embedding[k]
        torch.testing.assert_close(tokens[:, start : start + ref.shape[1]], ref)
        start += ref.shape[1]
    assert start == tokens.shape[1]
    single = MultiScalePatchTokenizer(2, 8, patch_len=4, scales=(1,)).double()
    plain = PatchTokenizer(2, 8, patch_len=4).double()
    plain.load_state_dict({k.removeprefix("patches.0."): v for k, v in single.state_dict().items()
                           if k.startswith("patches.0.")})  # fmt: skip
    torch.testing.assert_close(single(x)[0], plain(x)[0])  # the scale embedding starts at zero


def test_multiscale_tokenizer_refuses_bad_scales_and_masks():
    with pytest.raises(ValueError, match="distinct integers >= 1"):
        MultiScalePatchTokenizer(1, 8, scales=(1, 1))
    with pytest.raises(ValueError, match="mask must be None"):
        MultiScalePatchTokenizer(1, 8)(torch.randn(2, 16, 1), torch.ones(2, 16, dtype=torch.bool))


@pytest.mark.parametrize("patch_len", [1, 4])
def test_circular_tokens_are_each_patch_and_its_wrapped_neighbours(patch_len):
    """Token ``t`` is ``sum_k W[:, :, k] @ patch[(t - 1 + k) mod P]`` (kernel 3, no bias): the
    first token sees the last patch and the last the first; no positions; complete windows only."""
    torch.manual_seed(0)
    tok = CircularPatchTokenizer(3, 8, patch_len).double()
    x = torch.randn(2, 22, 3, dtype=torch.float64)  # 22 steps: left-padded to whole patches
    out, mask = tok(x)
    pad = tok.pad(22)
    padded = torch.cat([x[:, :1].expand(-1, pad, -1), x], dim=1)
    p = tok.n_tokens(22)
    patches = padded.reshape(2, p, patch_len * 3)
    w = tok.conv.weight  # (d_model, patch_len * C, 3)
    ref = torch.stack([sum(patches[:, (t - 1 + k) % p] @ w[:, :, k].T for k in range(3))
                       for t in range(p)], dim=1)  # fmt: skip
    assert mask is None and out.shape == (2, p, 8) and not tok.positional
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="mask must be None"):
        tok(x, torch.ones(2, 22, dtype=torch.bool))


@pytest.mark.parametrize("length, patch_len, stride, n_tokens",
                         [(96, 16, 8, 12), (36, 6, 3, 12), (22, 5, 2, 10), (16, 16, 16, 2)])  # fmt: skip
def test_overlapping_patches_are_every_stride_steps_with_the_end_repeated(length, patch_len, stride, n_tokens):
    """PatchTST's tokens: patch ``k`` holds steps ``k * stride .. k * stride + patch_len - 1`` of
    the window extended by ``stride`` copies of its last step (96 steps, 16 / 8: 12 tokens)."""
    tok = OverlappingPatchTokenizer(3, 8, patch_len, stride).double()
    x = torch.randn(2, length, 3, dtype=torch.float64)
    out, mask = tok(x)
    assert tok.n_tokens(length) == n_tokens and out.shape == (2, n_tokens, 8) and mask is None
    extended = torch.cat([x, x[:, -1:].expand(-1, stride, -1)], dim=1)  # PatchTST's end padding
    ref = torch.stack([tok.projection(extended[:, k * stride : k * stride + patch_len].reshape(2, -1))
                       for k in range(n_tokens)], dim=1) * np.sqrt(8)  # fmt: skip
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="mask must be None"):
        tok(x, torch.ones(2, length, dtype=torch.bool))
    with pytest.raises(ValueError, match="stride must lie in 1..patch_len"):
        OverlappingPatchTokenizer(3, 8, patch_len, patch_len + 1)
