"""The forecasting network's registered parts: the heads and token views, the table of which
combine (one check for the estimator and the network), the views' tokens, and the recipe for a
new head followed once: a toy head registered here and trained through ``TSForecaster``."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from tsattn import TSForecaster
from tsattn.nn.forecasting import (
    ForecastHead,
    ForecastingTransformer,
    OverlappingPatchTokenizer,
    TokenLayout,
    check_combination,
    combinations,
    get_head,
    list_heads,
    list_views,
    register_head,
    registry,
)

TINY = dict(d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_steps=6, random_state=0,
            device="cpu", horizon=4, context_length=16, patch_len=4)  # fmt: skip


def _series(n=120, c=2):
    t = np.arange(n)
    return np.stack([np.sin(2 * np.pi * t / 8 + k) for k in range(c)], axis=1)


def test_the_registries_hold_the_papers_parts_and_name_the_close_ones():
    assert list_heads() == ["fourier", "linear"] and list_views() == ["patch", "variate"]
    assert [hp.name for hp in get_head("fourier").hyperparameters] == ["n_harm"]
    with pytest.raises(ValueError, match=r"head must be one of 'fourier', 'linear'; got 'lineer'\. "
                                         r"Did you mean 'linear'\?"):
        get_head("lineer")
    with pytest.raises(ValueError, match="tokens must be one of 'patch', 'variate'"):
        TSForecaster(**TINY, tokens="channel").fit(_series())


def test_one_table_says_which_heads_read_which_views():
    """The Fourier head decodes tokens to steps: patches side by side or a channel's window, not
    overlapping patches (which no variate view takes at all)."""
    assert all(combinations(patch_len=4, patch_stride=None).values())
    assert combinations(patch_len=4, patch_stride=2) == {
        ("fourier", "patch"): False, ("linear", "patch"): True,
        ("fourier", "variate"): False, ("linear", "variate"): False,
    }  # fmt: skip
    message = r"head='fourier' needs tokens that decode to the window's steps.*choose another head"
    with pytest.raises(ValueError, match=message):
        check_combination("fourier", "patch", patch_len=4, patch_stride=2)
    with pytest.raises(ValueError, match=message):  # the network asks the same table
        ForecastingTransformer(2, 16, 4, head="fourier", channel_independent=True, patch_len=4,
                               patch_stride=2, anchor=False, **_trunk())  # fmt: skip
    with pytest.raises(ValueError, match=message):  # and the estimator, before reading data
        TSForecaster(**TINY, head="fourier", patch_stride=2).fit(None)


def _trunk():
    return dict(attention="softmax", d_model=8, n_heads=2, n_layers=1, dim_feedforward=16,
                dropout=0.0, attention_dropout=0.0, norm="batch")  # fmt: skip


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


def test_a_saved_fourier_network_of_0_1_0_loads_its_projection_into_the_head():
    """tsattn 0.1.0 held the Fourier head's projection on the network (``output_projection.*``)."""
    net = ForecastingTransformer(2, 16, 4, head="fourier", channel_independent=True, patch_len=4,
                                 anchor=False, **_trunk())  # fmt: skip
    state = {k.replace("head.output_projection", "output_projection"): v
             for k, v in net.state_dict().items()}  # fmt: skip
    again = ForecastingTransformer(2, 16, 4, head="fourier", channel_independent=True, patch_len=4,
                                   anchor=False, **_trunk())  # fmt: skip
    again.load_state_dict(state)
    torch.testing.assert_close(again.head.output_projection.weight, net.head.output_projection.weight)


# ----------------------------------------------------------------------------- the recipe
class MeanTokenHead(ForecastHead):
    """A toy head: the mean of the encoded tokens mapped linearly to every channel's horizon.
    Works with any view (it requires nothing of the tokens)."""

    summary = "toy: the mean token, mapped linearly"
    hyperparameters = ()

    def __init__(self, layout: TokenLayout, horizon: int, dropout: float) -> None:
        super().__init__()
        self.horizon, self.channels = horizon, layout.channels
        self.linear = nn.Linear(layout.d_model, horizon * layout.channels)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.linear(h.mean(dim=1)).reshape(h.shape[0], self.horizon, self.channels)


@pytest.fixture
def toy_head():
    register_head("mean_token")(MeanTokenHead)  # step 1 of the recipe: one class, registered
    try:
        yield "mean_token"
    finally:
        registry._HEADS.pop("mean_token")


@pytest.mark.parametrize("tokens", ["patch", "variate"])
def test_a_new_head_is_one_registered_class(toy_head, tokens):
    """The recipe of :mod:`tsattn.nn.forecasting.registry` followed once: a head registered in
    this module is listed, checked, trained by ``TSForecaster`` for a few steps with each view,
    forecasts, and survives pickling; nothing else was edited."""
    import pickle

    assert toy_head in list_heads() and combinations()[(toy_head, tokens)]
    y = _series(c=3)
    f = TSForecaster(**TINY, head=toy_head, tokens=tokens).fit(y)
    assert isinstance(f.module_.head, MeanTokenHead) and f.n_steps_ == 6
    assert f.module_.head.linear.weight.shape == (4 * (1 if tokens == "patch" else 3), 8)
    pred = f.predict()
    assert pred.shape == (4, 3) and np.isfinite(pred).all()
    np.testing.assert_allclose(pickle.loads(pickle.dumps(f)).predict(), pred, rtol=1e-5, atol=1e-6)
