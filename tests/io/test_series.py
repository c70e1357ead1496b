"""``tsattn.io``'s series checks: the channel-mismatch error, worded once, wherever it is raised."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tsattn import TSForecaster
from tsattn.estimators.forecaster.data import split
from tsattn.io import check_channels

WORDING = r"{what} has {got} channel\(s\) but {owner} was fitted on {fitted}; pass the same channels"


def test_check_channels_passes_equal_counts_and_words_the_mismatch():
    check_channels(2, 2, "X", "TSClassifier")
    with pytest.raises(ValueError, match=WORDING.format(what="X", got=1, owner="TSClassifier", fitted=2)):
        check_channels(1, 2, "X", "TSClassifier")


def test_windows_series_and_validation_series_raise_the_same_wording():
    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(60, 2)), columns=["a", "b"])
    owner = "TSForecaster"
    with pytest.raises(ValueError, match=WORDING.format(what="y_val", got=1, owner=owner, fitted=2)):
        TSForecaster(horizon=4, context_length=8, max_steps=2).fit(frame, y_val=frame[["a"]])
    model = TSForecaster(horizon=4, context_length=8, max_steps=2, random_state=0).fit(frame)
    with pytest.raises(ValueError, match=WORDING.format(what="y_context", got=3, owner=owner, fitted=2)):
        model.predict(np.zeros((4, 16, 3)))  # a batch of windows
    with pytest.raises(ValueError, match=WORDING.format(what="y_context", got=1, owner=owner, fitted=2)):
        model.predict(frame[["a"]])  # one series


def test_one_series_holds_out_its_tail_with_context_overlap():
    (train,), (valid,) = split([np.arange(100.0)[:, None]], 0.2, 8, 4)
    assert len(train) == 80 and valid[0, 0] == 80 - 8 and valid[-1, 0] == 99
    # the last horizon at least, one series or many (issue 76: one rule)
    (train,), (valid,) = split([np.arange(100.0)[:, None]], 0.02, 8, 4)
    assert len(train) == 96 and len(valid) == 8 + 4
