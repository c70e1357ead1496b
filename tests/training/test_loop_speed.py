"""The training loop's fast paths against what they replace: the loss summed on the device, batch
lengths read on the host, the fused optimiser; and, on CUDA, no step that waits for the device."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
import torch

from tsattn.nn.network import TSTransformer
from tsattn.training import SliceAndScale, TensorData, fit_levels, train
from tsattn.training.loop import _Batches, _train_round

NET = dict(n_outputs=2, max_len=30, tokenizer="conv_rocket", tokenizer_params={"n_down": 1, "max_len": 30},
           attention="bn_sh", d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, head="meanmax",
           dropout=0.1, attention_dropout=0.0, norm="batch")  # fmt: skip


def _data(n=22, length=30, ragged=True, device="cpu"):
    g = torch.Generator().manual_seed(0)
    lengths = torch.tensor([length - (2 * i % 7 if ragged else 0) for i in range(n)])
    x = torch.randn(n, length, 3, generator=g) * (torch.arange(length)[None, :, None] < lengths[:, None, None])
    return TensorData(x.to(device), lengths.to(device), (torch.arange(n) % 2).to(device))


@pytest.mark.parametrize("ragged", [True, False])
@pytest.mark.parametrize("fixed_len", [True, False])
def test_batches_read_with_host_lengths_are_the_batches_read_on_the_device(ragged, fixed_len):
    data = _data(ragged=ragged)
    for rows in (np.array([0, 3, 7]), np.array([5]), np.array([1, 8, 15, 2]), np.arange(22)):
        idx = torch.as_tensor(rows)
        sized = dataclasses.replace(data, fixed_len=fixed_len)
        x, mask = sized.batch(idx)
        x_host, mask_host = sized.batch(idx, rows=rows)
        assert torch.equal(x, x_host)
        assert (mask is None and mask_host is None) or torch.equal(mask, mask_host)


def test_the_epoch_loss_is_the_mean_of_its_step_losses_read_once():
    data = _data()
    torch.manual_seed(0)
    net = TSTransformer(3, **NET)
    fit_levels(net, data)
    steps = []

    def loss_fn(out, y):
        loss = torch.nn.functional.cross_entropy(out, y)
        steps.append((float(loss.detach()), len(y)))  # the test reads it; the loop does not
        return loss

    optimizer = torch.optim.AdamW(net.parameters())
    batches = _Batches(len(data), 8, np.random.default_rng(0), None).next_round()
    mean, step = _train_round(net, loss_fn, data, optimizer, batches, "float32",
                              transform=SliceAndScale(0.8, 0.1, 0.5))  # fmt: skip
    assert step == 3 and [n for _, n in steps] == [8, 8, 6]
    assert mean == pytest.approx(sum(v * n for v, n in steps) / 22, rel=1e-6)


def test_fused_adamw_steps_as_the_per_parameter_loop():
    """One step from the same gradients moves every weight alike to float32 rounding; trained for
    a few epochs, the two networks then differ by what rounding does to training (the weights
    before a BatchNorm get gradients of pure rounding noise, which Adam scales up), not more."""
    data = _data()
    torch.manual_seed(0)
    net = TSTransformer(3, **NET)
    fit_levels(net, data)
    x, mask = data.batch(torch.arange(22))
    torch.nn.functional.cross_entropy(net(x, mask), data.y).backward()
    moved = []
    for kw in (dict(fused=True), dict(foreach=False)):
        copy = TSTransformer(3, **NET)
        copy.load_state_dict(net.state_dict())
        for p, q in zip(copy.parameters(), net.parameters(), strict=True):
            p.grad = q.grad.clone()
        torch.optim.AdamW(copy.parameters(), lr=1e-3, weight_decay=0.05, **kw).step()
        moved.append(list(copy.parameters()))
    for p, q in zip(*moved, strict=True):
        torch.testing.assert_close(p, q, rtol=1e-6, atol=1e-7)

    def fit(**kw):
        torch.manual_seed(0)
        net = TSTransformer(3, **NET)
        fit_levels(net, data)
        torch.manual_seed(1)
        train(net, torch.nn.functional.cross_entropy, data, None, max_rounds=8, batch_size=8,
              optimizer=torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=0.05, **kw),
              rng=np.random.default_rng(0), transform=SliceAndScale(0.8, 0.1, 0.5))  # fmt: skip
        with torch.no_grad():
            return net.eval()(x, mask)

    loop = fit(foreach=False)
    assert torch.equal(fit(foreach=True), loop)  # foreach: the same arithmetic, batched
    torch.testing.assert_close(fit(fused=True), loop, rtol=0, atol=1e-2)


@pytest.mark.gpu
def test_a_cuda_training_epoch_waits_for_the_device_once():
    data = _data(n=64, ragged=False, device="cuda")
    torch.manual_seed(0)
    net = TSTransformer(3, **NET).cuda()
    fit_levels(net, data)
    from tsattn.training.fixed import cache_fixed_features
    from tsattn.training.optim import adamw

    cache = cache_fixed_features(net, data)
    optimizer = adamw(net.parameters(), 1e-3, 0.05)
    batches = _Batches(len(data), 8, np.random.default_rng(0), None)

    def epoch():
        _train_round(net, torch.nn.functional.cross_entropy, data, optimizer, batches.next_round(),
                     "float32", transform=SliceAndScale(0.8, 0.1, 0.5), cache=cache)  # fmt: skip

    epoch()  # warm-up: allocations, kernels
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            epoch()  # 8 steps
    finally:
        torch.cuda.set_sync_debug_mode("default")
    syncs = [w for w in caught if "synchroniz" in str(w.message)]
    assert len(syncs) <= 1, [str(w.message) for w in syncs]  # the epoch's loss, read at its end
