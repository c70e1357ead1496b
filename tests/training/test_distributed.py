"""Training across processes (:mod:`tsattn.training.distributed`) without starting any: the
share of each batch and its loss weight, the BatchNorm statistics gathered over the ranks, the
seed, when a fit is data-parallel, and the whole data-parallel path (DDP, synced BatchNorm, the
collectives) run as rank 0 of a one-process group, where it must give the plain fit's model.
The fits across two processes are in ``test_distributed_processes.py``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
import torch.distributed as dist

from tsattn import TSClassifier, TSForecaster, TSRegressor
from tsattn.estimators import base
from tsattn.layers import MaskedBatchNorm1d
from tsattn.training import TensorData, adamw, single_process, train
from tsattn.training.distributed import DataParallel, data_parallel, synced_batchnorm

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, random_state=0, n_threads=1)


@pytest.fixture
def one_rank():
    """A gloo group of one rank in this process (a real group has two or more ranks:
    :func:`data_parallel` says None for one, so the tests put its :class:`DataParallel` in)."""
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        yield DataParallel(0, 1, 0, 1)
    finally:
        dist.destroy_process_group()


@pytest.mark.parametrize("world", [2, 3, 4])
@pytest.mark.parametrize("size", [4, 7, 32])
def test_shares_cover_the_batch_and_their_weighted_gradients_are_the_whole_batchs(world, size):
    rng = np.random.default_rng(size)
    batch = rng.permutation(50)[:size]
    x, y = torch.randn(50, 3, dtype=torch.float64), torch.randn(50, dtype=torch.float64)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)

    def grad(rows: np.ndarray, weight: float = 1.0) -> torch.Tensor:
        loss = torch.nn.functional.mse_loss(x[rows] @ w, y[rows]) * weight
        return torch.autograd.grad(loss, w)[0]

    shares = [DataParallel(r, world, r, world).shard(batch) for r in range(world)]
    assert np.array_equal(np.concatenate([rows for rows, _ in shares]), batch)
    sizes = [len(rows) for rows, _ in shares]
    assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 1
    ddp_mean = sum(grad(rows, weight) for rows, weight in shares) / world  # what DDP averages
    torch.testing.assert_close(ddp_mean, grad(batch), rtol=1e-12, atol=1e-12)


def test_synced_batchnorm_on_one_rank_is_the_modules_own_and_leaves_its_class(one_rank):
    torch.manual_seed(0)
    own = MaskedBatchNorm1d(5)
    own.weight.data.uniform_(0.5, 2)
    own.bias.data.normal_()
    synced = MaskedBatchNorm1d(5)
    synced.load_state_dict(own.state_dict())
    x = torch.randn(4, 6, 5) * 3 + 10  # far from 0: the sums of squares must not cancel
    mask = torch.arange(6)[None, :] < torch.tensor([6, 3, 5, 2])[:, None]
    with synced_batchnorm(synced):
        assert type(synced).__name__ == "SyncedMaskedBatchNorm1d"
        for m in (None, mask, mask):
            xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
            out_a, out_b = own(xa, m), synced(xb, m)
            torch.testing.assert_close(out_b, out_a, rtol=1e-4, atol=1e-4)
            (out_a * x).sum().backward()
            (out_b * x).sum().backward()
            torch.testing.assert_close(xb.grad, xa.grad, rtol=1e-4, atol=1e-4)
        for name in ("weight", "bias"):
            torch.testing.assert_close(getattr(synced, name).grad, getattr(own, name).grad,
                                       rtol=1e-4, atol=1e-4)  # fmt: skip
        for name in ("running_mean", "running_var", "num_batches_tracked"):
            torch.testing.assert_close(getattr(synced, name), getattr(own, name))
        synced.eval(), own.eval()
        torch.testing.assert_close(synced(x, mask), own(x, mask))
    assert type(synced) is MaskedBatchNorm1d


def _panel(n_series=3, n=80):
    t = np.arange(n)
    rows = [pd.DataFrame({"unique_id": f"s{k}", "ds": pd.date_range("2024-01-01", periods=n,
                                                                     freq="h"),
                          "y": np.sin(2 * np.pi * t / 12 + k) + 0.1 * k, "temp": np.cos(t / 5)})
            for k in range(n_series)]  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def _fits():
    """``(name, estimator, fit args, predict)``: each estimator kind and network part the
    data-parallel path meets (BatchNorm in the tokenizer and encoder, fixed features, covariates)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 2, 40))
    labels = np.arange(24) % 2
    X[labels == 1, 0] += np.sin(np.linspace(0, 6, 40))
    series = np.sin(2 * np.pi * np.arange(200) / 12) + 0.1 * rng.normal(size=200)
    steps = dict(max_steps=12, max_epochs=None, batch_size=8)
    forecast = dict(horizon=6, context_length=24, device="cpu", max_steps=12, validation_fraction=0.2)
    panel = _panel()
    return [
        ("classifier", TSClassifier(anchor="none", validation_fraction=0.25, **steps, **TINY),
         (X, labels), lambda e: e.predict_proba(X)),
        ("rocket tokens", TSClassifier(anchor="none", tokenizer="rocket", **steps, **TINY),
         (X, labels), lambda e: e.predict_proba(X)),
        ("regressor", TSRegressor(anchor="none", **steps, **TINY), (X, labels * 1.5),
         lambda e: e.predict(X)),
        ("forecaster", TSForecaster(**forecast, **TINY), (series,), lambda e: e.predict()),
        ("covariates", TSForecaster(**forecast, past_covariates=["temp"], **TINY), (panel,),
         lambda e: e.predict_components(panel)["network"]["y"]),
    ]  # fmt: skip


@pytest.mark.parametrize("case", range(len(_fits())), ids=[f[0] for f in _fits()])
def test_the_data_parallel_path_as_one_rank_gives_the_plain_fits_model(case, one_rank,
                                                                       monkeypatch):  # fmt: skip
    name, estimator, args, outputs = _fits()[case]
    plain = estimator.fit(*args)
    expected, history = np.asarray(outputs(plain), dtype=float), plain.history_
    monkeypatch.setattr(base, "data_parallel", lambda device: one_rank)
    parallel = _fits()[case][1].fit(*args)
    assert parallel.n_steps_ == plain.n_steps_ and len(parallel.history_) == len(history)
    np.testing.assert_allclose([r["train_loss"] for r in parallel.history_],
                               [r["train_loss"] for r in history], rtol=1e-4)  # fmt: skip
    # BatchNorm's statistics from sums over the ranks round differently from torch's kernel, and
    # AdamW turns that rounding into steps of ``lr`` along a bias that BatchNorm cancels (rocket
    # tokens: 1e-3 in the probabilities after 12 steps); a wrong statistic moves them by 1e-1
    np.testing.assert_allclose(np.asarray(outputs(parallel), dtype=float), expected, rtol=1e-2,
                               atol=5e-3)  # fmt: skip
    assert all(type(m).__name__ != "SyncedMaskedBatchNorm1d" for m in parallel.module_.modules())


class _Rank1Of2(DataParallel):
    def broadcast(self, values):  # rank 0 drew this seed
        return [1234.0]


def test_every_rank_takes_rank_0s_seed_so_splits_and_batches_agree(monkeypatch):
    monkeypatch.setattr(base, "data_parallel", lambda device: _Rank1Of2(1, 2, 1, 2))
    seed, rng = TSClassifier(random_state=None)._random()
    assert seed == 1234
    assert rng.random() == np.random.default_rng(1234).random()


def test_a_fit_is_data_parallel_only_in_a_launched_group_and_never_inside_single_process(
        monkeypatch):  # fmt: skip
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(name, raising=False)
    assert data_parallel(torch.device("cpu")) is None
    monkeypatch.setenv("WORLD_SIZE", "1")  # one process: nothing to spread
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", "9")
    assert data_parallel(torch.device("cpu")) is None
    monkeypatch.setenv("WORLD_SIZE", "2")  # a launched rank; the group is not started here
    with single_process():
        assert data_parallel(torch.device("cpu")) is None
    assert not dist.is_initialized()


def test_a_global_batch_smaller_than_the_process_count_is_refused_before_any_collective():
    module = torch.nn.Linear(3, 1)
    data = TensorData(torch.randn(10, 1, 3), torch.ones(10, dtype=torch.long), torch.randn(10, 1))
    with pytest.raises(ValueError, match="batch_size=2 .* 4 processes no share"):
        train(module, lambda out, y: torch.nn.functional.mse_loss(out, y), data, None,
              optimizer=adamw(module.parameters(), lr=1e-3, weight_decay=0.0), max_rounds=1,
              batch_size=2, rng=np.random.default_rng(0), parallel=DataParallel(0, 4, 0, 4))  # fmt: skip
