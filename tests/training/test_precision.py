"""``precision="bf16-mixed"``: every variant trains under bfloat16 autocast, float32 stays exact."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from aeon.datasets import load_basic_motions

from tests.helpers.reference_attention import TEST_CONFIGS
from tsattn import TSClassifier, TSForecaster, list_attention
from tsattn.attention import build_attention
from tsattn.training import autocast

TINY = dict(d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=2, random_state=0,
            device="cpu")  # fmt: skip


@pytest.fixture(scope="module")
def motions():
    X, y = load_basic_motions(split="train")
    return X[:, :, ::4], y


@pytest.mark.parametrize("attention", list_attention())
def test_every_variant_trains_in_bf16_mixed_close_to_float32(motions, attention):
    X, y = motions
    losses = {}
    for precision in ("float32", "bf16-mixed"):
        clf = TSClassifier(attention=attention, precision=precision, **TINY).fit(X, y)
        proba = clf.predict_proba(X)
        assert proba.dtype == np.float64 and np.isfinite(proba).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)
        assert all(p.dtype == torch.float32 for p in clf.module_.parameters())  # weights stay fp32
        losses[precision] = clf.history_[0]["train_loss"]
    # one epoch from the same start: bfloat16 rounding moves the loss by well under 5%
    assert losses["bf16-mixed"] == pytest.approx(losses["float32"], rel=0.05)


def test_the_forward_pass_runs_in_bfloat16():
    lin = torch.nn.Linear(4, 4)
    with autocast(torch.device("cpu"), "bf16-mixed"):
        assert lin(torch.randn(2, 4)).dtype == torch.bfloat16
    with autocast(torch.device("cpu"), "float32"):
        assert lin(torch.randn(2, 4)).dtype == torch.float32


def test_forecaster_in_bf16_mixed():
    t = np.arange(200)
    series = np.stack([np.sin(2 * np.pi * t / 12), np.cos(2 * np.pi * t / 8)], axis=1)
    f = TSForecaster(attention="s3", horizon=6, context_length=24, patch_len=4, precision="bf16-mixed",
                     **{**TINY, "max_epochs": 3}).fit(series)
    pred = f.predict(series[None, -24:])
    assert pred.shape == (1, 6, 2) and pred.dtype == np.float64 and np.isfinite(pred).all()


@pytest.mark.parametrize("bad", ["bf16", "float16", None])
def test_unknown_precision_is_refused(motions, bad):
    X, y = motions
    with pytest.raises(ValueError, match="precision must be one of"):
        TSClassifier(precision=bad, **TINY).fit(X, y)


DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list_attention())
def test_a_variant_alone_takes_float32_input_under_bf16_autocast(name, device):
    """A user's own model may hand an attention layer float32 activations inside ``autocast``
    (the estimators' networks hand it bfloat16 ones): outputs, maps and gradients stay finite."""
    torch.manual_seed(0)
    cfg = TEST_CONFIGS.get(name, [{}])[0]
    module = build_attention(name, 16, 4, **cfg).to(device).train()
    x = torch.randn(4, 24, 16, device=device, requires_grad=True)
    mask = torch.ones(4, 24, dtype=torch.bool, device=device)
    mask[1, 15:] = False
    with torch.autocast(device, dtype=torch.bfloat16):
        out = module(x, mask)
        if module.supports_weights:
            _, weights = module(x, mask, need_weights=True)
            assert torch.isfinite(weights).all()
    out.float().square().mean().backward()
    assert torch.isfinite(out).all() and torch.isfinite(x.grad).all()
