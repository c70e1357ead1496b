"""What the network computes with nothing learned, computed once per fit: the random-kernel levels
fitted on the training series, their features cached, and augmentation that says which series it
changed. Each fast path is checked against the computation it replaces."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from tsattn import TSClassifier
from tsattn.nn import RocketTokenizer
from tsattn.nn.network import TSTransformer
from tsattn.training import SliceAndScale, TensorData, cache_fixed_features, fit_levels, train

NET = dict(n_outputs=2, max_len=40, tokenizer="conv_rocket", attention="softmax", d_model=16,
           n_heads=2, n_layers=1, dim_feedforward=32, head="meanmax", dropout=0.1,
           attention_dropout=0.0, norm="batch")  # fmt: skip


def _ragged(n=12, length=40, channels=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.tensor([length - 3 * (i % 5) for i in range(n)])
    x = torch.randn(n, length, channels, generator=g)
    x = x * (torch.arange(length)[None, :, None] < lengths[:, None, None])
    return TensorData(x, lengths, torch.arange(n) % 2)


def _network(seed=0, channels=3):
    torch.manual_seed(seed)
    return TSTransformer(channels, tokenizer_params={"n_down": 2, "max_len": 40}, **NET)


def _old_slice_and_scale(t: SliceAndScale, x, mask):
    """SliceAndScale.__call__ before it said which rows it changed (commit a1d3370), verbatim."""
    b, n, c = x.shape
    original = x
    if t.crop < 1 and n > 2:
        lengths = (mask.sum(dim=1) if mask is not None else torch.full((b,), n, device=x.device)).to(x.dtype)
        share = torch.empty(b, device=x.device, dtype=x.dtype).uniform_(t.crop, 1.0)
        width = torch.clamp(torch.round(share * lengths), min=2.0)
        width = torch.minimum(width, lengths)
        start = torch.floor(torch.rand(b, device=x.device, dtype=x.dtype) * (lengths - width + 1))
        s = torch.arange(n, device=x.device, dtype=x.dtype)[None, :]
        pos = start[:, None] + s * (width - 1)[:, None] / torch.clamp(lengths - 1, min=1.0)[:, None]
        pos = torch.minimum(pos, (lengths - 1)[:, None]).clamp(min=0)
        lo = pos.floor().long()
        hi = torch.minimum(lo + 1, (lengths - 1).long()[:, None])
        frac = (pos - lo.to(x.dtype))[..., None]
        gather = lambda idx: torch.gather(x, 1, idx[..., None].expand(b, n, c))  # noqa: E731
        x = gather(lo) * (1 - frac) + gather(hi) * frac
        if mask is not None:
            x = x * mask[..., None].to(x.dtype)
    if t.scale > 0:
        x = x * torch.exp(t.scale * torch.randn(b, 1, c, device=x.device, dtype=x.dtype))
    if t.prob < 1:
        keep = torch.rand(b, 1, 1, device=x.device) >= t.prob
        x = torch.where(keep, original, x)
    return x


@pytest.mark.parametrize(("crop", "scale", "prob"), [(0.8, 0.1, 0.5), (0.8, 0.0, 1.0), (1.0, 0.2, 0.3)])
def test_slice_and_scale_transforms_only_the_rows_it_names_bit_for_bit(crop, scale, prob):
    data = _ragged(n=16)
    x, mask = data.batch(torch.arange(16))
    t = SliceAndScale(crop, scale, prob)
    torch.manual_seed(3)
    expected = _old_slice_and_scale(t, x, mask)
    torch.manual_seed(3)
    got, rows = t.apply(x, mask)
    assert torch.equal(got, expected)  # the same draws, the same arithmetic
    changed = (got != x).any(dim=2).any(dim=1)
    if rows is None:
        assert prob == 1
    else:
        assert rows.device.type == "cpu" and set(rows.tolist()) >= set(changed.nonzero()[:, 0].tolist())
        untouched = torch.ones(16, dtype=torch.bool)
        untouched[rows] = False
        assert torch.equal(got[untouched], x[untouched])
    assert torch.random.get_rng_state().equal(_state_after(t, x, mask))  # as many draws as before


def _state_after(t, x, mask):
    torch.manual_seed(3)
    _old_slice_and_scale(t, x, mask)
    return torch.random.get_rng_state()


def test_levels_are_the_mean_and_deviation_of_every_read_real_step():
    data = _ragged()
    tok = RocketTokenizer(3, 8, n_down=2, max_len=40, n_dilations=3, samples=2)  # every 2nd step
    fit_levels(tok, data)
    x, mask = data.x, data.batch(torch.arange(len(data)), True)[1]
    for i, d in enumerate(tok.dilations):
        z = torch.nn.functional.conv1d(x.transpose(1, 2).double(), tok.weights[i].double(),
                                       padding=4 * d, dilation=d, stride=2)  # fmt: skip
        real = mask[:, ::2]
        values = z.transpose(1, 2)[real]  # (read real steps, 84)
        rows = slice(84 * i, 84 * (i + 1))
        torch.testing.assert_close(tok.running_mean[rows], values.mean(0).float(), rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(tok.running_var[rows], values.var(0, unbiased=False).float(),
                                   rtol=1e-4, atol=1e-4)  # fmt: skip


def test_training_a_rocket_network_without_fitted_levels_says_what_to_do():
    net = _network().train()
    x, mask = _ragged().batch(torch.arange(4))
    with pytest.raises(RuntimeError, match="fit_levels"):
        net(x, mask)
    net.eval()(x, mask)  # evaluation reads the levels it holds (a loaded model's)


def test_features_computed_beforehand_on_a_longer_padding_give_the_same_outputs():
    data = _ragged()
    net = _network()
    fit_levels(net, data)
    net.eval()
    cache = cache_fixed_features(net, data)  # at the data's full length, 40 steps: 10 tokens
    assert cache.dtype == torch.uint8 and cache.shape == (12, 84 * len(net.tokenizer.rocket.dilations), 10)
    idx = torch.tensor([1, 2, 6, 7])  # the longest of them has 37 steps: a batch cut to 37
    x, mask = data.batch(idx)
    assert x.shape[1] == 37
    with torch.no_grad():
        torch.testing.assert_close(net(x, mask, fixed=cache[idx]), net(x, mask), rtol=1e-5, atol=1e-5)
    assert cache_fixed_features(net, data, limit=100) is None  # too large: computed per batch


def test_training_with_cached_features_trains_as_computing_them_every_step():
    data = _ragged(n=20)

    def fit(cache_bytes):
        net = _network()
        fit_levels(net, data)
        torch.manual_seed(1)
        train(net, torch.nn.functional.cross_entropy, data, None,
              optimizer=torch.optim.AdamW(net.parameters(), lr=1e-3), max_rounds=3, batch_size=8,
              rng=np.random.default_rng(0), transform=SliceAndScale(0.8, 0.1, 0.5),
              cache_bytes=cache_bytes)  # fmt: skip
        return net.state_dict()

    cached, computed = fit(2**20), fit(0)
    for name, value in computed.items():
        torch.testing.assert_close(cached[name], value, rtol=1e-4, atol=1e-5, msg=name)


def test_the_classifier_fits_the_levels_on_its_training_series_once():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 2, 48)), np.arange(20) % 2
    clf = TSClassifier(tokenizer="conv_rocket", d_model=16, n_heads=2, n_layers=1,
                       dim_feedforward=32, max_steps=5, random_state=0).fit(X, y)  # fmt: skip
    rocket = clf.module_.tokenizer.rocket
    again = copy.deepcopy(rocket)
    fit_levels(again, clf._to_tensors(clf._check_X_predict(X)))
    torch.testing.assert_close(again.running_mean, rocket.running_mean)  # not moved by training
    torch.testing.assert_close(again.running_var, rocket.running_var)


def test_augmented_series_get_their_fixed_features_recomputed_in_training(monkeypatch):
    data = _ragged(n=20)
    net = _network()
    fit_levels(net, data)
    calls = []
    compute = net.fixed_features
    monkeypatch.setattr(net, "fixed_features", lambda x, m: calls.append(len(x)) or compute(x, m))
    kw = dict(optimizer=torch.optim.AdamW(net.parameters()), max_rounds=2, batch_size=8,
              rng=np.random.default_rng(0))  # fmt: skip
    train(net, torch.nn.functional.cross_entropy, data, None, **kw)
    assert sum(calls) == 20  # no augmentation: the cache, once
    calls.clear()
    train(net, torch.nn.functional.cross_entropy, data, None,
          transform=SliceAndScale(0.8, 0.1, 0.5), **kw)  # fmt: skip
    assert sum(calls) > 20  # the cache, then the augmented series of each step
