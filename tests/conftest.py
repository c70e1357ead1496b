import os
import sys
from pathlib import Path

import pytest
import torch

# Two cores: keep torch from oversubscribing when pytest-xdist runs workers side by side.
torch.set_num_threads(int(os.environ.get("TSATTN_TEST_THREADS", "1")))

ROOT = Path(__file__).resolve().parents[1]
# tests/ is a package, so pytest puts the repository root on sys.path, not tests/; the datasets
# tests import their helpers as a top-level module.
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))
SHARED_DATASETS = ROOT.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def shared_datasets() -> Path:
    if not SHARED_DATASETS.is_dir():
        pytest.skip(f"../shared/datasets not found at {SHARED_DATASETS}")
    return SHARED_DATASETS
