"""What the tests of the product (documentation site, wheel) share."""

from __future__ import annotations

import importlib.util
import os

import pytest


def require(modules: list[str], extra: str) -> None:
    """Skip unless every module of ``modules`` imports; in CI (``CI=true``) fail instead, so a
    bootstrap that lost an extra cannot turn a check into a silent skip."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return
    message = (f"{', '.join(missing)} not installed: pip install -e '.[{extra}]' "
               "(bash scripts/bootstrap.sh test installs it)")  # fmt: skip
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(message)
    pytest.skip(message)
