"""Tokeniser sizing: the arguments ``tokenizer_sizes`` gives fit the longest series into the
budget."""

from __future__ import annotations

import pytest

from tsattn.nn.tokenizers import (
    TOKENIZERS,
    token_steps,
    tokenizer_factory,
    tokenizer_sizes,
)


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
@pytest.mark.parametrize("length", [5, 32, 33, 100, 257])
def test_sizes_fit_the_longest_series_into_max_tokens(name, length):
    sizes = tokenizer_sizes(name, length, 32)
    tokenizer = tokenizer_factory(name, 2, sizes)(8)
    expected = length if name == "step" else min(length, 32)
    assert tokenizer.n_tokens(length) <= expected
    assert token_steps(sizes) * tokenizer.n_tokens(length) >= length  # every step in a token


def test_each_tokenizer_takes_its_sizes_and_a_bad_name_is_refused():
    assert tokenizer_sizes("conv", 100, 32) == {"n_down": 2}
    assert tokenizer_sizes("rocket", 100, 32) == {"n_down": 2, "max_len": 100}
    assert tokenizer_sizes("patch", 100, 32) == {"patch_len": 4}
    assert tokenizer_sizes("step", 100, 32) == {} and token_steps({}) == 1
    with pytest.raises(ValueError, match="tokenizer must be one of"):
        tokenizer_sizes("conv2", 100, 32)
