"""The package's layout (``docs/guide/contributing.md``, "The floors every change keeps"): every
module of ``tsattn/`` a few hundred lines at most, split by what a part is, and the estimators'
package holding the estimators with few private helpers beside them (the forecaster's parts have
a package of their own, ``tsattn/estimators/forecaster/``)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tsattn"
#: The most lines a module of ``tsattn/`` may have.
MAX_LINES = 400
#: The most private modules (``_name.py``, not ``__init__``) directly in ``tsattn/estimators/``.
MAX_PRIVATE_ESTIMATOR_MODULES = 10


def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}  # fmt: skip
    assert not long, f"split these by what their parts are: {long}"


def test_the_estimators_package_has_few_private_modules():
    private = sorted(p.name for p in (PACKAGE / "estimators").glob("_*.py")
                     if p.name != "__init__.py")  # fmt: skip
    assert len(private) <= MAX_PRIVATE_ESTIMATOR_MODULES, private
