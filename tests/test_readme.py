"""The README is the front door: short, its variants table generated, its result pointers real; and
``docs/results/`` is a short shelf of current records, one folder per experiment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tsattn.attention import variants_table

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
RESULTS = ROOT / "docs" / "results"
INDEX = (RESULTS / "README.md").read_text(encoding="utf-8")
COMMAND = "python3 -m tsattn"
#: Issue 36: a reader finds an experiment among a few folders, not a lab notebook of them.
MAX_RESULT_FOLDERS = 10
#: A markdown link's target, or a relative path in backquotes (``../classify/``).
RELATIVE_LINK = re.compile(r"\]\((?!https?:|#|mailto:)([^)\s#]+)|`(\.\./[^`\s]+)`")


def _result_folders() -> list[Path]:
    return sorted(p for p in RESULTS.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def _record_readme(folder: Path) -> str:
    readme = folder / "README.md"
    assert readme.is_file(), f"{folder.relative_to(ROOT)}/ has no README.md"
    return readme.read_text(encoding="utf-8")


def test_readme_is_short_and_keeps_to_the_repository():
    assert len(README.splitlines()) < 150
    assert "../shared" not in README


def test_readme_variants_table_is_the_generated_one():
    assert variants_table() in README, (
        "README's variants table is stale: paste tsattn.attention.variants_table() in its place"
    )


def test_every_results_pointer_of_the_readme_is_a_record_with_its_command():
    pointers = {p.rstrip("/.") for p in re.findall(r"docs/results/([\w./-]+)", README)}
    pointers -= {"", "README.md"}  # the index of every record, checked below
    assert pointers, "the README points to no result"
    for pointer in sorted(pointers):
        target = RESULTS / pointer
        assert target.exists(), f"README points to docs/results/{pointer}, which does not exist"
        folder = target if target.is_dir() else target.parent
        assert COMMAND in _record_readme(folder), (
            f"{folder.relative_to(ROOT)}/README.md gives no `{COMMAND} ...` command"
        )


def test_results_hold_at_most_ten_folders():
    names = [p.name for p in _result_folders()]
    assert len(names) <= MAX_RESULT_FOLDERS, (
        f"docs/results/ holds {len(names)} folders, at most {MAX_RESULT_FOLDERS}: group related "
        f"experiments under one folder with an index README ({', '.join(names)})"
    )


@pytest.mark.parametrize("folder", _result_folders(), ids=lambda p: p.name)
def test_every_results_folder_has_its_command_and_a_line_in_the_index(folder):
    assert COMMAND in _record_readme(folder), (
        f"docs/results/{folder.name}/README.md gives no `{COMMAND} ...` command"
    )
    assert re.search(rf"\]\({re.escape(folder.name)}/(README\.md)?\)", INDEX), (
        f"docs/results/README.md has no line linking {folder.name}/"
    )


@pytest.mark.parametrize(
    "readme", sorted(p for p in RESULTS.rglob("*.md") if p.name != "results.md"),  # the benches' own reports
    ids=lambda p: str(p.relative_to(RESULTS)),
)
def test_relative_links_of_the_result_readmes_resolve(readme):
    text = readme.read_text(encoding="utf-8")
    broken = [
        link for pair in RELATIVE_LINK.findall(text) for link in pair
        if link and not (readme.parent / link).exists()
    ]
    assert not broken, f"{readme.relative_to(ROOT)} links to missing paths: {broken}"


# ---------------------------------------------------------------------- the README's numbers and code
def _tables_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_tables", ROOT / "scripts" / "readme_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["classification", "forecasting", "regression"])
def test_readme_result_tables_are_the_ones_the_result_files_give(name):
    """Issue 52: every number of the README's result tables is rendered from committed result files
    of named runs, with the line naming those runs; any drift fails here."""
    block = _tables_script().render()[name]
    assert block in README, (
        f"README.md's {name} table differs from the result files: python3 scripts/readme_tables.py --write"
    )
    assert "Runs: " in block


def test_readme_claims_nothing_the_records_contradict():
    """Claims issue 52 found false: peers 'on the same windows and steps' (they were older runs at
    other budgets), an H200 time with no file behind it, a forecaster 'reproduced' that misses the
    paper's table, installing from a registry that does not serve tsattn."""
    text = " ".join(README.split())
    for claim in ("same windows and steps", "on an H200", "reproduced at their", "pip install tsattn",
                  "<this repository>", "measured in the same run"):
        assert claim not in text, f"README.md still says {claim!r}"
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    assert "pip install tsattn\n" not in install and "<this repository>" not in install


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, re.S)


def _run_statements(code: str, first: str | None = None) -> dict:
    """Execute ``code`` (from its statement starting with ``first``, after its imports) with the
    estimators' step budget from ``TSATTN_README_BUDGET`` (default 20 steps; ``full``: as written)."""
    import ast
    import functools
    import os

    import tsattn

    budget = os.environ.get("TSATTN_README_BUDGET", "20")
    nodes = ast.parse(code).body
    if first is not None:
        start = next(i for i, n in enumerate(nodes) if ast.unparse(n).startswith(first))
        nodes = [n for n in nodes[:start] if isinstance(n, ast.ImportFrom | ast.Import)] + nodes[start:]
    names = ("TSClassifier", "TSRegressor", "TSForecaster")
    saved = {n: getattr(tsattn, n) for n in names}
    try:
        if budget != "full":
            for n in names:
                setattr(tsattn, n, functools.partial(saved[n], max_steps=int(budget)))
        namespace: dict = {}
        exec(compile(ast.Module(nodes, []), "README.md", "exec"), namespace)
        return namespace
    finally:
        for n, cls in saved.items():
            setattr(tsattn, n, cls)


def _check_forecast_comments(ns: dict) -> None:
    import numpy as np
    import pandas as pd

    series, model = ns["series"], ns["model"]
    assert isinstance(series, pd.Series) and model.period_ == 12  # "12: the season read from ..."
    pred = model.predict()
    assert isinstance(pred, pd.Series) and len(pred) == 12  # "the next 12 months, the index continued"
    assert pred.index[0] == series.index[-1] + 1 and pred.index.freqstr == series.index.freqstr
    low, high = model.predict_interval(coverage=0.8)
    assert (np.asarray(low) <= np.asarray(high)).all()
    # the quickstart's paragraph: the point forecast is the blend, not the intervals' median
    parts = model.predict_components()
    assert parts["anchor"] is not None
    np.testing.assert_allclose(np.asarray(pred, float), np.asarray(parts["forecast"], float), rtol=1e-6)


def test_readme_forecasting_quickstart_runs_and_its_comments_hold():
    """The forecasting lines of the quickstart, as a new user runs them (aeon 1.6's load_airline
    returns a bare array unless return_array=False: no index, no season)."""
    ns = _run_statements(_python_blocks()[0], first="series =")
    _check_forecast_comments(ns)


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(_python_blocks())))
def test_readme_python_blocks_run(index):
    """Every python block of the README, whole (``-m slow``: the regressor's MultiRocket anchor
    alone takes minutes on a loaded 2-core machine)."""
    ns = _run_statements(_python_blocks()[index])
    if "clf" in ns:
        assert ns["clf"].attention_maps(ns["Xt"][:4]).shape[0] == 4
    if "model" in ns:
        _check_forecast_comments(ns)


# ---------------------------------------------------------------------- issue 78: a lean, consistent shelf
#: Issue 78's bounds on docs/results/: current runs only.
MAX_RESULT_BYTES, MAX_RESULT_FILES = 25 * 2**20, 400


def test_results_stay_lean():
    files = [p for p in RESULTS.rglob("*") if p.is_file() and not p.name.startswith(".")]
    size = sum(p.stat().st_size for p in files)
    assert len(files) <= MAX_RESULT_FILES, f"docs/results/ holds {len(files)} files (at most {MAX_RESULT_FILES})"
    assert size <= MAX_RESULT_BYTES, f"docs/results/ holds {size / 2**20:.1f} MB (at most 25)"


def _record(folder: Path) -> dict:
    import json

    for name in ("config.json", "run.json"):
        if (folder / name).is_file():
            return json.loads((folder / name).read_text(encoding="utf-8"))
    return {}


@pytest.mark.parametrize("path", sorted(RESULTS.rglob("results.csv")), ids=lambda p: str(p.parent.relative_to(RESULTS)))
def test_every_row_names_a_run_of_its_folders_record(path):
    """Issue 78: every row of every results.csv has the run_id of an entry of its folder's record
    (config.json, or run.json for bench m4|epf), so each number names its command, code and machine."""
    import pandas as pd

    rows = pd.read_csv(path, keep_default_na=False, dtype=str)
    assert "run_id" in rows, f"{path.relative_to(ROOT)} has no run_id column"
    ids = {r.get("id") for r in _record(path.parent).get("runs", [])}
    missing = rows[~rows.run_id.isin(ids)]
    assert missing.empty, (f"{path.relative_to(ROOT)}: {len(missing)} rows without a run of its record, "
                           f"e.g. {missing.iloc[0].to_dict()}")


@pytest.mark.parametrize("path", sorted([*RESULTS.rglob("config.json"), *RESULTS.rglob("run.json")]),
                         ids=lambda p: str(p.relative_to(RESULTS)))
def test_every_record_says_whether_it_is_current(path):
    status = _record(path.parent).get("status", "")
    assert status == "current" or re.fullmatch(r"superseded \(by .+\)", status), (
        f"{path.relative_to(ROOT)}: status {status!r}; current runs only stay (issue 78)")


def test_the_index_and_the_results_pages_are_the_ones_the_files_give():
    """Issue 78: docs/results/README.md's table, the ledger's counts and each benchmark page's TEST
    count are rendered from the files; any drift fails here."""
    for (page, name), block in _tables_script().render_pages().items():
        text = (ROOT / page).read_text(encoding="utf-8")
        assert f"<!-- tables:{name} -->\n{block}\n<!-- /tables:{name} -->" in text, (
            f"{page}'s {name} block differs from the files: python3 scripts/readme_tables.py --write")


def test_the_readme_states_the_rule_and_names_the_ledger():
    block = _tables_script().render()["rule"]
    assert "TEST is scored once per decision" in block and "docs/results/test_ledger.csv" in block
    assert block in README


def test_the_epf_page_shows_its_scripts_table():
    """The EPF TEST table of panels/epf.md is what epf_asinh/table.py prints from the folder's rows."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(RESULTS / "panels" / "epf_asinh" / "table.py")],
                          capture_output=True, text=True, cwd=ROOT, check=True,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
    table = [line for line in done.stdout.splitlines() if line.startswith("|")]
    page = (RESULTS / "panels" / "epf.md").read_text(encoding="utf-8")
    assert len(table) > 5 and "\n".join(table) in page
