"""Helpers the test modules share: slow reference attention (``reference_attention``), a local
HTTP server and cache isolation (``datasets``), toy data (``series``). Test modules import from
here, never from one another; data on disk comes from the fixtures in ``tests/conftest.py``."""

from pathlib import Path

#: The checkout under test (the folder holding ``tsattn/``, ``README.md``, ``pyproject.toml``).
REPO_ROOT = Path(__file__).resolve().parents[2]
