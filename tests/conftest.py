import csv
import os
from pathlib import Path

import pytest
import torch

# Two cores: keep torch from oversubscribing when pytest-xdist runs workers side by side.
torch.set_num_threads(int(os.environ.get("TSATTN_TEST_THREADS", "1")))

ROOT = Path(__file__).resolve().parents[1]
#: The real datasets, read only, beside the checkout (or where ``TSATTN_SHARED_DATASETS`` says: a
#: git worktree lies elsewhere). Tests reach it through the fixtures below (and
#: ``shared_ts_dataset``), never through a path of their own.
SHARED_DATASETS = Path(os.environ.get("TSATTN_SHARED_DATASETS") or ROOT.parent / "shared" / "datasets")


def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` run only when ``-m`` names them: ``-m "not integration"`` replaces
    addopts' ``-m 'not slow'`` and would otherwise start them. Tests marked ``gpu`` are skipped
    where torch sees no CUDA device."""
    if "slow" not in (config.getoption("markexpr") or ""):
        slow = [item for item in items if item.get_closest_marker("slow")]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if not item.get_closest_marker("slow")]
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    for item in items:
        if item.get_closest_marker("gpu"):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _own_test_ledger(tmp_path_factory, monkeypatch):
    """The suite's TEST-scoring benches write to a ledger of their own, never to
    docs/results/test_ledger.csv, and may start from a developer's dirty tree (recorded as
    unpublishable); tests/benchmarks/test_ledger.py undoes both where it checks them."""
    monkeypatch.setenv("TSATTN_TEST_LEDGER", str(tmp_path_factory.getbasetemp() / "test_ledger.csv"))
    monkeypatch.setenv("TSATTN_UNPUBLISHABLE", "1")


def _shared_present() -> bool:
    return (SHARED_DATASETS / "MANIFEST.tsv").is_file()


@pytest.fixture(scope="session")
def shared_datasets_if_any() -> Path | None:
    """The shared dataset folder, or None where this machine has none."""
    return SHARED_DATASETS if _shared_present() else None


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    """The shared dataset folder; the test is skipped where this machine has none."""
    if not _shared_present():
        pytest.skip(f"shared dataset folder not found at {SHARED_DATASETS}")
    return SHARED_DATASETS


def _shared_ts_datasets() -> list[tuple[str, str]]:
    """``(archive, name)`` of every .ts set in the shared folder's manifest."""
    if not _shared_present():
        return []
    with open(SHARED_DATASETS / "MANIFEST.tsv", newline="") as fh:
        paths = [row["path"] for row in csv.DictReader(fh, delimiter="\t")]
    return sorted({(p.split("/")[0], p.split("/")[-1].rsplit("_", 1)[0])
                   for p in paths if p.endswith("_TRAIN.ts")})  # fmt: skip


def pytest_generate_tests(metafunc):
    """A test taking ``shared_ts_dataset`` runs once per ``(archive, name)`` of the shared folder."""
    if "shared_ts_dataset" in metafunc.fixturenames:
        params = [pytest.param((a, n), id=f"{a}-{n}") for a, n in _shared_ts_datasets()]
        metafunc.parametrize("shared_ts_dataset", params or [pytest.param(
            ("uea", "none"), id="uea-none",
            marks=pytest.mark.skip(reason=f"shared dataset folder not found at {SHARED_DATASETS}"),
        )])  # fmt: skip


@pytest.fixture(autouse=True)
def _torch_threads_restored():
    """Every test starts with the process's torch thread count: code run in-process (``bench
    classify``'s fits set ``torch.set_num_threads`` to the cores per worker, 2 here) left it raised
    for every later test of that pytest worker, and two OpenMP threads per worker on a loaded
    2-core machine made fits up to 50 times slower (test_mixup_...: 24 s -> 1180 s)."""
    threads = torch.get_num_threads()
    yield
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


@pytest.fixture
def ctrl_c_on_fit():
    """Factory of training callbacks that press Ctrl-C at ``epoch`` of the ``fit``-th fit.

    The fit counter lives on a class made per call, so it survives the deep copies that ``clone``
    makes of an estimator's callbacks.
    """
    from tsattn.training import Callback

    def make(fit: int = 2, epoch: int = 1) -> Callback:
        class CtrlC(Callback):
            fits = 0

            def on_train_begin(self, estimator):
                type(self).fits += 1

            def on_epoch_end(self, estimator, record):
                if type(self).fits == fit and record["round"] == epoch:
                    raise KeyboardInterrupt

        return CtrlC()

    return make
