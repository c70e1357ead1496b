"""The catalogue is the one source of facts: checksums, README, names, command line."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT as ROOT
from tsattn.datasets import catalogue, list_datasets, render_readme, sha256_file
from tsattn.datasets.catalogue import resolve_name

#: The shared folder's manifests: MANIFEST.new.tsv lists files added later (the EPF markets and
#: M4 Hourly), kept apart until the catalogue knows them; it may be merged into MANIFEST.tsv.
MANIFESTS = ("MANIFEST.tsv", "MANIFEST.new.tsv")


def _manifest(shared: Path, name: str = "MANIFEST.tsv") -> list[dict[str, str]]:
    if name != "MANIFEST.tsv" and not (shared / name).is_file():
        pytest.skip(f"{shared / name} not found (merged into MANIFEST.tsv?)")
    with open(shared / name, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.mark.parametrize("manifest", MANIFESTS)
def test_catalogue_records_every_manifest_checksum(shared_datasets, manifest):
    shared = shared_datasets
    files = catalogue()["files"]
    rows = _manifest(shared, manifest)
    assert rows
    for row in rows:
        assert row["path"] in files, f"{row['path']} missing from catalogue.json"
        assert files[row["path"]]["sha256"] == row["sha256"], row["path"]
        assert files[row["path"]]["bytes"] == int(row["bytes"]), row["path"]


@pytest.mark.parametrize("manifest", MANIFESTS)
def test_shared_files_match_their_checksums(shared_datasets, manifest):
    shared = shared_datasets
    for row in _manifest(shared, manifest):
        assert sha256_file(shared / row["path"]) == row["sha256"], row["path"]


def test_panel_files_are_recorded_with_a_checksum():
    """Every EPF market (TimeXer's copy) has a sha256; every M4 file a sha256 or the git blob id
    published by its repository, which must agree with the sha256 where both are known."""
    cat = catalogue()
    files = cat["files"]
    for market in cat["epf"]["markets"]:
        entry = files[cat["epf"]["sources"]["timexer"]["file"].format(market=market)]
        assert len(entry["sha256"]) == 64 and entry["shape"] == [52416, 4]
    for frequency in cat["m4"]["frequencies"]:
        for split in ("train", "test"):
            entry = files[cat["m4"]["file"].format(frequency=frequency, split=split)]
            assert len(entry["git_sha1"]) == 40
    assert list_datasets("epf") == {"epf": ["NP", "PJM", "BE", "FR", "DE"]}
    assert list_datasets("m4")["m4"] == ["Yearly", "Quarterly", "Monthly", "Weekly", "Daily",
                                         "Hourly"]  # fmt: skip


def test_m4_hourly_git_blob_ids_match_the_shared_files(shared_datasets):
    from tsattn.datasets import git_blob_sha1

    for split in ("train", "test"):
        relpath = f"forecasting/m4/Hourly-{split}.csv"
        assert git_blob_sha1(shared_datasets / relpath) == catalogue()["files"][relpath]["git_sha1"]


def test_readme_is_generated_from_catalogue():
    committed = (ROOT / "datasets" / "README.md").read_text(encoding="utf-8")
    assert committed == render_readme(), (
        "datasets/README.md is stale: run `tsattn datasets catalogue --write datasets/README.md`")


def test_catalogue_is_package_data():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"datasets/*.json"' in text


def test_archive_name_lists():
    names = list_datasets()
    assert len(names["uea"]) == 30 and len(names["ucr"]) == 128
    assert "Covid3Month" in names["tser"] and "IEEEPPG" in names["tser"]
    assert set(names["forecasting"]) == {"ETTh1", "ETTh2", "ETTm1", "ETTm2", "electricity",
                                         "traffic", "weather", "exchange_rate", "illness"}
    for key in ("uea", "ucr", "tser"):
        archive = catalogue()["archives"][key]
        assert set(archive["zenodo"]) == set(archive["names"])


def test_published_and_settings_name_real_datasets():
    cat = catalogue()
    known = set(cat["archives"]["uea"]["names"]) | set(cat["archives"]["tser"]["names"])
    for table in cat["published"]:
        if table["archive"] in ("uea", "tser"):
            assert set(table["rows"]) - {"Average"} <= known, table["source"]
        for values in table["rows"].values():
            assert len(values) == len(table["columns"]), table["source"]
    assert set(cat["settings"]["beta"]["rows"]) <= known
    assert cat["published"][0]["rows"]["JapaneseVowels"][0] == "99.46 ± 0.27"


def test_unknown_name_lists_close_matches():
    with pytest.raises(ValueError, match="Did you mean JapaneseVowels"):
        resolve_name("JapanesVowels", "uea")
    assert resolve_name("japanesevowels", "uea") == "JapaneseVowels"
    with pytest.raises(ValueError, match="ETTh1"):
        resolve_name("ETTh3", "forecasting")


def _cli(argv: list[str]) -> int:
    from tsattn.commands.datasets import register

    parser = argparse.ArgumentParser(prog="tsattn")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_list_and_catalogue(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(tmp_path))
    assert _cli(["datasets", "list", "--archive", "forecasting"]) == 0
    assert "ETTh1" in capsys.readouterr().out
    out = tmp_path / "README.md"
    assert _cli(["datasets", "catalogue", "--write", str(out)]) == 0
    assert _cli(["datasets", "catalogue", "--check", str(out)]) == 0
    out.write_text("stale\n")
    assert _cli(["datasets", "catalogue", "--check", str(out)]) == 1


def test_cli_fetch_offline_reports_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TSATTN_OFFLINE", "1")
    assert _cli(["datasets", "fetch", "ETTh1"]) == 1
    assert "forecasting/ETTh1.csv" in capsys.readouterr().err
    assert _cli(["datasets", "fetch", "GunPoint"]) == 0  # bundled in aeon: no download
    assert _cli(["datasets", "fetch", "FR"]) == 1
    assert "thuml/TimeXer" in capsys.readouterr().err


def test_cli_lists_and_fetches_panels(shared_datasets, capsys, monkeypatch):
    monkeypatch.setenv("TSATTN_DATA_DIR", str(shared_datasets))
    monkeypatch.setenv("TSATTN_OFFLINE", "1")
    assert _cli(["datasets", "list", "--archive", "epf"]) == 0
    assert "epf (5): NP PJM BE FR DE" in capsys.readouterr().out
    assert _cli(["datasets", "fetch", "NP", "hourly"]) == 0
    out = capsys.readouterr().out
    assert "NP: 52416 hours x 2 covariates (load_forecast, wind_forecast)" in out
    assert "hourly train: 414 series, 353500 values" in out
    assert "hourly test: 414 series, 19872 values" in out
