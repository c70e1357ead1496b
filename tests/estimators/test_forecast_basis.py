"""``TSForecaster(basis="ortho")`` (OLinear's OrthoTrans): the temporal correlation against
OLinear's lagged-window formula, the bases' orthogonality and order, the network's wiring against
a plain network on transformed windows, and the estimator end to end."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch

from tsattn import TSForecaster
from tsattn.estimators._basis import temporal_basis, temporal_correlation
from tsattn.nn.forecasting import ForecastingTransformer

NET = dict(
    head="linear", n_harm=8, instance_norm=False, instance_norm_eps=1e-5, patch_len=4, anchor=False,
    attention="softmax", d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, dropout=0.0,
    attention_dropout=0.0, norm="batch",
)  # fmt: skip
TINY = dict(
    attention="softmax", d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_steps=20,
    random_state=0, horizon=6, context_length=16, device="cpu", patch_len=4,
)  # fmt: skip


def _series(n=4000, seed=0):
    """Two channels: an AR(1) and a noisy daily-like cycle (different autocorrelations)."""
    rng = np.random.default_rng(seed)
    ar = np.zeros(n)
    for t in range(1, n):
        ar[t] = 0.9 * ar[t - 1] + rng.normal()
    cycle = np.sin(2 * np.pi * np.arange(n) / 12) + 0.5 * rng.normal(size=n)
    return np.stack([ar, cycle], axis=1)


def _olinear_correlation(series: np.ndarray, length: int) -> np.ndarray:
    """OLinear's estimate: per channel the covariance of every lagged window, normalised to unit
    diagonal (Pearson), averaged over the channels (their Generate_corrmat notebook)."""
    mats = []
    for x in series.T:
        lagged = np.stack([x[i : len(x) - length + i + 1] for i in range(length)])
        mats.append(np.corrcoef(lagged))
    return np.mean(mats, axis=0)


def test_temporal_correlation_is_olinears_estimate_for_a_long_series():
    y = _series()
    ours, ref = temporal_correlation(y, 24), _olinear_correlation(y, 24)
    assert np.allclose(np.diag(ours), 1.0)
    np.testing.assert_allclose(ours, ref, atol=0.02)
    ar_only = temporal_correlation(y[:, :1], 4)[0]  # the AR(1) alone: 0.9 ** lag
    np.testing.assert_allclose(ar_only, 0.9 ** np.arange(4), atol=0.05)


def test_temporal_basis_is_orthogonal_and_ordered_by_eigenvalue():
    y = _series()
    q, r = temporal_basis(y, 24), temporal_correlation(y, 24)
    np.testing.assert_allclose(q @ q.T, np.eye(24), atol=1e-10)
    spectrum = np.diag(q @ r @ q.T)
    assert np.all(np.diff(spectrum) <= 1e-10)  # largest first
    np.testing.assert_allclose(q @ r @ q.T, np.diag(spectrum), atol=1e-10)  # decorrelated


def test_flat_channels_are_left_out_and_short_series_still_give_a_basis():
    y = _series()
    with_flat = np.concatenate([y, np.full((len(y), 1), 3.0)], axis=1)
    np.testing.assert_allclose(temporal_correlation(with_flat, 8), temporal_correlation(y, 8))
    assert np.array_equal(temporal_correlation(np.ones((50, 2)), 5), np.eye(5))
    q = temporal_basis(y[:10], 16)  # fewer rows than lags: still an orthogonal 16 x 16
    np.testing.assert_allclose(q @ q.T, np.eye(16), atol=1e-10)


def _pair(channel_independent: bool, tokens: str = "patch"):
    torch.manual_seed(0)
    params = dict(NET, channel_independent=channel_independent, tokens=tokens)
    with_basis = ForecastingTransformer(3, 16, 6, basis=True, **params).eval()
    plain = ForecastingTransformer(3, 16, 6, **params).eval()
    state = {k: v for k, v in with_basis.state_dict().items() if not k.startswith("basis_")}
    plain.load_state_dict(state)
    return with_basis, plain


@pytest.mark.parametrize("channel_independent, tokens",
                         [(True, "patch"), (False, "patch"), (False, "variate")])  # fmt: skip
def test_network_reads_and_writes_coefficients(channel_independent, tokens):
    """The network with bases is the plain network on ``Q_in @ window`` with its output mapped by
    ``Q_out.T``; with identity bases it is the plain network."""
    with_basis, plain = _pair(channel_independent, tokens)
    x = torch.randn(5, 16, 3)
    with torch.no_grad():
        torch.testing.assert_close(with_basis(x), plain(x))  # identities until set
        q_in = torch.linalg.qr(torch.randn(16, 16)).Q
        q_out = torch.linalg.qr(torch.randn(6, 6)).Q
        with_basis.set_basis(q_in, q_out)
        coefficients = plain(torch.einsum("kl,blc->bkc", q_in, x))
        expected = torch.einsum("kh,bkc->bhc", q_out, coefficients)
        torch.testing.assert_close(with_basis(x), expected, rtol=1e-5, atol=1e-5)


def test_set_basis_says_what_is_wrong():
    with_basis, plain = _pair(True)
    with pytest.raises(ValueError, match="basis_out has shape"):
        with_basis.set_basis(torch.eye(16), torch.eye(5))
    with pytest.raises(ValueError, match="built with basis=False"):
        plain.set_basis(torch.eye(16), torch.eye(6))
    with pytest.raises(ValueError, match="needs head='linear'"):
        ForecastingTransformer(3, 16, 6, basis=True, **{**NET, "head": "fourier",
                                                         "channel_independent": True})


def test_forecaster_fits_its_bases_on_the_training_rows(tmp_path):
    y = _series(600)
    f = TSForecaster(**TINY, basis="ortho", validation_fraction=0.2).fit(y)
    rows = (y[:480] - f.channel_mean_) / f.channel_scale_  # the training part, standardised
    np.testing.assert_allclose(f.module_.basis_in.numpy(), temporal_basis(rows, 16), atol=1e-5)
    np.testing.assert_allclose(f.module_.basis_out.numpy(), temporal_basis(rows, 6), atol=1e-5)
    assert not np.allclose(f.module_.basis_in.numpy(), np.eye(16))
    pred = f.predict(y)
    assert pred.shape == (6, 2) and np.isfinite(pred).all()
    loaded = pickle.loads(pickle.dumps(f))
    np.testing.assert_allclose(loaded.predict(y), pred, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("params, match", [
    ({"basis": "ortho", "head": "fourier"}, "basis='ortho' needs head='linear'"),
    ({"basis": "pca"}, "basis"),
])  # fmt: skip
def test_bad_basis_settings(params, match):
    with pytest.raises(ValueError, match=match):
        TSForecaster(**{**TINY, **params}).fit(_series(300))
