"""The one encoder trunk: both networks are built on it, its tokeniser is a replaceable stage."""

from __future__ import annotations

from functools import partial

import torch

from tsattn.nn import EncoderTrunk, ForecastingTransformer, PatchTokenizer, TSTransformer

SIZES = dict(d_model=8, n_heads=2, n_layers=2, dim_feedforward=16)


def test_both_networks_are_the_trunk_with_the_same_defaults():
    clf, fc = TSTransformer(3, 2, 10), ForecastingTransformer(3, 16, 4)
    assert isinstance(clf, EncoderTrunk) and isinstance(fc, EncoderTrunk)
    assert len(clf.encoder.layers) == len(fc.encoder.layers) == 3
    assert clf.d_model == fc.d_model == 64


def test_a_patch_tokeniser_in_the_classification_network_keeps_padding_out():
    torch.manual_seed(0)
    net = TSTransformer(2, 3, 12, tokenizer=partial(PatchTokenizer, 2, patch_len=4), **SIZES)
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
    net = TSTransformer(2, 3, 9, attention="bn_sh", attention_params={"scales": (1, 2)},
                        **SIZES).eval()  # fmt: skip
    x = torch.randn(4, 9, 2)
    mask = torch.ones(4, 9, dtype=torch.bool)
    mask[0, 5:] = False
    with torch.no_grad():
        out, weights = net(x, mask, need_weights=True)
        torch.testing.assert_close(out, net(x, mask))
    assert [w.shape for w in weights] == [(4, 2, 9, 9)] * 2
