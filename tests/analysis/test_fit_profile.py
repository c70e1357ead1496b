"""``tsattn profile fit``: a default fit's phases and a training step's parts (timings never asserted)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tsattn.analysis.fit_profile import CASES, PARTS, FitCase, fit_phases, step_parts
from tsattn.cli import main

TINY = (("d_model", 16), ("n_heads", 2), ("n_layers", 1), ("dim_feedforward", 32))


def test_a_tiny_classifier_step_is_charged_to_every_part_once():
    case = FitCase("TSClassifier", "classification", 16, 3, 32, 2, params=TINY)
    out = step_parts(case, steps=4)
    parts = {row["part"]: row for row in out["rows"]}
    assert list(parts) == list(PARTS)
    # the default tokens hold random-kernel features; the whole step is shared out, nothing twice
    assert parts["random-kernel features"]["ms_per_step"] > 0 and parts["optimiser"]["ms_per_step"] > 0
    assert sum(r["share"] for r in out["rows"]) == pytest.approx(1.0, abs=1e-6)
    assert out["n_steps"] == 4 and out["unprofiled_ms_per_step"] > 0
    assert all(r["ops_ms_per_step"] <= r["ms_per_step"] + 1e-9 for r in out["rows"])


def test_phases_of_a_tiny_forecaster_add_up_to_its_fit():
    case = FitCase("TSForecaster", "forecasting", 1, 2, 400, params=(*TINY, ("horizon", 8),
                                                                    ("context_length", 16)))
    phases = fit_phases(case, max_steps=10)
    parts = ("set-up", "training steps", "validation rounds", "epoch callbacks", "rest of the loop",
             "after training")  # fmt: skip
    assert sum(phases[p] for p in parts) == pytest.approx(phases["fit"], rel=1e-6)
    assert phases["validation rounds"] > 0 and phases["n_steps"] == 10


def test_profile_fit_command_writes_its_tables(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(CASES, "classifier", FitCase("TSClassifier", "classification", 16, 2, 32,
                                                     params=TINY))  # fmt: skip
    code = main(["profile", "fit", "--estimators", "classifier", "--steps", "2", "--warmup-steps", "1",
                 "--no-full-fit",
                 "--out", str(tmp_path)])  # fmt: skip
    assert code == 0
    steps = pd.read_csv(tmp_path / "steps.csv")
    assert set(PARTS) <= set(steps.part) and "all (unprofiled)" in set(steps.part)
    record = json.loads((tmp_path / "profile_fit.json").read_text())
    assert record["cases"]["classifier"]["steps"]["n_steps"] == 2
    assert "a training step by part" in (tmp_path / "tables.md").read_text()
    assert set(pd.read_csv(tmp_path / "optimiser.csv").variant) == {"loop", "foreach", "fused"}


def test_profile_fit_refuses_an_unknown_estimator(capsys, tmp_path):
    assert main(["profile", "fit", "--estimators", "nope", "--out", str(tmp_path)]) == 2
    assert "unknown ['nope']" in capsys.readouterr().err
