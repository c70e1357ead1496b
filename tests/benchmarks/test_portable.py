"""Recorded commands name no folder of the machine they ran on."""

from __future__ import annotations

import os

from tsattn.benchmarks import portable_paths


def test_absolute_paths_become_relative_or_a_placeholder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = portable_paths(["bench", "--out", str(tmp_path / "docs" / "r"), "--datasets",
                          os.path.abspath(os.sep + "elsewhere" + os.sep + "d.csv"), "ETTh1"])  # fmt: skip
    assert out == ["bench", "--out", os.path.join("docs", "r"), "--datasets", "<elsewhere>/d.csv", "ETTh1"]
