"""Regression tasks cut from the forecasting sets, and Tecator from sktime's bundle: loaded by
``load_tser`` exactly as the catalogue describes them."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

from tests.helpers.datasets import isolate
from tsattn.datasets import catalogue, forecasting_borders, load_tser
from tsattn.datasets.derived import derived_entry, derived_names, load_derived


def test_every_derived_task_names_real_channels_and_a_target_outside_its_inputs():
    cat = catalogue()
    assert len(derived_names()) >= 5
    for name, task in cat["derived"]["tasks"].items():
        assert task["source"] in cat["forecasting"], name
        assert task["target"] not in task["inputs"], name
        assert task["window"] >= 1 and task["horizon"] >= 1 and task["stride"] >= 1
    suite = cat["regression_suite"]["names"]
    assert len(suite) >= 8 and set(derived_names()) <= set(suite)
    assert {"Covid3Month", "CardanoSentiment", "Tecator"} <= set(suite)


def test_etth1_next_day_ot_is_cut_as_documented(monkeypatch, shared_datasets):
    shared = shared_datasets
    isolate(monkeypatch, shared)
    X, y = load_tser("etth1nextdayot", split="train")  # any case
    Xt, yt = load_tser("ETTh1NextDayOT", split="test")
    # 12/4/4 months: TRAIN = the first 480 days (479 day -> next day pairs), TEST the next 120
    assert X.shape == (479, 6, 24) and Xt.shape == (119, 6, 24)
    assert X.dtype == np.float64 and y.dtype == np.float64
    raw = pd.read_csv(shared / "forecasting" / "ETTh1.csv")
    loads = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL"]
    for k in (0, 17, 478):  # window k: day k's loads -> day k + 1's mean OT
        np.testing.assert_array_equal(X[k], raw[loads].to_numpy()[24 * k:24 * k + 24].T)
        assert y[k] == pytest.approx(raw["OT"].to_numpy()[24 * k + 24:24 * k + 48].mean())
    start = forecasting_borders("ETTh1", len(raw), 0)[2][0]
    assert start == 11520
    np.testing.assert_array_equal(Xt[0], raw[loads].to_numpy()[start:start + 24].T)
    assert yt[-1] == pytest.approx(raw["OT"].to_numpy()[start + 119 * 24:start + 120 * 24].mean())
    Xa, ya = load_tser("ETTh1NextDayOT", split=None)
    np.testing.assert_array_equal(Xa, np.concatenate([X, Xt]))
    np.testing.assert_array_equal(ya, np.concatenate([y, yt]))


@pytest.mark.parametrize("name", ["ETTh2NextDayOT", "ETTm1NextDayLUFL", "ExchangeNext4WeeksOT",
                                  "IllnessNext4WeeksILI"])  # fmt: skip
def test_derived_tasks_split_by_time_without_shared_rows(name, monkeypatch, shared_datasets):
    shared = shared_datasets
    isolate(monkeypatch, shared)
    _, task = derived_entry(name)
    X, y = load_derived(name, "train")
    Xt, yt = load_derived(name, "test")
    rows = len(pd.read_csv(shared / catalogue()["forecasting"][task["source"]]["file"]))
    (_, _), (_, val_end), (test_start, test_end) = forecasting_borders(task["source"], rows, 0)
    span = task["window"] + task["horizon"]
    assert len(y) == (val_end - span) // task["stride"] + 1
    assert len(yt) == (test_end - test_start - span) // task["stride"] + 1
    assert X.shape[1:] == Xt.shape[1:] == (len(task["inputs"]), task["window"])
    assert np.isfinite(X).all() and np.isfinite(yt).all() and y.std() > 0


def test_unknown_derived_name_and_bad_split():
    with pytest.raises(ValueError, match="not a derived task"):
        load_derived("ETTh1NextWeek")
    with pytest.raises(ValueError, match="split must be"):
        load_derived("ETTh1NextDayOT", split="valid")


@pytest.mark.skipif(importlib.util.find_spec("sktime") is None, reason="sktime not installed")
def test_tecator_loads_offline_from_sktimes_bundle(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=True)  # empty cache, no network
    X, y = load_tser("Tecator", split="train")
    Xt, yt = load_tser("Tecator", split="test")
    assert X.shape == (172, 1, 100) and Xt.shape == (43, 1, 100)
    assert y.dtype == np.float64 and 0 < y.min() and y.max() < 100  # fat, percent
    assert not (tmp_path / "tser").exists()  # nothing was written into the cache
