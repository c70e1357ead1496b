"""Self-supervised pretraining by masked reconstruction (``pretrain_steps``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tsattn import TSClassifier, TSRegressor
from tsattn.nn import TSTransformer
from tsattn.training import MaskedReconstruction, TensorData, TrainingDivergedError, pretrain

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, random_state=0)
NET = dict(head="meanmax", attention="softmax", d_model=16, n_heads=2, n_layers=1,
           dim_feedforward=32, dropout=0.1, attention_dropout=0.0, norm="batch")


def _network(tokenizer="conv", params=None):
    torch.manual_seed(0)
    return TSTransformer(2, 3, 37, tokenizer=tokenizer, tokenizer_params=params or {"n_down": 2},
                         **NET).eval()  # fmt: skip


@pytest.mark.parametrize(("tokenizer", "params", "steps", "left_pad"),
                         [("conv", {"n_down": 2}, 4, False), ("patch", {"patch_len": 5}, 5, True)])
def test_masked_reconstruction_matches_the_formula(tokenizer, params, steps, left_pad):
    """The loss is the mean squared error of the linear map of each encoded token against the steps
    it covers, over the hidden real steps only; hidden steps enter the trunk as zeros."""
    net = _network(tokenizer, params)
    model = MaskedReconstruction(net, 2, steps, ratio=0.5).eval()  # left padding: the tokeniser's
    lengths = torch.tensor([37, 21, 8])
    mask = torch.arange(37)[None] < lengths[:, None]
    x = torch.randn(3, 37, 2) * mask[..., None]
    torch.manual_seed(5)
    loss = float(model(x, mask).detach())
    torch.manual_seed(5)
    p = -(-37 // steps)
    hidden_tokens = torch.rand(3, p) < 0.5
    pad = p * steps - 37 if left_pad else 0
    expected, count = 0.0, 0
    with torch.no_grad():
        h, _, _ = net.encode(torch.where(_hidden(hidden_tokens, steps, pad, mask)[..., None], 0.0, x), mask)
        h = model.reconstruct(h)
    for b in range(3):
        for t in range(int(lengths[b])):
            token = (t + pad) // steps
            if hidden_tokens[b, token]:
                rebuilt = h[b, token].reshape(steps, 2)[(t + pad) % steps]
                expected += float(((rebuilt - x[b, t]) ** 2).mean())
                count += 1
    assert count > 0
    assert loss == pytest.approx(expected / count, rel=1e-5)


def _hidden(hidden_tokens, steps, pad, mask):
    n = mask.shape[1]
    out = torch.zeros_like(mask)
    for t in range(n):
        out[:, t] = hidden_tokens[:, (t + pad) // steps]
    return out & mask


def test_pretrain_lowers_the_reconstruction_loss_and_refuses_bad_input():
    rng = np.random.default_rng(0)
    t = np.linspace(0, 8, 64)
    x = np.sin(t[None, :, None] + rng.uniform(0, 6, size=(32, 1, 1)))  # phases: learnable structure
    data = TensorData(torch.tensor(x, dtype=torch.float32), torch.full((32,), 64))
    net = TSTransformer(1, 2, 64, tokenizer="conv", tokenizer_params={"n_down": 2}, **NET)
    torch.manual_seed(0)
    losses = pretrain(MaskedReconstruction(net, 1, 4), data, steps=80, batch_size=16,
                      rng=np.random.default_rng(0), lr=3e-3)  # fmt: skip
    assert len(losses) == 80 and np.isfinite(losses).all()
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:10])
    with pytest.raises(ValueError, match="ratio"):
        MaskedReconstruction(net, 1, 4, ratio=1.0)
    bad = TensorData(data.x * float("nan"), data.lengths)
    with pytest.raises(ValueError, match="batch_size=2 or more"):
        pretrain(MaskedReconstruction(net, 1, 4), data, steps=3, batch_size=1, rng=np.random.default_rng(0))
    with pytest.raises(TrainingDivergedError, match="pretrain_steps=0"):
        pretrain(MaskedReconstruction(net, 1, 4), bad, steps=3, batch_size=16, rng=np.random.default_rng(0))


def test_estimators_pretrain_reproducibly_and_start_the_fit_from_the_pretrained_trunk():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2, 50))
    y = np.arange(20) % 2
    X[y == 1, 0] += 1.0
    kw = dict(max_steps=5, **TINY)
    a = TSClassifier(pretrain_steps=6, **kw).fit(X, y)
    b = TSClassifier(pretrain_steps=6, **kw).fit(X, y)
    plain = TSClassifier(**kw).fit(X, y)
    assert len(a.pretrain_loss_) == 6 and np.isfinite(a.pretrain_loss_).all()
    assert plain.pretrain_loss_ == []
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.allclose(a.predict_proba(X), plain.predict_proba(X))
    assert a.n_steps_ == plain.n_steps_ == 5  # pretraining steps are not supervised steps
    ragged = [s[:, : 50 - 2 * i] for i, s in enumerate(X)]  # padded series pretrain too
    reg = TSRegressor(pretrain_steps=4, tokenizer="patch", **kw).fit(ragged, y.astype(float))
    assert len(reg.pretrain_loss_) == 4
    with pytest.raises(ValueError, match="pretrain_steps"):
        TSClassifier(pretrain_steps=-1).fit(X, y)
