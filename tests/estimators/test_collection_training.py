"""Tokenisers, step budget, warm-up + cosine schedule and training augmentation of the collection
estimators."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from tsattn import TSClassifier, TSRegressor
from tsattn.io import to_series_batch
from tsattn.nn import ConvTokenizer, RocketTokenizer
from tsattn.nn.tokenizers import minirocket_kernels
from tsattn.training import SliceAndScale
from tsattn.training.callbacks import warmup_cosine

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, random_state=0)


def _data(n=24, c=2, length=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, c, length))
    y = np.arange(n) % 2
    X[y == 1, 0] += np.sin(np.linspace(0, 6, length))  # a learnable difference
    return X, y


def _check_tokens_of_padded_series(tok):
    """A 3-channel tokeniser of 4 steps per token, in eval mode: padded series of 37, 20, 9 and 1
    steps give ``ceil(length / 4)`` real tokens, zero tokens beyond them and, for the real ones,
    the tokens of the series alone. Returns the padded batch and its mask."""
    warm = torch.randn(8, 37, 3) * 3
    if hasattr(tok, "fit_levels"):
        tok.fit_levels([(warm, None)])  # the random-kernel levels, fitted before training
    tok.train()(warm)  # running statistics away from their initial values
    tok.eval()
    lengths = torch.tensor([37, 20, 9, 1])
    mask = torch.arange(37)[None] < lengths[:, None]
    x = torch.randn(4, 37, 3) * mask[..., None]
    tokens, token_mask = tok(x, mask)
    assert tokens.shape == (4, tok.n_tokens(37), 16) == (4, 10, 16)
    assert token_mask.sum(dim=1).tolist() == [10, 5, 3, 1]  # ceil(length / 4)
    assert (tokens[~token_mask] == 0).all()
    alone, none = tok(x[1:2, :20], None)
    assert none is None
    torch.testing.assert_close(tokens[1, :5], alone[0], atol=1e-5, rtol=1e-5)
    return x, mask


def test_conv_tokenizer_halves_steps_and_ignores_padding():
    """The halving blocks widen towards ``d_model`` from at least ``MIN_WIDTH`` channels."""
    torch.manual_seed(0)
    tok = ConvTokenizer(3, 16, n_down=2)
    _check_tokens_of_padded_series(tok)
    assert [conv.out_channels for conv in tok.convs] == [16, 16, 16]
    assert [conv.stride[0] for conv in tok.convs] == [2, 2, 1] and tok.convs[0].in_channels == 3
    wide = ConvTokenizer(3, 128, n_down=3)
    assert [conv.out_channels for conv in wide.convs] == [32, 64, 128, 128]


def test_minirocket_kernels_are_the_84_choices_of_three_positions_summing_to_zero():
    k = minirocket_kernels()
    assert k.shape == (84, 9) and len({tuple(r.tolist()) for r in k}) == 84
    assert (k.sum(dim=1) == 0).all() and ((k == 2).sum(dim=1) == 3).all()


def test_rocket_tokenizer_pools_fixed_kernels_into_tokens_and_ignores_padding():
    torch.manual_seed(0)
    tok = RocketTokenizer(3, 16, n_down=2, max_len=200, n_dilations=4)
    assert tok.dilations == [1, 2, 8, 24]  # 2**(i/3 * log2(199/8)), floored: 1 up to the span
    assert not any(n.startswith("weights") for n, _ in tok.named_parameters())  # fixed, not learnt
    assert tok.projection.in_channels == 84 * 4
    # every map on one to three of the three channels (MiniRocket: up to nine)
    picked = (tok.weights != 0).any(dim=-1).sum(dim=-1)
    assert picked.min() >= 1 and picked.max() <= 3
    x, mask = _check_tokens_of_padded_series(tok)
    feats, real = tok._proportions(x, mask)
    assert ((feats >= 0) & (feats <= 1)).all()  # proportions of positive values
    assert real[1].tolist() == [True] * 5 + [False] * 5 and real[3].tolist() == [True] + [False] * 9
    fixed = tok.fixed_features(x, mask)  # the counts of positive steps, what a fit caches
    assert fixed.dtype == torch.uint8 and fixed.shape == (4, 84 * 4, 10) and fixed.max() <= 4
    assert (fixed[1, :, 5:] == 0).all() and (fixed[3, :, 1:] == 0).all()
    out, _ = tok(x.requires_grad_(), mask)
    out.sum().backward()
    assert x.grad is None or (x.grad == 0).all()  # nothing before the projection is learnt
    assert tok.projection.weight.grad is not None


def test_rocket_tokenizer_samples_long_segments_and_reads_short_ones_whole():
    x = torch.randn(6, 256, 2)
    mask = torch.arange(256)[None] < torch.tensor([256, 256, 200, 130, 64, 3])[:, None]
    x = x * mask[..., None]

    def features(n_down, samples):
        torch.manual_seed(0)
        tok = RocketTokenizer(2, 8, n_down=n_down, max_len=256, samples=samples)
        tok.fit_levels([(x, mask)])
        return tok.eval()._proportions(x, mask)

    whole, real = features(4, None)  # segments of 16 steps, at most 16 samples: every step
    torch.testing.assert_close(features(4, 16), (whole, real))
    whole, real = features(6, None)  # segments of 64 steps, every 4th step read
    sampled, same_real = features(6, 16)
    torch.testing.assert_close(same_real, real)
    assert real[5].tolist() == [True, False, False, False] and real[3].tolist() == [True] * 3 + [False]
    # the proportions estimated from 16 of 64 steps: close to those of every step
    assert (sampled - whole).abs().mean() < 0.15
    assert torch.corrcoef(torch.stack([sampled.ravel(), whole.ravel()]))[0, 1] > 0.8
    assert not torch.equal(sampled, whole)


def test_rocket_tokenizer_in_the_classifier_fits_ragged_series_and_pickles():
    import pickle

    X, y = _data(length=100)
    ragged = [x[:, : 100 - 3 * i] for i, x in enumerate(X)]
    clf = TSClassifier(tokenizer="rocket", max_tokens=16, max_steps=30, **TINY).fit(ragged, y)
    assert (clf.token_steps_, clf.n_tokens_) == (8, 13)
    assert clf.module_.tokenizer.dilations[-1] == 12  # (100 - 1) / 8
    proba = clf.predict_proba(ragged)
    np.testing.assert_allclose(proba[5:6], clf.predict_proba(ragged[5:6]), atol=1e-5)
    np.testing.assert_allclose(pickle.loads(pickle.dumps(clf)).predict_proba(ragged), proba)
    both = TSClassifier(tokenizer="conv_rocket", precision="bf16-mixed", max_steps=30, **TINY)
    assert both.fit(ragged, y).predict_proba(ragged).shape == (24, 2)
    assert both.module_.tokenizer.rocket.projection.out_channels == 16


def test_label_smoothing_keeps_the_probabilities_off_the_hard_labels():
    X, y = _data()
    X[y == 1, 0] += 3.0  # separable: hard labels drive the probabilities to 1
    kw = dict(max_steps=150, augment_prob=0.0, dropout=0.0, anchor="none", **TINY)  # the network's probabilities
    hard = TSClassifier(label_smoothing=0.0, **kw).fit(X, y).predict_proba(X).max(axis=1)
    soft = TSClassifier(label_smoothing=0.5, **kw).fit(X, y)
    assert hard.min() > 0.9
    # targets 0.75 / 0.25: the smoothed optimum; still every series right
    assert soft.predict_proba(X).max(axis=1).max() < 0.85
    assert (soft.predict(X) == y).all()


@pytest.mark.parametrize(("tokenizer", "steps", "tokens"), [("step", 1, 300), ("patch", 10, 30), ("conv", 16, 19), ("rocket", 16, 19)])
def test_tokenizers_bound_the_token_count(tokenizer, steps, tokens):
    X, y = _data(length=300)
    clf = TSClassifier(tokenizer=tokenizer, max_tokens=32, max_epochs=1, **TINY).fit(X, y)
    assert (clf.token_steps_, clf.n_tokens_) == (steps, tokens)
    assert clf.predict(X).shape == (24,)


def test_step_budget_stops_mid_epoch_and_takes_the_smaller_bound():
    X, y = _data()  # 24 series, batch 8: 3 steps per epoch
    clf = TSClassifier(max_epochs=None, max_steps=7, batch_size=8, **TINY).fit(X, y)
    assert (clf.n_steps_, clf.n_epochs_, clf.max_steps_) == (7, 3, 7)
    clf = TSClassifier(max_epochs=2, max_steps=7, batch_size=8, **TINY).fit(X, y)
    assert (clf.n_steps_, clf.n_epochs_) == (6, 2)
    with pytest.raises(ValueError, match="both None"):
        TSClassifier(max_epochs=None, max_steps=None, **TINY).fit(X, y)


@pytest.mark.parametrize(("n", "steps"), [(10, 1000), (50, 1000), (200, 2000), (450, 3000), (5000, 4000)])
def test_auto_step_budget_grows_with_the_training_series_between_bounds(n, steps):
    for est in (TSClassifier(max_steps="auto"), TSRegressor(max_steps="auto")):
        budget = est._budget(n)
        assert budget.steps == steps and budget.rounds == -(-steps // -(-n // 32))
    # a fit reports the resolved budget and stops there
    X, y = _data(n=12, length=20)
    clf = TSClassifier(max_steps="auto", **TINY)
    clf.set_params(max_epochs=2).fit(X, y)
    assert (clf.max_steps_, clf.n_steps_) == (2, 2)  # the epoch bound (2 x 1 batch) is smaller


@pytest.mark.parametrize(("n", "batch"), [(24, 8), (70, 16), (130, 32)])
def test_auto_batch_size_gives_small_sets_several_batches_per_epoch(n, batch):
    X, y = _data(n=n, length=20)
    clf = TSClassifier(batch_size="auto", max_epochs=None, max_steps=6, **TINY).fit(X, y)
    assert clf.batch_size_ == batch
    assert clf.n_epochs_ == -(-6 // -(-n // batch))  # steps per epoch follow the resolved size
    assert TSClassifier(max_steps=2, **TINY).fit(X, y).batch_size_ == 32


def test_auto_batch_size_is_refused_where_there_is_no_rule():
    from tsattn import TSForecaster

    y = np.sin(np.arange(200.0))[:, None]
    with pytest.raises(ValueError, match="no rule for batch_size='auto'"):
        TSForecaster(4, 8, batch_size="auto", max_steps=2, d_model=16, n_heads=2).fit(y)


def test_warmup_cosine_rises_then_decays_to_zero_and_keeps_the_last_weights():
    factors = [warmup_cosine(s, total=100, warmup=0.1) for s in range(100)]
    assert factors[0] == pytest.approx(0.1) and factors[9] == pytest.approx(1.0)
    assert all(a >= b for a, b in zip(factors[9:], factors[10:], strict=False))
    assert factors[-1] == pytest.approx(0.5 * (1 + math.cos(math.pi * 89 / 90)))
    X, y = _data()
    clf = TSClassifier(max_epochs=None, max_steps=30, batch_size=8, lr_schedule="warmup_cosine", **TINY).fit(X, y)
    lrs = [r["lr"] for r in clf.history_]
    assert lrs[-1] < 1e-5 < max(lrs)
    assert clf.best_epoch_ == clf.n_epochs_ == 10  # no validation split: the final weights


def test_slice_and_scale_keep_padding_and_stay_inside_each_series():
    torch.manual_seed(0)
    lengths = torch.tensor([10, 6])
    mask = torch.arange(10)[None] < lengths[:, None]
    ramp = torch.arange(10.0)[None, :, None].repeat(2, 1, 3) * mask[..., None]
    out = SliceAndScale(crop=0.5, scale=0.0)(ramp, mask)
    assert (out[~mask] == 0).all()
    for i, n in enumerate(lengths.tolist()):
        seg = out[i, :n, 0]
        assert seg.min() >= 0 and seg.max() <= n - 1  # values from the series' own steps
        assert (seg.diff() >= 0).all()  # a stretched window of a ramp is a ramp
        assert seg[-1] - seg[0] >= 0.5 * n - 1.5  # at least half the series kept
    assert SliceAndScale(1.0, 0.0)(ramp, mask).equal(ramp)
    scaled = SliceAndScale(1.0, 0.1)(ramp, mask)
    ratio = scaled[:, 1:] / ramp[:, 1:].clamp(min=1)
    assert not torch.allclose(ratio[0, 1:4, 0], ratio[0, 1:4, 1])  # a factor per channel
    with pytest.raises(ValueError, match="crop"):
        SliceAndScale(crop=0.0)


def test_augmentation_probability_leaves_the_other_series_unchanged():
    torch.manual_seed(0)
    x = torch.randn(400, 20, 2)
    out = SliceAndScale(crop=0.6, scale=0.2, prob=0.5)(x, None)
    same = (out == x).flatten(1).all(dim=1)
    assert 140 < int(same.sum()) < 260  # about half the series untouched, the rest all changed
    assert not (out[~same] == x[~same]).flatten(1).all(dim=1).any()
    assert not SliceAndScale(0.6, 0.2, prob=0.0).active
    with pytest.raises(ValueError, match="prob"):
        SliceAndScale(prob=1.5)


def test_augmentation_is_reproducible_and_changes_training():
    X, y = _data()
    # the network alone: the anchor's confident scores would hide what the augmentation changes
    params = dict(max_epochs=2, device="cpu", anchor="none", **TINY)  # bit-identical refits: tests/training/test_cuda.py for GPUs
    a = TSClassifier(crop=0.7, scale_jitter=0.1, **params).fit(X, y).predict_proba(X)
    b = TSClassifier(crop=0.7, scale_jitter=0.1, **params).fit(X, y).predict_proba(X)
    c = TSClassifier(crop=1.0, scale_jitter=0.0, **params).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_regressor_shares_the_budget_and_tokenisers():
    X, _ = _data(length=100)
    target = X[:, 0].mean(axis=1)
    reg = TSRegressor(tokenizer="conv", max_tokens=16, max_epochs=None, max_steps=5, **TINY).fit(X, target)
    assert reg.n_steps_ == 5 and reg.n_tokens_ <= 16


def test_a_diverging_fit_with_the_decaying_schedule_raises_instead_of_keeping_nan_weights():
    from tsattn.training import TrainingDivergedError

    X, y = _data()
    with pytest.raises(TrainingDivergedError, match="lr"):
        TSClassifier(lr=1e8, max_epochs=None, max_steps=30, batch_size=8, **TINY).fit(X, y)


def test_instance_normalisation_ignores_each_series_scale_and_both_keeps_it():
    rng = np.random.default_rng(0)
    shape = rng.normal(size=(12, 2, 40))
    X = shape * rng.uniform(0.5, 50, size=(12, 1, 1)) + rng.normal(0, 10, size=(12, 2, 1))
    y = np.arange(12) % 3
    # the network alone: the anchor reads the series' raw scale
    fits = {n: TSClassifier(normalize=n, max_steps=1, d_model=16, n_heads=2, random_state=0, anchor="none").fit(X, y)
            for n in ("channel", "instance", "both")}  # fmt: skip
    batch = to_series_batch(X)
    inst = fits["instance"]._to_tensors(batch).x.cpu().numpy()
    assert np.allclose(inst.mean(axis=1), 0, atol=1e-5) and np.allclose(inst.std(axis=1), 1, atol=1e-4)
    # an instance-normalised model cannot tell a series from a rescaled copy of it
    assert np.allclose(fits["instance"].predict_proba(X * 7 + 3), fits["instance"].predict_proba(X), atol=1e-5)
    both = fits["both"]._to_tensors(batch).x.cpu().numpy()
    assert both.shape[2] == 4 and np.allclose(both[..., 2:], inst)
    assert np.allclose(both[..., :2], fits["channel"]._to_tensors(batch).x.cpu().numpy())
    # unequal lengths: statistics over each series' real steps, padding stays zero
    short = [x[:, : 20 + i] for i, x in enumerate(X)]
    out = fits["instance"]._to_tensors(to_series_batch(short)).x.cpu().numpy()
    assert np.allclose(out[0, :20].mean(axis=0), 0, atol=1e-5) and (out[0, 20:] == 0).all()
