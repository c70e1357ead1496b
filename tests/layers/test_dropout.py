"""The CPU dropout: unbiased, the documented keep rate, identity in eval, gradients through the mask."""

import os
import shutil

import pytest
import torch

from tsattn.layers.dropout import Dropout


@pytest.mark.parametrize("p", [0.1, 0.2, 0.5])
def test_keep_rate_and_unbiased(p):
    torch.manual_seed(0)
    layer = Dropout(p).train()
    x = torch.ones(400_000)
    y = layer(x)
    kept = (y != 0).float().mean().item()
    assert abs(kept - layer.keep_probability) < 4e-3
    assert abs(layer.keep_probability - (1 - p)) <= 1 / 512
    assert torch.allclose(y[y != 0], torch.tensor(1 / layer.keep_probability))
    assert abs(y.mean().item() - 1.0) < 6e-3


def test_eval_and_zero_are_identity():
    x = torch.randn(5, 7)
    assert Dropout(0.3).eval()(x) is x
    assert Dropout(0.0).train()(x) is x


def test_gradient_is_the_scaled_mask():
    torch.manual_seed(1)
    x = torch.randn(64, 32, requires_grad=True)
    y = Dropout(0.25).train()(x)
    y.sum().backward()
    mask = (y != 0).float()
    torch.testing.assert_close(x.grad, mask / Dropout(0.25).keep_probability)


def test_invalid_probability():
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        Dropout(1.0)


def test_random_bytes_are_uniform_in_every_byte_of_the_word():
    """All eight bytes of each 64-bit draw are used, so none may be biased (e.g. a sign byte)."""
    from tsattn.layers.dropout import random_bytes

    torch.manual_seed(2)
    b = random_bytes((1_000_000,)).long()
    per_position = b.view(-1, 8).float().mean(0)  # byte 7 holds the sign bit of the draw
    assert torch.allclose(per_position, torch.full((8,), 127.5), atol=1.0)
    counts = torch.bincount(b, minlength=256).float()
    expected = len(b) / 256
    chi2 = ((counts - expected) ** 2 / expected).sum().item()
    assert chi2 < 350  # 255 degrees of freedom: the 99.9% point is ~330


def test_random_bytes_shape_and_seed():
    from tsattn.layers.dropout import random_bytes

    torch.manual_seed(3)
    a = random_bytes((3, 5, 7))  # 105 values: not a multiple of 8
    torch.manual_seed(3)
    b = random_bytes((3, 5, 7))
    assert a.shape == (3, 5, 7) and a.dtype == torch.uint8
    assert torch.equal(a, b)


@pytest.mark.skipif(
    not any(shutil.which(c) for c in (os.environ.get("CXX") or "g++", "g++", "clang++", "c++")),
    reason="torch.compile's CPU backend compiles C++: no C++ compiler here (e.g. a minimal "
    "container; apt install g++)",
)
@pytest.mark.integration
def test_the_network_trains_under_torch_compile():
    """torch.compile cannot replay the eager mask's int64 -> uint8 view; the layer must avoid it."""
    from aeon.datasets import load_basic_motions

    from tsattn import TSClassifier

    X, y = load_basic_motions(split="train")
    clf = TSClassifier(d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=1,
                       random_state=0, device="cpu").fit(X[::5, :, :20], y[::5])  # the CPU backend
    net = torch.compile(clf.module_.train())
    x = torch.randn(4, 20, 6)
    loss = net(x, None).logsumexp(dim=1).mean()
    loss.backward()
    assert all(p.grad is not None for p in clf.module_.parameters() if p.requires_grad)
