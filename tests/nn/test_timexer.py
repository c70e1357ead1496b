"""TimeXer's way of reading covariates (``covariate_tokens='variates'``): the network and the
estimator parameter (issue 51, item 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from sklearn.base import clone

from tests.estimators.test_forecast_panel import FAST, future_rows, panel
from tsattn import TSForecaster
from tsattn.attention import list_attention
from tsattn.nn.timexer import TimeXerForecaster

TINY = dict(attention="softmax", d_model=16, n_heads=2, n_layers=2, dim_feedforward=16,
            dropout=0.0, attention_dropout=0.0, norm="layer")  # fmt: skip


def network(**kw) -> TimeXerForecaster:
    torch.manual_seed(0)
    params = {**TINY, **kw}
    return TimeXerForecaster(24, 6, n_covariates=2, future=(0,), patch_len=4, anchor=False,
                             **params).eval()  # fmt: skip


def test_shapes_and_only_the_known_rows_are_read():
    net = network()
    x = torch.randn(3, 30, 3)
    assert net(x).shape == (3, 6, 1)
    assert net.tokens(x[:, :24, :1]).shape == (3, 24 // 4 + 1, 16)  # patches, then the global token
    assert net.variate_tokens(x).shape == (3, 2, 16)  # one token per covariate
    hidden = x.clone()
    hidden[:, 24:, 0] = 7.0  # the target's horizon
    hidden[:, 24:, 2] = 7.0  # the past-only covariate's horizon
    torch.testing.assert_close(net(hidden), net(x))
    seen = x.clone()
    seen[:, 24:, 1] += 1.0  # the future covariate's horizon: read by its variate token
    assert not torch.allclose(net(seen), net(x))


def test_the_covariates_reach_the_forecast_through_the_cross_attention_only():
    net = network()
    assert float(net.future_map.weight.detach().abs().sum()) == 0.0  # zero at the start
    x = torch.randn(4, 30, 3)
    moved = x.clone()
    moved[:, :24, 2] += 1.0  # the past-only covariate's context: no patch token holds it
    assert not torch.allclose(net(moved), net(x))
    for cross in net.cross:  # without the cross-attention the covariates are not read
        torch.nn.init.zeros_(cross.attention.out_proj.weight)
        torch.nn.init.zeros_(cross.attention.out_proj.bias)
    torch.testing.assert_close(net(moved), net(x))


def test_a_gradient_reaches_the_variate_embedding():
    net = network().train()
    net(torch.randn(4, 30, 3)).square().mean().backward()
    assert float(net.variate_embedding.weight.grad.abs().sum()) > 0
    assert float(net.global_token.grad.abs().sum()) > 0
    assert all(float(c.attention.in_proj_weight.grad.abs().sum()) > 0 for c in net.cross)


@pytest.mark.parametrize("name", list_attention())
def test_every_registered_attention_builds_and_runs(name):
    net = network(attention=name, n_layers=1)
    out = net(torch.randn(2, 30, 3))
    assert out.shape == (2, 6, 1) and torch.isfinite(out).all()


def test_needs_a_covariate():
    with pytest.raises(ValueError, match="at least one covariate"):
        TimeXerForecaster(24, 6, n_covariates=0, future=(), patch_len=4, anchor=False, **TINY)


def test_the_estimator_builds_it_and_a_driving_covariate_changes_the_forecast():
    df = panel()
    model = TSForecaster(horizon=6, context_length=24, covariate_tokens="variates", **FAST)
    model.fit(df)  # both covariates past-only: read by the variate tokens alone
    assert isinstance(model.module_, TimeXerForecaster)
    assert model.network_params_["covariate_tokens"] == "variates"
    rows = df[df.unique_id == "s1"]
    y = rows[["y"]].to_numpy()[None, -24:]
    X = rows[["load_fc", "temp"]].to_numpy()[None, -24:]
    base = model.predict(y, X=X)
    shifted = X.copy()  # a ramp: each window is standardised on its own, a shift would vanish
    shifted[..., 0] += np.linspace(0.0, 3.0, 24)
    assert base.shape == (1, 6, 1) and not np.allclose(model.predict(y, X=shifted), base)


def test_without_covariates_variates_names_the_fix():
    df = panel()[["unique_id", "ds", "y"]]
    with pytest.raises(ValueError, match="covariate_tokens='channels'"):
        TSForecaster(horizon=6, context_length=24, covariate_tokens="variates", **FAST).fit(df)


def test_save_load_clone_and_get_params(tmp_path):
    df = panel()
    model = TSForecaster(horizon=6, context_length=24, future_covariates=["load_fc"],
                         covariate_tokens="variates", **FAST).fit(df)  # fmt: skip
    again = TSForecaster.load(model.save(tmp_path / "m.tsattn"))
    assert isinstance(again.module_, TimeXerForecaster)
    fut = future_rows(model, 0.5)
    pd.testing.assert_frame_equal(again.predict(X=fut), model.predict(X=fut))
    assert model.get_params()["covariate_tokens"] == "variates"
    copy = clone(model)
    assert copy.covariate_tokens == "variates" and not hasattr(copy, "module_")
    with pytest.raises(ValueError, match="covariate_tokens"):
        TSForecaster(covariate_tokens="tokens").fit(df)
