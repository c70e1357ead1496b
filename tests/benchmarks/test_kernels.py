"""``tsattn bench sdpa-padding`` and ``tsattn bench dropout-mask``: the measurements behind two code
rules run and report what they claim (tiny sizes; timings are never asserted)."""

from __future__ import annotations

import json

from tsattn.attention import functional as F_attn
from tsattn.benchmarks.sdpa_padding import _case
from tsattn.cli import main


def test_dropout_mask_command_writes_its_summary(tmp_path, capsys):
    assert main(["bench", "dropout-mask", "--repeats", "1", "--threads", "1",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["shape"] == [32, 315, 256] and summary["random_bytes_ms"] > 0
    assert "randint_over_random_bytes" in capsys.readouterr().out


def test_sdpa_padding_cases_mark_where_sdpa_pads():
    small = _case(8, 32, 32, True, False, repeats=1)
    large = _case(8, 160, 140, True, False, repeats=1)
    assert not small["auto_pads"] and 32 * 32 < F_attn.PAD_MIN_SCORES
    assert large["auto_pads"] and large["plain_ms"] > 0 and large["padded_ms"] > 0
