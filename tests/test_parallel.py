"""Scale-out on Dask: a real 2-worker LocalCluster runs a `bench classify` grid and the
cross-validation folds of `tune`, with the same results as a serial run; clear errors when the
scheduler cannot be reached or Dask is missing."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

import pandas as pd
import pytest

pytest.importorskip("distributed")

from tsattn._parallel import parallel_backend  # noqa: E402
from tsattn.benchmarks.classify import ClassifyBenchmark, run_classify_benchmark  # noqa: E402

TINY = dict(d_model=16, n_heads=2, n_layers=1, dim_feedforward=32, max_steps=20)
SAME = ["dataset", "model", "seed", "fold", "status", "score", "n_steps", "n_params"]


@contextlib.contextmanager
def one_core():
    """Run on one core of this process's CPU affinity (the benchmark then uses one torch thread)."""
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("needs os.sched_setaffinity (Linux)")
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


@pytest.mark.integration
def test_bench_grid_on_a_two_worker_local_cluster_gives_the_serial_rows(tmp_path):
    grid = dict(datasets=["BasicMotions"], attentions=["softmax", "bn"], peers=[], seeds=[0],
                params=TINY)  # fmt: skip
    with one_core():  # one torch thread, as each Dask worker: the rounding then matches
        serial = run_classify_benchmark(ClassifyBenchmark(**grid), tmp_path / "serial",
                                        progress=False, log=lambda *a: None)  # fmt: skip
    assert (serial.threads == 1).all()
    dask = run_classify_benchmark(ClassifyBenchmark(**grid, n_jobs=2, scheduler="local"),
                                  tmp_path / "dask", progress=False, log=lambda *a: None)  # fmt: skip
    assert len(serial) == 2 and (serial.status == "ok").all()

    def rows(frame: pd.DataFrame) -> pd.DataFrame:
        return frame[SAME].sort_values(["model", "seed"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(rows(serial), rows(dask))
    assert (dask.threads == 1).all()  # one torch thread per single-threaded Dask worker


def test_unreachable_scheduler_is_a_clear_error_before_any_work():
    with pytest.raises(ValueError, match="cannot reach the Dask scheduler 'tcp://127.0.0.1:9'"):
        with parallel_backend(2, "tcp://127.0.0.1:9", timeout=1):
            pytest.fail("the block must not run")


def test_bench_command_refuses_an_unreachable_scheduler(tmp_path, capsys):
    from tsattn.cli import main

    code = main(["bench", "classify", "--datasets", "BasicMotions", "--attentions", "softmax",
                 "--peers", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path), "-q"])
    assert code == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().out
    assert not (tmp_path / "results.csv").exists()


@pytest.mark.integration
def test_missing_dask_names_the_extra():
    code = (
        "import sys; sys.modules['distributed'] = None\n"  # as on a machine without it
        "from tsattn._parallel import parallel_backend\n"
        "try:\n"
        "    with parallel_backend(2, 'local'): pass\n"
        "except ImportError as err: print(err)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'tsattn[dask]'" in out.stdout
