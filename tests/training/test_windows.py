"""Training windows cut on the fly from one series (:class:`tsattn.training.WindowData`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tsattn.datasets.forecasting import sliding_windows
from tsattn.training import WindowData


@pytest.mark.parametrize("channel_independent", [True, False])
def test_window_data_serves_the_sliding_windows(channel_independent):
    series = np.random.default_rng(0).normal(size=(40, 3))
    ctx, tgt = sliding_windows(series, 8, 5)
    data = WindowData(torch.tensor(series), 8, 5, channel_independent=channel_independent)
    all_ = data.materialise()
    if channel_independent:  # sample i is channel i % C of window i // C
        ctx = ctx.transpose(0, 2, 1).reshape(-1, 8, 1)
        tgt = tgt.transpose(0, 2, 1).reshape(-1, 5, 1)
    assert len(data) == len(ctx)
    np.testing.assert_array_equal(all_.x.numpy(), ctx)
    np.testing.assert_array_equal(all_.y.numpy(), tgt)
    idx = torch.tensor([5, 0, 7])
    np.testing.assert_array_equal(data.y[idx].numpy(), tgt[[5, 0, 7]])


def test_rounds_continue_one_shuffled_stream():
    """Rounds shorter than an epoch see every sample once before any sample twice."""
    from tsattn.training.loop import _Batches

    data = WindowData(torch.zeros(20, 1), 4, 2)  # 15 samples
    rng = np.random.default_rng(0)
    rounds = _Batches(len(data), 3, rng, round_steps=2)
    first = np.concatenate(rounds.next_round() + rounds.next_round())  # 12 samples
    assert len(first) == 12 and len(set(first.tolist())) == 12
    tail = np.concatenate(rounds.next_round())  # 3 left, then a new pass
    assert sorted(set(first.tolist()) | set(tail[:3].tolist())) == list(range(15))
    epochs = _Batches(len(data), 4, rng, round_steps=None).next_round()  # one pass
    assert [len(b) for b in epochs] == [4, 4, 4, 3]
    assert len(data.sample(100, rng)) == 15 and len(data.sample(6, rng)) == 6
