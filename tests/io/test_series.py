"""``tsattn.io``'s series checks: the channel-mismatch error, worded once, wherever it is raised."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tsattn.io import check_channels, read_contexts, read_fit_series

WORDING = r"{what} has {got} channel\(s\) but {owner} was fitted on {fitted}; pass the same channels"


def test_check_channels_passes_equal_counts_and_words_the_mismatch():
    check_channels(2, 2, "X", "TSClassifier")
    with pytest.raises(ValueError, match=WORDING.format(what="X", got=1, owner="TSClassifier", fitted=2)):
        check_channels(1, 2, "X", "TSClassifier")


def test_windows_series_and_validation_series_raise_the_same_wording():
    frame = pd.DataFrame(np.zeros((40, 2)), columns=["a", "b"])
    with pytest.raises(ValueError, match=WORDING.format(what="y_context", got=3, owner="F", fitted=2)):
        read_contexts(np.zeros((4, 16, 3)), 2, 16, "F")  # a batch of windows
    with pytest.raises(ValueError, match=WORDING.format(what="y_context", got=1, owner="F", fitted=2)):
        read_contexts(frame[["a"]], 2, 16, "F")  # one series
    with pytest.raises(ValueError, match=WORDING.format(what="y_val", got=1, owner="F", fitted=2)):
        read_fit_series(frame, frame[["a"]], 0.0, 8, 4, "F")


def test_read_fit_series_holds_out_the_tail_with_context_overlap():
    y = np.arange(100.0)
    values, info, train, valid = read_fit_series(y, None, 0.2, 8, 4, "F")
    assert info["kind"] == "array1d" and values.shape == (100, 1)
    assert len(train) == 80 and valid[0, 0] == 80 - 8 and valid[-1, 0] == 99
