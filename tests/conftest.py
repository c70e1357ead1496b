import os
from pathlib import Path

import pytest
import torch

# Two cores: keep torch from oversubscribing when pytest-xdist runs workers side by side.
torch.set_num_threads(int(os.environ.get("TSATTN_TEST_THREADS", "1")))

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = ROOT.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"../shared/datasets not found at {SHARED_DATASETS}")
    return SHARED_DATASETS


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
