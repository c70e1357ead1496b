"""The one input validator (``tsattn.io``): pandas collection formats, float32 range and rounding."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from tsattn import TSClassifier
from tsattn.io import to_series_batch

TINY = dict(d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=2, random_state=0)


def _toy(n=12, c=2, length=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, c, length))
    y = np.array(["a", "b"] * (n // 2))
    X[y == "b"] += 1.5
    return X, y


def _multiindex(X, ids, times=None):
    """pd-multiindex frame of ``X`` (n, c, length) with instance ``ids`` and per-row ``times``."""
    n, c, length = X.shape
    times = np.tile(np.arange(length), n) if times is None else times
    rows = X.transpose(0, 2, 1).reshape(n * length, c)
    index = pd.MultiIndex.from_arrays([np.repeat(ids, length), times], names=["id", "t"])
    return pd.DataFrame(rows, index=index, columns=[f"c{i}" for i in range(c)])


# ----------------------------------------------------------------------------- pd-multiindex
def test_multiindex_with_unsorted_ids_keeps_the_order_of_appearance():
    """aeon's converter sorts the ids; y is positional, so that paired each y with another series."""
    X, y = _toy()
    ids = np.array([7, 3, 11, 0, 5, 9, 1, 4, 10, 2, 8, 6])
    batch = to_series_batch(_multiindex(X, ids))
    np.testing.assert_array_equal(batch.values, X.transpose(0, 2, 1).astype(np.float32))
    clf = TSClassifier(**TINY).fit(X, y)
    np.testing.assert_allclose(
        TSClassifier(**TINY).fit(_multiindex(X, ids), y).predict_proba(X), clf.predict_proba(X),
        rtol=1e-5, atol=1e-6,
    )


def test_multiindex_steps_are_sorted_by_time_and_rows_may_interleave():
    X, _ = _toy(n=4, length=4)
    ids = np.array([2, 0, 3, 1])
    frame = _multiindex(X, ids).sample(frac=1.0, random_state=0)  # rows shuffled
    batch = to_series_batch(frame)
    # instance order: first appearance in the shuffled frame; steps: by their time labels
    first = pd.unique(frame.index.get_level_values(0))
    order = [int(np.flatnonzero(ids == i)[0]) for i in first]
    np.testing.assert_array_equal(batch.values, X[order].transpose(0, 2, 1).astype(np.float32))


def test_multiindex_slice_with_unused_levels_is_accepted():
    X, _ = _toy()
    frame = _multiindex(X, np.arange(12))
    part = frame.loc[[2, 5, 7]]  # keeps all 12 ids in index.levels
    assert len(part.index.levels[0]) == 12
    batch = to_series_batch(part)
    np.testing.assert_array_equal(batch.values, X[[2, 5, 7]].transpose(0, 2, 1).astype(np.float32))
    head = to_series_batch(frame.iloc[: 2 * X.shape[2]])
    np.testing.assert_array_equal(head.values, X[:2].transpose(0, 2, 1).astype(np.float32))


def test_multiindex_unequal_lengths_and_datetime_time_level():
    frame = pd.DataFrame(
        {"v": [1.0, 2.0, 3.0, 10.0, 20.0]},
        index=pd.MultiIndex.from_arrays(
            [["b", "b", "b", "a", "a"], pd.to_datetime(["2020-01-03", "2020-01-01", "2020-01-02",
                                                        "2020-01-02", "2020-01-01"])]),
    )
    batch = to_series_batch(frame)
    np.testing.assert_array_equal(batch.lengths, [3, 2])
    np.testing.assert_array_equal(batch.values[:, :, 0], [[2, 3, 1], [20, 10, 0]])


@pytest.mark.parametrize(
    "frame, match",
    [
        (pd.DataFrame({"v": [1.0, 2.0]}, index=pd.MultiIndex.from_tuples([(0, 1), (0, 1)])),
         r"\(0, 1\) more than once"),
        (pd.DataFrame({"v": ["x", "y"]}, index=pd.MultiIndex.from_tuples([(0, 0), (0, 1)])),
         "non-numeric"),
        (pd.DataFrame({"v": []}, index=pd.MultiIndex.from_tuples([], names=["i", "t"])), "empty"),
    ],
)
def test_multiindex_errors(frame, match):
    with pytest.raises(ValueError, match=match):
        to_series_batch(frame)


# ----------------------------------------------------------------------------- nested_univ
def test_nested_univ_is_accepted():
    X, y = _toy()
    nested = pd.DataFrame({f"c{c}": [pd.Series(X[i, c]) for i in range(len(X))] for c in range(2)})
    batch = to_series_batch(nested)
    np.testing.assert_array_equal(batch.values, X.transpose(0, 2, 1).astype(np.float32))
    clf = TSClassifier(**TINY).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(nested), clf.predict_proba(X), rtol=1e-5, atol=1e-6)


def test_nested_univ_from_sktime_and_unequal_channels():
    pytest.importorskip("sktime")
    from sktime.datatypes import convert_to

    X, _ = _toy()
    np.testing.assert_array_equal(
        to_series_batch(convert_to(X, "nested_univ")).values, X.transpose(0, 2, 1).astype(np.float32)
    )
    bad = pd.DataFrame({"a": [pd.Series([1.0, 2.0, 3.0])], "b": [pd.Series([1.0, 2.0])]})
    with pytest.raises(ValueError, match=r"channels of lengths \[2, 3\]"):
        to_series_batch(bad)


# ----------------------------------------------------------------------------- float32
def test_values_beyond_float32_are_refused_at_fit_and_predict():
    """1e39 used to become inf in the model: NaN probabilities, every prediction classes_[0]."""
    X, y = _toy()
    with pytest.raises(ValueError, match=r"beyond float32's range.*series 0, channel 0.*X / 1e"):
        TSClassifier(**TINY).fit(X * 1e39, y)
    clf = TSClassifier(**TINY).fit(X, y)
    with pytest.raises(ValueError, match="beyond float32's range"):
        clf.predict(np.where(np.arange(6) == 3, 1e39, X))


def test_large_values_within_float32_are_standardised_like_any_others():
    X, y = _toy()
    small = TSClassifier(**TINY).fit(X, y).predict_proba(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no rounding warning either: the scale is not the problem
        big = TSClassifier(**TINY).fit(X * 1e30, y).predict_proba(X * 1e30)
    assert np.isfinite(big).all()
    np.testing.assert_allclose(big, small, atol=1e-4)


@pytest.mark.parametrize("make", [lambda X: X + 1e8, lambda X: X * 1e-47], ids=["offset", "tiny"])
def test_rounding_that_drowns_a_channel_warns_at_the_callers_line(make):
    X, y = _toy()
    X = X.copy()
    X[:, 1] = make(X[:, 1])  # channel 0 stays as it is
    with pytest.warns(UserWarning, match="channel 1 of X varies by") as record:
        TSClassifier(**TINY).fit(X, y)
    assert len(record) == 1 and record[0].filename == __file__
    assert to_series_batch(X, dtype=np.float64).values.dtype == np.float64  # the exact values


def test_float64_batch_keeps_values_float32_cannot_hold():
    X, _ = _toy()
    batch = to_series_batch(X * 1e39, dtype=np.float64)
    np.testing.assert_array_equal(batch.values, (X * 1e39).transpose(0, 2, 1))


# ----------------------------------------------------------------------------- df-list
def test_sktime_df_list_is_read_time_by_channels_and_aeon_df_list_channels_by_time():
    """sktime's frames are (time, channels): they were read transposed, time steps as channels."""
    X, _ = _toy()
    expected = X.transpose(0, 2, 1).astype(np.float32)
    aeon_frames = [pd.DataFrame(x) for x in X]  # columns 0..length-1: aeon's layout
    np.testing.assert_array_equal(to_series_batch(aeon_frames).values, expected)
    named = [pd.DataFrame(x.T, columns=["var_0", "var_1"]) for x in X]  # sktime's convert_to
    np.testing.assert_array_equal(to_series_batch(named).values, expected)
    dated = [pd.DataFrame(x.T, index=pd.date_range("2020", periods=6, freq="D")) for x in X]
    np.testing.assert_array_equal(to_series_batch(dated).values, expected)


def test_sktime_df_list_from_sktime_itself():
    pytest.importorskip("sktime")
    from sktime.datatypes import convert_to

    X, y = _toy()
    frames = convert_to(X, "df-list")
    clf = TSClassifier(**TINY).fit(frames, y)
    assert clf.n_channels_ == 2
    np.testing.assert_allclose(clf.predict_proba(frames),
                               TSClassifier(**TINY).fit(X, y).predict_proba(X), atol=1e-5)
