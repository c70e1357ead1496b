"""``WeightAverage``: the rounds are validated, and the best kept, as the moving average of the
raw weights, which train on unchanged."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from tsattn.training import Callback, EarlyStopping, TensorData, WeightAverage, train


class Tiny(nn.Module):
    """``(n, L, C)`` -> ``(n,)`` through BatchNorm (buffers to average) and a linear layer."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.BatchNorm1d(8)
        self.out = nn.Linear(8, 1)

    def forward(self, x, mask=None):
        return self.out(self.norm(x.flatten(1))).squeeze(-1)


class Trajectory(Callback):
    """The module's floating state after every step, and its state as each round is validated."""

    def __init__(self, module):
        self.module, self.steps, self.validated = module, [], []

    def _state(self):
        return {k: v.detach().clone() for k, v in self.module.state_dict().items() if v.is_floating_point()}

    def on_step_end(self, estimator, step):
        self.steps.append(self._state())

    def on_epoch_end(self, estimator, record):
        self.validated.append(self._state())


def _data(seed=0, n=48):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 4, 2, generator=g)
    y = x.sum((1, 2)) + 0.1 * torch.randn(n, generator=g)
    return TensorData(x, torch.full((n,), 4), y)


def _fit(decay):
    torch.manual_seed(0)
    module = Tiny()
    spy = Trajectory(module)
    callbacks = [EarlyStopping(module, None), spy]
    if decay is not None:  # after the spy: it swaps the raw weights back in its on_epoch_end
        callbacks.append(WeightAverage(module, decay))
    result = train(module, nn.functional.mse_loss, _data(0), _data(1, 24),
                   optimizer=torch.optim.SGD(module.parameters(), lr=0.05), max_rounds=4,
                   batch_size=8, rng=np.random.default_rng(0), callbacks=callbacks)  # fmt: skip
    return module, spy, result


def test_rounds_are_validated_on_the_moving_average_and_the_raw_weights_train_on():
    decay = 0.8
    plain, raw, _ = _fit(None)
    averaged, spy, result = _fit(decay)
    # the raw trajectory is the one without averaging, step for step
    assert len(spy.steps) == len(raw.steps) == 24
    for a, b in zip(spy.steps, raw.steps, strict=True):
        for key in a:
            torch.testing.assert_close(a[key], b[key], rtol=0, atol=0)
    # what each round validated is the average of the raw states over the steps so far
    torch.manual_seed(0)
    start = {k: v.detach().clone() for k, v in Tiny().state_dict().items() if v.is_floating_point()}
    expected, avg = [], start
    for k, state in enumerate(raw.steps, start=1):
        avg = {key: decay * avg[key] + (1 - decay) * state[key] for key in avg}
        if k % 6 == 0:  # 48 rows in batches of 8: a round is 6 steps
            expected.append(avg)
    assert len(spy.validated) == len(expected) == 4
    for got, want in zip(spy.validated, expected, strict=True):
        assert set(got) == {"norm.weight", "norm.bias", "norm.running_mean", "norm.running_var", "out.weight", "out.bias"}
        for key in want:
            torch.testing.assert_close(got[key], want[key], rtol=1e-5, atol=1e-6)
    # the kept weights are the best round's average (the raw trajectory's losses differ)
    best = result.best_round - 1
    for key, value in averaged.state_dict().items():
        if value.is_floating_point():
            torch.testing.assert_close(value, expected[best][key], rtol=1e-5, atol=1e-6)
    assert averaged.state_dict()["norm.num_batches_tracked"] == plain.state_dict()["norm.num_batches_tracked"] == 24
    assert [r["valid_loss"] for r in result.history] != [r["valid_loss"] for r in _fit(None)[2].history]


def test_decay_must_lie_between_zero_and_one():
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        WeightAverage(Tiny(), 1.0)


def test_the_forecaster_validates_averaged_weights_only_with_validation_windows():
    from tsattn import TSForecaster

    t = np.arange(600)
    y = np.sin(t / 7)[:, None] + 0.1 * np.random.default_rng(0).normal(size=(600, 1))
    kw = dict(max_steps=60, random_state=0)
    base = TSForecaster(8, 32, **kw).fit(y)
    avg = TSForecaster(8, 32, weight_average=0.9, **kw).fit(y)
    again = TSForecaster(8, 32, weight_average=0.9, **kw).fit(y)
    assert [r["valid_loss"] for r in avg.history_] != [r["valid_loss"] for r in base.history_]
    assert [r["train_loss"] for r in avg.history_] == [r["train_loss"] for r in base.history_]
    np.testing.assert_array_equal(avg.predict(), again.predict())
    # no validation windows: nothing to validate the averages on, the raw weights are kept
    no_valid = dict(validation_fraction=0.0, **kw)
    np.testing.assert_array_equal(TSForecaster(8, 32, weight_average=0.9, **no_valid).fit(y).predict(),
                                  TSForecaster(8, 32, **no_valid).fit(y).predict())  # fmt: skip
