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
