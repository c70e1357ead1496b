"""Remove outputs and execution counts from the notebooks before committing them.

    .venv/bin/python scripts/strip_notebooks.py              # every notebooks/*.ipynb
    .venv/bin/python scripts/strip_notebooks.py PATH ...     # the given ones

``tests/test_notebooks.py`` refuses stored outputs: the tests execute every notebook anyway, and
outputs (PNG plots above all) would swell the repository and its diffs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat


def strip(path: Path) -> bool:
    nb = nbformat.read(path, as_version=4)
    changed = False
    for cell in nb.cells:
        if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
            cell.outputs, cell.execution_count, changed = [], None, True
    if changed:
        nbformat.write(nb, path)
    return changed


def main(argv: list[str]) -> None:
    root = Path(__file__).resolve().parents[1]
    paths = [Path(a) for a in argv] or sorted((root / "notebooks").glob("*.ipynb"))
    for path in paths:
        print(f"{path}: {'stripped' if strip(path) else 'clean'}")


if __name__ == "__main__":
    main(sys.argv[1:])
