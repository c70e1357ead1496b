"""The CPU dropout: unbiased, the documented keep rate, identity in eval, gradients through the mask."""

import pytest
import torch

from tsattn.nn.dropout import Dropout


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
