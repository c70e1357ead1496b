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
    "readme", sorted(RESULTS.rglob("README.md")), ids=lambda p: str(p.relative_to(RESULTS))
)
def test_relative_links_of_the_result_readmes_resolve(readme):
    text = readme.read_text(encoding="utf-8")
    broken = [
        link for pair in RELATIVE_LINK.findall(text) for link in pair
        if link and not (readme.parent / link).exists()
    ]
    assert not broken, f"{readme.relative_to(ROOT)} links to missing paths: {broken}"
