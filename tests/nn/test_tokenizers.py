"""Tokeniser sizing (the arguments ``tokenizer_sizes`` gives fit the longest series into the
budget) and PatchTST's overlapping patches against their slicing."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tsattn.nn.tokenizers import (
    TOKENIZERS,
    OverlappingPatchTokenizer,
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
