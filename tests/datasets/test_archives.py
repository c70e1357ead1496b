"""UEA/UCR/TSER loaders give exactly aeon's arrays, from the cache or from aeon's bundled data."""

from __future__ import annotations

import time

import numpy as np
import pytest
from aeon.datasets import load_from_ts_file, load_from_tsv_file

from tests.helpers.datasets import isolate
from tsattn.datasets import DatasetNotAvailableError, load_tser, load_ucr, load_uea

_LOADERS = {"uea": load_uea, "ucr": load_ucr, "tser": load_tser}


def _assert_same(X, y, X_ref, y_ref):
    assert len(X) == len(X_ref)
    if isinstance(X_ref, list):
        assert isinstance(X, list)
        for a, b in zip(X, X_ref, strict=True):
            assert a.dtype == np.float64
            np.testing.assert_array_equal(a, b)
    else:
        assert X.dtype == np.float64 and X.ndim == 3
        np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(y, y_ref)


def test_shared_dataset_equals_aeon_reader(shared_ts_dataset, shared_datasets, monkeypatch):
    """Every .ts set of the shared folder (``shared_ts_dataset``: one test per set, from its
    manifest; the whole folder loads in about 5 s, so all of them run by default)."""
    archive, name = shared_ts_dataset
    shared = shared_datasets
    isolate(monkeypatch, shared)  # read-only folder: loading must not write to it
    for split in ("TRAIN", "TEST"):
        X, y = _LOADERS[archive](name, split=split.lower())
        X_ref, y_ref = load_from_ts_file(str(shared / archive / f"{name}_{split}.ts"))
        if archive == "tser":
            assert y.dtype == np.float64
        else:
            assert y.dtype.kind == "U"
        _assert_same(X, y, X_ref, y_ref.astype(y.dtype))
    assert not list((shared / archive).glob(".*")), "the loader wrote into the cache"


def test_split_none_concatenates_train_then_test(shared_datasets, monkeypatch):
    isolate(monkeypatch, shared_datasets)
    X_tr, y_tr = load_ucr("GunPoint", "train")
    X_te, y_te = load_ucr("GunPoint", "test")
    X, y = load_ucr("GunPoint", None)
    assert X.shape == (200, 1, 150) and (len(X_tr), len(X_te)) == (50, 150)
    np.testing.assert_array_equal(X, np.concatenate([X_tr, X_te]))
    np.testing.assert_array_equal(y, np.concatenate([y_tr, y_te]))
    X, y = load_uea("JapaneseVowels", None)
    assert isinstance(X, list) and len(X) == 640
    lengths = {x.shape[1] for x in X}
    assert {x.shape[0] for x in X} == {12} and min(lengths) == 7 and max(lengths) == 29
    with pytest.raises(ValueError, match="split"):
        load_ucr("GunPoint", "validation")


def test_ucr_tsv_matches_ts(shared_datasets, monkeypatch):
    shared = shared_datasets
    isolate(monkeypatch, shared)
    for name in ("CBF", "ECG200"):
        for split in ("train", "test"):
            X_tsv, y_tsv = load_ucr(name, split, format="tsv")
            X_ref, _ = load_from_tsv_file(str(shared / "ucr" / "tsv" / f"{name}_{split.upper()}.tsv"))
            np.testing.assert_array_equal(X_tsv, X_ref)
            X_ts, y_ts = load_ucr(name, split)
            assert X_tsv.shape == X_ts.shape
            np.testing.assert_allclose(X_tsv, X_ts, rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(y_tsv.astype(float), y_ts.astype(float))


def test_bundled_aeon_data_needs_no_download(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path / "empty", offline=True)
    X, y = load_uea("BasicMotions", "train")
    assert X.shape == (40, 6, 100) and set(y) == {"standing", "running", "walking", "badminton"}
    X, y = load_tser("Covid3Month", "test")
    assert X.shape == (61, 1, 84) and y.dtype == np.float64
    X, y = load_ucr("ItalyPowerDemand", "train")
    assert X.shape == (67, 1, 24)
    assert not (tmp_path / "empty").exists()


def test_missing_archive_file_offline_is_clear_and_fast(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=True)
    start = time.perf_counter()
    with pytest.raises(DatasetNotAvailableError) as info:
        load_uea("NATOPS", "train")
    assert time.perf_counter() - start < 1.0
    msg = str(info.value)
    assert "uea/NATOPS_TRAIN.ts" in msg and "zenodo.org/records/" in msg
    assert str(tmp_path / "uea" / "NATOPS_TRAIN.ts") in msg


def test_unknown_name_suggests(monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path)
    with pytest.raises(ValueError, match="UWaveGestureLibrary"):
        load_uea("UWaveGesture")


def test_tser_name_outside_the_catalogue_is_looked_up_at_the_archive_source(tmp_path, monkeypatch,
                                                                           request):
    """A set outside aeon 1.6's 63 TSER names (as Tecator was before sktime's bundle was searched;
    here a name bundled nowhere) is looked up by name instead of being refused as unknown."""
    from tsattn.datasets import archive_file

    isolate(monkeypatch, tmp_path, offline=True)
    with pytest.raises(DatasetNotAvailableError) as info:
        load_tser("NewTSERSet")
    msg = str(info.value)
    assert "'NewTSERSet' is not in the tser catalogue" in msg
    assert "https://timeseriesclassification.com/aeon-toolkit/NewTSERSet.zip" in msg
    assert "zenodo" not in msg  # no record id is known for it
    assert str(tmp_path / "tser" / "NewTSERSet_TRAIN.ts") in msg
    # a misspelt catalogue name is tried the same way, and the error suggests the listed one
    with pytest.raises(DatasetNotAvailableError, match="Did you mean Covid3Month"):
        load_tser("Covid3Mnth")
    # a copy put in the cache by hand is used, with no checksum to check
    shared = request.getfixturevalue("shared_datasets")  # skips here, without the shared folder
    (tmp_path / "tser").mkdir()
    for split in ("TRAIN", "TEST"):
        (tmp_path / "tser" / f"NewTSERSet_{split}.ts").write_bytes(
            (shared / "tser" / f"Covid3Month_{split}.ts").read_bytes())
    X, y = load_tser("NewTSERSet", split="test")
    assert X.shape == (61, 1, 84) and y.dtype == np.float64
    assert archive_file("tser", "NewTSERSet", "TRAIN") == tmp_path / "tser" / "NewTSERSet_TRAIN.ts"


@pytest.mark.integration
def test_tser_name_outside_the_catalogue_downloads_from_a_mirror(tmp_path, monkeypatch,
                                                                shared_datasets):
    from tests.helpers.datasets import serve
    from tsattn.datasets.catalogue import catalogue

    shared = shared_datasets
    isolate(monkeypatch, tmp_path, offline=False)
    monkeypatch.setitem(catalogue()["archives"]["tser"], "sources", [])  # no internet in tests
    body = (shared / "tser" / "Covid3Month_TRAIN.ts").read_bytes()
    with serve({"/tser/NewTSERSet_TRAIN.ts": body}) as (base, counts):
        monkeypatch.setenv("TSATTN_DATA_URL", base)
        X, _ = load_tser("NewTSERSet", split="train")
    assert X.shape == (140, 1, 84) and counts == {"/tser/NewTSERSet_TRAIN.ts": 1}


@pytest.mark.parametrize("call, match", [
    (lambda: load_tser("../etc/passwd"), "letters, digits"),
    (lambda: load_uea("Tecator"), "unknown uea dataset"),  # the fixed archives stay closed
    (lambda: load_uea("BasicMotions", split="valid"), "split must be"),
    (lambda: load_ucr("GunPoint", format="csv"), "format 'csv'"),
])  # fmt: skip
def test_bad_loader_arguments(tmp_path, monkeypatch, call, match):
    isolate(monkeypatch, tmp_path)
    with pytest.raises(ValueError, match=match):
        call()


def test_archive_file_checks_its_arguments(tmp_path, monkeypatch):
    from tsattn.datasets import archive_file

    isolate(monkeypatch, tmp_path)
    with pytest.raises(ValueError, match="archive must be one of"):
        archive_file("forecasting", "ETTh1", "TRAIN")
    with pytest.raises(ValueError, match="split must be 'TRAIN' or 'TEST'"):
        archive_file("uea", "BasicMotions", "train")
    with pytest.raises(ValueError, match="format 'tsv' is not available for uea"):
        archive_file("uea", "BasicMotions", "TRAIN", fmt="tsv")
