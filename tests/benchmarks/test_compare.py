"""The main job (`tsattn compare`) and `tsattn bench epoch`, on real bundled data with tiny models."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from aeon.datasets import load_basic_motions, load_japanese_vowels

from tsattn import TSClassifier
from tsattn.benchmarks.compare import attention_flops_per_sample, compare_attentions, paper_accuracy
from tsattn.cli import main

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_epochs=2)


def test_paper_accuracy_lookup():
    assert paper_accuracy("JapaneseVowels", "softmax").startswith("99.46")
    assert paper_accuracy("JapaneseVowels", "bn_sh").startswith("99.55")
    assert paper_accuracy("JapaneseVowels", "mrs").startswith("99.10")
    assert paper_accuracy("NoSuchSet", "softmax") is None
    assert paper_accuracy("JapaneseVowels", "linear") is None


def test_attention_flops_match_the_formula():
    X, y = load_basic_motions(split="train")  # 6 channels, length 100
    clf = TSClassifier(**TINY, tokenizer="step", random_state=0).fit(X, y)  # a token per step
    n, d = 100, 16
    expected = 4 * 2 * n * d * d + 2 * (2 * n * n * d)  # four projections, QK^T and AV
    assert attention_flops_per_sample(clf.module_, n, 6) == expected
    sh = TSClassifier(**TINY, attention="sh", scales=(1, 2), tokenizer="step", random_state=0).fit(X, y)
    assert attention_flops_per_sample(sh.module_, n, 6) < expected


def test_compare_attentions_on_japanese_vowels():
    X, y = load_japanese_vowels(split="train")
    Xt, yt = load_japanese_vowels(split="test")
    runs, summary = compare_attentions(
        X[:60], y[:60], Xt[:40], yt[:40], ["softmax", "bn_sh"], dataset="JapaneseVowels",
        seeds=(0, 1), estimator_params=TINY,
    )
    assert len(runs) == 4 and list(summary.attention) == ["softmax", "bn_sh"]
    assert runs.accuracy.between(0, 1).all()
    assert (summary.attention_flops_per_sample > 0).all()
    assert summary.paper_accuracy.str.startswith("99.").all()


def test_test_selected_accuracy_is_the_best_epoch_on_test_and_changes_nothing_else():
    X, y = load_japanese_vowels(split="train")
    Xt, yt = load_japanese_vowels(split="test")
    params = {**TINY, "max_epochs": 4}
    kw = dict(dataset="JapaneseVowels", seeds=(0,), estimator_params=params)
    plain, _ = compare_attentions(X[:60], y[:60], Xt[:40], yt[:40], ["softmax"], **kw)
    probed, summary = compare_attentions(
        X[:60], y[:60], Xt[:40], yt[:40], ["softmax"], test_selected=True, **kw
    )
    assert probed.accuracy.iloc[0] == plain.accuracy.iloc[0]  # the probe does not touch training
    assert probed.best_epoch.iloc[0] == plain.best_epoch.iloc[0]
    # the trained model's test accuracy is one of the epochs' test accuracies, so never above it
    assert probed.test_selected_accuracy.iloc[0] >= probed.accuracy.iloc[0]
    assert 1 <= probed.test_selected_epoch.iloc[0] <= 4
    assert summary.test_selected_mean.iloc[0] == 100 * probed.test_selected_accuracy.iloc[0]
    if probed.best_epoch.iloc[0] == probed.test_selected_epoch.iloc[0]:
        assert probed.test_selected_accuracy.iloc[0] == probed.accuracy.iloc[0]


def test_compare_command_writes_results(tmp_path, capsys):
    code = main([
        "compare", "--attentions", "softmax", "--max-epochs", "1", "--quiet", "--out", str(tmp_path),
        "--param", "d_model=16", "--param", "n_heads=2", "--param", "n_layers=1",
    ])
    assert code == 0
    out = capsys.readouterr().out
    assert "JapaneseVowels" in out and "99.46" in out
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert list(summary.attention) == ["softmax"]
    assert "test_selected" not in out


def test_compare_command_test_selected_column(tmp_path, capsys):
    code = main([
        "compare", "--attentions", "softmax", "--max-epochs", "2", "--quiet", "--out", str(tmp_path),
        "--param", "d_model=16", "--param", "n_heads=2", "--param", "n_layers=1", "--test-selected",
    ])
    assert code == 0
    assert "test_selected" in capsys.readouterr().out
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert runs.test_selected_accuracy.iloc[0] >= runs.accuracy.iloc[0]


def test_compare_command_rejects_unknown_attention(capsys):
    assert main(["compare", "--attentions", "nope", "--quiet"]) == 2
    assert "Valid:" in capsys.readouterr().err


def test_epoch_time_against_sktime():
    pytest.importorskip("sktime")
    from tsattn.benchmarks.epoch_time import epoch_time_vs_sktime

    X, y = load_basic_motions(split="train")
    frame = epoch_time_vs_sktime(
        X[:16], y[:16], attentions=("softmax",), d_model=8, n_heads=2, n_layers=1,
        dim_feedforward=16, batch_size=8, epochs=1,
    )
    assert list(frame.model) == ["tsattn TSClassifier(softmax)", "sktime MVTSTransformerClassifier"]
    assert np.isfinite(frame.seconds_per_epoch).all()
    assert frame.speedup_vs_sktime.iloc[1] == pytest.approx(1.0)
    # the profiled epoch found the attention kernels and they are part of, not more than, the epoch
    sdpa = frame.sdpa_seconds_per_epoch.iloc[0]
    assert 0 < sdpa < frame.seconds_per_epoch.iloc[0] * 5
    sktime_seconds = frame.seconds_per_epoch.iloc[1]  # tiny fits: may even come out negative
    assert frame.speedup_ceiling_vs_sktime.iloc[0] == pytest.approx(sktime_seconds / sdpa)


def test_sdpa_epoch_profiler_counts_only_the_attention_kernels():
    """softmax runs SDPA in every layer; the linear attention never calls it, so its time is 0."""
    from tsattn.benchmarks.epoch_time import SDPAEpochProfiler

    X, y = load_basic_motions(split="train")
    times = {}
    for attention in ("softmax", "linear"):
        probe = SDPAEpochProfiler()
        clf = TSClassifier(attention=attention, d_model=8, n_heads=2, n_layers=1, dim_feedforward=16,
                           max_epochs=5, callbacks=[probe], random_state=0).fit(X[:16], y[:16])
        assert len(clf.history_) == 2  # one warm-up epoch, one profiled epoch, then it stops
        times[attention] = probe.sdpa_seconds
    assert times["softmax"] > 0
    assert times["linear"] == 0


def test_ctrl_c_stops_compare_without_scoring_the_cut_fit(ctrl_c_on_fit):
    from tsattn.benchmarks import BenchmarkInterrupted

    X, y = load_basic_motions(split="train")
    Xt, yt = load_basic_motions(split="test")
    tiny = dict(d_model=8, n_heads=2, n_layers=1, dim_feedforward=16, max_epochs=2,
                callbacks=[ctrl_c_on_fit(fit=2)])
    with pytest.raises(BenchmarkInterrupted, match="softmax seed 1") as stop, pytest.warns(UserWarning):
        compare_attentions(X, y, Xt, yt, ["softmax"], seeds=(0, 1, 2), estimator_params=tiny)
    assert list(stop.value.partial.seed) == [0]


def test_compare_command_writes_the_finished_runs_on_ctrl_c(tmp_path, capsys, monkeypatch):
    import tsattn.benchmarks.compare as compare_module
    from tsattn.benchmarks import BenchmarkInterrupted

    done = pd.DataFrame([{"attention": "softmax", "seed": 0, "accuracy": 0.99}])

    def interrupted(*args, **kwargs):
        raise BenchmarkInterrupted(done, "interrupted during softmax seed 1")

    monkeypatch.setattr(compare_module, "compare_attentions", interrupted)
    assert main(["compare", "--seeds", "2", "--quiet", "--out", str(tmp_path)]) == 130
    assert pd.read_csv(tmp_path / "runs.csv").equals(done)
    assert "1 finished runs are in" in capsys.readouterr().err


def test_epoch_time_rows_per_precision():
    from tsattn.benchmarks.epoch_time import epoch_time_vs_sktime

    X, y = load_basic_motions(split="train")
    frame = epoch_time_vs_sktime(
        X[:16], y[:16], attentions=("softmax",), d_model=8, n_heads=2, n_layers=1,
        dim_feedforward=16, batch_size=8, epochs=1, include_sktime=False, profile_sdpa=False,
        precisions=("float32", "bf16-mixed"),
    )
    assert list(frame.model) == ["tsattn TSClassifier(softmax)",
                                 "tsattn TSClassifier(softmax, bf16-mixed)"]
    assert list(frame.precision) == ["float32", "bf16-mixed"]
