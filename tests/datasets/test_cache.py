"""Downloads against a local HTTP server: checksums, corrupt files, concurrency, offline errors."""

from __future__ import annotations

import hashlib
import io
import threading
import time
import zipfile

import numpy as np
import pandas as pd
import pytest

from tests.helpers import REPO_ROOT
from tests.helpers.datasets import isolate, serve
from tsattn.datasets import DatasetNotAvailableError, catalogue, load_forecasting, load_uea
from tsattn.datasets.cache import Source, data_dir, ensure_file

CSV = b"date,a,OT\n2020-01-01 00:00:00,1.0,2.0\n2020-01-01 01:00:00,3.0,4.0\n"
SHA = hashlib.sha256(CSV).hexdigest()


def test_data_dir_defaults(monkeypatch, tmp_path):
    monkeypatch.delenv("TSATTN_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert data_dir() == tmp_path / "tsattn"
    monkeypatch.setenv("TSATTN_DATA_DIR", str(tmp_path / "x"))
    assert data_dir() == tmp_path / "x"


@pytest.mark.integration
def test_download_verifies_and_writes_atomically(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=False)
    with serve({"/f.csv": CSV}) as (base, counts):
        path = ensure_file("forecasting/f.csv", [Source(base + "/f.csv")], SHA)
        assert path == tmp_path / "forecasting" / "f.csv" and path.read_bytes() == CSV
        ensure_file("forecasting/f.csv", [Source(base + "/f.csv")], SHA)
    assert counts == {"/f.csv": 1}  # second call served from the cache
    assert not list((tmp_path / "forecasting").glob("*.part"))


@pytest.mark.integration
def test_corrupt_cache_file_is_refetched(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=False)
    target = tmp_path / "forecasting" / "f.csv"
    target.parent.mkdir(parents=True)
    target.write_bytes(CSV[:20])  # a partial earlier download
    with serve({"/f.csv": CSV}) as (base, counts):
        assert ensure_file("forecasting/f.csv", [Source(base + "/f.csv")], SHA).read_bytes() == CSV
    assert counts == {"/f.csv": 1}


@pytest.mark.integration
def test_wrong_bytes_are_refused_and_next_source_used(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=False)
    with serve({"/bad.csv": CSV + b"tampered\n", "/good.csv": CSV}) as (base, _):
        with pytest.raises(DatasetNotAvailableError, match="sha256"):
            ensure_file("forecasting/f.csv", [Source(base + "/bad.csv")], SHA)
        assert not (tmp_path / "forecasting" / "f.csv").exists()
        path = ensure_file("forecasting/f.csv",
                           [Source(base + "/bad.csv"), Source(base + "/good.csv")], SHA)
    assert path.read_bytes() == CSV


@pytest.mark.integration
def test_zip_member_is_extracted(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=False)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("Toy/Toy_TRAIN.ts", b"train bytes")
        zf.writestr("Toy/Toy_TEST.ts", b"test bytes")
    with serve({"/Toy.zip": buf.getvalue()}) as (base, _):
        path = ensure_file("uea/Toy_TEST.ts", [Source(base + "/Toy.zip", member="Toy_TEST.ts")],
                           hashlib.sha256(b"test bytes").hexdigest())
    assert path.read_bytes() == b"test bytes"


@pytest.mark.integration
def test_concurrent_downloads_fetch_once(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=False)
    results, errors = [], []
    with serve({"/f.csv": CSV}, delay=0.3) as (base, counts):
        def worker():
            try:
                results.append(ensure_file("forecasting/f.csv", [Source(base + "/f.csv")], SHA))
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors and len(results) == 4
    assert counts == {"/f.csv": 1}  # the others waited on the lock, then found the file
    assert results[0].read_bytes() == CSV


def test_offline_error_is_clear_and_fast(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=False)
    monkeypatch.setitem(catalogue()["forecasting"]["ETTh1"], "url", "http://127.0.0.1:9/ETTh1.csv")
    start = time.perf_counter()
    with pytest.raises(DatasetNotAvailableError) as info:
        load_forecasting("ETTh1")
    assert time.perf_counter() - start < 1.0
    msg = str(info.value)
    assert isinstance(info.value, OSError)
    assert "forecasting/ETTh1.csv" in msg and "http://127.0.0.1:9/ETTh1.csv" in msg
    assert str(tmp_path / "forecasting" / "ETTh1.csv") in msg and "by hand" in msg


@pytest.mark.integration
def test_offline_env_skips_network(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=True)
    with serve({"/f.csv": CSV}) as (base, counts):
        with pytest.raises(DatasetNotAvailableError, match="TSATTN_OFFLINE"):
            ensure_file("forecasting/f.csv", [Source(base + "/f.csv")], SHA)
    assert counts == {} and not (tmp_path / "forecasting").exists()


@pytest.mark.integration
def test_public_loader_downloads_from_mirror(tmp_path, monkeypatch, shared_datasets):
    """``TSATTN_DATA_URL`` mirror laid out like the cache; a UEA file not bundled in aeon."""
    shared = shared_datasets
    isolate(monkeypatch, tmp_path / "cache", offline=False)
    files = {f"/uea/NATOPS_{s}.ts": (shared / "uea" / f"NATOPS_{s}.ts").read_bytes()
             for s in ("TRAIN", "TEST")}
    files["/forecasting/national_illness.csv"] = (
        shared / "forecasting" / "national_illness.csv").read_bytes()
    # Keep the canonical sources away from the internet: only the local mirror may answer.
    monkeypatch.setitem(catalogue()["archives"]["uea"], "sources", [])
    monkeypatch.setitem(catalogue()["forecasting"]["illness"], "url", "http://127.0.0.1:9/x")
    with serve(files) as (base, counts):
        monkeypatch.setenv("TSATTN_DATA_URL", base)
        X, y = load_uea("NATOPS", "train")
        df = load_forecasting("illness")
    assert X.shape == (180, 24, 51) and len(y) == 180 and df.shape == (966, 7)
    assert counts == {"/uea/NATOPS_TRAIN.ts": 1, "/forecasting/national_illness.csv": 1}
    isolate(monkeypatch, shared)
    X_ref, _ = load_uea("NATOPS", "train")
    np.testing.assert_array_equal(X, X_ref)


def test_corrupt_file_without_a_source_is_never_returned(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=False)
    target = tmp_path / "forecasting" / "f.csv"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"garbage")
    with pytest.raises(DatasetNotAvailableError, match="wrong checksum"):
        ensure_file("forecasting/f.csv", [Source("http://127.0.0.1:9/f.csv")], SHA)
    assert target.read_bytes() == b"garbage"  # left for the user to inspect, never loaded


@pytest.mark.integration
def test_download_without_checksum_records_one_and_checks_it(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path, offline=False)
    with serve({"/f.csv": CSV}) as (base, counts):
        path = ensure_file("forecasting/f.csv", [Source(base + "/f.csv")])
        sidecar = tmp_path / "forecasting" / "f.csv.sha256"
        assert sidecar.read_text() == f"{SHA}  f.csv\n"  # sha256sum's format
        ensure_file("forecasting/f.csv", [Source(base + "/f.csv")])
        assert counts == {"/f.csv": 1}
        path.write_bytes(CSV + b"2020-01-01 02:00:00,5.0,6.0\n")  # changed after the download
        monkeypatch.setenv("TSATTN_OFFLINE", "1")
        with pytest.raises(DatasetNotAvailableError,
                           match=f"differs from {SHA}, recorded in .*f.csv.sha256 when the file "
                                 "was downloaded"):  # fmt: skip
            ensure_file("forecasting/f.csv", [Source(base + "/f.csv")])
        monkeypatch.delenv("TSATTN_OFFLINE")
        assert ensure_file("forecasting/f.csv", [Source(base + "/f.csv")]).read_bytes() == CSV
    assert counts == {"/f.csv": 2}  # the changed copy was fetched again


def test_copy_placed_by_hand_without_checksum_is_used(tmp_path, monkeypatch):
    isolate(monkeypatch, tmp_path)
    target = tmp_path / "forecasting" / "f.csv"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"anything")
    assert ensure_file("forecasting/f.csv", [Source("http://127.0.0.1:9/f.csv")]) == target
    assert not (tmp_path / "forecasting" / "f.csv.sha256").exists()  # nothing written


@pytest.mark.integration
def test_git_blob_id_is_checked(tmp_path, monkeypatch):
    import subprocess

    from tsattn.datasets import git_blob_sha1

    blob = tmp_path / "blob"
    blob.write_bytes(CSV)
    try:
        expected = subprocess.run(["git", "hash-object", str(blob)], capture_output=True,
                                  text=True, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git not available")
    assert git_blob_sha1(blob) == expected
    isolate(monkeypatch, tmp_path / "cache", offline=False)
    with serve({"/bad.csv": CSV + b"x", "/good.csv": CSV}) as (base, _):
        with pytest.raises(DatasetNotAvailableError, match=f"git blob id .* differs from the "
                                                           f"source repository's {expected}"):
            ensure_file("forecasting/f.csv", [Source(base + "/bad.csv")], git_sha1=expected)
        path = ensure_file("forecasting/f.csv", [Source(base + "/bad.csv"),
                                                 Source(base + "/good.csv")], git_sha1=expected)
    assert path.read_bytes() == CSV and not path.with_name("f.csv.sha256").exists()


@pytest.mark.integration
def test_panels_download_from_mirror(tmp_path, monkeypatch, shared_datasets):
    """EPF and M4 files come through a ``TSATTN_DATA_URL`` mirror into the cache path the
    catalogue names, checked against its sha256, and give the frames of the shared copies."""
    from tsattn.datasets import load_epf, load_m4

    names = ["forecasting/epf/BE.csv", "forecasting/m4/Hourly-train.csv",
             "forecasting/m4/Hourly-test.csv"]
    files = {"/" + n: (shared_datasets / n).read_bytes() for n in names}
    monkeypatch.setitem(catalogue()["epf"]["sources"]["timexer"], "url", "http://127.0.0.1:9/x")
    monkeypatch.setitem(catalogue()["m4"], "url", "http://127.0.0.1:9/x")
    isolate(monkeypatch, tmp_path, offline=False)
    with serve(files) as (base, counts):
        monkeypatch.setenv("TSATTN_DATA_URL", base)
        be, test = load_epf("BE"), load_m4("Hourly", "test")
    assert counts == {"/" + n: 1 for n in names}
    assert all((tmp_path / n).read_bytes() == files["/" + n] for n in names)
    isolate(monkeypatch, shared_datasets)
    pd.testing.assert_frame_equal(be, load_epf("BE"))
    pd.testing.assert_frame_equal(test, load_m4("Hourly", "test"))


_CHILD = """
import sys
from tsattn.datasets.cache import Source, ensure_file
print(ensure_file("forecasting/f.csv", [Source(sys.argv[1])], sys.argv[2]))
"""


@pytest.mark.integration
def test_two_processes_download_once(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys

    isolate(monkeypatch, tmp_path, offline=False)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with serve({"/f.csv": CSV}, delay=0.5) as (base, counts):
        procs = [subprocess.Popen([sys.executable, "-c", _CHILD, base + "/f.csv", SHA], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert counts == {"/f.csv": 1}
    assert (tmp_path / "forecasting" / "f.csv").read_bytes() == CSV


@pytest.mark.integration
@pytest.mark.parametrize("setting, value", [("TSATTN_CONNECT_TIMEOUT", "abc"),
                                            ("TSATTN_CONNECT_TIMEOUT", "0"),
                                            ("TSATTN_CONNECT_TIMEOUT", "nan"),
                                            ("TSATTN_OFFLINE", "y")])  # fmt: skip
def test_bad_settings_are_named_before_any_download(tmp_path, monkeypatch, setting, value):
    """TSATTN_CONNECT_TIMEOUT=abc used to give "could not convert string to float", once per
    source, among the download errors."""
    from tsattn.datasets.cache import SettingError

    isolate(monkeypatch, tmp_path, offline=False)
    monkeypatch.setenv(setting, value)
    with serve({"/f.csv": CSV}) as (base, counts):
        with pytest.raises(SettingError, match=f"environment variable {setting}={value!r}"):
            ensure_file("forecasting/f.csv", [Source(base + "/f.csv")], SHA)
    assert counts == {}
