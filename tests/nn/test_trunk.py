"""The one encoder trunk: both networks are built on it, its tokeniser is a replaceable stage."""

from __future__ import annotations

from functools import partial

import pytest
import torch

from tsattn.nn import EncoderTrunk, ForecastingTransformer, PatchTokenizer, TSTransformer

SIZES = dict(attention="softmax", d_model=8, n_heads=2, n_layers=2, dim_feedforward=16,
             dropout=0.1, attention_dropout=0.0, norm="batch")
FORECAST = dict(head="linear", channel_independent=True, patch_len=4, anchor=False)


def test_both_networks_are_the_trunk_and_take_their_sizes_from_the_caller():
    """No second set of defaults below the estimators: every size is given."""
    clf = TSTransformer(3, 2, 10, head="meanmax", tokenizer="conv", **SIZES)
    fc = ForecastingTransformer(3, 16, 4, **FORECAST, **SIZES)
    assert isinstance(clf, EncoderTrunk) and isinstance(fc, EncoderTrunk)
    assert len(clf.encoder.layers) == len(fc.encoder.layers) == 2
    assert clf.d_model == fc.d_model == 8
    with pytest.raises(TypeError, match="d_model"):
        TSTransformer(3, 2, 10, head="meanmax", tokenizer="conv",
                      **{k: v for k, v in SIZES.items() if k != "d_model"})  # fmt: skip


def test_the_trunk_sizes_a_length_dependent_attention_to_its_tokens():
    """s3's Fourier filter left unset spans the tokens of the longest series, here only."""
    fc = ForecastingTransformer(3, 16, 4, **FORECAST, **{**SIZES, "attention": "s3"})
    assert fc.encoder.layers[0].attention.max_len == 4  # 16 steps in patches of 4
    clf = TSTransformer(3, 2, 37, head="meanmax", tokenizer="conv",
                        tokenizer_params={"n_down": 2}, **{**SIZES, "attention": "s3"})
    assert clf.encoder.layers[0].attention.max_len == 10  # ceil(37 / 4)
    roomy = TSTransformer(3, 2, 37, head="meanmax", tokenizer="conv", max_input_len=512,
                          tokenizer_params={"n_down": 2}, **{**SIZES, "attention": "s3"})
    assert roomy.encoder.layers[0].attention.max_len == 128
    given = TSTransformer(3, 2, 37, head="meanmax", tokenizer="conv", attention_params={"max_len": 64},
                          **{**SIZES, "attention": "s3"})  # fmt: skip
    assert given.encoder.layers[0].attention.max_len == 64


def test_a_patch_tokeniser_in_the_classification_network_keeps_padding_out():
    torch.manual_seed(0)
    net = TSTransformer(2, 3, 12, head="meanmax", tokenizer=partial(PatchTokenizer, 2, patch_len=4),
                        **SIZES)  # fmt: skip
    net.eval()
    x = torch.randn(2, 11, 2)
    mask = torch.ones(2, 11, dtype=torch.bool)
    mask[1, 6:] = False
    x[1, 6:] = 0.0
    with torch.no_grad():
        out = net(x, mask)
        padded_more = net(torch.cat([x, torch.zeros(2, 8, 2)], 1),
                          torch.cat([mask, torch.zeros(2, 8, dtype=torch.bool)], 1))
    assert out.shape == (2, 3)
    tokens, token_mask = net.tokenizer(x, mask)
    assert tokens.shape == (2, 3, 8) and token_mask.tolist() == [[True] * 3, [True, True, False]]
    torch.testing.assert_close(padded_more, out)


def test_the_network_returns_each_layers_attention_weights():
    torch.manual_seed(0)
    net = TSTransformer(2, 3, 9, head="meanmax", tokenizer="step",
                        **{**SIZES, "attention": "bn_sh"}, attention_params={"scales": (1, 2)}).eval()
    x = torch.randn(4, 9, 2)
    mask = torch.ones(4, 9, dtype=torch.bool)
    mask[0, 5:] = False
    with torch.no_grad():
        out, weights = net(x, mask, need_weights=True)
        torch.testing.assert_close(out, net(x, mask))
    assert [w.shape for w in weights] == [(4, 2, 9, 9)] * 2


def test_a_layer_without_norm_and_feed_forward_is_attention_plus_residual():
    """``norm="none"``, ``dim_feedforward=0``: 002's forecaster layer, ``x + attention(x)`` exactly."""
    torch.manual_seed(0)
    sizes = {**SIZES, "norm": "none", "dim_feedforward": 0, "n_layers": 1, "dropout": 0.0}
    fc = ForecastingTransformer(3, 16, 4, **FORECAST, **sizes).eval()
    layer = fc.encoder.layers[0]
    assert not any(hasattr(layer, name) for name in ("linear1", "linear2", "norm1", "norm2"))
    x = torch.randn(5, 4, 8)
    torch.testing.assert_close(layer(x), x + layer.attention(x, None))
    fc.train()(torch.randn(6, 16, 3)).sum().backward()  # trains
    with pytest.raises(ValueError, match="dim_feedforward must be >= 0"):
        ForecastingTransformer(3, 16, 4, **FORECAST, **{**sizes, "dim_feedforward": -1})
    with pytest.raises(ValueError, match="norm must be one of"):
        ForecastingTransformer(3, 16, 4, **FORECAST, **{**sizes, "norm": "group"})
